package io.smetric.audit.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.contract.TraceRecord.Recorded;
import io.smetric.audit.testing.StageRuns;
import io.smetric.audit.testing.TestSpark;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optional recorded-routing fields of trace-model v1.3 (served instance, TTFT, end-to-end,
 * outcome) through the smetric JSONL, CSV and canonical Parquet ingest, on the fixtures in
 * src/test/resources/recorded/. Expected values are read off the fixture lines by hand: first-token
 * and finish times minus the arrival give the durations (line b: 12.5 - 12 = 0.5 s, 14.25 - 12 =
 * 2.25 s); every rule break is quarantined with the field named.
 */
class RecordedFieldsTest {
  private final SparkSession spark = TestSpark.get();
  @TempDir Path tmp;
  private static final Path FIXTURES = Path.of("src/test/resources/recorded");

  private StageRuns.Ingested ingest(Path... files) {
    return StageRuns.ingest(new IngestJob.Options(Arrays.stream(files).map(Path::toString).toList(),
        TraceFormat.parse("auto"), null, IngestJob.DEFAULT_MAX_LINE_BYTES), tmp.resolve("out-" + System.nanoTime()).toString());
  }

  private List<TraceRecord> trace(String dir) {
    return spark.read().schema(Canonical.SCHEMA).parquet(dir + "/trace").orderBy(Canonical.ARRIVAL_S).collectAsList()
        .stream().map(TraceRecord::fromRow).toList();
  }

  private List<String> quarantine(String dir) {
    return spark.read().parquet(dir + "/quarantine").orderBy("line").collectAsList().stream()
        .map(q -> q.getString(q.fieldIndex("reason")) + ":" + q.getString(q.fieldIndex("field"))).toList();
  }

  @Test
  void jsonl_durationsOrTimestamps_kept_andRuleBreaksQuarantinedByField() {
    StageRuns.Ingested r = ingest(FIXTURES.resolve("trace.jsonl"));
    List<TraceRecord> t = trace(r.out());
    assertEquals(List.of("a", "b", "c", "d"), t.stream().map(TraceRecord::requestId).toList());
    assertEquals(new Recorded("gpu-0", 0.25, 1.5, "completed"), t.get(0).recorded());
    assertEquals(new Recorded("gpu-1", 0.5, 2.25, "aborted"), t.get(1).recorded());
    assertEquals(new Recorded(null, null, 2.0, null), t.get(2).recorded());
    assertNull(t.get(3).recorded());
    assertEquals(List.of("bad_value:ttft_s", "negative_value:e2e_s", "bad_value:outcome", "bad_value:first_token_s"),
        quarantine(r.out()));

    // the canonical Parquet it wrote ingests again with the same fields (the Parquet reader keeps them)
    StageRuns.Ingested again = ingest(Path.of(r.out(), "trace"));
    assertEquals(t.stream().map(TraceRecord::recorded).toList(), trace(again.out()).stream().map(TraceRecord::recorded).toList());
  }

  @Test
  void csv_canonicalColumns_keepTheFields() {
    StageRuns.Ingested r = ingest(FIXTURES.resolve("trace.csv"));
    List<TraceRecord> t = trace(r.out());
    assertEquals(List.of("a", "b", "c"), t.stream().map(TraceRecord::requestId).toList());
    assertEquals(new Recorded("gpu-0", 0.5, 2.5, "completed"), t.get(0).recorded());
    assertEquals(new Recorded("gpu-1", 0.75, 2.0, "error"), t.get(1).recorded()); // 2.75 - 2, 4 - 2
    assertNull(t.get(2).recorded());
    assertEquals(List.of("bad_value:ttft_s"), quarantine(r.out())); // TTFT 1.5 s after an end-to-end of 1.0 s
  }

  @Test
  void recorded_constructor_enforcesTheContractsRules() {
    assertThrows(IllegalArgumentException.class, () -> new Recorded("x", 2.0, 1.0, null));
    assertThrows(IllegalArgumentException.class, () -> new Recorded("x", -0.1, null, null));
    assertThrows(IllegalArgumentException.class, () -> new Recorded("x", null, Double.NaN, null));
    assertThrows(IllegalArgumentException.class, () -> new Recorded("x", null, null, "done"));
    assertEquals("ttft_s: 2.0 s exceeds e2e_s 1.0 s", Recorded.problem("x", 2.0, 1.0, null));
    assertNull(Recorded.problem("x", 1.0, 1.0000005, "completed")); // a microsecond of slack for separately rounded times
  }
}
