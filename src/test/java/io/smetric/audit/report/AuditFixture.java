package io.smetric.audit.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.FixtureTables;
import io.smetric.audit.testing.TestSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A hand-made audit folder with the documented layouts (docs/characterization.md, docs/replay.md,
 * docs/report.md) and tiny tables whose numbers the tests can check by hand.
 *
 * <p>Metric values (default criteria): reuse 0.82 (>= 0.70 pass), intra 0.67 (>= 0.50 pass),
 * system prompt 0.18 (>= 0.05 pass), first turn 0.07 (<= 0.25 pass), within 100 s 0.90 (>= 0.80
 * pass), ratio p5 35 (>= 30 pass). Replay: SMetric 90 vs least-load 100 at global 0 (gain
 * 90/100 - 1 = -0.10 < -0.02: fail, CONDITION), 112 vs 100 at 0.4 (+0.12 >= 0.02 pass): the verdict
 * is "fits with conditions", the condition naming 0.4x (min_global_ratio_for_gain).
 */
final class AuditFixture {
  /** Strings that end up in the report (policy label, session id, input path, finding). */
  String policyLabel = "least-load";
  String sessionId = "session-big";
  String inputPath = "/data/trace.jsonl";
  String finding = "trace.jsonl: 3 records arrive earlier than a record before them in the same file; the output is sorted";
  boolean withReplay = true;
  boolean withComparison = true;
  /**
   * Also the paper_claim, best_router and judged blocks (same numbers: least-load is the only
   * baseline; judged by --current-router least-load when {@link #currentRouter} is set).
   */
  boolean withAnswers = false;
  String currentRouter = null;
  boolean withProvenance = true;
  double gainWithout = -0.10;
  double reuse = 0.82;
  /** An Azure-like trace: no block hashes, so no reuse metrics, reuse tables or replay. */
  boolean noBlocks = false;
  /** Sessions inferred: writes inferred/inference-summary.json. */
  boolean inferred = false;
  /**
   * When > 0, the per-minute tables span this many minutes instead of three: minute 10 + i has
   * 40 + i % 7 requests per instance (minute 10 + 5 only 1) and 1000 prefill / 800 hit tokens.
   */
  int longMinutes = 0;
  /**
   * When set, replay.json's legacy "comparison" block puts SMetric's best gain at this capacity
   * while "judged" (written with {@link #withAnswers}) keeps it at 0.4, as replays do where the
   * best of every baseline and the judged router differ.
   */
  Double comparisonBestAt = null;
  /**
   * Each run's instance_load gets a warm-up window before and a drain window after the three
   * steady ones (see {@link #replay}).
   */
  boolean rampLoad = false;
  /** Session-tree rate scaling: settings.rateScaling SESSIONS, each run offering 5 x rate_scale session trees per minute. */
  boolean sessionScaling = false;

  /** Writes the folder; returns its path. */
  Path write(Path dir) throws IOException {
    SparkSession spark = TestSpark.get();
    Files.createDirectories(dir.resolve("characterization"));
    Files.writeString(dir.resolve("characterization/characterization.json"), characterization());
    tables(spark, dir.resolve("characterization"));
    if (inferred) {
      Files.createDirectories(dir.resolve("inferred"));
      Files.writeString(dir.resolve("inferred/inference-summary.json"), "{\"sessions_mode\":\"inferred\",\"method\":"
          + "\"prefix-continuation\",\"requests\":270,\"sessions\":40,\"fork_sessions\":{\"total\":3}}");
    }
    Files.createDirectories(dir.resolve("ingest"));
    Files.writeString(dir.resolve("ingest/ingest-summary.json"), ingest());
    if (withProvenance) Files.writeString(dir.resolve("provenance.json"), provenance());
    if (withReplay) replay(spark, dir.resolve("replay"));
    return dir;
  }

