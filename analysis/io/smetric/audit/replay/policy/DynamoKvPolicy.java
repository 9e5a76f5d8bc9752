package io.smetric.audit.replay.policy;

/**
 * NVIDIA Dynamo's KV router cost (ai-dynamo/dynamo : lib/kv-router/src/scheduling/selector.rs,
 * config.rs), at temperature 0: logit_i = prefill_load_scale x max(0, (active_prefill_tokens_i +
 * ISL) / B - overlap_credit x overlap_blocks_i) + potential_decode_blocks_i +
 * decode_weight x active_requests_i; argmin. potential_decode_blocks_i = KV blocks held by i's
 * running requests plus the new request's blocks. Defaults: credit 1, scale 1, weight 0. Ties:
 * round robin (Dynamo samples among ties; a fixed rotation keeps runs repeatable).
 */
public final class DynamoKvPolicy extends ScoringPolicy {
  private final Policies.DynamoConfig c;

  public DynamoKvPolicy(Policies.DynamoConfig c) {
    this.c = c;
  }

  @Override
  int score(ClusterView v, int n) {
    double b = Math.max(1, v.blockSize());
    for (int i = 0; i < n; i++) {
      cost[i] = c.prefillLoadScale() * adjustedPrefillBlocks(v, i, b, c.overlapCredit()) + potentialDecodeBlocks(v, i)
          + c.decodeRequestWeight() * v.requests(i);
    }
    return tie.roundRobinArgmin(cost, n);
  }

  /** max(0, (active prefill tokens_i + ISL) / B - credit x overlap blocks_i). */
  static double adjustedPrefillBlocks(ClusterView v, int i, double blockSize, double credit) {
    return Math.max(0, (v.unprefilledTokens(i) + (double) v.inputTokens()) / blockSize - credit * v.localHitBlocks(i));
  }

  /** KV blocks held by instance i's running requests plus the new request's blocks. */
  static double potentialDecodeBlocks(ClusterView v, int i) {
    return v.activeBlocks(i) + v.promptBlocks();
  }
}
