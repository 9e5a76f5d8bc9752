package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.contract.ReplayComparison;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The replay.json comparison/ablation/sensitivity blocks on hand-made run summaries. */
class SweepSummaryTest {
  private static final double NAN = Double.NaN;
  private int id;

  private RunResult run(String policy, double g, double x, double o, double h, double tps) {
    return run(policy, g, x, o, h, tps, 0.5);
  }

  private RunResult run(String policy, double g, double x, double o, double h, double tps, double stick) {
    return new RunResult(new SimSpec(id++, policy, g, x, o, h), Map.of("tps_within_slo", tps, "stickiness", stick),
        Map.of(), new double[0], new double[0], new double[0], new double[0][], 1, 1);
  }

  /**
   * smetric (O 1.5, H 0.5) and two baselines at g = 0, 0.4, 0.8, two rates each. Headlines (max
   * over the rates):
   *   g=0:   smetric max(90, 100) = 100; least-load max(50, 40) = 50; lmetric max(110, 120) = 120
   *          -> best lmetric 120, gain 100/120 - 1 = -0.1667
   *   g=0.4: smetric 101; least-load 100; lmetric 99 -> best least-load 100, gain 0.01 (< 0.02)
   *   g=0.8: smetric 130; least-load 100; lmetric 104 -> best lmetric 104, gain 130/104 - 1 = 0.25
   * A smetric run at O = 3 (tps 1000) is not at the defaults and must not count.
   */
  private List<RunResult> sweep() {
    List<RunResult> r = new ArrayList<>();
    double[][] sm = {{0, 90, 100}, {0.4, 101, 60}, {0.8, 130, 20}};
    double[][] ll = {{0, 50, 40}, {0.4, 100, 100}, {0.8, 100, 10}};
    double[][] lm = {{0, 110, 120}, {0.4, 99, 0}, {0.8, 104, 30}};
    for (double[] v : sm) {
      r.add(run("smetric", v[0], 1, 1.5, 0.5, v[1]));
      r.add(run("smetric", v[0], 2, 1.5, 0.5, v[2]));
      r.add(run("smetric", v[0], 1, 3.0, 0.5, 1000));
    }
    for (double[] v : ll) {
      r.add(run("least-load", v[0], 1, NAN, NAN, v[1], 0.03));
      r.add(run("least-load", v[0], 2, NAN, NAN, v[2], 0.04));
    }
    for (double[] v : lm) {
      r.add(run("lmetric", v[0], 1, NAN, NAN, v[1]));
      r.add(run("lmetric", v[0], 2, NAN, NAN, v[2]));
    }
    return r;
  }

  @Test
  void comparison_handMadeSweep_bestBaselineAndGainsPerRatio() {
    ObjectNode c = new SweepSummary(sweep(), 1.5, 0.5).comparison();
    assertEquals("[\"least-load\",\"lmetric\"]", c.get("baselines").toString());
    JsonNode by = c.get("by_global_ratio");
    assertEquals(3, by.size());
    assertEquals(0.0, by.get(0).get("global_ratio").asDouble());
    assertEquals(100.0, by.get(0).get("smetric_tps_within_slo").asDouble());
    assertEquals("lmetric", by.get(0).get("best_baseline").asText());
    assertEquals(120.0, by.get(0).get("best_baseline_tps_within_slo").asDouble());
    assertEquals(100.0 / 120 - 1, by.get(0).get("gain").asDouble(), 1e-12);
    assertEquals("least-load", by.get(1).get("best_baseline").asText());
    assertEquals(0.01, by.get(1).get("gain").asDouble(), 1e-12);
    assertEquals(0.25, by.get(2).get("gain").asDouble(), 1e-12);
    // the contract's typed rows read what the sweep wrote
    List<ReplayComparison.Row> rows = ReplayComparison.rows(by, "comparison");
    assertEquals(3, rows.size());
    assertEquals(0.0, rows.get(0).globalRatio());
    assertEquals(100.0, rows.get(0).smetricTpsWithinSlo());
    assertEquals("lmetric", rows.get(0).bestBaseline());
    assertEquals(120.0, rows.get(0).bestBaselineTpsWithinSlo());
    assertEquals(100.0 / 120 - 1, rows.get(0).gain(), 1e-12);
    assertEquals("least-load", rows.get(1).bestBaseline());
  }

