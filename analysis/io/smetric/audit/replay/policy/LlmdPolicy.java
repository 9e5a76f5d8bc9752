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
public final class LlmdPolicy extends ScoringPolicy {
  private final Policies.LlmdConfig c;

  public LlmdPolicy(Policies.LlmdConfig c) {
    this.c = c;
  }

  @Override
  int score(ClusterView v, int n) {
    double prefixMaxTokens = c.prefixMaxTokens();
    double loadThreshold = c.loadAwareThreshold();
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
      double score = c.prefixWeight() * prefix + c.queueWeight() * queue + c.kvUtilWeight() * kv;
      if (c.loadAwareWeight() != 0) {
        score += c.loadAwareWeight() * 0.5 * (1.0 - Math.min(v.waiting(i), loadThreshold) / loadThreshold);
      }
      cost[i] = -score;
    }
    return tie.roundRobinArgmin(cost, n);
  }
}
