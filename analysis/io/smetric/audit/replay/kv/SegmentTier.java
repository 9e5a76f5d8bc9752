package io.smetric.audit.replay.kv;

import io.smetric.audit.replay.trace.ReplayTrace;

/**
 * The fast {@link KvTier}: state per trace segment (a run of blocks that arrive and age together),
 * never per block. Present blocks of a segment are always a prefix of it ({@code cached[s]}),
 * references are per segment (a request references whole segments), and the eviction order is a
 * queue of <em>runs</em>: (request, first and last path index) pushed when a request releases its
 * blocks (or, without pinning, touches them). A run is consumed from its deepest segment, tail
 * block first; a segment that was referenced or re-queued since the run was pushed carries a newer
 * stamp, and since references and touches always cover whole root paths, so do all its ancestors
 * in that run: the rest of the run is stale and is dropped in O(1).
 *
 * <p>Cost: match is a binary search over the request's path (present-and-full segments form a
 * prefix of it) on bit sets of the full and of the non-empty segments (two bits a segment: small
 * enough to stay in the processor's cache, where the per-segment lengths are not, and routers probe
 * every instance's tier for every request); pin, unpin and insert are linear in the path's segment
 * count; eviction is amortised O(1) per segment cut.
 */
public final class SegmentTier implements KvTier {
  private final ReplayTrace t;
  private final boolean pinning;
  /**
   * Per segment s, side by side so that touching a segment costs one cache miss, not three:
   * {@code seg[3s]} its present length (blocks cached, a prefix of it), {@code seg[3s + 1]} the
   * requests referencing it (pinning tiers), {@code seg[3s + 2]} the id of the last eviction-order
   * run that queued it.
   */
  private final int[] seg;
  /**
   * Two bits per segment, in one word so a probe reads one cache line: bit {@code 2(s mod 32)} of
   * word {@code s / 32} is set iff segment s is fully present (present length {@code == segLen[s]}),
   * the bit above it iff it holds any block (present length {@code > 0}). A probe that stops at a
   * segment holding nothing (the common case: every instance but the session's own stops at its
   * first turn) then never reads {@link #seg}, whose per-tier arrays (12 bytes a segment) are
   * too large for the processor's cache when routers probe every instance for every request.
   */
  private final long[] bits;
  private long cachedTotal;
  private long evictableTotal;

  // FIFO of runs (least recent at head)
  private int[] runReq = new int[64];
  private int[] runFrom = new int[64];
  private int[] runTo = new int[64];
  private int[] runId = new int[64];
  private int head;
  private int tail;
  private int nextId = 1;

  /** The cluster's holder index this tier keeps its bit of (null: none, e.g. the global tier). */
  private final HolderIndex index;
  /** This tier's bit in the index. */
  private final long me;

  public SegmentTier(ReplayTrace trace, boolean pinning) {
    this(trace, pinning, null, 0);
  }

  /** A tier that also keeps bit {@code instance} of {@code index} (which instances hold each segment). */
  public SegmentTier(ReplayTrace trace, boolean pinning, HolderIndex index, int instance) {
    this.index = index;
    this.me = index == null ? 0 : 1L << instance;
    this.t = trace;
    this.pinning = pinning;
    if (trace.segments > Integer.MAX_VALUE / 3) throw new IllegalArgumentException("too many segments: " + trace.segments);
    this.seg = TierArrays.ints(3 * trace.segments);
    this.bits = new long[(trace.segments + 31) >>> 5];
    for (int sg = 0; sg < trace.segments; sg++) if (trace.segLen[sg] == 0) bits[sg >>> 5] |= fullBit(sg);
  }

  private static long fullBit(int s) {
    return 1L << ((s & 31) << 1);
  }

  private static long heldBit(int s) {
    return 2L << ((s & 31) << 1);
  }

  /** The deepest segment holding blocks of the last match (-1: it matched nothing); also set by {@link HolderIndex#matchAll}. */
  int lastMatchSeg = -1;

  int cachedLen(int s) {
    return seg[3 * s];
  }

  @Override
  public int match(int r) {
    int lo = t.pathOff[r];
    int hi = t.pathOff[r + 1];
    lastMatchSeg = -1;
    if (lo == hi) return 0;
    int[] path = t.pathNodes;
    // first path index whose segment is not fully present
    int a = lo;
    int b = hi;
    while (a < b) {
      int m = (a + b) >>> 1;
      int s = path[m];
      if ((bits[s >>> 5] & fullBit(s)) != 0) a = m + 1;
      else b = m;
    }
    if (a == hi) {
      lastMatchSeg = path[hi - 1];
      return t.blocks[r];
    }
    int s = path[a];
    if ((bits[s >>> 5] & heldBit(s)) == 0) {
      if (a > lo) lastMatchSeg = path[a - 1];
      return t.segStart[s];
    }
    lastMatchSeg = s;
    return t.segStart[s] + seg[3 * s];
  }