  String characterization() throws IOException {
    ObjectNode c = Json.object();
    c.put("format", "smetric-characterization/1");
    ObjectNode p = c.putObject("parameters");
    p.put("instances", 2);
    p.put("template_min_sessions", 3);
    p.put("interval_threshold_s", 100.0);
    ObjectNode t = c.putObject("trace");
    t.put("requests", 270);
    t.put("sessions", 40);
    t.put("prefill_tokens", 270_000); // a mean prompt of 1,000 tokens
    t.put("has_sessions", true);
    t.put("has_blocks", true);
    ObjectNode dq = c.putObject("data_quality");
    dq.putObject("analysis").put("block_count_mismatch_requests", 2).put("requests_without_session", 0);
    if (noBlocks) {
      String nb = "trace has no block hashes (blocks or block_size null in every request)";
      t.put("has_blocks", false);
      c.putObject("reuse").set("token_weighted", na(nb));
      ObjectNode src = c.putObject("reuse_by_source");
      for (String k : List.of("intra_session", "system_prompt", "inter_session")) src.putObject(k).set("share_of_hit_tokens", na(nb));
      c.putObject("reuse_interval").putObject("all").set("share_within_threshold", na(nb));
      ObjectNode s = c.putObject("sessions");
      s.set("first_turn_fraction", metric(0.07));
      ObjectNode skew = s.putObject("token_skew");
      skew.set("top_25pct_share", metric(0.8));
      skew.set("gini", metric(0.6));
      ObjectNode r = c.putObject("request_instance_ratio");
      r.put("instances", 2);
      r.set("mean", metric(40.0));
      r.set("p5", metric(35.0));
      r.set("min", metric(35.0));
      return Json.MAPPER.writeValueAsString(c);
    }
    c.putObject("reuse").set("token_weighted", metric(reuse));
    ObjectNode src = c.putObject("reuse_by_source");
    src.putObject("intra_session").set("share_of_hit_tokens", metric(0.67));
    src.putObject("system_prompt").set("share_of_hit_tokens", metric(0.18));
    src.putObject("inter_session").set("share_of_hit_tokens", metric(0.15));
    ObjectNode ri = c.putObject("reuse_interval");
    ri.put("threshold_s", 100.0);
    ObjectNode all = ri.putObject("all");
    all.set("share_within_threshold", metric(0.90));
    all.set("p90_s", metric(50.0));
    all.set("p50_s", metric(1.0));
    ObjectNode sys = ri.putObject("system_prompt");
    sys.set("p50_s", na("no hits from this source in the first minute"));
    ObjectNode s = c.putObject("sessions");
    s.set("first_turn_fraction", metric(0.07));
    s.set("think_time_s", na("no follow-up request (turn > 0) has its parent in the trace"));
    ObjectNode skew = s.putObject("token_skew");
    skew.set("top_25pct_share", metric(0.8));
    skew.set("gini", metric(0.6));
    ObjectNode r = c.putObject("request_instance_ratio");
    r.put("instances", 2);
    r.set("mean", metric(40.0));
    r.set("p5", metric(35.0));
    r.set("min", metric(35.0));
    return Json.MAPPER.writeValueAsString(c);
  }

  static ObjectNode metric(double v) {
    return Json.object().put("value", v);
  }

  static ObjectNode na(String why) {
    ObjectNode o = Json.object();
    o.putNull("value");
    o.put("not_applicable", why);
    return o;
  }

