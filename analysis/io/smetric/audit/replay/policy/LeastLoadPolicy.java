package io.smetric.audit.replay.policy;

/**
 * Pure load balance: round_robin_argmin of load(), the paper's "load balance" baseline and
 * SMetric's fallback branch (requests when colocated, unprefilled tokens when disaggregated).
 */
public final class LeastLoadPolicy implements Policy {
  private final Tiebreak tie = new Tiebreak();
  private long[] l = new long[0];

  @Override
  public int route(ClusterView v) {
    if (l.length != v.instances()) l = new long[v.instances()];
    return tie.leastLoad(v, l);
  }
}
