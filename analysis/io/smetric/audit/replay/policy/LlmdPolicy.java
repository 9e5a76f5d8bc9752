package io.smetric.audit.replay.policy;

/**
 * llm-d inference scheduler's weighted scorers and max-score picker (llm-d/llm-d-inference-scheduler :
 * config/charts/epplib/templates/_config.yaml, pkg/epp/framework/plugins/scheduling/scorer/): the
 * default profile is score = 3 x prefix + 2 x queue + 2 x kv-util, argmax. prefix = matched /
 * total prompt blocks; queue = (maxQ - q) / (maxQ - minQ) over waiting requests (1 for all when
 * equal); kv-util = 1 - used / capacity; load-aware (weight 0 unless configured) = 0.5 x (1 -
 * min(q, threshold) / threshold). With a finite {@code prefixMaxTokens} the prefix scorer sees
 * only the prompt's first that many tokens, as the router truncates the prompt it hashes:
 * prefix = min(hit, cap) / min(input, cap) in tokens. Ties: round robin (the picker shuffles).
 */
public final class LlmdPolicy implements Policy {
  private final double wPrefix;
  private final double wQueue;
  private final double wKv;
  private final double wLoad;
  private final double loadThreshold;
  private final double prefixMaxTokens;
  private final Tiebreak tie = new Tiebreak();
  private double[] neg = new double[0];

  /** The default profile's three scorers, no prefix cap (the built-in llm-d policy). */
  public LlmdPolicy(double wPrefix, double wQueue, double wKv) {
    this(wPrefix, wQueue, wKv, 0, 128, Double.POSITIVE_INFINITY);
  }

  public LlmdPolicy(double wPrefix, double wQueue, double wKv, double wLoad, int loadThreshold, double prefixMaxTokens) {
    this.wPrefix = wPrefix;
    this.wQueue = wQueue;
    this.wKv = wKv;
    this.wLoad = wLoad;
    this.loadThreshold = loadThreshold;
    this.prefixMaxTokens = prefixMaxTokens;
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
    boolean capped = Double.isFinite(prefixMaxTokens);
    double cappedInput = Math.min(v.inputTokens(), prefixMaxTokens);
    for (int i = 0; i < n; i++) {
      double prefix;
      if (capped) prefix = cappedInput <= 0 ? 0 : Math.min(v.localHitTokens(i), prefixMaxTokens) / cappedInput;
      else prefix = total == 0 ? 0 : (double) v.localHitBlocks(i) / total;
      double queue = maxQ == minQ ? 1.0 : (double) (maxQ - v.waiting(i)) / (maxQ - minQ);
      double kv = 1.0 - v.kvUsage(i);
      double score = wPrefix * prefix + wQueue * queue + wKv * kv;
      if (wLoad != 0) score += wLoad * 0.5 * (1.0 - Math.min(v.waiting(i), loadThreshold) / loadThreshold);
      neg[i] = -score;
    }
    return tie.roundRobinArgmin(neg, n);
  }
}
