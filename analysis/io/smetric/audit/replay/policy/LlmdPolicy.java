package io.smetric.audit.replay.policy;

/**
 * llm-d inference scheduler's default weighted scorers (llm-d/llm-d-inference-scheduler :
 * config/charts/epplib/templates/_config.yaml): score = 3 x prefix + 2 x queue + 2 x kv-util,
 * argmax. prefix = matched / total prompt blocks; queue = (maxQ - q) / (maxQ - minQ) over waiting
 * requests (1 for all when equal); kv-util = 1 - used / capacity. Ties: round robin.
 */
public final class LlmdPolicy implements Policy {
  private final double wPrefix;
  private final double wQueue;
  private final double wKv;
  private final Tiebreak tie = new Tiebreak();
  private double[] neg = new double[0];

  public LlmdPolicy(double wPrefix, double wQueue, double wKv) {
    this.wPrefix = wPrefix;
    this.wQueue = wQueue;
    this.wKv = wKv;
  }

  @Override
  public boolean probesEveryInstance() {
    return true;
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (neg.length != n) neg = new double[n];
    int minQ = Integer.MAX_VALUE;
    int maxQ = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      minQ = Math.min(minQ, v.waiting(i));
      maxQ = Math.max(maxQ, v.waiting(i));
    }
    int total = v.promptBlocks();
    for (int i = 0; i < n; i++) {
      double prefix = total == 0 ? 0 : (double) v.localHitBlocks(i) / total;
      double queue = maxQ == minQ ? 1.0 : (double) (maxQ - v.waiting(i)) / (maxQ - minQ);
      double kv = 1.0 - v.kvUsage(i);
      neg[i] = -(wPrefix * prefix + wQueue * queue + wKv * kv);
    }
    return tie.roundRobinArgmin(neg, n);
  }
}