  /**
   * The blocks the last match found are all referenced: a request's references cover its whole
   * root path, so the deepest matched segment referenced means every matched one is.
   */
  @Override
  public boolean lastMatchPinned() {
    return pinning && lastMatchSeg >= 0 && seg[3 * lastMatchSeg + 1] > 0;
  }

  @Override
  public void pin(int r) {
    int[] path = t.pathNodes;
    for (int p = t.pathOff[r], e = t.pathOff[r + 1]; p < e; p++) {
      int s = path[p];
      if (seg[3 * s + 1]++ == 0) evictableTotal -= seg[3 * s];
    }
  }

  @Override
  public long unreferencedPrefix(int r, int k) {
    long n = 0;
    int[] path = t.pathNodes;
    for (int p = t.pathOff[r], e = t.pathOff[r + 1]; p < e; p++) {
      int s = path[p];
      int from = t.segStart[s];
      if (from >= k) break;
      if (seg[3 * s + 1] == 0) n += Math.min(seg[3 * s], k - from);
    }
    return n;
  }

  @Override
  public long insert(int r) {
    int[] path = t.pathNodes;
    int lo = t.pathOff[r];
    int hi = t.pathOff[r + 1];
    long added = 0;
    for (int p = lo; p < hi; p++) {
      int s = path[p];
      int missing = t.segLen[s] - seg[3 * s];
      if (missing > 0) {
        added += missing;
        seg[3 * s] = t.segLen[s];
        bits[s >>> 5] |= fullBit(s) | heldBit(s);
        if (index != null) {
          index.masks[2 * s] |= me;
          index.masks[2 * s + 1] |= me;
        }
        if (!pinning || seg[3 * s + 1] == 0) evictableTotal += missing;
      }
    }
    cachedTotal += added;
    if (!pinning && hi > lo) pushRun(r, lo, hi);
    return added;
  }

  @Override
  public void unpin(int r) {
    int[] path = t.pathNodes;
    int lo = t.pathOff[r];
    int hi = t.pathOff[r + 1];
    int firstFree = hi;
    for (int p = hi - 1; p >= lo; p--) {
      int s = path[p];
      if (--seg[3 * s + 1] == 0) {
        evictableTotal += seg[3 * s];
        firstFree = p;
      }
    }
    if (firstFree < hi) pushRun(r, firstFree, hi);
  }

  private void pushRun(int r, int from, int to) {
    if (tail == runReq.length) grow();
    int id = nextId++;
    runReq[tail] = r;
    runFrom[tail] = from;
    runTo[tail] = to;
    runId[tail] = id;
    tail++;
    int[] path = t.pathNodes;
    for (int p = from; p < to; p++) seg[3 * path[p] + 2] = id;
  }

  private void grow() {
    int live = tail - head;
    if (head > 0 && live < runReq.length / 2) {
      System.arraycopy(runReq, head, runReq, 0, live);
      System.arraycopy(runFrom, head, runFrom, 0, live);
      System.arraycopy(runTo, head, runTo, 0, live);
      System.arraycopy(runId, head, runId, 0, live);
    } else {
      int cap = runReq.length * 2;
      runReq = java.util.Arrays.copyOfRange(runReq, head, head + cap);
      runFrom = java.util.Arrays.copyOfRange(runFrom, head, head + cap);
      runTo = java.util.Arrays.copyOfRange(runTo, head, head + cap);
      runId = java.util.Arrays.copyOfRange(runId, head, head + cap);
    }
    tail = live;
    head = 0;
  }

  @Override
  public long evict(long count) {
    long done = 0;
    int[] path = t.pathNodes;
    while (done < count && head < tail) {
      int to = runTo[head];
      if (to <= runFrom[head]) {
        head++;
        continue;
      }
      int s = path[to - 1];
      if (seg[3 * s + 2] != runId[head] || (pinning && seg[3 * s + 1] > 0)) {
        head++; // stale: this run's remaining segments were re-queued or referenced since
        continue;
      }
      int c = seg[3 * s];
      long e = Math.min(c, count - done);
      seg[3 * s] = c - (int) e;
      if (e > 0) {
        bits[s >>> 5] &= ~(c == e ? fullBit(s) | heldBit(s) : fullBit(s));
        if (index != null) {
          index.masks[2 * s] &= ~me;
          if (c == e) index.masks[2 * s + 1] &= ~me;
        }
      }
      done += e;
      if (seg[3 * s] == 0) runTo[head] = to - 1;
    }
    cachedTotal -= done;
    evictableTotal -= done;
    return done;
  }

  /** Gives the per-segment arrays back for the next simulation on this thread; the tier is unusable after. */
  @Override
  public void release() {
    TierArrays.release(seg);
  }

  @Override
  public long cached() {
    return cachedTotal;
  }

  @Override
  public long evictable() {
    return evictableTotal;
  }
}
