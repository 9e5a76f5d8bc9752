package io.smetric.audit.replay.policy;

import io.smetric.audit.contract.BlockChain;
import java.util.Arrays;

/**
 * Consistent hashing of the session id, as the vLLM production-stack session router does
 * (vllm-project/production-stack : src/vllm_router/routers/routing_logic.py): a ring with
 * {@code vnodes} virtual nodes per instance; a request goes to the first virtual node clockwise
 * of its session's hash. A request without a session goes to the least loaded instance (the
 * production stack's "lowest QPS" fallback).
 */
public final class SessionHashPolicy implements Policy {
  private final int vnodes;
  private long[] ring;
  private int[] owner;
  private final Tiebreak tie = new Tiebreak();
  private long[] scratch = new long[0];

  public SessionHashPolicy(Policies.SessionHashConfig c) {
    this.vnodes = c.vnodes();
  }

  private void build(int n) {
    long[][] pts = new long[n * vnodes][];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < vnodes; k++) {
        pts[i * vnodes + k] = new long[] {BlockChain.fmix64(BlockChain.mix64(i, k)), i};
      }
    }
    Arrays.sort(pts, (a, b) -> a[0] != b[0] ? Long.compareUnsigned(a[0], b[0]) : Long.compare(a[1], b[1]));
    ring = new long[pts.length];
    owner = new int[pts.length];
    for (int j = 0; j < pts.length; j++) {
      ring[j] = pts[j][0];
      owner[j] = (int) pts[j][1];
    }
    scratch = new long[n];
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (ring == null || scratch.length != n) build(n);
    if (!v.hasSession()) return tie.leastLoad(v, scratch);
    long h = v.sessionHash();
    int lo = 0;
    int hi = ring.length;
    while (lo < hi) {
      int m = (lo + hi) >>> 1;
      if (Long.compareUnsigned(ring[m], h) < 0) lo = m + 1;
      else hi = m;
    }
    return owner[lo == ring.length ? 0 : lo];
  }
}
