package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.ReplayTables;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay stage job's shape (docs/architecture.md, "Stage jobs"): one options record in, the
 * stage's output written into the folder it is given under its job groups, what it wrote out. What
 * a replay computes is the other replay tests'.
 */
class ReplayJobTest {
  @TempDir Path tmp;

  /** Two sessions of three turns; each follow-up extends its session's previous prompt. */
  static Traces.Builder trace() {
    return Traces.builder().blockSize(16)
        .simple("a0", "A", 0, 0.0, 1, 2).simple("b0", "B", 0, 0.1, 5, 6)
        .simple("a1", "A", 1, 1.0, 1, 2, 3).simple("b1", "B", 1, 1.1, 5, 6, 7)
        .simple("a2", "A", 2, 2.0, 1, 2, 3, 4).simple("b2", "B", 2, 2.1, 5, 6, 7, 8);
  }

  /** smetric and least-load at two offered rates: four simulations. */
  static ReplayJob.Options grid() {
    return ReplayJob.Options.grid(ReplayFixtures.settings(2, -1), List.of(Policies.SMETRIC, Policies.LEAST_LOAD), null,
        List.of(1.0, 2.0), null, null).withTraceLabel("tiny");
  }

  private record Run(ReplayJob.Result result, Set<String> groups, Path folder) {}

  private Run run(ReplayJob.Options o, String name) {
    SparkSession spark = TestSpark.get();
    Path target = tmp.resolve(name);
    try (OutputDir out = OutputDir.open(target.toString(), false, spark.sparkContext().hadoopConfiguration())) {
      ReplayJob job = new ReplayJob(spark, ReplayFixtures.trace(trace(), false), o);
      StageJobs.Recorded<ReplayJob.Result> rec = StageJobs.recordGroups(spark, () -> job.run(out));
      assertFalse(Files.exists(target), "run does not commit: the caller owns the folder");
      assertThrows(IllegalStateException.class, () -> job.run(out), "a job runs once");
      out.commit();
      return new Run(rec.value(), rec.groupSet(), target);
    }
  }

  @Test
  void run_writesReplayJsonAndTheContractTablesOnly_underItsGroups_andReturnsWhatItWrote() throws IOException {
    Run spark = run(grid(), "spark");
    assertEquals(Set.of(ReplayJob.SWEEP_GROUP, ReplayJob.WRITE_GROUP), spark.groups(), "every Spark job of the stage in its groups");
    TreeSet<String> expected = new TreeSet<>(AuditLayout.REPLAY_TABLES);
    expected.add(AuditLayout.REPLAY_FILE);
    assertEquals(expected, StageJobs.names(spark.folder()), "the sweep's scratch copy of the trace is gone");
    ReplayJob.Result r = spark.result();
    StageJobs.assertWritten(r.json(), spark.folder().resolve(AuditLayout.REPLAY_FILE));
    // the grid's 4 runs and the equal-load runs the verdict reads (counted in replay.json's equal_load block)
    long n = 4 + r.json().get("equal_load").get("simulations").asLong();
    assertEquals(n, r.runs());
    assertEquals(n, r.results().size());
    assertEquals(n, r.json().get("runs").size());
    assertEquals("tiny", r.json().get("trace").asText());
    assertEquals(n, TestSpark.get().read().parquet(spark.folder().resolve(AuditLayout.REPLAY_RUNS_DIR).toString()).count());
    // the tables have the contract's columns, the ones the report reads them by
    assertEquals(List.of(ReplayTables.HEADLINE.fieldNames()), columns(spark.folder(), AuditLayout.REPLAY_HEADLINE_DIR));
    assertEquals(List.of(ReplayTables.LATENCY_CDF.fieldNames()), columns(spark.folder(), AuditLayout.REPLAY_LATENCY_CDF_DIR));
    assertEquals(List.of(ReplayTables.IMBALANCE_WINDOWS.fieldNames()),
        columns(spark.folder(), AuditLayout.REPLAY_IMBALANCE_WINDOWS_DIR));
    assertEquals(List.of(ReplayTables.INSTANCE_LOAD.fieldNames()), columns(spark.folder(), AuditLayout.REPLAY_INSTANCE_LOAD_DIR));
    List<String> runCols = columns(spark.folder(), AuditLayout.REPLAY_RUNS_DIR);
    assertEquals(List.of(ReplayTables.RUNS_FIXED.fieldNames()), runCols.subList(0, ReplayTables.RUNS_FIXED.size()));
    for (String m : List.of(ReplayTables.RunMetrics.TPS_WITHIN_SLO, ReplayTables.RunMetrics.STICKINESS,
        ReplayTables.RunMetrics.IMBALANCE_MEAN, ReplayTables.RunMetrics.LOCAL_HIT_RATIO)) {
      assertTrue(runCols.contains(m), m);
    }

    // the same options in the driver: no sweep jobs, the same output
    Run local = run(grid().withUseSpark(false), "local");
    assertEquals(Set.of(ReplayJob.WRITE_GROUP), local.groups());
    assertEquals(expected, StageJobs.names(local.folder()));
    assertEquals(withoutTimes(r.json()), withoutTimes(local.result().json()));
    for (String t : AuditLayout.REPLAY_TABLES) {
      assertEquals(rows(spark.folder(), t), rows(local.folder(), t), t);
    }
  }

