package io.smetric.audit.characterize;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple2;

/**
 * Pass 2 of {@link ReuseJob} on packed byte blocks instead of one shuffle row per (partition,
 * block) pair: every pass-1 task writes, per target bucket (block id hash), one block of
 * {@code (block id, occurrence count, roots * 2 + multi)} entries; a bucket task sums them in
 * primitive hash maps and sends {@code (block id, global count, template)} back, one packed block
 * per partition, for the blocks held by two or more fragments only. The Spark shuffle then moves a
 * few large records per task pair: no per-pair row conversion, no generic hash aggregate spilling.
 */
final class BlockTable {
  private BlockTable() {}

  /** A growable byte buffer with fixed 8-byte longs and unsigned LEB128 varints. */
  static final class Writer {
    private byte[] b = new byte[1 << 12];
    private int n;

    private void room(int k) {
      if (n + k > b.length) b = java.util.Arrays.copyOf(b, Math.max(b.length * 2, n + k));
    }

    void fixed(long v) {
      room(8);
      for (int i = 0; i < 8; i++) b[n++] = (byte) (v >>> (8 * i));
    }

    void var(long v) {
      room(10);
      while ((v & ~0x7FL) != 0) {
        b[n++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      b[n++] = (byte) v;
    }

    byte[] bytes() {
      return java.util.Arrays.copyOf(b, n);
    }
  }

  static final class Reader {
    private final byte[] b;
    private int p;

    Reader(byte[] b) {
      this.b = b;
    }

    boolean more() {
      return p < b.length;
    }

    long fixed() {
      long v = 0;
      for (int i = 0; i < 8; i++) v |= (b[p++] & 0xFFL) << (8 * i);
      return v;
    }

    long var() {
      long v = 0;
      int s = 0;
      while (true) {
        byte x = b[p++];
        v |= (long) (x & 0x7F) << s;
        if (x >= 0) return v;
        s += 7;
      }
    }
  }

  static int bucket(long c, int buckets) {
    long h = c * 0x9E3779B97F4A7C15L;
    return (int) Math.floorMod(h ^ (h >>> 29), (long) buckets);
  }

  /** Pass-1 side: a partition's per-block entries, packed per bucket; the first varint of a block is the partition id. */
  static final class Out {
    private final Writer[] w;
    private final int pid;

    Out(int pid, int buckets) {
      this.pid = pid;
      this.w = new Writer[buckets];
    }

    void add(long c, long cnt, long roots, boolean multi) {
      int k = bucket(c, w.length);
      if (w[k] == null) {
        w[k] = new Writer();
        w[k].var(pid);
      }
      w[k].fixed(c);
      w[k].var(cnt);
      w[k].var(roots * 2 + (multi ? 1 : 0));
    }

    Iterator<Tuple2<Integer, byte[]>> blocks() {
      List<Tuple2<Integer, byte[]>> out = new ArrayList<>();
      for (int k = 0; k < w.length; k++) {
        if (w[k] != null) out.add(new Tuple2<>(k, w[k].bytes()));
        w[k] = null;
      }
      return out.iterator();
    }
  }

  /**
   * Bucket side: sums per block over the partitions' blocks, then writes, for every block held by
   * two or more fragments, {@code (id, global count, template 0/1)} into the block of each
   * partition that holds it.
   */
  static Iterator<Tuple2<Integer, byte[]>> aggregate(Iterator<byte[]> in, int partitions, int k,
      LongAccumulator distinct, LongAccumulator pairs, LongAccumulator multiBlocks, LongAccumulator tmplBlocks) {
    List<byte[]> blocks = new ArrayList<>();
    while (in.hasNext()) blocks.add(in.next());
    Long2IntOpenHashMap idx = new Long2IntOpenHashMap();
    idx.defaultReturnValue(-1);
    LongArrayList cnt = new LongArrayList(), roots = new LongArrayList();
    it.unimi.dsi.fastutil.ints.IntArrayList recs = new it.unimi.dsi.fastutil.ints.IntArrayList();
    it.unimi.dsi.fastutil.ints.IntArrayList multi = new it.unimi.dsi.fastutil.ints.IntArrayList();
    long nPairs = 0;
    for (byte[] b : blocks) {
      Reader r = new Reader(b);
      r.var(); // partition id
      while (r.more()) {
        long c = r.fixed(), n = r.var(), f = r.var();
        nPairs++;
        int i = idx.putIfAbsent(c, cnt.size());
        if (i < 0) {
          cnt.add(n);
          roots.add(f >>> 1);
          recs.add(1);
          multi.add((int) (f & 1));
        } else {
          cnt.set(i, cnt.getLong(i) + n);
          roots.set(i, roots.getLong(i) + (f >>> 1));
          recs.set(i, recs.getInt(i) + 1);
          if ((f & 1) != 0) multi.set(i, 1);
        }
      }
    }
    long nMulti = 0, nTmpl = 0;
    for (int i = 0; i < cnt.size(); i++) {
      if (recs.getInt(i) > 1 || multi.getInt(i) != 0) {
        nMulti++;
        if (roots.getLong(i) >= k) nTmpl++;
      }
    }
    distinct.add(cnt.size());
    pairs.add(nPairs);
    multiBlocks.add(nMulti);
    tmplBlocks.add(nTmpl);
    Writer[] w = new Writer[partitions];
    for (byte[] b : blocks) {
      Reader r = new Reader(b);
      int pid = (int) r.var();
      while (r.more()) {
        long c = r.fixed();
        r.var();
        r.var();
        int i = idx.get(c);
        if (recs.getInt(i) > 1 || multi.getInt(i) != 0) {
          if (w[pid] == null) w[pid] = new Writer();
          w[pid].fixed(c);
          w[pid].var(cnt.getLong(i));
          w[pid].var(roots.getLong(i) >= k ? 1 : 0);
        }
      }
    }
    List<Tuple2<Integer, byte[]>> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      if (w[p] != null) out.add(new Tuple2<>(p, w[p].bytes()));
    }
    return out.iterator();
  }
}
