package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * replay.json's conditions, preconditions, sweep and global_tier blocks and the judged block's
 * best gain and router configuration: the key names are spelled out here as literals (a renamed
 * constant or @JsonProperty fails), and a small hand-written block of each reads back field by
 * field. The writers build the trees with the same constants; arch-identity.sh compared the files.
 */
class ReplayBlocksTest {

  private static List<String> keys(Class<? extends Record> type) {
    return RecordKeys.of(type);
  }

  private static JsonNode tree(String json) throws Exception {
    return Json.MAPPER.readTree(json);
  }

  @Test
  void keyNames_asTheFilesHaveThem() {
    assertEquals("conditions", ConditionsBlock.BLOCK);
    assertEquals(List.of("not_applicable", "global_ratio", "judged_router", "rate_scale", "load", "rule", "parameters", "grid"),
        keys(ConditionsBlock.class));
    assertEquals(List.of("name", "label", "path", "unit", "unit_scale", "source", "smetric_only", "base_value", "points",
        "gain_range"), keys(ConditionsBlock.Parameter.class));
    assertEquals(List.of("value", "smetric_tps_within_slo", "router_tps_within_slo", "gain"), keys(ConditionsBlock.Point.class));
    assertEquals(List.of("x", "y", "x_levels", "y_levels", "gain"), keys(ConditionsBlock.Grid.class));
    assertEquals(List.of("v"), keys(ConditionsBlock.Level.class));

    assertEquals("preconditions", PreconditionsBlock.BLOCK);
    assertEquals(List.of("reuse_interval_threshold_s", "by_global_ratio", "not_applicable"), keys(PreconditionsBlock.class));
    assertEquals(List.of("global_ratio", "operating_point", "requests_per_instance_minute_median",
        "requests_per_instance_minute_mean", "reuse_within_threshold_share", "local_hold_s", "reuse_within_local_hold_share",
        "live_sessions_per_instance", "cache_first", "load_balance", "hot_spot_ratio"), keys(PreconditionsBlock.Row.class));
    assertEquals(List.of("requests_per_instance_minute_median", "requests_per_instance_minute_mean",
        "reuse_within_threshold_share", "local_hold_s", "reuse_within_local_hold_share", "live_sessions_per_instance"),
        PreconditionsBlock.Row.MEASURED, "the measured fields in the order the file writes them");
    assertEquals(List.of("policy", "rate_scale", "run_id"), keys(PreconditionsBlock.OperatingPoint.class));
    assertEquals(List.of("policy", "rate_scale", "imbalance_mean", "stickiness"), keys(PreconditionsBlock.Baseline.class));

    assertEquals("sweep", SweepBlock.BLOCK);
    assertEquals(List.of("preset", "rate_grid", "curves", "rounds", "rate_reference", "rate_reference_rule", "rate_multipliers",
        "rates", "initial_multipliers", "resolution", "floor_multiplier", "cap_multiplier", "warm_start", "policies", "ablation",
        "global_ratios", "sensitivity_global_ratio", "sensitivity_overloads", "sensitivity_hit_ratios"), keys(SweepBlock.class));
    assertEquals(List.of("curves", "rule", "step"), keys(SweepBlock.WarmStart.class));
    assertEquals(List.of("overload"), keys(SweepBlock.Overload.class));

    assertEquals("global_tier", GlobalTierBlock.BLOCK);
    assertEquals(List.of("per_instance_read_gbps", "instances", "instances_per_node", "nodes", "instances_read_gbps",
        "node_nic_gbps", "remote_share", "nics_read_gbps", "aggregate_gbps", "aggregate_source", "read_ceiling_gbps"),
        keys(GlobalTierBlock.class));

    assertEquals("smetric_best_gain_with_global_tier", ReplayComparison.BEST_GAIN_WITH_GLOBAL);
    assertEquals("current_router_config", ReplayComparison.CURRENT_ROUTER_CONFIG);
    assertEquals(List.of("value", "global_ratio", "selection", "not_applicable"), keys(ReplayComparison.BestGain.class));
    assertEquals(List.of("router", "knob", "value", "source"), keys(ReplayComparison.Knob.class));
  }

  /** The equal_load block's keys the page's table reads (spelled out, as the other records'). */
  @Test
  void equalLoadKeys_asTheFileHasThem() {
    assertEquals(List.of("loads", "decision_load", "declared_global_ratio", "target_attainment", "reference_rule", "tps_counts",
        "by_global_ratio", "refined_curves", "simulations"), keys(EqualLoadBlock.class));
    assertEquals(List.of("load", "rate_scale", "policies", "smetric_gain_vs", "smetric_gain_vs_judged"),
        keys(EqualLoadBlock.Point.class));
  }

