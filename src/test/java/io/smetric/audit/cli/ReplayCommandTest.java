package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {
  @TempDir Path tmp;

  private String writeTrace() {
    // two sessions of three turns; each follow-up extends its session's previous prompt
    Traces.Builder b = Traces.builder()
        .simple("a0", "A", 0, 0.0, 1, 2)
        .simple("b0", "B", 0, 0.1, 5, 6)
        .simple("a1", "A", 1, 1.0, 1, 2, 3)
        .simple("b1", "B", 1, 1.1, 5, 6, 7)
        .simple("a2", "A", 2, 2.0, 1, 2, 3, 4)
        .simple("b2", "B", 2, 2.1, 5, 6, 7, 8);
    SparkSession spark = TestSpark.get();
    String dir = tmp.resolve("canon").toString();
    b.toDataset(spark).write().parquet(dir);
    return dir;
  }

  @Test
  void replay_sweep_writesTablesAndJson() throws Exception {
    String in = writeTrace();
    String out = tmp.resolve("out").toString();
    StringWriter so = new StringWriter();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--instances", "2", "--local-blocks", "unbounded",
        "--policies", "smetric,least-load,session-hash", "--global-ratio", "0,0.4", "--rate-scale", "1,2",
        "--out", out}, new PrintWriter(so, true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    JsonNode j = Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json")));
    // 3 policies x 2 ratios x 2 rates = 12 grid runs; headline = 3 x 2 rows; then the equal-load runs the
    // verdict reads (smetric and least-load at 1, 1.5, 2 x least-load's reference rate, those not on the grid)
    long eq = j.get("equal_load").get("simulations").asLong();
    long grid = 0;
    for (JsonNode r : j.get("runs")) if (!r.has("variant")) grid++;
    assertEquals(12, grid);
    assertEquals(12 + eq, j.get("runs").size());
    assertTrue(eq > 0 && eq <= 2 * 2 * 3, "at most 2 policies x 2 ratios x 3 loads: " + eq);
    assertEquals(6, j.get("headline").size());
    Row[] runs = (Row[]) TestSpark.get().read().parquet(out + "/runs").orderBy("run_id").collect();
    assertEquals(12 + eq, runs.length);
    for (Row r : runs) {
      String p = r.getString(r.fieldIndex("policy"));
      if (p.equals("session-hash")) assertEquals(1.0, r.getDouble(r.fieldIndex("stickiness")), 0.0);
      // thresholds are recorded only for the policy that reads them
      if (p.equals("smetric")) assertEquals(1.5, r.getDouble(r.fieldIndex("overload")), 0.0);
      else assertTrue(r.isNullAt(r.fieldIndex("overload")), p);
    }
    assertTrue(TestSpark.get().read().parquet(out + "/latency_cdf").count() > 0);
  }

  @Test
  void replay_unknownPolicy_usageError() {
    String in = writeTrace();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--policies", "nope", "--out", tmp.resolve("o").toString()},
        new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(2, code);
    assertTrue(se.toString().contains("unknown policy 'nope'"), se.toString());
  }

  @Test
  void replay_unknownRateScaling_usageError() {
    String in = writeTrace();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--rate-scaling", "stretch", "--out", tmp.resolve("o").toString()},
        new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(2, code);
    assertTrue(se.toString().contains("--rate-scaling: unknown value 'stretch' (one of: uniform, sessions)"), se.toString());
  }

  @Test
  void replay_ingestOutputFolder_readsItsTraceDataset() throws Exception {
    // an ingest output folder holds trace/ (the dataset) next to ingest-summary.json
    Path ing = tmp.resolve("ingested");
    Files.createDirectories(ing);
    Traces.builder().simple("a0", "A", 0, 0.0, 1, 2).simple("a1", "A", 1, 1.0, 1, 2, 3)
        .toDataset(TestSpark.get()).write().parquet(ing.resolve("trace").toString());
    Files.writeString(ing.resolve("ingest-summary.json"), "{}");
    String out = tmp.resolve("out2").toString();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", ing.toString(), "--instances", "2", "--policies", "least-load",
        "--executor", "local", "--out", out}, new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    assertEquals(2, Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json"))).get("trace_summary").get("requests").asInt());
  }

  @Test
  void replay_rateScalingClosedLoopAndGlobalLoad_reachTheSettings() throws Exception {
    String in = writeTrace();
    String out = tmp.resolve("out-loop").toString();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--instances", "2", "--policies", "least-load", "--rate-scale", "0.5",
        "--rate-scaling", "sessions", "--closed-loop", "--global-load", "in-step", "--executor", "local", "--out", out},
        new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    var settings = Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json"))).get("settings");
    assertEquals("SESSIONS", settings.get("rateScaling").asText(), settings.toString());
    assertTrue(settings.get("followUpsWaitForPrevious").asBoolean(), settings.toString());
    assertEquals("IN_STEP", settings.get("globalLoad").asText(), settings.toString());
  }

  @Test
  void replay_sweepAudit_oneJobWithComparisonAblationSensitivity() throws Exception {
    String in = writeTrace();
    String out = tmp.resolve("audit").toString();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--instances", "2", "--sweep", "audit", "--rate-grid", "fixed", "--bootstrap", "0", "--no-conditions", "--out", out},
        new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    JsonNode j = Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json")));
    // the audit's pace: session trees and the closed loop
    assertEquals("SESSIONS", j.get("settings").get("rateScaling").asText());
    assertTrue(j.get("settings").get("followUpsWaitForPrevious").asBoolean());
    // 9 policies x 5 ratios x 5 rates + 3 ablation variants x 5 x 5 + (4 OVERLOAD + 3 HIT_RATIO) x 5 rates
    // = 225 + 75 + 35 = 335 simulations on the fixed grid; then the judged routers' reference rates
    // (bisection, the same curves) and the equal-load runs, counted in the equal_load block
    java.util.Set<Double> grid = new java.util.HashSet<>();
    j.get("sweep").get("rates").forEach(x -> grid.add(x.asDouble()));
    long onGrid = 0;
    long equalLoad = 0;
    for (JsonNode r : j.get("runs")) {
      if (r.path("variant").asText("").equals("equal-load")) equalLoad++;
      else if (grid.contains(r.get("rate_scale").asDouble())) onGrid++;
    }
    assertEquals(335, onGrid);
    assertEquals(j.get("equal_load").get("simulations").asLong(), equalLoad);
    assertEquals(0, j.get("equal_load").get("refined_curves").asInt(), "the fixed grid refines no maximum");
    assertEquals("audit", j.get("sweep").get("preset").asText());
    JsonNode c = j.get("comparison");
    assertEquals(8, c.get("baselines").size()); // every production policy, session-hash included
    assertEquals(5, c.get("by_global_ratio").size());
    assertEquals(0.02, c.get("min_global_ratio_for_gain").get("threshold").asDouble());
    assertEquals(5, j.get("ablation").get("by_global_ratio").size());
    assertEquals(4, j.get("ablation").get("variants").size());
    // OVERLOAD rows (HIT_RATIO at its default): smetric at O 1.5 at 5 ratios + 4 swept values at 1.6,
    // smetric-overload-only at 5 ratios = 14
    assertEquals(5 + 4 + 5, j.get("sensitivity").get("overload").size());
    // HIT_RATIO rows: smetric at H 0.5 at 5 ratios + 3 swept values at 1.6, smetric-eviction-only at 5 = 13
    assertEquals(5 + 3 + 5, j.get("sensitivity").get("hit_ratio").size());
    assertTrue(j.get("stickiness").size() >= 12);
  }

  @Test
  void replay_sweepAuditWithAxisOption_usageError() {
    String in = writeTrace();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--sweep", "audit", "--rate-scale", "1", "--out",
        tmp.resolve("o").toString()}, new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(2, code);
    assertTrue(se.toString().contains("--sweep audit fixes the grid"), se.toString());
  }

  @Test
  void replay_currentRouter_namesTheJudgedRouter_andBadNamesAreUsageErrors() throws Exception {
    String in = writeTrace();
    String out = tmp.resolve("out-judged").toString();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--instances", "2", "--policies", "smetric,least-load,lmetric,dynamo-kv",
        "--current-router", "dynamo-kv", "--executor", "local", "--out", out},
        new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    JsonNode j = Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json")));
    assertEquals("dynamo-kv", j.get("judged").get("current_router").asText());
    assertEquals("[\"dynamo-kv\"]", j.get("judged").get("baselines").toString());
    assertEquals("[\"least-load\",\"lmetric\"]", j.get("paper_claim").get("baselines").toString());
    assertEquals(4, j.get("best_router").get("by_global_ratio").get(0).get("ranking").size());
    for (String[] bad : new String[][] {{"smetric-basic", "SMetric or one of its variants"}, {"llm-d", "not in --policies"},
        {"nope", "--current-router"}}) {
      StringWriter e = new StringWriter();
      int c = Main.run(new String[] {"replay", in, "--policies", "smetric,least-load", "--current-router", bad[0], "--out",
          tmp.resolve("o-" + bad[0]).toString()}, new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
      assertEquals(2, c, bad[0]);
      assertTrue(e.toString().contains(bad[1]), e.toString());
    }
  }

  @Test
  void replay_currentRouterConfig_isJudged_andListedInReplayJson_unmodelledFlagExit2() throws Exception {
    String in = writeTrace();
    String out = tmp.resolve("out-configured").toString();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--instances", "2", "--policies", "smetric,sglang-cache-aware",
        "--current-router", "sglang:--cache-threshold 0.6 --balance-abs-threshold 8", "--executor", "local", "--out", out},
        new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    JsonNode j = Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json")));
    assertEquals("sglang-cache-aware", j.get("judged").get("current_router").asText());
    assertEquals(0.6, j.get("settings").get("sglangCacheThreshold").asDouble());
    assertEquals(8, j.get("settings").get("sglangBalanceAbs").asInt());
    JsonNode cfg = j.get("judged").get("current_router_config");
    assertEquals("--cache-threshold -> sglangCacheThreshold", cfg.get(0).get("knob").asText());
    assertEquals("0.6", cfg.get(0).get("value").asText());
    assertTrue(cfg.get(2).get("source").asText().contains("SGLang router default 1.5"), cfg.toString());
    for (JsonNode p : j.get("policies")) {
      if (p.get("name").asText().equals("sglang-cache-aware")) assertTrue(p.get("defaults").asText().startsWith("as configured"));
    }
    StringWriter e = new StringWriter();
    int c = Main.run(new String[] {"replay", in, "--policies", "smetric,sglang-cache-aware", "--current-router",
        "sglang:--max-tree-size 100", "--out", tmp.resolve("o-bad").toString()},
        new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(2, c);
    assertTrue(e.toString().contains("--max-tree-size is not modelled"), e.toString());
  }

  /**
   * The adaptive grid (default of --sweep audit): every curve's headline is bracketed by lower or
   * equal neighbours within the resolution, or sits at the grid's floor or cap; runs come in
   * rounds (replay.json sweep.rounds).
   */
  @Test
  void replay_sweepAudit_adaptiveGrid_everyKneeBracketedOrAtABound() throws Exception {
    String in = writeTrace();
    String out = tmp.resolve("audit-adaptive").toString();
    StringWriter se = new StringWriter();
    int code = Main.run(new String[] {"replay", in, "--instances", "2", "--sweep", "audit", "--open-loop", "--out", out}, new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    JsonNode j = Json.MAPPER.readTree(Files.readString(Path.of(out, "replay.json")));
    assertEquals("adaptive", j.get("sweep").get("rate_grid").asText());
    assertTrue(j.get("sweep").get("rounds").asInt() >= 2, j.get("sweep").toString());
    assertTrue(!j.get("settings").get("followUpsWaitForPrevious").asBoolean(), "--open-loop overrides the audit's pace");
    double ref = j.get("sweep").get("rate_reference").asDouble();
    java.util.Map<String, java.util.TreeMap<Double, Double>> curves = new java.util.HashMap<>();
    // bootstrap replicates (default 10 with --sweep audit) ran after the main sweep
    assertEquals(10, j.get("uncertainty").get("replicates").asInt());
    assertTrue(j.get("uncertainty").get("simulations").asInt() > 0, j.get("uncertainty").toString());
    for (JsonNode r : j.get("runs")) {
      if (r.has("replicate")) continue;
      String variant = r.path("variant").asText("");
      if (variant.startsWith("param:") || variant.equals("grid")) continue; // the conditions sweep's points
      if (variant.equals("equal-load")) continue; // rates another curve chose: not part of this curve's search
      if (variant.equals("capacity") || variant.equals("sized")) continue; // the capacity search: other cluster sizes
      String key = r.get("policy").asText() + "|" + r.get("global_ratio").asText() + "|" + r.get("overload").asText() + "|"
          + r.get("hit_ratio").asText();
      curves.computeIfAbsent(key, k -> new java.util.TreeMap<>()).put(r.get("rate_scale").asDouble(),
          r.get("metrics").get("tps_within_slo").asDouble());
    }
    assertEquals(67, curves.size());
    // the conditions sweep ran after the main sweep (or says why it could not)
    JsonNode cond = j.get("conditions");
    assertTrue(cond != null && (cond.has("parameters") || cond.has("not_applicable")), String.valueOf(cond));
    for (var e : curves.entrySet()) {
      var c = e.getValue();
      double at = c.firstKey();
      for (var x : c.entrySet()) if (x.getValue() > c.get(at)) at = x.getKey();
      Double l = c.lowerKey(at);
      Double h = c.higherKey(at);
      boolean floor = l == null && at <= ref / 64 * 1.001;
      boolean cap = h == null && at >= ref * 8 * 0.999;
      assertTrue(floor || l != null && at / l <= 1.2, e.getKey() + " " + c);
      assertTrue(cap || h != null && h / at <= 1.2, e.getKey() + " " + c);
    }
  }
}