  void tables(SparkSession spark, Path dir) {
    if (noBlocks) {
      // analyze writes the session and ratio tables, but no reuse series without blocks
      StructType lor = new StructType().add("population_share", DataTypes.DoubleType).add("token_share", DataTypes.DoubleType);
      save(spark, lor, dir.resolve("session_token_lorenz"), List.of(RowFactory.create(0.0, 0.0), RowFactory.create(1.0, 1.0)));
      StructType ratio = new StructType().add("minute", DataTypes.LongType).add("minute_start_s", DataTypes.DoubleType)
          .add("arrivals", DataTypes.LongType).add("requests_per_instance", DataTypes.DoubleType);
      save(spark, ratio, dir.resolve("request_instance_ratio"), List.of(RowFactory.create(10L, 600.0, 80L, 40.0)));
      return;
    }
    StructType minute = new StructType().add("minute", DataTypes.LongType).add("minute_start_s", DataTypes.DoubleType)
        .add("requests", DataTypes.LongType, true).add("prefill_tokens", DataTypes.LongType, true)
        .add("hit_tokens", DataTypes.LongType, true).add("hit_tokens_intra_session", DataTypes.LongType, true)
        .add("hit_tokens_system_prompt", DataTypes.LongType, true).add("hit_tokens_inter_session", DataTypes.LongType, true)
        .add("reuse_ratio_token", DataTypes.DoubleType, true);
    List<Row> minutes = new java.util.ArrayList<>(List.of(
        RowFactory.create(10L, 600.0, 100L, 1000L, 800L, 500L, 200L, 100L, 0.8),
        RowFactory.create(11L, 660.0, null, null, null, null, null, null, null),
        RowFactory.create(12L, 720.0, 170L, 2000L, 1700L, 1200L, 300L, 200L, 0.85)));
    if (longMinutes > 0) {
      minutes.clear();
      for (long i = 0; i < longMinutes; i++) {
        minutes.add(RowFactory.create(10L + i, 60.0 * (10 + i), 10L, 1000L, 800L, 500L, 200L, 100L, 0.8));
      }
    }
    save(spark, minute, dir.resolve("reuse_by_minute"), minutes);
    StructType cdf = new StructType().add("source", DataTypes.StringType).add("interval_le_s", DataTypes.DoubleType)
        .add("tokens", DataTypes.LongType).add("cumulative_share", DataTypes.DoubleType);
    save(spark, cdf, dir.resolve("reuse_interval_cdf"), List.of(
        RowFactory.create("all", 0.0, 100L, 0.1), RowFactory.create("all", 1.0, 400L, 0.5),
        RowFactory.create("all", 50.0, 300L, 0.8), RowFactory.create("all", 500.0, 200L, 1.0),
        RowFactory.create("intra_session", 1.0, 300L, 0.6), RowFactory.create("intra_session", 50.0, 200L, 1.0)));
    StructType lor = new StructType().add("population_share", DataTypes.DoubleType).add("token_share", DataTypes.DoubleType);
    save(spark, lor, dir.resolve("session_token_lorenz"), List.of(RowFactory.create(0.0, 0.0), RowFactory.create(0.5, 0.1),
        RowFactory.create(0.75, 0.2), RowFactory.create(1.0, 1.0)));
    StructType ratio = new StructType().add("minute", DataTypes.LongType).add("minute_start_s", DataTypes.DoubleType)
        .add("arrivals", DataTypes.LongType).add("requests_per_instance", DataTypes.DoubleType);
    List<Row> ratios = new java.util.ArrayList<>(List.of(RowFactory.create(10L, 600.0, 80L, 40.0),
        RowFactory.create(11L, 660.0, 70L, 35.0), RowFactory.create(12L, 720.0, 90L, 45.0)));
    if (longMinutes > 0) {
      ratios.clear();
      for (long i = 0; i < longMinutes; i++) {
        double v = i == 5 ? 1 : 40 + i % 7;
        ratios.add(RowFactory.create(10L + i, 60.0 * (10 + i), (long) (2 * v), v));
      }
    }
    save(spark, ratio, dir.resolve("request_instance_ratio"), ratios);
    StructType sess = new StructType().add("session_id", DataTypes.StringType).add("requests", DataTypes.LongType)
        .add("first_arrival_s", DataTypes.DoubleType).add("tokens", DataTypes.LongType).add("duration_s", DataTypes.DoubleType);
    save(spark, sess, dir.resolve("sessions"), List.of(RowFactory.create(sessionId, 40L, 600.0, 123456L, 130.0),
        RowFactory.create("small", 2L, 610.0, 50L, 1.0)));
  }

  static final String[] RUN_METRICS = {"tps_within_slo", "local_hit_ratio", "global_hit_ratio", "stickiness", "imbalance_mean"};