  /**
   * A conditions block as Conditions.describe writes it: a default of "Infinity" reads as
   * infinity, an undefined gain and a grid cell without a gain as null, the parameters by name.
   */
  @Test
  void conditions_readsTheWrittenKeys() throws Exception {
    String json = "{\"conditions\":{\"global_ratio\":1.6,\"judged_router\":\"lmetric\",\"rate_scale\":0.3,\"load\":1.5,"
        + "\"rule\":\"r\",\"parameters\":[{\"name\":\"overload\",\"label\":\"SMetric's OVERLOAD\",\"path\":\"overload\",\"unit\":\"\","
        + "\"unit_scale\":1.0,\"source\":\"s\",\"smetric_only\":true,\"base_value\":\"Infinity\",\"points\":["
        + "{\"value\":1.0,\"smetric_tps_within_slo\":90.0,\"router_tps_within_slo\":100.0,\"gain\":-0.1},"
        + "{\"value\":\"Infinity\",\"smetric_tps_within_slo\":110.0,\"router_tps_within_slo\":0.0,\"gain\":null}],"
        + "\"gain_range\":null},{\"name\":\"prefill_cost\",\"label\":\"p\",\"path\":\"profile.b\",\"unit\":\"us\","
        + "\"unit_scale\":1000000.0,\"source\":\"t\",\"smetric_only\":false,\"base_value\":2.0E-5,\"points\":[],\"gain_range\":0.25}],"
        + "\"grid\":{\"x\":\"overload\",\"y\":\"prefill_cost\",\"x_levels\":[{\"v\":1.0},{\"v\":\"Infinity\"}],"
        + "\"y_levels\":[{\"v\":2.0E-5}],\"gain\":[[0.2,null]]}}}";
    ConditionsBlock c = ConditionsBlock.of(tree(json));
    assertNull(c.notApplicable());
    assertEquals(1.6, c.globalRatio());
    assertEquals("lmetric", c.judgedRouter());
    assertEquals(0.3, c.rateScale());
    assertEquals(1.5, c.load());
    assertEquals("r", c.rule());
    ConditionsBlock.Parameter o = c.parameter("overload");
    assertEquals("SMetric's OVERLOAD", o.label());
    assertEquals("overload", o.path());
    assertEquals("", o.unitOrEmpty());
    assertEquals(1.0, o.scale());
    assertEquals("s", o.source());
    assertTrue(o.smetricOnly());
    assertEquals(Double.POSITIVE_INFINITY, ConditionsBlock.number(o.baseValue()));
    assertNull(o.gainRange());
    assertEquals(2, o.pointList().size());
    assertEquals(1.0, ConditionsBlock.number(o.pointList().get(0).value()));
    assertEquals(90.0, o.pointList().get(0).smetricTpsWithinSlo());
    assertEquals(100.0, o.pointList().get(0).routerTpsWithinSlo());
    assertEquals(-0.1, o.pointList().get(0).gain());
    assertEquals("Infinity", o.pointList().get(1).value().asText(), "a level stays as written");
    assertNull(o.pointList().get(1).gain(), "an undefined gain is null");
    ConditionsBlock.Parameter p = c.parameter("prefill_cost");
    assertEquals(1e6, p.scale());
    assertEquals("us", p.unit());
    assertEquals(0.25, p.gainRange());
    assertEquals(2.0e-5, ConditionsBlock.number(p.baseValue()));
    assertNull(c.parameter("nope"));
    ConditionsBlock.Grid g = c.grid();
    assertEquals("overload", g.x());
    assertEquals("prefill_cost", g.y());
    assertEquals(Double.POSITIVE_INFINITY, ConditionsBlock.number(g.xs().get(1).v()));
    assertEquals(2.0e-5, ConditionsBlock.number(g.ys().get(0).v()));
    assertEquals(0.2, g.gainAt(0, 0));
    assertNull(g.gainAt(0, 1), "a cell without a gain");
    assertNull(g.gainAt(1, 0), "outside the grid");
  }

  /** The block the replay writes when the sweep did not run: only the reason. */
  @Test
  void conditions_notRun_onlyTheReason() throws Exception {
    ConditionsBlock c = ConditionsBlock.of(tree("{\"conditions\":{\"not_applicable\":\"the conditions sweep was not run\"}}"));
    assertEquals("the conditions sweep was not run", c.notApplicable());
    assertNull(c.parameters());
    assertEquals(List.of(), c.parameterList());
    assertNull(c.grid());
    assertNull(ConditionsBlock.of(tree("{}")), "no block, no record");
    assertNull(ConditionsBlock.of(null));
  }

