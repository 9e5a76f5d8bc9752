package io.smetric.audit.characterize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.Test;

/** Pass 0: requests gathered by session, in (arrival, seq) order, rebuilt from deltas. */
class SessionShuffleTest {
  /** One row as seen by the passes: partition, session, request, arrival, seq, array length, used ids. */
  record Seen(int pid, String session, String request, double arrival, long seq, int len, long[] used)
      implements java.io.Serializable {}

  static List<Seen> run(Dataset<Row> trace, int parts, LongAccumulator shipped) {
    JavaRDD<InternalRow> out = SessionShuffle.bySession(ReuseJob.selectInput(trace), parts, shipped);
    return out.mapPartitionsWithIndex((pid, it) -> {
      List<Seen> l = new ArrayList<>();
      while (it.hasNext()) {
        InternalRow r = it.next();
        int n = ReuseJob.usedBlocks(r);
        long[] used = new long[n];
        ArrayData a = r.getArray(8);
        for (int i = 0; i < n; i++) used[i] = a.getLong(i);
        l.add(new Seen(pid, r.isNullAt(0) ? null : r.getUTF8String(0).toString(), r.getUTF8String(1).toString(),
            r.getDouble(5), r.getLong(9), a.numElements(), used));
      }
      return l.iterator();
    }, true).collect();
  }

  static LongAccumulator acc() {
    return TestSpark.get().sparkContext().longAccumulator("test.shipped");
  }

  @Test
  void bySession_followUpInSameInputPartition_shipsOnlyIdsPastTheCommonPrefix() {
    Dataset<Row> t = Traces.builder()
        .simple("a0", "a", 0, 0.0, 1, 2, 3)
        .simple("b0", "b", 0, 1.0, 1, 2)
        .simple("a1", "a", 1, 2.0, 1, 2, 3, 4, 5)
        .toDataset(TestSpark.get()).coalesce(1);
    LongAccumulator shipped = acc();
    List<Seen> rows = run(t, 2, shipped);
    // a0: 3 ids; b0: 2 ids (another session: no delta across sessions); a1 shares its first 3
    // chained ids with a0, so only ids 4 and 5: 3 + 2 + 2 = 7 of the 10 occurrences
    assertEquals(7L, shipped.value());
    assertEquals(3, rows.size());
  }

  @Test
  void bySession_sessionsSplitOverInputPartitions_eachSessionOnOnePartitionSortedWithItsIds() {
    Traces.Builder b = Traces.builder()
        .simple("a0", "a", 0, 0.0, 1, 2, 3)
        .simple("b0", "b", 0, 0.5, 1, 2)
        .simple("a1", "a", 1, 2.0, 1, 2, 3, 4, 5)
        .simple("c0", "c", 0, 2.0, 7)
        .simple("b1", "b", 1, 3.0, 1, 2, 8)
        .simple("a2", "a", 2, 4.0, 1, 2, 3, 4, 5, 6)
        .simple("a3", "a", 3, 5.0, 1, 2, 9); // back to an older state
    // a block-count mismatch: 4 ids for 2 blocks of tokens; the array keeps its length
    b.add(new TraceRecord("b2", "b", "b1", 2, Canonical.TRIGGER_TOOL, 6.0, 32, 10, 16,
        BlockChain.chain(new long[] {1, 2, 8, 10}), null, 7));
    b.add(new TraceRecord("x0", null, null, null, Canonical.TRIGGER_UNKNOWN, 6.5, 16, 10, 16,
        BlockChain.chain(new long[] {1}), null, 8));
    List<TraceRecord> recs = b.records();
    Dataset<Row> t = b.toDataset(TestSpark.get()).repartition(3, org.apache.spark.sql.functions.col(Canonical.REQUEST_ID));
    List<Seen> rows = run(t, 3, acc());
    assertEquals(recs.size(), rows.size());
    Map<String, Integer> home = new HashMap<>();
    Map<Integer, Seen> last = new HashMap<>();
    for (Seen s : rows) {
      if (s.session() != null) {
        Integer p = home.putIfAbsent(s.session(), s.pid());
        assertTrue(p == null || p == s.pid(), "session " + s.session() + " on two partitions");
      }
      Seen prev = last.put(s.pid(), s);
      assertTrue(prev == null || prev.arrival() < s.arrival() || (prev.arrival() == s.arrival() && prev.seq() < s.seq()),
          "partition " + s.pid() + " not in (arrival, seq) order");
      TraceRecord r = recs.stream().filter(x -> x.requestId().equals(s.request())).findFirst().orElseThrow();
      assertEquals(r.blocks().length, s.len());
      int n = Math.min(r.blocks().length, (r.inputTokens() + 15) / 16);
      assertArrayEquals(java.util.Arrays.copyOf(r.blocks(), n), s.used(), s.request());
    }
  }

  @Test
  void blockTableCodec_extremeValues_roundTrip() {
    BlockTable.Writer w = new BlockTable.Writer();
    long[] fixed = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
    long[] var = {0, 1, 127, 128, 300, 1L << 40, Long.MAX_VALUE};
    for (long v : fixed) w.fixed(v);
    for (long v : var) w.var(v);
    BlockTable.Reader r = new BlockTable.Reader(w.bytes());
    for (long v : fixed) assertEquals(v, r.fixed());
    for (long v : var) assertEquals(v, r.var());
    assertTrue(!r.more());
  }
}
