package io.smetric.audit.replay.policy;

/**
 * Production cache-aware routing in the style of Alibaba's open-source Llumnix cache-aware
 * scheduling (llumnix-project/llumnix : docs/source/design/scheduler/cache_aware_scheduling.md),
 * our stand-in for the paper's BAILIAN baseline, whose formula is not public: argmin over
 * instances of (prefix-miss tokens if routed there + prefill tokens already queued there); load
 * only breaks ties (then round robin). Prompts shorter than {@code minTokens} skip cache scoring
 * and go to the least loaded instance, as Llumnix applies the scorer only to long prompts.
 */
public final class CacheAffinityPolicy implements Policy {
  private final int minTokens;
  private final Tiebreak tie = new Tiebreak();
  private long[] cost = new long[0];
  private long[] scratch = new long[0];

  public CacheAffinityPolicy(int minTokens) {
    this.minTokens = minTokens;
  }

  @Override
  public boolean probesEveryInstance() {
    return true;
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (cost.length != n) {
      cost = new long[n];
      scratch = new long[n];
    }
    if (v.inputTokens() < minTokens) return tie.leastLoad(v, scratch);
    long min = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      cost[i] = (v.inputTokens() - v.localHitTokens(i)) + v.unprefilledTokens(i);
      min = Math.min(min, cost[i]);
    }
    // among minimal cost: least load, round robin
    for (int i = 0; i < n; i++) scratch[i] = cost[i] == min ? v.load(i) : Long.MAX_VALUE;
    return tie.roundRobinArgmin(scratch, n);
  }
}
