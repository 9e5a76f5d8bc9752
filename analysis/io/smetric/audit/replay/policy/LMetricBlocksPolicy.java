package io.smetric.audit.replay.policy;

/**
 * LMetric as ported to NVIDIA Dynamo's KV router (ai-dynamo/dynamo PR 11028, selection policy
 * {@code lmetric}): cost_i = adjusted_prefill_blocks_i x (potential_decode_blocks_i + 1), argmin,
 * with the two factors of Dynamo's own cost ({@link DynamoKvPolicy}): adjusted prefill blocks =
 * max(0, (active prefill tokens_i + ISL) / B - overlap blocks_i), potential decode blocks = KV blocks
 * held by i's running requests plus the new request's blocks. Unlike {@link LMetricPolicy}
 * (new prefill tokens x (requests + 1)), the load factor counts the context being decoded, so an
 * instance holding a few long agent sessions looks as busy as their tokens make it. Ties (e.g. a
 * zero prefill term on several instances): fewer potential decode blocks, then round robin.
 */
public final class LMetricBlocksPolicy implements Policy {
  private final Tiebreak tie = new Tiebreak();
  private double[] key = new double[0];
  private double[] decode = new double[0];

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (key.length != n) {
      key = new double[n];
      decode = new double[n];
    }
    double b = Math.max(1, v.blockSize());
    double bestCost = Double.POSITIVE_INFINITY;
    double bestDecode = Double.POSITIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      decode[i] = DynamoKvPolicy.potentialDecodeBlocks(v, i);
      double cost = DynamoKvPolicy.adjustedPrefillBlocks(v, i, b, 1.0) * (decode[i] + 1);
      key[i] = cost;
      if (cost < bestCost || (cost == bestCost && decode[i] < bestDecode)) {
        bestCost = cost;
        bestDecode = decode[i];
      }
    }
    for (int i = 0; i < n; i++) key[i] = key[i] == bestCost && decode[i] == bestDecode ? 0 : 1;
    return tie.roundRobinArgmin(key, n);
  }
}