  /** A preconditions block as SweepSummary.preconditions writes it; a baseline not replayed there is null. */
  @Test
  void preconditions_readsTheWrittenKeys() throws Exception {
    String json = "{\"preconditions\":{\"reuse_interval_threshold_s\":100.0,\"by_global_ratio\":[{\"global_ratio\":0.0,"
        + "\"operating_point\":{\"policy\":\"smetric\",\"rate_scale\":0.2,\"run_id\":7},"
        + "\"requests_per_instance_minute_median\":44.0,\"requests_per_instance_minute_mean\":45.5,"
        + "\"reuse_within_threshold_share\":0.9,\"local_hold_s\":null,\"reuse_within_local_hold_share\":0.5,"
        + "\"live_sessions_per_instance\":3.0,\"cache_first\":{\"policy\":\"cache-affinity\",\"rate_scale\":0.15,"
        + "\"imbalance_mean\":2.8,\"stickiness\":0.966},\"load_balance\":{\"policy\":\"least-load\",\"rate_scale\":0.25,"
        + "\"imbalance_mean\":1.4},\"hot_spot_ratio\":2.0},{\"global_ratio\":1.6,\"operating_point\":{\"policy\":\"smetric\","
        + "\"rate_scale\":0.3,\"run_id\":9},\"requests_per_instance_minute_median\":null,\"cache_first\":null,"
        + "\"load_balance\":null,\"hot_spot_ratio\":null}]}}";
    PreconditionsBlock pre = PreconditionsBlock.of(tree(json));
    assertEquals(100.0, pre.reuseIntervalThresholdS());
    assertNull(pre.notApplicable());
    assertEquals(2, pre.rows().size());
    PreconditionsBlock.Row r = pre.at(0.0);
    assertEquals("smetric", r.operatingPoint().policy());
    assertEquals(0.2, r.operatingPoint().rateScale());
    assertEquals(7, r.operatingPoint().runId());
    assertEquals(44.0, r.requestsPerInstanceMinuteMedian());
    assertEquals(45.5, r.requestsPerInstanceMinuteMean());
    assertEquals(0.9, r.reuseWithinThresholdShare());
    assertNull(r.localHoldS());
    assertEquals(0.5, r.reuseWithinLocalHoldShare());
    assertEquals(3.0, r.liveSessionsPerInstance());
    assertEquals("cache-affinity", r.cacheFirst().policy());
    assertEquals(0.15, r.cacheFirst().rateScale());
    assertEquals(2.8, r.cacheFirst().imbalanceMean());
    assertEquals(0.966, r.cacheFirst().stickiness());
    assertEquals(1.4, r.loadBalance().imbalanceMean());
    assertNull(r.loadBalance().stickiness(), "load balance has no stickiness written");
    assertEquals(2.0, r.hotSpotRatio());
    PreconditionsBlock.Row s = pre.at(1.6);
    assertEquals(9, s.operatingPoint().runId());
    assertNull(s.cacheFirst());
    assertNull(s.loadBalance());
    assertNull(s.hotSpotRatio());
    assertNull(pre.at(0.8), "no row at a capacity not replayed");
    PreconditionsBlock none = PreconditionsBlock.of(tree("{\"preconditions\":{\"reuse_interval_threshold_s\":100.0,"
        + "\"by_global_ratio\":[],\"not_applicable\":\"the policy smetric was not simulated\"}}"));
    assertEquals("the policy smetric was not simulated", none.notApplicable());
    assertEquals(List.of(), none.rows());
  }

  /** The adaptive grid's sweep block: warm start, an OVERLOAD of "Infinity" kept as written; no fixed-grid fields. */
  @Test
  void sweep_readsTheWrittenKeys() throws Exception {
    String json = "{\"sweep\":{\"preset\":\"audit\",\"rate_grid\":\"adaptive\",\"curves\":67,\"rounds\":22,\"rate_reference\":0.55,"
        + "\"rate_reference_rule\":\"rr\",\"initial_multipliers\":[0.125,0.25,0.5,1.0],\"resolution\":1.2,"
        + "\"floor_multiplier\":0.015625,\"cap_multiplier\":8.0,\"warm_start\":{\"curves\":62,\"rule\":\"w\","
        + "\"step\":1.189207115002721},\"policies\":[\"smetric\",\"least-load\"],\"ablation\":[\"smetric-basic\"],"
        + "\"global_ratios\":[0.0,1.6],\"sensitivity_global_ratio\":1.6,\"sensitivity_overloads\":[{\"overload\":1.0},"
        + "{\"overload\":\"Infinity\"}],\"sensitivity_hit_ratios\":[0.0,0.25]}}";
    SweepBlock s = SweepBlock.of(tree(json));
    assertEquals("audit", s.preset());
    assertEquals("adaptive", s.rateGrid());
    assertEquals(67, s.curves());
    assertEquals(22, s.rounds());
    assertEquals(0.55, s.rateReference());
    assertEquals("rr", s.rateReferenceRule());
    assertNull(s.rates(), "the fixed grid's rates are not written by the adaptive grid");
    assertNull(s.rateMultipliers());
    assertEquals(List.of(0.125, 0.25, 0.5, 1.0), s.initialMultipliers());
    assertEquals(1.2, s.resolution());
    assertEquals(0.015625, s.floorMultiplier());
    assertEquals(8.0, s.capMultiplier());
    assertEquals(62, s.warmStart().curves());
    assertEquals("w", s.warmStart().rule());
    assertEquals(Math.pow(2, 0.25), s.warmStart().step(), 1e-15);
    assertEquals(List.of("smetric", "least-load"), s.policies());
    assertEquals(List.of("smetric-basic"), s.ablation());
    assertEquals(List.of(0.0, 1.6), s.globalRatios());
    assertEquals(1.6, s.sensitivityGlobalRatio());
    assertEquals(1.0, s.sensitivityOverloads().get(0).overload().asDouble());
    assertEquals("Infinity", s.sensitivityOverloads().get(1).overload().asText());
    assertEquals(List.of(0.0, 0.25), s.sensitivityHitRatios());
    SweepBlock fixed = SweepBlock.of(tree("{\"sweep\":{\"preset\":\"audit\",\"rate_grid\":\"fixed\","
        + "\"rate_multipliers\":[0.5,1.0],\"rates\":[0.25,0.5]}}"));
    assertEquals(List.of(0.25, 0.5), fixed.rates());
    assertEquals(List.of(0.5, 1.0), fixed.rateMultipliers());
    assertNull(fixed.warmStart());
  }

