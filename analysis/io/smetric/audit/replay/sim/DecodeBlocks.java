package io.smetric.audit.replay.sim;

/**
 * When decoding sequences take new KV blocks, per instance: a sequence whose KV crosses into a new
 * block every {@code bs} steps is counted at the step phase (step count mod block size) of its
 * crossings, so the blocks that any range of steps takes is full cycles times the sequences plus a
 * prefix sum over the phases: O(1) per range, whatever its length (the memory model of a
 * colocated, bounded local tier; docs/replay.md).
 */
final class DecodeBlocks {
  private final int bs;
  /** Per instance: decoding sequences by phase, their running sum (refreshed lazily), and whether it is stale. */
  private final int[][] count;
  private final int[][] prefix;
  private final boolean[] dirty;

  DecodeBlocks(int instances, int blockSize) {
    bs = blockSize;
    count = new int[instances][bs];
    prefix = new int[instances][bs + 1];
    dirty = new boolean[instances];
  }

  /** A sequence of instance i whose KV crosses a block boundary at step counts = phase (mod bs) starts (+1) or stops (-1) decoding. */
  void add(int i, long phase, int delta) {
    count[i][(int) Math.floorMod(phase, (long) bs)] += delta;
    dirty[i] = true;
  }

  /** Decode blocks that the steps with counts in [from, to) of instance i take. */
  long crossings(int i, long from, long to) {
    if (to <= from) return 0;
    refresh(i);
    return prefixCrossings(i, to) - prefixCrossings(i, from);
  }

  /** Decode blocks of one full cycle of bs steps of instance i (every decoding sequence's one). */
  long perCycle(int i) {
    refresh(i);
    return prefix[i][bs];
  }

  private void refresh(int i) {
    if (!dirty[i]) return;
    int[] c = count[i];
    int[] pre = prefix[i];
    for (int k = 0; k < bs; k++) pre[k + 1] = pre[k] + c[k];
    dirty[i] = false;
  }

  /** Decode blocks of the steps with counts in [0, x): full cycles of the block size plus a part. */
  private long prefixCrossings(int i, long x) {
    int[] pre = prefix[i];
    return (x / bs) * pre[bs] + pre[(int) (x % bs)];
  }
}
