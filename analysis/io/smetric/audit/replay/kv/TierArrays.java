package io.smetric.audit.replay.kv;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;

/**
 * Per-thread reuse of the per-segment arrays of {@link SegmentTier}s. A simulation makes one tier
 * per instance plus the global one, each with a few arrays as long as the trace has segments, and
 * a sweep runs hundreds of simulations one after another on each thread: allocating them afresh
 * every time costs more than clearing used ones (measured in docs/lab/benchmarks.md, "Replay speed":
 * fresh arrays are zeroed on pages the process has to be given again, reused ones are cleared in
 * cache-warm memory). The pool is held softly, so the collector may take it back under memory
 * pressure; arrays come out zeroed, so a tier cannot tell a reused array from a new one.
 */
final class TierArrays {
  private static final ThreadLocal<SoftReference<ArrayDeque<int[]>>> POOL = new ThreadLocal<>();
  /** Arrays kept per thread at most (a 32-instance simulation's tiers hold 33, one per tier). */
  private static final int MAX_KEPT = 512;

  private TierArrays() {}

  /** A zeroed int array of the given length, reused from this thread's pool when one fits. */
  static int[] ints(int length) {
    ArrayDeque<int[]> pool = pool(false);
    if (pool != null) {
      for (int k = pool.size(); k > 0; k--) {
        int[] a = pool.pollFirst();
        if (a.length == length) {
          java.util.Arrays.fill(a, 0);
          return a;
        }
        pool.addLast(a); // another trace's length: keep it for later
      }
    }
    return new int[length];
  }

  /** Returns arrays to this thread's pool; the caller must not use them afterwards. */
  static void release(int[]... arrays) {
    ArrayDeque<int[]> pool = pool(true);
    for (int[] a : arrays) {
      if (a == null) continue;
      if (pool.size() >= MAX_KEPT) pool.pollFirst();
      pool.addLast(a);
    }
  }

  private static ArrayDeque<int[]> pool(boolean create) {
    SoftReference<ArrayDeque<int[]>> ref = POOL.get();
    ArrayDeque<int[]> pool = ref == null ? null : ref.get();
    if (pool == null && create) {
      pool = new ArrayDeque<>();
      POOL.set(new SoftReference<>(pool));
    }
    return pool;
  }
}
