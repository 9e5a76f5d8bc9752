package io.smetric.audit.replay.policy;

/**
 * Production cache-aware routing in the style of Alibaba's open-source Llumnix cache-aware
 * scheduling (llumnix-project/llumnix : docs/source/design/scheduler/cache_aware_scheduling.md),
 * our stand-in for the paper's BAILIAN baseline, whose formula is not public: argmin over
 * instances of (prefix-miss tokens if routed there + prefill tokens already queued there); load
 * only breaks ties (then round robin). Prompts shorter than {@code minTokens} skip cache scoring
 * and go to the least loaded instance, as Llumnix applies the scorer only to long prompts.
 */
public final class CacheAffinityPolicy extends ScoringPolicy {
  private final int minTokens;

  public CacheAffinityPolicy(Policies.CacheAffinityConfig c) {
    this.minTokens = c.minTokens();
  }

  @Override
  int score(ClusterView v, int n) {
    if (v.inputTokens() < minTokens) return tie.leastLoad(v, key);
    long min = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      key[i] = (v.inputTokens() - v.localHitTokens(i)) + v.unprefilledTokens(i);
      min = Math.min(min, key[i]);
    }
    // among minimal cost: least load, round robin (each slot turns from its cost into its key)
    for (int i = 0; i < n; i++) key[i] = key[i] == min ? v.load(i) : Long.MAX_VALUE;
    return tie.roundRobinArgmin(key, n);
  }
}
