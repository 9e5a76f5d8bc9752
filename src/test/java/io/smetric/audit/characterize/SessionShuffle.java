package io.smetric.audit.characterize;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple2;

/**
 * Pass 0 of {@link ReuseJob}: moves every request to the partition of its session (64-bit session
 * key modulo the partition count), so that a session is one fragment however long it lasts, and
 * sorts each partition by (arrival_s, seq).
 *
 * <p>The shuffle does not carry every block occurrence. A follow-up repeats its session's history,
 * so inside one input partition each request is written as a delta against the previous request
 * of its session in that partition: the length L of their common prefix, then only the ids from L
 * on. The volume is about the distinct (input partition, session, block) triples instead of the
 * occurrences. Each map task writes one self-contained byte block per target partition (the
 * delta chains never cross a block), so the decoding does not depend on the order in which the
 * shuffle delivers records. The receiving task rebuilds the full arrays of its own requests (about
 * 1/partitions of the trace's occurrences) and sorts them.
 *
 * <p>Output rows have the column layout of {@code ReuseJob}'s selection (session, request, turn,
 * parent, trigger, arrival, input, block size, blocks, seq); parent is only kept as null / not null
 * (the passes only test it for null), the blocks array keeps its original length but only the first
 * {@code min(count, ceil(input / B))} ids (the ones analyses use) are carried, the rest are 0.
 */
final class SessionShuffle {
  private SessionShuffle() {}

  private static final int F_SESSION = 1, F_TURN = 2, F_PARENT = 4, F_BLOCKS = 8, F_BSIZE = 16, F_TRIGGER = 32;
  private static final int I_SESSION = 0, I_REQUEST = 1, I_TURN = 2, I_PARENT = 3, I_TRIGGER = 4, I_ARRIVAL = 5,
      I_INPUT = 6, I_BSIZE = 7, I_BLOCKS = 8, I_SEQ = 9;
  private static final UTF8String PARENT_PRESENT = UTF8String.fromString("?");

  /**
   * @param shippedIds counts the block ids written to the shuffle (the delta volume)
   */
  static JavaRDD<InternalRow> bySession(JavaRDD<InternalRow> input, int partitions, LongAccumulator shippedIds) {
    return input.mapPartitions(it -> encode(it, partitions, shippedIds), false)
        .mapToPair(x -> x)
        .partitionBy(new ReuseJob.IdentityPartitioner(partitions))
        .values()
        .mapPartitions(SessionShuffle::decode, true);
  }

  static int target(long sessionKey, int partitions) {
    return (int) Math.floorMod(sessionKey ^ (sessionKey >>> 31), (long) partitions);
  }

