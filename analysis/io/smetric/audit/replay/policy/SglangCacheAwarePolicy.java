package io.smetric.audit.replay.policy;

/**
 * SGLang router's cache-aware policy (sgl-project/sglang : sgl-router/src/policies/cache_aware.rs):
 * if max_load - min_load > abs AND max_load > rel x min_load, the least loaded worker; otherwise
 * the worker with the longest prefix match if match / input > cache_threshold, else the worker
 * with the smallest tree. Load = requests in flight. Deviation: the router's approximate radix
 * tree of routed prompts is replaced by the instances' actual cache (as if it mirrored it), so
 * "smallest tree" = fewest cached blocks. Defaults abs 64, rel 1.5, threshold 0.3.
 */
public final class SglangCacheAwarePolicy extends ScoringPolicy {
  private final Policies.SglangConfig c;

  public SglangCacheAwarePolicy(Policies.SglangConfig c) {
    this.c = c;
  }

  @Override
  int score(ClusterView v, int n) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      min = Math.min(min, v.requests(i));
      max = Math.max(max, v.requests(i));
    }
    if (max - min > c.balanceAbs() && max > c.balanceRel() * min) {
      for (int i = 0; i < n; i++) key[i] = v.requests(i);
      return tie.roundRobinArgmin(key, n);
    }
    long bestHit = -1;
    for (int i = 0; i < n; i++) bestHit = Math.max(bestHit, v.localHitTokens(i));
    double rate = v.inputTokens() == 0 ? 0 : (double) bestHit / v.inputTokens();
    if (rate > c.cacheThreshold()) {
      for (int i = 0; i < n; i++) key[i] = v.localHitTokens(i) == bestHit ? v.requests(i) : Long.MAX_VALUE;
    } else {
      for (int i = 0; i < n; i++) key[i] = v.cachedBlocks(i);
    }
    return tie.roundRobinArgmin(key, n);
  }
}
