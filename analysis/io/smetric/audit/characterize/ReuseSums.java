package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.TraceBatch;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Token and block sums of the reuse passes, keyed the way characterization.json and its tables
 * need them: by minute and by turn (hit tokens and blocks per source, all used blocks), by
 * (source, interval in microseconds), plus the data-quality counters. Mergeable, so that every
 * segment task adds its own and one merge gives the trace's.
 */
final class ReuseSums implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Slots of the per-minute and per-turn arrays: hit tokens by source, hit blocks by source, all used blocks. */
  static final int TOK = 0;
  static final int BLK = 3;
  static final int ALL = 6;

  final Long2ObjectOpenHashMap<long[]> byMinute = new Long2ObjectOpenHashMap<>();
  final Long2ObjectOpenHashMap<long[]> byTurn = new Long2ObjectOpenHashMap<>();
  final Long2LongOpenHashMap[] intervalTokens = new Long2LongOpenHashMap[3];
  final Long2LongOpenHashMap[] intervalBlocks = new Long2LongOpenHashMap[3];
  /** Requests with blocks, with a block-count mismatch, with more blocks than ceil(input / B) ({@link ReuseAggregates#Q_WITH_BLOCKS}...). */
  final long[] quality = new long[3];

  // plan counters
  long distinctBlocks;
  long templateBlocks;
  long segments;
  long regionRequests;
  long hitRuns;

  ReuseSums() {
    for (int s = 0; s < 3; s++) {
      intervalTokens[s] = new Long2LongOpenHashMap();
      intervalBlocks[s] = new Long2LongOpenHashMap();
    }
  }

  private static long[] slot(Long2ObjectOpenHashMap<long[]> m, long key) {
    long[] v = m.get(key);
    if (v == null) {
      v = new long[7];
      m.put(key, v);
    }
    return v;
  }

  /** A run of hit blocks of one request: one source, one interval. */
  void hit(int src, long minute, int turnOrNull, long intervalUs, long tokens, long blocks) {
    long[] m = slot(byMinute, minute);
    m[TOK + src] += tokens;
    m[BLK + src] += blocks;
    if (turnOrNull != TraceBatch.NULL_INT) {
      long[] t = slot(byTurn, turnOrNull);
      t[TOK + src] += tokens;
      t[BLK + src] += blocks;
    }
    intervalTokens[src].addTo(intervalUs, tokens);
    intervalBlocks[src].addTo(intervalUs, blocks);
  }

  /** A request with blocks: its used blocks by minute and turn, and the block-count findings. */
  void request(long minute, int turnOrNull, long usedBlocks, int count, int expected) {
    slot(byMinute, minute)[ALL] += usedBlocks;
    if (turnOrNull != TraceBatch.NULL_INT) slot(byTurn, turnOrNull)[ALL] += usedBlocks;
    quality[ReuseAggregates.Q_WITH_BLOCKS]++;
    if (count != expected) quality[ReuseAggregates.Q_MISMATCH]++;
    if (count > expected) quality[ReuseAggregates.Q_LONGER]++;
  }

  ReuseSums merge(ReuseSums o) {
    for (var e : o.byMinute.long2ObjectEntrySet()) add(slot(byMinute, e.getLongKey()), e.getValue());
    for (var e : o.byTurn.long2ObjectEntrySet()) add(slot(byTurn, e.getLongKey()), e.getValue());
    for (int s = 0; s < 3; s++) {
      for (var e : o.intervalTokens[s].long2LongEntrySet()) intervalTokens[s].addTo(e.getLongKey(), e.getLongValue());
      for (var e : o.intervalBlocks[s].long2LongEntrySet()) intervalBlocks[s].addTo(e.getLongKey(), e.getLongValue());
    }
    add(quality, o.quality);
    distinctBlocks += o.distinctBlocks;
    templateBlocks += o.templateBlocks;
    segments += o.segments;
    regionRequests += o.regionRequests;
    hitRuns += o.hitRuns;
    return this;
  }

  private static void add(long[] x, long[] y) {
    for (int i = 0; i < x.length; i++) x[i] += y[i];
  }

  /** One row of the aggregate table ({@link ReuseAggregates}). */
  interface Sink {
    void row(int kind, int src, long key, long tokens, long blocks);
  }

  /**
   * The sums as rows of the aggregate table ({@link ReuseAggregates}) (kind, src, key, tokens, blocks): what
   * the distributed assembly ({@code BlockTotals}, {@code SortedStats}) reads.
   */
  void emit(List<Row> out) {
    forEach((kind, src, key, tokens, blocks) -> out.add(RowFactory.create(kind, src, key, tokens, blocks)));
  }

  void forEach(Sink out) {
    for (int kind : new int[] {ReuseAggregates.KIND_MINUTE, ReuseAggregates.KIND_TURN}) {
      Long2ObjectOpenHashMap<long[]> m = kind == ReuseAggregates.KIND_MINUTE ? byMinute : byTurn;
      for (var e : m.long2ObjectEntrySet()) {
        long[] v = e.getValue();
        for (int s = 0; s < 3; s++) {
          if (v[TOK + s] != 0 || v[BLK + s] != 0) out.row(kind, s, e.getLongKey(), v[TOK + s], v[BLK + s]);
        }
        out.row(kind, ReuseAggregates.SRC_ALL_BLOCKS, e.getLongKey(), 0L, v[ALL]);
      }
    }
    for (int s = 0; s < 3; s++) {
      for (var e : intervalTokens[s].long2LongEntrySet()) {
        out.row(ReuseAggregates.KIND_INTERVAL, s, e.getLongKey(), e.getLongValue(), intervalBlocks[s].get(e.getLongKey()));
      }
    }
    for (int q = 0; q < 3; q++) {
      if (quality[q] != 0) out.row(ReuseAggregates.KIND_QUALITY, 0, q, quality[q], 0L);
    }
  }
}