  /** One node: no NIC on the path (null), an aggregate limit from the profile. */
  @Test
  void globalTier_readsTheWrittenKeys() throws Exception {
    String json = "{\"global_tier\":{\"per_instance_read_gbps\":1.1,\"instances\":4,\"instances_per_node\":8,\"nodes\":1,"
        + "\"instances_read_gbps\":4.4,\"node_nic_gbps\":21.75,\"remote_share\":0.0,\"nics_read_gbps\":null,"
        + "\"aggregate_gbps\":21.75,\"aggregate_source\":\"a\",\"read_ceiling_gbps\":4.4}}";
    GlobalTierBlock g = GlobalTierBlock.of(tree(json));
    assertEquals(new GlobalTierBlock(1.1, 4, 8, 1, 4.4, 21.75, 0.0, null, 21.75, "a", 4.4), g);
  }

  /** The judged block with --current-router NAME:CONFIG and its descriptive best gain; without, both null. */
  @Test
  void judged_bestGainAndRouterConfig() throws Exception {
    String json = "{\"current_router\":\"sglang-cache-aware\",\"rule\":\"r\",\"smetric_best_gain_with_global_tier\":{"
        + "\"value\":0.25,\"global_ratio\":0.8,\"selection\":\"sel\"},\"current_router_config\":[{\"router\":\"sglang\","
        + "\"knob\":\"--cache-threshold -> sglangCacheThreshold\",\"value\":\"0.5\",\"source\":\"src\"}]}";
    ReplayComparison j = ReplayComparison.read(tree(json), "test");
    assertEquals(new ReplayComparison.BestGain(0.25, 0.8, "sel", null), j.bestGainWithGlobal());
    assertEquals(List.of(new ReplayComparison.Knob("sglang", "--cache-threshold -> sglangCacheThreshold", "0.5", "src")),
        j.currentRouterConfig());
    ReplayComparison plain = ReplayComparison.read(tree("{\"current_router\":null,\"rule\":\"r\","
        + "\"smetric_best_gain_with_global_tier\":{\"value\":null,\"not_applicable\":\"why\"}}"), "test");
    assertNull(plain.currentRouterConfig());
    assertNull(plain.bestGainWithGlobal().value());
    assertEquals("why", plain.bestGainWithGlobal().notApplicable());
  }

  /** A field of the wrong type fails naming the block. */
  @Test
  void wrongType_failsNamingTheBlock() throws Exception {
    var e = assertThrows(BadInputException.class,
        () -> ConditionsBlock.of(tree("{\"conditions\":{\"parameters\":{\"name\":\"x\"}}}")));
    assertEquals("replay.json conditions", e.file());
    assertTrue(e.getMessage().startsWith("not a conditions block: "), e.getMessage());
    var p = assertThrows(BadInputException.class,
        () -> PreconditionsBlock.of(tree("{\"preconditions\":{\"by_global_ratio\":[{\"operating_point\":[1]}]}}")));
    assertEquals("replay.json preconditions", p.file());
    var g = assertThrows(BadInputException.class, () -> GlobalTierBlock.of(tree("{\"global_tier\":{\"instances\":[]}}")));
    assertEquals("replay.json global_tier", g.file());
    var s = assertThrows(BadInputException.class, () -> SweepBlock.of(tree("{\"sweep\":{\"warm_start\":\"x\"}}")));
    assertEquals("replay.json sweep", s.file());
  }
}
