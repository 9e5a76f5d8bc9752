package io.smetric.audit.characterize;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.characterize.Characterization.Engine;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.ingest.IngestJob;
import io.smetric.audit.testing.StageRuns;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The segment plan against the block-pass plan it replaces ({@link ReuseJob}, test scope), and its two
 * engines against each other: every field of characterization.json (but the plan counters) and
 * every row of every table equal, on random property traces (written as Parquet files, in order
 * and out of order) and on the shipped Mooncake and agent samples; the in-process engine with
 * several routed tasks equal to one task.
 */
class SegmentPlanTest {
  @TempDir static Path tmp;
  private static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));
  private static String mooncake;
  private static String agent;

  @BeforeAll
  static void ingestSamples() {
    mooncake = ingest("sample-traces/mooncake/synthetic_trace.jsonl", "mooncake");
    agent = ingest("sample-traces/generated/agent.smetric.b64.jsonl.gz", "agent");
  }

  private static String ingest(String file, String name) {
    return StageRuns.ingest(new IngestJob.Options(List.of(REPO.resolve(file).toString()), null,
        null, IngestJob.DEFAULT_MAX_LINE_BYTES), tmp.resolve(name).toString()).out();
  }

  static Characterization.Result run(TraceInput in, Engine e, int tasks) {
    return new Characterization(TestSpark.get(), in, Characterization.Options.defaults(4)).engine(e).tasks(tasks)
        .execute();
  }

  /** The Spark engine with the block-pass plan in place of the segment plan. */
  static Characterization.Result legacy(TraceInput in) {
    return new Characterization(TestSpark.get(), in, Characterization.Options.defaults(4)).engine(Engine.SPARK)
        .reusePlan(ReuseJob.PLAN).execute();
  }

  /** Every JSON field but parameters.input and plan_counters, and every table's columns and rows. */
  static void assertSameOutput(Characterization.Result a, Characterization.Result b, String what) {
    List<String> d = new ArrayList<>();
    OutputDiff.json("", OutputDiff.strip(a.json()), OutputDiff.strip(b.json()), d);
    assertEquals(List.of(), d, what + ": characterization.json");
    assertEquals(a.tables().keySet(), b.tables().keySet(), what);
    for (Map.Entry<String, Table> t : a.tables().entrySet()) {
      Table u = b.tables().get(t.getKey());
      assertEquals(t.getValue().columns(), u.columns(), what + " " + t.getKey());
      List<Object[]> x = t.getValue().rows();
      List<Object[]> y = u.rows();
      assertEquals(x.size(), y.size(), what + " " + t.getKey());
      for (int i = 0; i < x.size(); i++) {
        assertTrue(Arrays.equals(x.get(i), y.get(i)),
            what + " " + t.getKey() + " row " + i + ": " + Arrays.toString(x.get(i)) + " vs " + Arrays.toString(y.get(i)));
      }
    }
  }

  /** All three on one input: the block-pass plan, in process, Spark tasks. */
  static void assertEnginesAgree(TraceInput in, String what) {
    try (Characterization.Result legacy = legacy(in);
        Characterization.Result local = run(in, Engine.LOCAL, 0);
        Characterization.Result spark = run(in, Engine.SPARK, 0)) {
      assertEquals("in-process", local.json().at("/plan_counters/engine").asText(local.json().toString()));
      assertSameOutput(legacy, local, what + " legacy vs in-process");
      assertSameOutput(local, spark, what + " in-process vs spark");
    }
  }

  /** A random trace as two Parquet files, sorted by (arrival_s, seq) or not. */
  static TraceInput files(long seed, boolean sorted) {
    Traces.Builder b = Traces.builder();
    ReusePropertyTest.randomTrace(seed).forEach(b::add);
    Dataset<Row> ds = b.toDataset(TestSpark.get());
    ds = sorted ? ds.repartitionByRange(2, col(Canonical.ARRIVAL_S), col(Canonical.SEQ))
        .sortWithinPartitions(Canonical.ARRIVAL_S, Canonical.SEQ) : ds.repartition(2);
    String dir = tmp.resolve("random-" + seed + (sorted ? "" : "-unsorted")).toString();
    ds.write().parquet(dir);
    return TraceInput.load(TestSpark.get(), dir);
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2})
  void randomTraces_allEnginesAndTheBlockPassPlanAgree(long seed) {
    assertEnginesAgree(files(seed, true), "seed " + seed);
  }

  @Test
  void unsortedFiles_areSortedFirst_sameOutput() {
    TraceInput unsorted = files(4, false);
    try (Characterization.Result local = run(unsorted, Engine.LOCAL, 0);
        Characterization.Result sorted = run(files(4, true), Engine.LOCAL, 0)) {
      assertSameOutput(sorted, local, "unsorted in-process");
    }
  }

  @Test
  void mooncakeSample_allEnginesAgree() {
    assertEnginesAgree(TraceInput.load(TestSpark.get(), mooncake), "mooncake");
  }

  @Test
  void agentSample_allEnginesAgree_andRoutedTasksEqualOneTask() {
    TraceInput in = TraceInput.load(TestSpark.get(), agent);
    assertEnginesAgree(in, "agent");
    try (Characterization.Result one = run(in, Engine.LOCAL, 1); Characterization.Result three = run(in, Engine.LOCAL, 3)) {
      JsonNode p = three.json().get("plan_counters");
      assertEquals(3, p.get("tasks").asInt());
      // templates shared by many sessions form the heavy prefix: their blocks become top regions
      assertTrue(p.get("heavy_prefix_blocks").asLong() > 0, p.toString());
      assertTrue(p.get("regions").asLong() > one.json().at("/plan_counters/regions").asLong(), p.toString());
      assertSameOutput(one, three, "agent 1 vs 3 tasks");
    }
  }
}