  /**
   * Runs: policy x global {0, 0.4} x rate {1, 2}; smetric also at OVERLOAD 3. TPS within SLO at
   * rate 2 (rate 1 is half): smetric 90 / 112 (OVERLOAD 3: 80 / 100), least-load 100 / 100,
   * smetric-basic 95 / 96. Run ids in that order (policy row, capacity, rate): smetric at 0.4 and
   * rate 2 is run 3, least-load's 11, smetric-basic's 15. TTFT quantile q (1/4 .. 1) of run id:
   * 0.1 q (1 + id % 3) s, TPOT 0.01 q s. instance_load of every run, windows 0-2: instance 0
   * 100 (w + 1), instance 1 50; with {@link #rampLoad} the windows move to 1-3, window 0 has
   * (10, 0) and window 4 (0, 5). Settings: TTFT SLO 2 s + 0.25 ms per input token, TPOT 30 ms.
   */
  void replay(SparkSession spark, Path dir) throws IOException {
    Files.createDirectories(dir);
    StructType runs = new StructType().add("run_id", DataTypes.IntegerType, false).add("policy", DataTypes.StringType)
        .add("architecture", DataTypes.StringType).add("instances", DataTypes.IntegerType)
        .add("local_blocks", DataTypes.LongType, true).add("global_ratio", DataTypes.DoubleType)
        .add("rate_scale", DataTypes.DoubleType).add("overload", DataTypes.DoubleType, true)
        .add("hit_ratio", DataTypes.DoubleType, true).add("wall_s", DataTypes.DoubleType).add("cpu_s", DataTypes.DoubleType)
        .add("not_applicable", DataTypes.StringType, true);
    for (String m : RUN_METRICS) runs = runs.add(m, DataTypes.DoubleType, true);
    List<Row> rr = new ArrayList<>();
    List<Row> cdf = new ArrayList<>();
    List<Row> load = new ArrayList<>();
    ArrayNode jr = Json.MAPPER.createArrayNode();
    int id = 0;
    Object[][] grid = {
      // policy, overload, hit_ratio, tps at g0, tps at g0.4, stickiness
      {"smetric", 1.5, 0.5, 90.0, 112.0, 0.9},
      {"smetric", 3.0, 0.5, 80.0, 100.0, 0.95},
      {policyLabel, null, null, 100.0, 100.0, 0.04},
      {"smetric-basic", null, null, 95.0, 96.0, 0.97},
    };
    for (Object[] g : grid) {
      for (double gr : new double[] {0.0, 0.4}) {
        for (double rate : new double[] {1.0, 2.0}) {
          double tps = (gr == 0 ? (double) g[3] : (double) g[4]) * (rate == 2.0 ? 1.0 : 0.5);
          double local = gr == 0 ? 0.6 : 0.5;
          double global = gr == 0 ? 0.0 : 0.3;
          rr.add(RowFactory.create(id, g[0], "colocated", 2, 1000L, gr, rate, g[1], g[2], 0.1, 0.1, null,
              tps, local, global, g[5], 1.5));
          for (int q = 1; q <= 4; q++) {
            cdf.add(RowFactory.create(id, "ttft", q / 4.0, 0.1 * q * (1 + id % 3)));
            cdf.add(RowFactory.create(id, "tpot", q / 4.0, 0.01 * q));
          }
          int shift = rampLoad ? 1 : 0;
          for (int w = 0; w < 3; w++) {
            load.add(RowFactory.create(id, w + shift, 0, 100.0 * (w + 1)));
            load.add(RowFactory.create(id, w + shift, 1, 50.0));
          }
          if (rampLoad) {
            load.add(RowFactory.create(id, 0, 0, 10.0));
            load.add(RowFactory.create(id, 0, 1, 0.0));
            load.add(RowFactory.create(id, 4, 0, 0.0));
            load.add(RowFactory.create(id, 4, 1, 5.0));
          }
          ObjectNode o = jr.addObject().put("run_id", id).put("policy", (String) g[0]).put("rate_scale", rate);
          o.putObject("not_applicable");
          if (sessionScaling) o.putObject("metrics").put("offered_sessions_per_min", 5 * rate);
          id++;
        }
      }
    }
    save(spark, runs, dir.resolve("runs"), rr);
    StructType c = new StructType().add("run_id", DataTypes.IntegerType).add("metric", DataTypes.StringType)
        .add("quantile", DataTypes.DoubleType).add("value_s", DataTypes.DoubleType);
    save(spark, c, dir.resolve("latency_cdf"), cdf);
    StructType l = new StructType().add("run_id", DataTypes.IntegerType).add("window", DataTypes.IntegerType)
        .add("instance", DataTypes.IntegerType).add("token_load", DataTypes.DoubleType);
    save(spark, l, dir.resolve("instance_load"), load);

    ObjectNode root = Json.object();
    root.put("tool", "smetric-audit replay");
    ObjectNode settings = root.putObject("settings");
    settings.put("overload", 1.5);
    settings.put("hitRatio", 0.5);
    settings.put("tpotS", 0.03);
    settings.put("ttftBaseS", 2.0);
    settings.put("ttftPerTokenS", 0.00025);
    if (sessionScaling) settings.put("rateScaling", "SESSIONS");
    settings.put("instances", 2);
    root.putArray("skipped").add("session-hash: not applicable: the trace has no session ids");
    root.set("runs", jr);
    if (withComparison) {
      ObjectNode cmp = root.putObject("comparison");
      cmp.putArray("baselines").add(policyLabel).add("smetric-basic");
      ArrayNode by = cmp.putArray("by_global_ratio");
      by.addObject().put("global_ratio", 0.0).put("smetric_tps_within_slo", 90.0).put("best_baseline", policyLabel)
          .put("best_baseline_tps_within_slo", 100.0).put("gain", gainWithout);
      by.addObject().put("global_ratio", 0.4).put("smetric_tps_within_slo", 112.0).put("best_baseline", policyLabel)
          .put("best_baseline_tps_within_slo", 100.0).put("gain", 0.12);
      cmp.putObject("smetric_gain_with_global_tier").put("value", 0.12).put("global_ratio", 0.4);
      cmp.putObject("smetric_gain_without_global_tier").put("value", gainWithout);
      cmp.putObject("min_global_ratio_for_gain").put("value", 0.4).put("threshold", 0.02);
      ObjectNode legacy = cmp.deepCopy();
      if (comparisonBestAt != null) {
        ((ObjectNode) cmp.get("smetric_gain_with_global_tier")).put("global_ratio", comparisonBestAt);
      }
      if (withAnswers) {
        ObjectNode pc = legacy.deepCopy();
        pc.putArray("baselines").add(policyLabel);
        pc.putArray("paper_baselines").add("cache-affinity").add("lmetric").add("least-load");
        for (com.fasterxml.jackson.databind.JsonNode e : pc.get("by_global_ratio")) {
          ((ObjectNode) e).putObject("vs").putObject(policyLabel).put("tps_within_slo", 100.0).put("gain", e.get("gain").asDouble());
        }
        root.set("paper_claim", pc);
        ObjectNode j = legacy.deepCopy();
        if (currentRouter == null) j.putNull("current_router").put("rule", "the best of the paper's baselines");
        else j.put("current_router", currentRouter).put("rule", "the router named by --current-router");
        root.set("judged", j);
        ObjectNode br = root.putObject("best_router");
        ArrayNode bby = br.putArray("by_global_ratio");
        ObjectNode b0 = bby.addObject().put("global_ratio", 0.0).put("best", policyLabel).put("best_tps_within_slo", 100.0)
            .put("runner_up", "smetric").put("margin", 100.0 / 90 - 1).put("best_other_than_smetric", policyLabel)
            .put("smetric_gain_vs_best_other", gainWithout);
        b0.putArray("ranking").addObject().put("policy", policyLabel).put("tps_within_slo", 100.0);
        ObjectNode b4 = bby.addObject().put("global_ratio", 0.4).put("best", "smetric").put("best_tps_within_slo", 112.0)
            .put("runner_up", policyLabel).put("margin", 0.12).put("best_other_than_smetric", policyLabel)
            .put("smetric_gain_vs_best_other", 0.12);
        b4.putArray("ranking").addObject().put("policy", "smetric").put("tps_within_slo", 112.0);
      }
    }
    Files.writeString(dir.resolve("replay.json"), Json.MAPPER.writeValueAsString(root));
  }

  String ingest() throws IOException {
    ObjectNode i = Json.object();
    i.putObject("parameters").put("format", "auto");
    ObjectNode t = i.putObject("totals");
    t.put("read", 275);
    t.put("accepted", 270);
    t.put("quarantined", 5);
    t.putObject("quarantined_by_reason").put("malformed_json", 4).put("missing_field", 1);
    i.putArray("findings").add(finding);
    return Json.MAPPER.writeValueAsString(i);
  }

  String provenance() throws IOException {
    ObjectNode p = Json.object();
    p.put("tool_version", "0.1.0-test");
    p.put("command_line", "smetric-audit audit " + inputPath + " --instances 2 --out audit");
    p.put("started_at", "2026-11-30T12:00:00Z");
    p.putArray("inputs").addObject().put("path", inputPath).put("bytes", 4096)
        .put("sha256", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    p.putObject("parameters").put("instances", 2).put("no_replay", !withReplay);
    return Json.MAPPER.writeValueAsString(p);
  }

  /** Spark writes each distinct table once per JVM; the many tests using this fixture get a copy. */
  private static void save(SparkSession spark, StructType schema, Path dir, List<Row> rows) {
    FixtureTables.save(spark, schema, rows, dir);
  }
}
