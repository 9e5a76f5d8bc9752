package io.smetric.audit.replay.policy;

/**
 * NVIDIA Dynamo's KV router cost (ai-dynamo/dynamo : lib/kv-router/src/scheduling/selector.rs,
 * config.rs), at temperature 0: logit_i = prefill_load_scale x max(0, (active_prefill_tokens_i +
 * ISL) / B - overlap_credit x overlap_blocks_i) + potential_decode_blocks_i +
 * decode_weight x active_requests_i; argmin. potential_decode_blocks_i = KV blocks held by i's
 * running requests plus the new request's blocks. Defaults: credit 1, scale 1, weight 0. Ties:
 * round robin (Dynamo samples among ties; a fixed rotation keeps runs repeatable).
 */
public final class DynamoKvPolicy implements Policy {
  private final double credit;
  private final double prefillScale;
  private final double decodeWeight;
  private final Tiebreak tie = new Tiebreak();
  private double[] logit = new double[0];

  public DynamoKvPolicy(double credit, double prefillScale, double decodeWeight) {
    this.credit = credit;
    this.prefillScale = prefillScale;
    this.decodeWeight = decodeWeight;
  }

  @Override
  public boolean probesEveryInstance() {
    return true;
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (logit.length != n) logit = new double[n];
    double b = Math.max(1, v.blockSize());
    for (int i = 0; i < n; i++) {
      logit[i] = prefillScale * adjustedPrefillBlocks(v, i, b, credit) + potentialDecodeBlocks(v, i)
          + decodeWeight * v.requests(i);
    }
    return tie.roundRobinArgmin(logit, n);
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
