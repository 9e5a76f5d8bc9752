package io.smetric.audit.replay.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading a canonical dataset in replay order: files already in (arrival_s, seq) order, as ingest
 * writes them, stream without a sort; anything else falls back to the range sort, with the same
 * trace either way.
 */
class TraceLoaderTest {
  @TempDir Path tmp;

  /**
   * Six requests of two sessions, seq = insertion order, arrivals 0, 1, 2, 2, 4, 5 (a tie at t=2:
   * a1 has the lower seq); parts hold the records from..to-1 with their seq unchanged.
   */
  private static Traces.Builder part(int from, int to) {
    Traces.Builder all = Traces.builder().blockSize(16)
        .simple("a0", "A", 0, 0.0, 1, 2)
        .simple("b0", "B", 0, 1.0, 11, 12)
        .simple("a1", "A", 1, 2.0, 1, 2, 3)
        .simple("b1", "B", 1, 2.0, 11, 12, 13)
        .simple("a2", "A", 2, 4.0, 1, 2, 3, 4)
        .simple("b2", "B", 2, 5.0, 11, 12, 13, 14);
    Traces.Builder b = Traces.builder().blockSize(16);
    all.records().subList(from, to).forEach(b::add);
    return b;
  }

  private static Traces.Builder early() {
    return part(0, 3);
  }

  private static Traces.Builder late() {
    return part(3, 6);
  }

  /** Writes each part as one Parquet file named part-0000k.parquet in a fresh dataset folder. */
  private String dataset(String name, Traces.Builder... parts) throws IOException {
    SparkSession spark = TestSpark.get();
    Path dir = tmp.resolve(name);
    Files.createDirectories(dir);
    for (int k = 0; k < parts.length; k++) {
      Path stage = tmp.resolve(name + "-stage-" + k);
      Dataset<Row> d = parts[k].toDataset(spark).coalesce(1);
      d.write().parquet(stage.toString());
      try (Stream<Path> files = Files.list(stage)) {
        Path part = files.filter(p -> p.getFileName().toString().endsWith(".parquet")).findFirst().orElseThrow();
        Files.move(part, dir.resolve(String.format("part-%05d.parquet", k)));
      }
    }
    return dir.toString();
  }

  private static Dataset<Row> read(String dir) {
    return TestSpark.get().read().parquet(dir);
  }

  @Test
  void filesInReplayOrder_streamWithoutSort_sameTraceAsSorted() throws IOException {
    String dir = dataset("ordered", early(), late());
    ReplayTraceBuilder fast = TraceLoader.streamInFileOrder(TestSpark.get(), read(dir), dir, false);
    assertNotNull(fast, "ingest-ordered files must take the fast path");
    ReplayTrace t = fast.build();
    // the tie at t=2: a1 (seq 2) before b1 (seq 3)
    assertArrayEquals(new String[] {"a0", "b0", "a1", "b1", "a2", "b2"}, t.requestIds);
    assertArrayEquals(new double[] {0, 1, 2, 2, 4, 5}, t.arrival, 0.0);
    ReplayTrace loaded = TraceLoader.load(TestSpark.get(), dir, false);
    assertArrayEquals(t.requestIds, loaded.requestIds);
    assertEquals(t.segments, loaded.segments);
    assertArrayEquals(t.estHitBlocks, loaded.estHitBlocks);
    // the direct read (no Spark job) folds the same trace, block ids included
    ReplayTraceBuilder direct = TraceLoader.readInFileOrder(TestSpark.get(), dir, true);
    assertNotNull(direct, "a canonical dataset in replay order is read directly");
    assertSameTrace(TraceLoader.streamInFileOrder(TestSpark.get(), read(dir), dir, true).build(), direct.build());
  }