  private static Iterator<Tuple2<Integer, byte[]>> encode(Iterator<InternalRow> it, int partitions,
      LongAccumulator shippedIds) throws IOException {
    ByteArrayOutputStream[] bufs = new ByteArrayOutputStream[partitions];
    DataOutputStream[] outs = new DataOutputStream[partitions];
    Long2ObjectOpenHashMap<long[]> prev = new Long2ObjectOpenHashMap<>();
    long shipped = 0;
    while (it.hasNext()) {
      InternalRow r = it.next();
      boolean hasSession = !r.isNullAt(I_SESSION);
      long s = ReuseJob.sessionKey(r);
      int p = target(s, partitions);
      if (outs[p] == null) {
        bufs[p] = new ByteArrayOutputStream(1 << 16);
        outs[p] = new DataOutputStream(bufs[p]);
      }
      DataOutputStream o = outs[p];
      int flags = (hasSession ? F_SESSION : 0) | (r.isNullAt(I_TURN) ? 0 : F_TURN)
          | (r.isNullAt(I_PARENT) ? 0 : F_PARENT) | (r.isNullAt(I_BLOCKS) ? 0 : F_BLOCKS)
          | (r.isNullAt(I_BSIZE) ? 0 : F_BSIZE) | (r.isNullAt(I_TRIGGER) ? 0 : F_TRIGGER);
      o.writeByte(flags);
      if (hasSession) bytes(o, r.getUTF8String(I_SESSION));
      bytes(o, r.getUTF8String(I_REQUEST));
      if ((flags & F_TURN) != 0) o.writeInt(r.getInt(I_TURN));
      if ((flags & F_TRIGGER) != 0) bytes(o, r.getUTF8String(I_TRIGGER));
      o.writeDouble(r.getDouble(I_ARRIVAL));
      o.writeInt(r.getInt(I_INPUT));
      if ((flags & F_BSIZE) != 0) o.writeInt(r.getInt(I_BSIZE));
      o.writeLong(r.getLong(I_SEQ));
      if ((flags & F_BLOCKS) != 0) {
        ArrayData a = r.getArray(I_BLOCKS);
        int len = a.numElements();
        int n = ReuseJob.usedBlocks(r);
        long[] cur = new long[n];
        for (int i = 0; i < n; i++) cur[i] = a.getLong(i);
        int l = 0;
        if (hasSession) {
          long[] pv = prev.get(s);
          if (pv != null) l = ReuseJob.lcp(pv, pv.length, cur, n);
          prev.put(s, cur);
        }
        o.writeInt(len);
        o.writeInt(n);
        o.writeInt(l);
        for (int i = l; i < n; i++) o.writeLong(cur[i]);
        shipped += n - l;
      }
    }
    shippedIds.add(shipped);
    prev.clear();
    List<Tuple2<Integer, byte[]>> res = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      if (outs[p] == null) continue;
      outs[p].flush();
      res.add(new Tuple2<>(p, bufs[p].toByteArray()));
      bufs[p] = null;
    }
    return res.iterator();
  }

  private static void bytes(DataOutputStream o, UTF8String s) throws IOException {
    byte[] b = s.getBytes();
    o.writeInt(b.length);
    o.write(b);
  }

  private static UTF8String readString(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return UTF8String.fromBytes(b);
  }

  private static Iterator<InternalRow> decode(Iterator<byte[]> chunks) {
    List<InternalRow> rows = new ArrayList<>();
    try {
      while (chunks.hasNext()) {
        byte[] chunk = chunks.next();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(chunk));
        // the delta chains of one map task: previous used ids per session
        Long2ObjectOpenHashMap<long[]> prev = new Long2ObjectOpenHashMap<>();
        while (in.available() > 0) {
          int flags = in.readUnsignedByte();
          Object[] v = new Object[10];
          if ((flags & F_SESSION) != 0) v[I_SESSION] = readString(in);
          v[I_REQUEST] = readString(in);
          if ((flags & F_TURN) != 0) v[I_TURN] = in.readInt();
          if ((flags & F_PARENT) != 0) v[I_PARENT] = PARENT_PRESENT;
          if ((flags & F_TRIGGER) != 0) v[I_TRIGGER] = readString(in);
          v[I_ARRIVAL] = in.readDouble();
          v[I_INPUT] = in.readInt();
          if ((flags & F_BSIZE) != 0) v[I_BSIZE] = in.readInt();
          v[I_SEQ] = in.readLong();
          if ((flags & F_BLOCKS) != 0) {
            int len = in.readInt(), n = in.readInt(), l = in.readInt();
            long[] cur = new long[n];
            long s = 0;
            if (l > 0) {
              s = Hashing.session(((UTF8String) v[I_SESSION]).getBytes());
              System.arraycopy(prev.get(s), 0, cur, 0, l);
            }
            for (int i = l; i < n; i++) cur[i] = in.readLong();
            if ((flags & F_SESSION) != 0) {
              if (l == 0) s = Hashing.session(((UTF8String) v[I_SESSION]).getBytes());
              prev.put(s, cur);
            }
            // the array keeps its length (block-count findings); ids past n are never read
            long[] full = len == n ? cur : java.util.Arrays.copyOf(cur, len);
            v[I_BLOCKS] = UnsafeArrayData.fromPrimitiveArray(full);
          }
          rows.add(new GenericInternalRow(v));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort((x, y) -> {
      int c = Double.compare(x.getDouble(I_ARRIVAL), y.getDouble(I_ARRIVAL));
      return c != 0 ? c : Long.compare(x.getLong(I_SEQ), y.getLong(I_SEQ));
    });
    return rows.iterator();
  }
}
