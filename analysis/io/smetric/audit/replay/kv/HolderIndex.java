package io.smetric.audit.replay.kv;

import io.smetric.audit.replay.trace.ReplayTrace;

/**
 * Which instances hold each trace segment: one bit an instance (at most {@value #MAX_INSTANCES}),
 * one word a segment, kept by the instances' local {@link SegmentTier}s as blocks enter and leave.
 * A router that weighs every instance's cached prefix probes every tier for every request; with
 * this index {@link #matchAll} answers all of them in one walk down the request's path (a few
 * segments: the path is the session's turns), where probing tier by tier reads each tier's own
 * arrays, a cache miss per instance. The answers are exactly each tier's {@link SegmentTier#match}.
 */
public final class HolderIndex {
  public static final int MAX_INSTANCES = 64;

  private final ReplayTrace t;
  private final int instances;
  /**
   * Per segment s, side by side (one cache line): bit i of {@code masks[2s]} is set iff instance i
   * holds all of segment s, bit i of {@code masks[2s + 1]} iff it holds some block of it.
   */
  final long[] masks;

  public HolderIndex(ReplayTrace trace, int instances) {
    if (instances < 1 || instances > MAX_INSTANCES) {
      throw new IllegalArgumentException("a holder index covers 1 to " + MAX_INSTANCES + " instances, not " + instances);
    }
    this.t = trace;
    this.instances = instances;
    if (trace.segments > Integer.MAX_VALUE / 2) throw new IllegalArgumentException("too many segments: " + trace.segments);
    this.masks = new long[2 * trace.segments];
    long all = all();
    for (int s = 0; s < trace.segments; s++) if (trace.segLen[s] == 0) masks[2 * s] = all;
  }

  private long all() {
    return instances == 64 ? -1L : (1L << instances) - 1;
  }

  /**
   * Every tier's {@code match(r)} into {@code hit[i]}, as tier i's own match would return it at
   * this moment, and each tier's last match set as that call would set it. {@code tiers[i]} must be
   * the tier that keeps bit i of this index.
   */
  public void matchAll(int r, SegmentTier[] tiers, int[] hit) {
    int lo = t.pathOff[r];
    int hi = t.pathOff[r + 1];
    if (lo == hi) {
      for (int i = 0; i < instances; i++) {
        hit[i] = 0;
        tiers[i].lastMatchSeg = -1;
      }
      return;
    }
    int[] path = t.pathNodes;
    long alive = all(); // instances whose every segment so far is full
    for (int p = lo; p < hi && alive != 0; p++) {
      int s = path[p];
      long full = masks[2 * s];
      long stop = alive & ~full;
      if (stop == 0) continue;
      // s is the first segment these instances do not hold whole
      alive &= full;
      long partial = stop & masks[2 * s + 1];
      int start = t.segStart[s];
      int before = p > lo ? path[p - 1] : -1;
      for (long d = stop & ~partial; d != 0; d &= d - 1) {
        int i = Long.numberOfTrailingZeros(d);
        hit[i] = start;
        tiers[i].lastMatchSeg = before;
      }
      for (long d = partial; d != 0; d &= d - 1) {
        int i = Long.numberOfTrailingZeros(d);
        hit[i] = start + tiers[i].cachedLen(s);
        tiers[i].lastMatchSeg = s;
      }
    }
    for (long d = alive; d != 0; d &= d - 1) {
      int i = Long.numberOfTrailingZeros(d);
      hit[i] = t.blocks[r];
      tiers[i].lastMatchSeg = path[hi - 1];
    }
  }
}