  @Test
  void run_reportsProgress_doneMonotone_neverAboveTheTotal_exactAtTheEnd() {
    // an adaptive plan with every phase: knee searches, bootstrap replicates, the conditions sweep
    ReplayJob.Options o = ReplayJob.Options.custom(ReplayFixtures.settings(2, -1), AuditPlan.RateGrid.ADAPTIVE,
        List.of(Policies.SMETRIC, Policies.LEAST_LOAD), List.of(0.0, 1.6)).withBootstrap(2)
        .withConditions(io.smetric.audit.replay.sweep.Conditions.DEFAULTS).withUseSpark(false);
    List<io.smetric.audit.replay.sweep.SweepProgress.Snapshot> seen = new ArrayList<>();
    ReplayJob job = new ReplayJob(TestSpark.get(), ReplayFixtures.trace(trace(), false), o).onProgress(seen::add);
    ReplayJob.Result r;
    try (OutputDir out = OutputDir.open(tmp.resolve("progress").toString(), false,
        TestSpark.get().sparkContext().hadoopConfiguration())) {
      r = job.run(out);
    }
    assertEquals(0, seen.get(0).done(), "the plan is announced before any result");
    assertTrue(seen.get(0).total() > 0);
    long done = -1;
    for (var s : seen.subList(1, seen.size() - 1)) {
      assertTrue(s.done() > done, "done only grows: " + s.line());
      assertTrue(s.done() <= s.total() && s.percent() <= 100, s.line());
      done = s.done();
    }
    var end = seen.get(seen.size() - 1);
    assertTrue(end.exact(), end.line());
    assertEquals(r.runs(), end.done());
    assertEquals(r.runs(), end.total(), "every part finished, every placeholder replaced");
    assertTrue(r.json().path("uncertainty").path("simulations").asInt() > 0, "the replicates ran: " + r.json().path("uncertainty"));
  }

  @Test
  void options_takeTheirAxesFromTheSettings_andThePlans() {
    // (the settings are an immutable value: the options keep the one given, no copy needed)
    ReplaySettings s = ReplayFixtures.settings(2, -1);
    ReplayJob.Options o = ReplayJob.Options.grid(s, null, null, null, null, null);
    assertSame(s, o.settings());
    // a grid's absent axes are the base settings' single values, all policies
    assertEquals(Policies.defaults(), o.policies());
    assertEquals(List.of(s.globalRatio), o.globalRatios());
    assertEquals(List.of(s.rateScale), o.rates());
    assertEquals(List.of(s.overload), o.overloads());
    // the audit plan: production policies and the ablation; OVERLOAD and HIT_RATIO sensitivity after the base values
    ReplayJob.Options a = ReplayJob.Options.audit(s, AuditPlan.RateGrid.ADAPTIVE);
    assertEquals(AuditPlan.POLICIES.size() + AuditPlan.ABLATION.size(), a.policies().size());
    assertEquals(s.overload, a.overloads().get(0));
    assertEquals(AuditPlan.OVERLOADS, a.overloads().subList(1, a.overloads().size()));
    assertEquals(s.hitRatio, a.hitRatios().get(0));
    assertEquals(List.of(), a.rates(), "found per curve");
    assertThrows(IllegalArgumentException.class, () -> a.withBootstrap(-1));
    assertThrows(IllegalArgumentException.class,
        () -> new ReplayJob.Options(s, ReplayJob.Plan.GRID, AuditPlan.RateGrid.FIXED, List.of(Policies.SMETRIC), List.of(0.0),
            List.of(1.0), List.of(1.5), List.of(0.5), "", null, 0, null, true, null), "a rate grid with a grid plan");
  }

  /** replay.json without its wall and CPU times (the only fields that differ from run to run). */
  private static JsonNode withoutTimes(JsonNode j) {
    JsonNode c = j.deepCopy();
    strip(c);
    return c;
  }

  private static void strip(JsonNode n) {
    if (n instanceof ObjectNode o) {
      o.remove(List.of("wall_s", "cpu_s"));
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext();) strip(it.next().getValue());
    } else if (n.isArray()) {
      for (JsonNode x : n) strip(x);
    }
  }

  private static List<String> rows(Path folder, String table) {
    List<String> out = new ArrayList<>();
    for (Row r : TestSpark.get().read().parquet(folder.resolve(table).toString()).drop("wall_s", "cpu_s").collectAsList()) {
      out.add(r.toString());
    }
    out.sort(null);
    return out;
  }

  private static List<String> columns(Path folder, String table) {
    return List.of(TestSpark.get().read().parquet(folder.resolve(table).toString()).columns());
  }
}
