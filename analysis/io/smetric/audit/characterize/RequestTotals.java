package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.TraceBatch;
import static org.apache.spark.sql.functions.col;

import io.smetric.audit.contract.Canonical;
import it.unimi.dsi.fastutil.ints.IntAVLTreeSet;
import it.unimi.dsi.fastutil.ints.IntSortedSet;
import it.unimi.dsi.fastutil.longs.Long2ObjectAVLTreeMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectSortedMap;
import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Every request-level total of the characterization in one scan of the scalar columns and one
 * Spark job (no shuffle): counts, arrival range, token sums, block sizes, and the small series by
 * minute, by turn and by trigger. Each task folds its partition into one of these; the driver
 * merges them as they arrive ({@code reduce}), so it holds O(minutes + turns + triggers), never
 * anything per request. Replaces six separate aggregations (each its own job or two).
 */
final class RequestTotals implements Serializable {
  private static final long serialVersionUID = 1L;

  long requests;
  double firstArrival = Double.POSITIVE_INFINITY;
  double lastArrival = Double.NEGATIVE_INFINITY;
  long withSession;
  long withTurn;
  long turn0;
  long prefillTokens;
  long outputTokens;
  final IntSortedSet blockSizes = new IntAVLTreeSet();
  /** minute -> {requests, input tokens}. */
  final Long2ObjectSortedMap<long[]> byMinute = new Long2ObjectAVLTreeMap<>();
  /** turn (non-null) -> {requests, input tokens}. */
  final Long2ObjectSortedMap<long[]> byTurn = new Long2ObjectAVLTreeMap<>();
  /** trigger -> {requests, follow-ups (turn > 0)}. */
  final TreeMap<String, long[]> byTrigger = new TreeMap<>();

  private static final int I_SESSION = 0, I_TURN = 1, I_TRIGGER = 2, I_ARRIVAL = 3, I_INPUT = 4, I_OUTPUT = 5,
      I_BSIZE = 6;

  static RequestTotals compute(Dataset<Row> trace) {
    Dataset<Row> sel = trace.select(col(Canonical.SESSION_ID), col(Canonical.TURN), col(Canonical.TRIGGER),
        col(Canonical.ARRIVAL_S), col(Canonical.INPUT_TOKENS), col(Canonical.OUTPUT_TOKENS), col(Canonical.BLOCK_SIZE));
    return sel.queryExecution().toRdd().toJavaRDD()
        .mapPartitions(it -> List.of(fold(it)).iterator())
        .fold(new RequestTotals(), RequestTotals::merge); // fold, not reduce: a trace with no partitions
  }

  static RequestTotals fold(Iterator<InternalRow> it) {
    RequestTotals t = new RequestTotals();
    while (it.hasNext()) {
      InternalRow r = it.next();
      t.requests++;
      double a = r.getDouble(I_ARRIVAL);
      t.firstArrival = Math.min(t.firstArrival, a);
      t.lastArrival = Math.max(t.lastArrival, a);
      if (!r.isNullAt(I_SESSION)) t.withSession++;
      long in = r.isNullAt(I_INPUT) ? 0 : r.getInt(I_INPUT);
      t.prefillTokens += in;
      if (!r.isNullAt(I_OUTPUT)) t.outputTokens += r.getInt(I_OUTPUT);
      if (!r.isNullAt(I_BSIZE)) t.blockSizes.add(r.getInt(I_BSIZE));
      // the same minute as the SQL floor(arrival_s / 60)
      add(t.byMinute, (long) Math.floor(a / 60.0), 1, in);
      boolean followUp = false;
      if (!r.isNullAt(I_TURN)) {
        int turn = r.getInt(I_TURN);
        t.withTurn++;
        if (turn == 0) t.turn0++;
        followUp = turn > 0;
        add(t.byTurn, turn, 1, in);
      }
      long[] g = t.byTrigger.computeIfAbsent(r.getUTF8String(I_TRIGGER).toString(), k -> new long[2]);
      g[0]++;
      if (followUp) g[1]++;
    }
    return t;
  }

  /** The same totals from a batch read without Spark (the in-process path). */
  void add(TraceBatch b) {
    for (int i = 0; i < b.n; i++) {
      requests++;
      double a = b.arrival[i];
      firstArrival = Math.min(firstArrival, a);
      lastArrival = Math.max(lastArrival, a);
      if (b.sessionId[i] != null) withSession++;
      long in = b.input[i];
      prefillTokens += in;
      outputTokens += b.output[i];
      if (b.blockSize[i] != TraceBatch.NULL_INT) blockSizes.add(b.blockSize[i]);
      add(byMinute, (long) Math.floor(a / 60.0), 1, in);
      boolean followUp = false;
      if (b.turn[i] != TraceBatch.NULL_INT) {
        int turn = b.turn[i];
        withTurn++;
        if (turn == 0) turn0++;
        followUp = turn > 0;
        add(byTurn, turn, 1, in);
      }
      long[] g = byTrigger.computeIfAbsent(b.trigger[i], k -> new long[2]);
      g[0]++;
      if (followUp) g[1]++;
    }
  }

  private static void add(Long2ObjectSortedMap<long[]> m, long key, long a, long b) {
    long[] v = m.get(key);
    if (v == null) m.put(key, new long[] {a, b});
    else {
      v[0] += a;
      v[1] += b;
    }
  }

  static RequestTotals merge(RequestTotals x, RequestTotals y) {
    x.requests += y.requests;
    x.firstArrival = Math.min(x.firstArrival, y.firstArrival);
    x.lastArrival = Math.max(x.lastArrival, y.lastArrival);
    x.withSession += y.withSession;
    x.withTurn += y.withTurn;
    x.turn0 += y.turn0;
    x.prefillTokens += y.prefillTokens;
    x.outputTokens += y.outputTokens;
    x.blockSizes.addAll(y.blockSizes);
    for (var e : y.byMinute.long2ObjectEntrySet()) add(x.byMinute, e.getLongKey(), e.getValue()[0], e.getValue()[1]);
    for (var e : y.byTurn.long2ObjectEntrySet()) add(x.byTurn, e.getLongKey(), e.getValue()[0], e.getValue()[1]);
    for (var e : y.byTrigger.entrySet()) {
      long[] v = x.byTrigger.computeIfAbsent(e.getKey(), k -> new long[2]);
      v[0] += e.getValue()[0];
      v[1] += e.getValue()[1];
    }
    return x;
  }

  /** Follow-ups: requests with turn > 0. */
  long followUps() {
    long f = 0;
    for (var e : byTurn.long2ObjectEntrySet()) if (e.getLongKey() > 0) f += e.getValue()[0];
    return f;
  }
}