  /**
   * validate's one read: the recorded columns come out of the direct read aligned with the replay
   * order, equal to what the separate Spark pass (TraceValidation.read) finds; nulls stay null/NaN.
   */
  @Test
  void loadWithRecorded_directRead_sameColumnsAsTheSparkPass() throws IOException {
    io.smetric.audit.contract.TraceRecord.Recorded[] rec = {
        new io.smetric.audit.contract.TraceRecord.Recorded("gpu-1", 0.5, 2.0, "completed"),
        new io.smetric.audit.contract.TraceRecord.Recorded("gpu-2", null, 3.0, "completed"),
        null,
        new io.smetric.audit.contract.TraceRecord.Recorded("gpu-1", 0.25, null, "aborted"),
        new io.smetric.audit.contract.TraceRecord.Recorded(null, 1.0, 4.0, null),
        new io.smetric.audit.contract.TraceRecord.Recorded("gpu-2", 0.125, 0.75, "error")};
    Traces.Builder all = part(0, 6);
    Traces.Builder withRec = Traces.builder().blockSize(16);
    for (int k = 0; k < 6; k++) withRec.add(all.records().get(k).withRecorded(rec[k]));
    Traces.Builder a = Traces.builder().blockSize(16);
    Traces.Builder b = Traces.builder().blockSize(16);
    withRec.records().subList(0, 3).forEach(a::add);
    withRec.records().subList(3, 6).forEach(b::add);
    String dir = dataset("recorded", a, b);
    TraceLoader.WithRecorded w = TraceLoader.loadWithRecorded(TestSpark.get(), dir, false);
    assertNotNull(w.recorded(), "a canonical dataset in replay order is read directly, recorded columns included");
    assertArrayEquals(new String[] {"a0", "b0", "a1", "b1", "a2", "b2"}, w.trace().requestIds);
    assertArrayEquals(new String[] {"gpu-1", "gpu-2", null, "gpu-1", null, "gpu-2"}, w.recorded().servedInstance());
    assertArrayEquals(new double[] {0.5, Double.NaN, Double.NaN, 0.25, 1.0, 0.125}, w.recorded().ttft(), 0.0);
    assertArrayEquals(new double[] {2.0, 3.0, Double.NaN, Double.NaN, 4.0, 0.75}, w.recorded().e2e(), 0.0);
    assertArrayEquals(new String[] {"completed", "completed", null, "aborted", null, "error"}, w.recorded().outcome());
    var spark = io.smetric.audit.replay.TraceValidation.read(TestSpark.get(), dir, w.trace());
    assertArrayEquals(spark.instance(), w.recorded().servedInstance());
    assertArrayEquals(spark.ttft(), w.recorded().ttft(), 0.0);
    assertArrayEquals(spark.e2e(), w.recorded().e2e(), 0.0);
    assertArrayEquals(spark.outcome(), w.recorded().outcome());
    assertSameTrace(TraceLoader.load(TestSpark.get(), dir, false), w.trace());
  }

  private static void assertSameTrace(ReplayTrace a, ReplayTrace b) {
    assertEquals(a.n, b.n);
    assertEquals(a.blockSize, b.blockSize);
    assertEquals(a.sessions, b.sessions);
    assertEquals(a.segments, b.segments);
    assertEquals(a.blockCountMismatches, b.blockCountMismatches);
    assertArrayEquals(a.requestIds, b.requestIds);
    assertArrayEquals(a.arrival, b.arrival, 0.0);
    assertArrayEquals(a.input, b.input);
    assertArrayEquals(a.output, b.output);
    assertArrayEquals(a.turn, b.turn);
    assertArrayEquals(a.session, b.session);
    assertArrayEquals(a.sessionHash, b.sessionHash);
    assertArrayEquals(a.blocks, b.blocks);
    assertArrayEquals(a.estHitBlocks, b.estHitBlocks);
    assertArrayEquals(a.prevInSession, b.prevInSession);
    assertArrayEquals(a.forkParent, b.forkParent);
    assertArrayEquals(a.segParent, b.segParent);
    assertArrayEquals(a.segStart, b.segStart);
    assertArrayEquals(a.segLen, b.segLen);
    assertArrayEquals(a.pathOff, b.pathOff);
    assertArrayEquals(a.pathNodes, b.pathNodes);
    assertArrayEquals(a.segBlocks, b.segBlocks);
    assertArrayEquals(a.segBlockOff, b.segBlockOff);
  }

  @Test
  void filesOutOfOrder_fallBackToTheSort() throws IOException {
    String dir = dataset("swapped", late(), early()); // part-00000 holds the later half
    assertNull(TraceLoader.streamInFileOrder(TestSpark.get(), read(dir), dir, false));
    assertNull(TraceLoader.readInFileOrder(TestSpark.get(), dir, false));
    ReplayTrace t = TraceLoader.load(TestSpark.get(), dir, false);
    assertArrayEquals(new String[] {"a0", "b0", "a1", "b1", "a2", "b2"}, t.requestIds);
    assertArrayEquals(new double[] {0, 1, 2, 2, 4, 5}, t.arrival, 0.0);
  }

  @Test
  void tieOutOfSeqOrderInsideAFile_fallsBack() throws IOException {
    // b1 (seq 3) written before a1 (seq 2) at the same arrival: not replay order
    Traces.Builder b = part(0, 4);
    java.util.Collections.swap(b.records(), 2, 3);
    String dir = dataset("tie", b);
    assertNull(TraceLoader.streamInFileOrder(TestSpark.get(), read(dir), dir, false));
    assertNull(TraceLoader.readInFileOrder(TestSpark.get(), dir, false));
    assertArrayEquals(new String[] {"a0", "b0", "a1", "b1"}, TraceLoader.load(TestSpark.get(), dir, false).requestIds);
  }
}
