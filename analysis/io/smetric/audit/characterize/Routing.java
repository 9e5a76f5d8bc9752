package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.TraceBatch;
import io.smetric.audit.contract.BlockChain;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.Serializable;
import java.util.List;

/**
 * Which segment task handles which blocks. Chained ids make every reuse happen inside the tree of
 * one first block, so trees are independent units of work; a tree that one popular prefix (a
 * shared system prompt, a chat template) makes huge is cut below that prefix. The <em>heavy
 * prefix</em> H is the set of tree nodes that a sample of requests shows to be shared by at least
 * a fraction of them (it is closed under prefixes). A request's blocks [0, d) inside H form its
 * top region, handled by the owner of its first block; blocks [d, n) form a region of the subtree
 * keyed by the id at depth d, handled by that key's owner. Every request holding a block of a
 * subtree passes through the subtree's key, and every request holding a node of H has it in its
 * top region, so each task sees every holder of its blocks: the split is exact whatever the
 * sample, which only decides how well the work is balanced. Keys seen in the sample are assigned
 * to tasks largest first (by sampled blocks); others by hash.
 */
final class Routing implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Share of sampled requests a node must be held by to belong to the heavy prefix, per task. */
  static final double HEAVY_SHARE_PER_TASK = 0.25;

  final int parts;
  private final long[] flat;
  private final int[] off;
  private final int[] len;
  private final Long2IntOpenHashMap head;
  private final Long2IntOpenHashMap owners;
  final int heavyBlocks;

  private Routing(int parts, long[] flat, int[] off, int[] len, Long2IntOpenHashMap head, Long2IntOpenHashMap owners) {
    this.parts = parts;
    this.flat = flat;
    this.off = off;
    this.len = len;
    this.head = head;
    this.owners = owners;
    this.heavyBlocks = flat.length;
  }

  /** Everything in one task. */
  static Routing single() {
    Long2IntOpenHashMap h = new Long2IntOpenHashMap();
    h.defaultReturnValue(-1);
    Long2IntOpenHashMap o = new Long2IntOpenHashMap();
    o.defaultReturnValue(-1);
    return new Routing(1, new long[0], new int[0], new int[0], h, o);
  }

  /**
   * Routing for {@code parts} tasks from sampled requests (their used blocks). A node is heavy when
   * at least max(2, share x sample) sampled requests hold it, share = {@link #HEAVY_SHARE_PER_TASK} / parts.
   */
  static Routing fromSample(List<TraceBatch> sample, int parts) {
    if (parts <= 1) return single();
    SegmentTask t = new SegmentTask();
    int sampled = 0;
    for (TraceBatch b : sample) {
      for (int i = 0; i < b.n; i++) {
        int n = b.usedBlocks(i);
        if (n > 0) {
          t.add(b, i, 0, n, 0L);
          sampled++;
        }
      }
    }
    int nodes = t.nodes();
    int[] holders = new int[nodes];
    for (int r = 0; r < t.requests(); r++) {
      for (int x = t.endOf(r); x >= 0; x = t.parentOf(x)) holders[x]++;
    }
    int threshold = Math.max(2, (int) Math.ceil(HEAVY_SHARE_PER_TASK / parts * sampled));
    LongArrayList f = new LongArrayList();
    IntArrayList o = new IntArrayList();
    IntArrayList l = new IntArrayList();
    Long2IntOpenHashMap h = new Long2IntOpenHashMap();
    h.defaultReturnValue(-1);
    for (int x = 0; x < nodes; x++) {
      if (holders[x] < threshold) continue;
      long[] ids = t.idsOf(x);
      h.put(ids[0], o.size());
      o.add(f.size());
      l.add(ids.length);
      f.addElements(f.size(), ids);
    }
    Long2IntOpenHashMap own = new Long2IntOpenHashMap();
    own.defaultReturnValue(-1);
    Routing r = new Routing(parts, f.toLongArray(), o.toIntArray(), l.toIntArray(), h, own);
    // largest sampled subtrees first, each to the least loaded task
    Long2LongOpenHashMap weight = new Long2LongOpenHashMap();
    for (TraceBatch b : sample) {
      for (int i = 0; i < b.n; i++) {
        int n = b.usedBlocks(i);
        if (n == 0) continue;
        int d = r.cut(b.ids[i], b.idOff[i], n);
        if (d < n) weight.addTo(b.id(i, d), n - d);
      }
    }
    long[] keys = weight.keySet().toLongArray();
    Long[] boxed = new Long[keys.length];
    for (int i = 0; i < keys.length; i++) boxed[i] = keys[i];
    java.util.Arrays.sort(boxed, (x, y) -> {
      int c = Long.compare(weight.get((long) y), weight.get((long) x));
      return c != 0 ? c : Long.compare(x, y);
    });
    long[] load = new long[parts];
    for (Long k : boxed) {
      int best = 0;
      for (int p = 1; p < parts; p++) if (load[p] < load[best]) best = p;
      load[best] += weight.get((long) k);
      own.put((long) k, best);
    }
    return r;
  }

  /** Blocks of the request ({@code a[base ..)}, n used) inside the heavy prefix: its top region is [0, d). */
  int cut(long[] a, int base, int n) {
    int d = 0;
    while (d < n) {
      int w = head.get(a[base + d]);
      if (w < 0) return d;
      int m = Math.min(len[w], n - d);
      int j = SegmentTask.match(flat, off[w], a, base + d, m);
      d += j;
      if (j < len[w]) return d;
    }
    return d;
  }

  /** The task of a region keyed by {@code key} (a subtree's id at its cut depth, or a top region's first id). */
  int owner(long key) {
    if (parts == 1) return 0;
    int o = owners.get(key);
    return o >= 0 ? o : (int) Math.floorMod(BlockChain.fmix64(key), (long) parts);
  }
}