  @Test
  void comparison_handMadeSweep_summaryValues() {
    ObjectNode c = new SweepSummary(sweep(), 1.5, 0.5).comparison();
    // best over g > 0: max(0.01, 0.25) = 0.25 at g = 0.8
    assertEquals(0.25, c.get("smetric_best_gain_with_global_tier").get("value").asDouble(), 1e-12);
    assertEquals(0.8, c.get("smetric_best_gain_with_global_tier").get("global_ratio").asDouble());
    assertEquals(100.0 / 120 - 1, c.get("smetric_gain_without_global_tier").get("value").asDouble(), 1e-12);
    // 0.4 gains only 0.01 < 0.02, so the smallest ratio with a gain is 0.8
    assertEquals(0.8, c.get("min_global_ratio_for_gain").get("value").asDouble());
    assertEquals(0.02, c.get("min_global_ratio_for_gain").get("threshold").asDouble());
  }

  @Test
  void comparison_noGlobalTierInSweep_withTierNotApplicable() {
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 0, 1, 1.5, 0.5, 80));
    r.add(run("session-hash", 0, 1, NAN, NAN, 100));
    ObjectNode c = new SweepSummary(r, 1.5, 0.5).comparison();
    // session-hash is a baseline; gain at g = 0: 80 / 100 - 1 = -0.2
    assertEquals("[\"session-hash\"]", c.get("baselines").toString());
    assertEquals(-0.2, c.get("smetric_gain_without_global_tier").get("value").asDouble(), 1e-12);
    assertTrue(c.get("smetric_best_gain_with_global_tier").get("value").isNull());
    assertTrue(c.get("smetric_best_gain_with_global_tier").has("not_applicable"));
    assertTrue(c.get("min_global_ratio_for_gain").get("value").isNull());
  }

  @Test
  void comparison_smetricFamilyVariantsAreNotBaselines() {
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 0.4, 1, 1.5, 0.5, 100));
    r.add(run("smetric-basic", 0.4, 1, NAN, NAN, 500));
    r.add(run("least-load", 0.4, 1, NAN, NAN, 50));
    ObjectNode c = new SweepSummary(r, 1.5, 0.5).comparison();
    assertEquals("[\"least-load\"]", c.get("baselines").toString());
    // 100 / 50 - 1 = 1.0
    assertEquals(1.0, c.get("smetric_best_gain_with_global_tier").get("value").asDouble(), 1e-12);
    assertEquals(0.4, c.get("min_global_ratio_for_gain").get("value").asDouble());
  }

  @Test
  void comparison_withoutSmetric_everyValueNullWithReason() {
    List<RunResult> r = List.of(run("least-load", 0, 1, NAN, NAN, 50));
    ObjectNode c = new SweepSummary(r, 1.5, 0.5).comparison();
    assertEquals(0, c.get("by_global_ratio").size());
    for (String k : List.of("smetric_best_gain_with_global_tier", "smetric_gain_without_global_tier")) {
      assertTrue(c.get(k).get("value").isNull(), k);
      assertTrue(c.get(k).get("not_applicable").asText().contains("smetric was not simulated"), k);
    }
  }

  @Test
  void ablation_headlinePerVariantAndRatio() {
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 0, 1, 1.5, 0.5, 10));
    r.add(run("smetric", 0, 2, 1.5, 0.5, 12)); // headline 12
    r.add(run("smetric-basic", 0, 1, NAN, NAN, 20));
    r.add(run("smetric-overload-only", 0, 1, 1.5, NAN, 7));
    r.add(run("smetric-eviction-only", 0, 1, NAN, 0.5, 19));
    r.add(run("smetric-eviction-only", 0, 1, NAN, 0.25, 99)); // not at the default HIT_RATIO
    JsonNode a = new SweepSummary(r, 1.5, 0.5).ablation();
    JsonNode t = a.get("by_global_ratio").get(0).get("headline_tps_within_slo");
    assertEquals(12.0, t.get("smetric").asDouble());
    assertEquals(20.0, t.get("smetric-basic").asDouble());
    assertEquals(7.0, t.get("smetric-overload-only").asDouble());
    assertEquals(19.0, t.get("smetric-eviction-only").asDouble());
  }

  @Test
  void sensitivity_onlyWhenAThresholdWasSwept_andOtherAtDefault() {
    assertNull(new SweepSummary(List.of(run("smetric", 0, 1, 1.5, 0.5, 1)), 1.5, 0.5).sensitivity());
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 0, 1, 1.5, 0.5, 10));
    r.add(run("smetric", 0, 1, 3.0, 0.5, 30));
    r.add(run("smetric", 0, 1, 3.0, 0.25, 99)); // both off-default: in neither list
    JsonNode s = new SweepSummary(r, 1.5, 0.5).sensitivity();
    assertEquals(2, s.get("overload").size());
    assertEquals(30.0, s.get("overload").get(1).get("headline_tps_within_slo").asDouble());
    // HIT_RATIO took two values (0.5, 0.25) but only at O = 1.5 is the other threshold default
    assertEquals(1, s.get("hit_ratio").size());
    assertEquals(0.5, s.get("hit_ratio").get(0).get("hit_ratio").asDouble());
  }

  @Test
  void stickiness_rangeOverRunsAtDefaults() {
    JsonNode st = new SweepSummary(sweep(), 1.5, 0.5).stickiness();
    JsonNode ll = null;
    for (JsonNode n : st) if (n.get("policy").asText().equals("least-load")) ll = n;
    assertEquals(0.03, ll.get("min").asDouble());
    assertEquals(0.04, ll.get("max").asDouble());
    assertEquals(3, ll.get("at_headline").size());
    assertFalse(ll.get("at_headline").get(0).get("stickiness").isNull());
  }

  /**
   * Six policies, one rate, two ratios (run order: smetric, cache-affinity, lmetric, least-load,
   * dynamo-kv, session-hash):
   *   g=0:   smetric 100, cache-affinity 90, lmetric 120, least-load 50, dynamo-kv 130
   *   g=1.6: smetric 200, cache-affinity 150, lmetric 190, least-load 180, dynamo-kv 210, session-hash 100
   *   g=3.2: smetric 300, cache-affinity 100, lmetric 250, least-load 200, dynamo-kv 280
   */
  private List<RunResult> sixPolicies() {
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 0, 1, 1.5, 0.5, 100));
    r.add(run("smetric", 1.6, 1, 1.5, 0.5, 200));
    r.add(run("smetric", 3.2, 1, 1.5, 0.5, 300));
    double[][] v = {{90, 150, 100}, {120, 190, 250}, {50, 180, 200}, {130, 210, 280}};
    String[] names = {"cache-affinity", "lmetric", "least-load", "dynamo-kv"};
    for (int k = 0; k < names.length; k++) {
      r.add(run(names[k], 0, 1, NAN, NAN, v[k][0]));
      r.add(run(names[k], 1.6, 1, NAN, NAN, v[k][1]));
      r.add(run(names[k], 3.2, 1, NAN, NAN, v[k][2]));
    }
    r.add(run("session-hash", 1.6, 1, NAN, NAN, 100));
    return r;
  }

  @Test
  void paperClaim_bestOfThePapersBaselines_andTheGainOverEach() {
    ObjectNode c = new SweepSummary(sixPolicies(), 1.5, 0.5).paperClaim();
    assertEquals("[\"cache-affinity\",\"lmetric\",\"least-load\"]", c.get("baselines").toString());
    JsonNode g0 = c.get("by_global_ratio").get(0);
    assertEquals("lmetric", g0.get("best_baseline").asText());
    assertEquals(100.0 / 120 - 1, g0.get("gain").asDouble(), 1e-12);
    assertEquals(100.0 / 90 - 1, g0.get("vs").get("cache-affinity").get("gain").asDouble(), 1e-12);
    assertEquals(1.0, g0.get("vs").get("least-load").get("gain").asDouble(), 1e-12); // 100 / 50 - 1
    assertFalse(g0.get("vs").has("dynamo-kv"), "not a paper baseline");
    JsonNode g16 = c.get("by_global_ratio").get(1);
    assertEquals("lmetric", g16.get("best_baseline").asText());
    assertEquals(200.0 / 190 - 1, g16.get("gain").asDouble(), 1e-12);
    // g=3.2: lmetric 250 best; 300 / 250 - 1 = 0.2 > 0.0526 at 1.6
    assertEquals(0.2, c.get("smetric_best_gain_with_global_tier").get("value").asDouble(), 1e-12);
    assertEquals(3.2, c.get("smetric_best_gain_with_global_tier").get("global_ratio").asDouble());
    assertEquals(1.6, c.get("min_global_ratio_for_gain").get("value").asDouble()); // 0.0526 >= 0.02
  }

  @Test
  void judged_currentRouterOrTheBestPaperBaseline() {
    SweepSummary s = new SweepSummary(sixPolicies(), 1.5, 0.5);
    ObjectNode dflt = s.judged(null);
    assertTrue(dflt.get("current_router").isNull());
    assertEquals(100.0 / 120 - 1, dflt.get("smetric_gain_without_global_tier").get("value").asDouble(), 1e-12);
    ObjectNode dk = s.judged("dynamo-kv");
    assertEquals("dynamo-kv", dk.get("current_router").asText());
    // g=0: 100/130 - 1; g=1.6: 200/210 - 1 = -0.0476; g=3.2: 300/280 - 1 = 0.0714 (the best)
    assertEquals(100.0 / 130 - 1, dk.get("smetric_gain_without_global_tier").get("value").asDouble(), 1e-12);
    assertEquals(300.0 / 280 - 1, dk.get("smetric_best_gain_with_global_tier").get("value").asDouble(), 1e-12);
    assertEquals(3.2, dk.get("min_global_ratio_for_gain").get("value").asDouble());
    ReplayComparison typed = ReplayComparison.read(dk, "judged");
    assertEquals("dynamo-kv", typed.currentRouter());
    assertEquals("the router named by --current-router", typed.rule());
    assertEquals(3.2, typed.minGlobalRatio().value());
    assertEquals(List.of("dynamo-kv", "dynamo-kv", "dynamo-kv"), typed.rows().stream().map(ReplayComparison.Row::bestBaseline).toList());
    assertNull(ReplayComparison.read(dflt, "judged").currentRouter());
    ObjectNode none = s.judged("llm-d");
    assertTrue(none.get("smetric_gain_without_global_tier").get("not_applicable").asText().contains("llm-d"));
  }

  @Test
  void bestRouter_rankingBestMarginAndSmetricsGap() {
    JsonNode by = new SweepSummary(sixPolicies(), 1.5, 0.5).bestRouter().get("by_global_ratio");
    assertEquals(3, by.size());
    JsonNode g0 = by.get(0);
    // dynamo-kv 130 > lmetric 120 > smetric 100 > cache-affinity 90 > least-load 50
    assertEquals("dynamo-kv", g0.get("best").asText());
    assertEquals("lmetric", g0.get("runner_up").asText());
    assertEquals(130.0 / 120 - 1, g0.get("margin").asDouble(), 1e-12);
    assertEquals(5, g0.get("ranking").size());
    assertEquals("smetric", g0.get("ranking").get(2).get("policy").asText());
    assertEquals("dynamo-kv", g0.get("best_other_than_smetric").asText());
    assertEquals(100.0 / 130 - 1, g0.get("smetric_gain_vs_best_other").asDouble(), 1e-12);
    JsonNode g16 = by.get(1);
    assertEquals("smetric", g16.get("runner_up").asText()); // 210 > 200
    assertEquals(210.0 / 200 - 1, g16.get("margin").asDouble(), 1e-12);
    assertEquals(6, g16.get("ranking").size()); // session-hash ran here only
    JsonNode g32 = by.get(2);
    assertEquals("smetric", g32.get("best").asText()); // 300 > dynamo-kv 280
    assertEquals("dynamo-kv", g32.get("best_other_than_smetric").asText());
    assertEquals(300.0 / 280 - 1, g32.get("margin").asDouble(), 1e-12);
    assertEquals(300.0 / 280 - 1, g32.get("smetric_gain_vs_best_other").asDouble(), 1e-12);
  }

  private RunResult runWith(String policy, double g, double x, double o, double h, Map<String, Double> m) {
    return new RunResult(new SimSpec(id++, policy, g, x, o, h), m, Map.of(), new double[0], new double[0], new double[0],
        new double[0][], 1, 1);
  }

  /**
   * g = 1.6: smetric's headline is its x = 2 run (150 > 100), whose operating-point metrics are
   * copied; cache-affinity's headline is x = 1 (90 > 80): imbalance 2.0, stickiness 0.9;
   * least-load's is x = 1 (imbalance 1.6): hot-spot ratio 2.0 / 1.6 = 1.25. At g = 0 only
   * smetric ran: no cache-first or load-balance entry.
   */
  @Test
  void preconditions_atEachHeadlinesOperatingPoint() {
    List<RunResult> r = new ArrayList<>();
    r.add(runWith("smetric", 1.6, 1, 1.5, 0.5, Map.of("tps_within_slo", 100.0, "requests_per_instance_minute_median", 12.0)));
    r.add(runWith("smetric", 1.6, 2, 1.5, 0.5, Map.of("tps_within_slo", 150.0, "requests_per_instance_minute_median", 24.0,
        "requests_per_instance_minute_mean", 25.0, "reuse_within_threshold_share", 0.7, "local_hold_s", 80.0,
        "reuse_within_local_hold_share", 0.6, "live_sessions_per_instance", 9.5)));
    r.add(runWith("cache-affinity", 1.6, 1, NAN, NAN, Map.of("tps_within_slo", 90.0, "imbalance_mean", 2.0, "stickiness", 0.9)));
    r.add(runWith("cache-affinity", 1.6, 2, NAN, NAN, Map.of("tps_within_slo", 80.0, "imbalance_mean", 3.0, "stickiness", 0.5)));
    r.add(runWith("least-load", 1.6, 1, NAN, NAN, Map.of("tps_within_slo", 50.0, "imbalance_mean", 1.6)));
    r.add(runWith("smetric", 0, 1, 1.5, 0.5, Map.of("tps_within_slo", 10.0)));
    JsonNode p = new SweepSummary(r, 1.5, 0.5).preconditions(100).get("by_global_ratio");
    assertEquals(2, p.size());
    JsonNode g0 = p.get(0);
    assertEquals(0.0, g0.get("global_ratio").asDouble());
    assertTrue(g0.get("cache_first").isNull());
    assertTrue(g0.get("hot_spot_ratio").isNull());
    assertTrue(g0.get("requests_per_instance_minute_median").isNull());
    JsonNode g16 = p.get(1);
    assertEquals(2.0, g16.get("operating_point").get("rate_scale").asDouble());
    assertEquals(24.0, g16.get("requests_per_instance_minute_median").asDouble());
    assertEquals(25.0, g16.get("requests_per_instance_minute_mean").asDouble());
    assertEquals(0.7, g16.get("reuse_within_threshold_share").asDouble());
    assertEquals(80.0, g16.get("local_hold_s").asDouble());
    assertEquals(0.6, g16.get("reuse_within_local_hold_share").asDouble());
    assertEquals(9.5, g16.get("live_sessions_per_instance").asDouble());
    assertEquals(1.0, g16.get("cache_first").get("rate_scale").asDouble());
    assertEquals(2.0, g16.get("cache_first").get("imbalance_mean").asDouble());
    assertEquals(0.9, g16.get("cache_first").get("stickiness").asDouble());
    assertEquals(1.6, g16.get("load_balance").get("imbalance_mean").asDouble());
    assertEquals(1.25, g16.get("hot_spot_ratio").asDouble(), 1e-12);
  }
}
