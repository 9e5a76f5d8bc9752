package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * replay.json's capacity, uncertainty, best_router and paper_claim blocks (issue 30 item 1): the
 * records read the keys the replay writes (spelled out here as literals, so a renamed constant
 * fails), and the uncertainty block, which is written through its record, keeps its bytes.
 */
class ReplayAnswerBlocksTest {

  private static String compact(Object o) throws Exception {
    return Json.MAPPER.writer().without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
        .writeValueAsString(Json.MAPPER.valueToTree(o));
  }

  /** The key names the writers put and the readers read, pinned (the JSON tests below read them as literals too). */
  @Test
  void keyNames_areTheOnesReplayJsonHas() {
    assertEquals(List.of("capacity", "target_attainment", "rule", "interval", "traffic_factors", "profile",
        "gpus_per_instance", "gpu", "gpu_not_applicable", "gpu_hour_usd", "recorded_instances", "searches", "simulations",
        "simulations_stopped_early", "cpu_s", "interval_simulations", "interval_cpu_s", "sized_point",
        "sized_point_simulations", "sized_point_cpu_s"),
        List.of(CapacityBlock.BLOCK, CapacityBlock.TARGET_ATTAINMENT, CapacityBlock.RULE, CapacityBlock.INTERVAL,
            CapacityBlock.TRAFFIC_FACTORS, CapacityBlock.PROFILE, CapacityBlock.GPUS_PER_INSTANCE, CapacityBlock.GPU,
            CapacityBlock.GPU_NOT_APPLICABLE, CapacityBlock.GPU_HOUR_USD, CapacityBlock.RECORDED_INSTANCES,
            CapacityBlock.SEARCHES, CapacityBlock.SIMULATIONS, CapacityBlock.SIMULATIONS_STOPPED_EARLY, CapacityBlock.CPU_S,
            CapacityBlock.INTERVAL_SIMULATIONS, CapacityBlock.INTERVAL_CPU_S, CapacityBlock.SIZED_POINT,
            CapacityBlock.SIZED_POINT_SIMULATIONS, CapacityBlock.SIZED_POINT_CPU_S));
    assertEquals(List.of("policy", "role", "global_ratio", "judged_router", "traffic_factor", "instances", "not_found", "gpus",
        "usd_per_day", "start", "start_rule", "start_from_rate_scale", "bracket", "probes", "smetric", "judged", "other"),
        List.of(CapacityBlock.Search.POLICY, CapacityBlock.Search.ROLE, CapacityBlock.Search.GLOBAL_RATIO,
            CapacityBlock.Search.JUDGED_ROUTER, CapacityBlock.Search.TRAFFIC_FACTOR, CapacityBlock.Search.INSTANCES,
            CapacityBlock.Search.NOT_FOUND, CapacityBlock.Search.GPUS, CapacityBlock.Search.USD_PER_DAY,
            CapacityBlock.Search.START, CapacityBlock.Search.START_RULE, CapacityBlock.Search.START_FROM_RATE_SCALE,
            CapacityBlock.Search.BRACKET, CapacityBlock.Search.PROBES, CapacityBlock.Search.SMETRIC,
            CapacityBlock.Search.JUDGED, CapacityBlock.Search.OTHER));
    assertEquals(List.of("highest_fail", "lowest_pass", "pass", "source", "run_id", "stopped_early", "requests_decided",
        "requests_met"), List.of(CapacityBlock.Bracket.HIGHEST_FAIL, CapacityBlock.Bracket.LOWEST_PASS,
            CapacityBlock.Probe.PASS, CapacityBlock.Probe.SOURCE, CapacityBlock.Probe.RUN_ID, CapacityBlock.Probe.STOPPED_EARLY,
            CapacityBlock.Probe.REQUESTS_DECIDED, CapacityBlock.Probe.REQUESTS_MET));
    assertEquals(List.of("first_wave", "second_wave_start", "low", "high", "level", "replicates", "replicate_answers", "method",
        "note"), List.of(CapacityBlock.Interval.FIRST_WAVE, CapacityBlock.Interval.SECOND_WAVE_START,
            CapacityBlock.Interval.LOW, CapacityBlock.Interval.HIGH, CapacityBlock.Interval.LEVEL,
            CapacityBlock.Interval.REPLICATES, CapacityBlock.Interval.REPLICATE_ANSWERS, CapacityBlock.Interval.METHOD,
            CapacityBlock.Interval.NOTE));
    assertEquals(List.of("rate_scale", "sized_for", "policies", "smetric_gain_vs_judged"), List.of(CapacityBlock.Sized.RATE_SCALE,
        CapacityBlock.Sized.SIZED_FOR, CapacityBlock.Sized.POLICIES, CapacityBlock.Sized.SMETRIC_GAIN_VS_JUDGED));
    assertEquals(List.of("uncertainty", "replicates", "simulations", "resampled", "method"), List.of(UncertaintyBlock.BLOCK,
        UncertaintyBlock.REPLICATES, UncertaintyBlock.SIMULATIONS, UncertaintyBlock.RESAMPLED, UncertaintyBlock.METHOD));
    assertEquals(List.of("best_router", "by_global_ratio", "global_ratio", "ranking", "best", "best_tps_within_slo", "runner_up",
        "margin", "best_other_than_smetric", "smetric_gain_vs_best_other", "smetric_gain_vs_best_other_interval", "policy",
        "tps_within_slo", "rate_scale", "slo_attainment", "ttft_p90_s", "resolution"),
        List.of(BestRouter.BLOCK, BestRouter.BY_GLOBAL_RATIO, BestRouter.Row.GLOBAL_RATIO, BestRouter.Row.RANKING,
            BestRouter.Row.BEST, BestRouter.Row.BEST_TPS, BestRouter.Row.RUNNER_UP, BestRouter.Row.MARGIN,
            BestRouter.Row.BEST_OTHER, BestRouter.Row.SMETRIC_GAIN_VS_BEST_OTHER,
            BestRouter.Row.SMETRIC_GAIN_VS_BEST_OTHER_INTERVAL, BestRouter.Ranked.POLICY, BestRouter.Ranked.TPS_WITHIN_SLO,
            BestRouter.Ranked.RATE_SCALE, BestRouter.Ranked.SLO_ATTAINMENT, BestRouter.Ranked.TTFT_P90_S,
            BestRouter.Ranked.RESOLUTION));
    assertEquals(List.of("paper_claim", "baselines", "smetric_best_gain_with_global_tier", "paper_baselines", "selection",
        "tps_within_slo", "gain"), List.of(ReplayComparison.PAPER_CLAIM, ReplayComparison.BASELINES,
            ReplayComparison.BEST_GAIN_WITH_GLOBAL, ReplayComparison.PAPER_BASELINES, ReplayComparison.BestGain.SELECTION,
            ReplayComparison.Vs.TPS_WITHIN_SLO, ReplayComparison.Vs.GAIN));
  }

  /**
   * A capacity block as Capacity.describe writes it (one search with its interval, one not found,
   * one other router; the sized point): every field reads back, nulls stay null, the sized point's
   * routers keep the written order and its raw JSON is kept for audit.json.
   */
  @Test
  void capacityBlock_readsTheWrittenKeys() throws Exception {
    String json = "{\"target_attainment\":0.9,\"rule\":\"r\",\"interval\":\"i\",\"traffic_factors\":[1.0,1.5],"
        + "\"profile\":\"p\",\"gpus_per_instance\":2,\"gpu\":\"H100\",\"gpu_hour_usd\":null,\"recorded_instances\":4,"
        + "\"searches\":[{\"policy\":\"smetric\",\"role\":\"smetric\",\"global_ratio\":1.6,\"judged_router\":\"lmetric\","
        + "\"traffic_factor\":1.0,\"instances\":10,\"gpus\":20,\"start\":29,\"start_rule\":\"s\",\"start_from_rate_scale\":0.139,"
        + "\"bracket\":{\"highest_fail\":9,\"lowest_pass\":10},\"probes\":[{\"instances\":29,\"pass\":true,\"source\":\"simulated\","
        + "\"run_id\":419,\"stopped_early\":true,\"requests_decided\":2704,\"requests_met\":2700,\"cpu_s\":0.5},"
        + "{\"instances\":8,\"pass\":false,\"source\":\"implied: failed at x1.0\"}],\"simulations\":1,\"cpu_s\":0.5,"
        + "\"interval\":{\"first_wave\":2,\"second_wave_start\":null,\"low\":9,\"high\":null,\"level\":0.95,\"replicates\":10,"
        + "\"replicate_answers\":[9,null],\"method\":\"m\",\"simulations\":12,\"cpu_s\":1.5,\"note\":\"n\"}},"
        + "{\"policy\":\"lmetric\",\"role\":\"judged\",\"global_ratio\":0.0,\"judged_router\":\"lmetric\",\"traffic_factor\":1.5,"
        + "\"instances\":null,\"not_found\":\"no count up to 64 instances passed\",\"start\":12,"
        + "\"bracket\":{\"highest_fail\":64,\"lowest_pass\":null},\"probes\":[],\"simulations\":0,\"cpu_s\":0},"
        + "{\"policy\":\"least-load\",\"role\":\"other\",\"global_ratio\":1.6,\"judged_router\":\"lmetric\",\"traffic_factor\":1.0,"
        + "\"instances\":12,\"usd_per_day\":57.6}],"
        + "\"simulations\":1,\"simulations_stopped_early\":1,\"cpu_s\":0.5,\"interval_simulations\":12,\"interval_cpu_s\":1.5,"
        + "\"sized_point\":[{\"global_ratio\":1.6,\"instances\":11,\"rate_scale\":1.0,\"judged_router\":\"lmetric\","
        + "\"sized_for\":\"f\",\"policies\":{\"smetric\":{\"run_id\":463,\"tps_within_slo\":50.0,\"stickiness\":null},"
        + "\"lmetric\":{\"run_id\":464,\"tps_within_slo\":40.0}},\"smetric_gain_vs_judged\":0.25}],"
        + "\"sized_point_simulations\":2,\"sized_point_cpu_s\":0.1}";
    CapacityBlock c = CapacityBlock.of(Json.MAPPER.readTree("{\"capacity\":" + json + "}"));
    assertEquals(0.9, c.targetAttainment());
    assertEquals("r", c.rule());
    assertEquals("i", c.interval());
    assertEquals(List.of(1.0, 1.5), c.trafficFactors());
    assertEquals("p", c.profile());
    assertEquals(2, c.gpusPerInstance());
    assertEquals("H100", c.gpu());
    assertNull(c.gpuNotApplicable());
    assertNull(c.gpuHourUsd(), "written as null without --gpu-hour-usd");
    assertEquals(4, c.recordedInstances());
    assertEquals(1, c.simulations());
    assertEquals(1, c.simulationsStoppedEarly());
    assertEquals(0.5, c.cpuS());
    assertEquals(12, c.intervalSimulations());
    assertEquals(1.5, c.intervalCpuS());
    assertEquals(2, c.sizedPointSimulations());
    assertEquals(0.1, c.sizedPointCpuS());
    assertNull(c.notApplicable());
    assertEquals(3, c.searchList().size());

    CapacityBlock.Search s = c.searchList().get(0);
    assertEquals("smetric", s.policy());
    assertEquals(CapacityBlock.Search.SMETRIC, s.role());
    assertEquals(1.6, s.globalRatio());
    assertEquals("lmetric", s.judgedRouter());
    assertEquals(1.0, s.trafficFactor());
    assertEquals(10, s.instances());
    assertEquals(20, s.gpus());
    assertNull(s.usdPerDay());
    assertNull(s.notFound());
    assertEquals(29, s.start());
    assertEquals("s", s.startRule());
    assertEquals(0.139, s.startFromRateScale());
    assertEquals(new CapacityBlock.Bracket(9, 10), s.bracket());
    assertEquals(new CapacityBlock.Probe(29, true, "simulated", 419, true, 2704L, 2700L, 0.5), s.probes().get(0));
    assertEquals(new CapacityBlock.Probe(8, false, "implied: failed at x1.0", null, null, null, null, null), s.probes().get(1),
        "a probe without a run has only its count, outcome and source");
    assertEquals(1, s.simulations());
    assertEquals(0.5, s.cpuS());
    CapacityBlock.Interval iv = s.interval();
    assertEquals(2, iv.firstWave());
    assertNull(iv.secondWaveStart());
    assertEquals(9, iv.low());
    assertNull(iv.high(), "a replicate without an answer leaves the high end open");
    assertEquals(0.95, iv.level());
    assertEquals(10, iv.replicates());
    assertEquals(java.util.Arrays.asList(9, null), iv.replicateAnswers());
    assertEquals("m", iv.method());
    assertEquals(12, iv.simulations());
    assertEquals(1.5, iv.cpuS());
    assertEquals("n", iv.note());
    assertTrue(iv.rangeOnly(), "0.025 x 10 < 1: the nearest ranks are the smallest and largest answer");

    CapacityBlock.Search notFound = c.searchList().get(1);
    assertEquals(CapacityBlock.Search.JUDGED, notFound.role());
    assertNull(notFound.instances());
    assertEquals("no count up to 64 instances passed", notFound.notFound());
    assertEquals(new CapacityBlock.Bracket(64, null), notFound.bracket());
    assertEquals(List.of(), notFound.probes());
    assertNull(notFound.interval());
    CapacityBlock.Search other = c.searchList().get(2);
    assertEquals(CapacityBlock.Search.OTHER, other.role());
    assertEquals(57.6, other.usdPerDay());

    List<CapacityBlock.Sized> sized = c.sized();
    assertEquals(1, sized.size());
    CapacityBlock.Sized z = sized.get(0);
    assertEquals(1.6, z.globalRatio());
    assertEquals(11, z.instances());
    assertEquals(1.0, z.rateScale());
    assertEquals("lmetric", z.judgedRouter());
    assertEquals("f", z.sizedFor());
    assertEquals(0.25, z.smetricGainVsJudged());
    assertEquals(List.of("smetric", "lmetric"), List.copyOf(z.policies().keySet()), "routers in the written (run) order");
    assertEquals(463.0, z.metric("smetric", CapacityBlock.Sized.RUN_ID));
    assertEquals(40.0, z.metric("lmetric", "tps_within_slo"));
    assertNull(z.metric("smetric", "stickiness"), "not measured: null");
    assertNull(z.metric("least-load", "tps_within_slo"), "not replayed");
    assertEquals(Json.MAPPER.readTree(json).get("sized_point"), c.sizedPoint(), "kept as written: audit.json copies it");
  }

  /** Without a search the block has only its reason; no block at all reads as null. */
  @Test
  void capacityBlock_notApplicable_hasNoSearches() throws Exception {
    CapacityBlock c = CapacityBlock.of(Json.MAPPER.readTree("{\"capacity\":{\"not_applicable\":\"the capacity search was not run\"}}"));
    assertEquals("the capacity search was not run", c.notApplicable());
    assertEquals(List.of(), c.searchList());
    assertEquals(List.of(), c.sized());
    assertNull(CapacityBlock.of(Json.MAPPER.readTree("{}")));
    assertNull(CapacityBlock.of(null));
  }

  /** A field of the wrong type fails naming the block and what it should have been. */
  @Test
  void capacityBlock_wrongType_failsNamingTheBlock() throws Exception {
    var e = assertThrows(BadInputException.class,
        () -> CapacityBlock.of(Json.MAPPER.readTree("{\"capacity\":{\"searches\":[{\"instances\":\"ten\"}]}}")));
    assertEquals("replay.json capacity", e.file());
    assertTrue(e.getMessage().startsWith("not a capacity block: "), e.getMessage());
  }

  /**
   * The uncertainty block is written through its record: the bytes ReplayWriter wrote with literal
   * keys (replicates, simulations, resampled, method, then not_applicable only without replicates).
   */
  @Test
  void uncertaintyBlock_writesTheFileOrder_andReadsBack() throws Exception {
    UncertaintyBlock none = new UncertaintyBlock(0, 0, "trees", "m", "no bootstrap replicates");
    String json = "{\"replicates\":0,\"simulations\":0,\"resampled\":\"trees\",\"method\":\"m\",\"not_applicable\":\"no bootstrap replicates\"}";
    assertEquals(json, compact(none));
    assertEquals(none, UncertaintyBlock.of(Json.MAPPER.readTree("{\"uncertainty\":" + json + "}")));
    UncertaintyBlock ten = new UncertaintyBlock(10, 40, "trees", "m", null);
    assertEquals("{\"replicates\":10,\"simulations\":40,\"resampled\":\"trees\",\"method\":\"m\"}", compact(ten),
        "with replicates the reason is left out");
    assertNull(UncertaintyBlock.of(Json.MAPPER.readTree("{\"uncertainty\":\"none\"}")), "not an object: no block");
  }

  /**
   * best_router as SweepSummary.bestRouter writes it: the row's fields by their keys, the ranking
   * kept as written and read as records (a resolution written as "Infinity" stays JSON), an older
   * file's interval read as written.
   */
  @Test
  void bestRouter_readsTheWrittenKeys() throws Exception {
    String json = "{\"best_router\":{\"by_global_ratio\":[{\"global_ratio\":0.0,\"ranking\":["
        + "{\"policy\":\"lmetric\",\"tps_within_slo\":100.0,\"rate_scale\":0.23,\"slo_attainment\":0.74,\"ttft_p90_s\":5.8,"
        + "\"resolution\":\"Infinity\"},{\"policy\":\"smetric\",\"tps_within_slo\":80.0,\"rate_scale\":0.2,"
        + "\"slo_attainment\":null,\"ttft_p90_s\":6.5,\"resolution\":0.007}],"
        + "\"best\":\"lmetric\",\"best_tps_within_slo\":100.0,\"runner_up\":\"smetric\",\"margin\":0.25,"
        + "\"best_other_than_smetric\":\"lmetric\",\"smetric_gain_vs_best_other\":-0.2,"
        + "\"smetric_gain_vs_best_other_interval\":{\"low\":-0.3,\"high\":-0.1}},"
        + "{\"global_ratio\":1.6,\"ranking\":[],\"best\":\"a\",\"best_tps_within_slo\":1.0,\"runner_up\":\"b\",\"margin\":null}]}}";
    BestRouter br = BestRouter.of(Json.MAPPER.readTree(json));
    assertEquals(2, br.capacities().size());
    BestRouter.Row r = br.capacities().get(0);
    assertEquals(0.0, r.globalRatio());
    assertEquals("lmetric", r.best());
    assertEquals(100.0, r.bestTpsWithinSlo());
    assertEquals("smetric", r.runnerUp());
    assertEquals(0.25, r.margin());
    assertEquals("lmetric", r.bestOtherThanSmetric());
    assertEquals(-0.2, r.smetricGainVsBestOther());
    assertEquals("{\"low\":-0.3,\"high\":-0.1}", r.smetricGainVsBestOtherInterval().toString());
    List<BestRouter.Ranked> ranked = r.ranked();
    assertEquals("lmetric", ranked.get(0).policy());
    assertEquals(100.0, ranked.get(0).tpsWithinSlo());
    assertEquals(0.23, ranked.get(0).rateScale());
    assertEquals(0.74, ranked.get(0).sloAttainment());
    assertEquals(5.8, ranked.get(0).ttftP90S());
    assertEquals("Infinity", ranked.get(0).resolution().asText());
    assertNull(ranked.get(1).sloAttainment());
    assertEquals(0.007, ranked.get(1).resolution().asDouble());
    assertEquals(2, r.ranking().size(), "the ranking is kept as written (audit.json copies it)");
    BestRouter.Row noSmetric = br.capacities().get(1);
    assertNull(noSmetric.margin(), "the runner-up without a token within SLO: null");
    assertNull(noSmetric.bestOtherThanSmetric(), "SMetric not replayed here: left out");
    assertEquals(List.of(), BestRouter.of(Json.MAPPER.readTree("{\"best_router\":{}}")).capacities());
    assertNull(BestRouter.of(Json.MAPPER.readTree("{}")));
  }

  /**
   * paper_claim as SweepSummary.paperClaim writes it: the compared baselines, the paper's own, the
   * descriptive best gain (or its reason), and each row's per-router map in the compared order.
   */
  @Test
  void paperClaim_readsBaselinesBestGainAndVs() throws Exception {
    String json = "{\"paper_claim\":{\"baselines\":[\"least-load\",\"cache-affinity\",\"lmetric\"],\"by_global_ratio\":["
        + "{\"global_ratio\":1.6,\"smetric_tps_within_slo\":101.0,\"smetric_rate_scale\":0.5,\"best_baseline\":\"lmetric\","
        + "\"best_baseline_tps_within_slo\":100.0,\"best_baseline_rate_scale\":0.5,\"gain\":0.01,\"vs\":{"
        + "\"least-load\":{\"tps_within_slo\":50.0,\"gain\":1.02},\"cache-affinity\":{\"tps_within_slo\":0.0,\"gain\":null},"
        + "\"lmetric\":{\"tps_within_slo\":100.0,\"gain\":0.01}}}],"
        + "\"smetric_best_gain_with_global_tier\":{\"value\":0.01,\"global_ratio\":1.6,\"selection\":\"s\"},"
        + "\"smetric_gain_without_global_tier\":{\"value\":null,\"not_applicable\":\"w\"},"
        + "\"min_global_ratio_for_gain\":{\"value\":null,\"threshold\":0.02},"
        + "\"paper_baselines\":[\"cache-affinity\",\"lmetric\",\"least-load\"]}}";
    ReplayComparison pc = ReplayComparison.paperClaim(Json.MAPPER.readTree(json));
    assertEquals(List.of("least-load", "cache-affinity", "lmetric"), pc.baselines());
    assertEquals(List.of("cache-affinity", "lmetric", "least-load"), pc.paperBaselines());
    assertEquals(new ReplayComparison.BestGain(0.01, 1.6, "s", null), pc.bestGainWithGlobal());
    assertEquals("w", pc.gainWithoutGlobal().notApplicable());
    assertEquals(0.02, pc.minGlobalRatio().threshold());
    ReplayComparison.Row row = pc.rows().get(0);
    assertEquals(List.of("least-load", "cache-affinity", "lmetric"), List.copyOf(row.vs().keySet()), "the compared order");
    assertEquals(new ReplayComparison.Vs(50.0, 1.02), row.vs().get("least-load"));
    assertEquals(new ReplayComparison.Vs(0.0, null), row.vs().get("cache-affinity"), "no token within SLO: gain null");
    assertNull(row.interval(), "replays since the equal-load verdict write no interval here");
    ReplayComparison none = ReplayComparison.read(Json.MAPPER.readTree(
        "{\"baselines\":[],\"by_global_ratio\":[],\"smetric_best_gain_with_global_tier\":{\"value\":null,\"not_applicable\":\"why\"}}"),
        "test");
    assertNull(none.bestGainWithGlobal().value());
    assertEquals("why", none.bestGainWithGlobal().notApplicable());
    assertNull(none.paperBaselines(), "only the paper_claim block has paper_baselines");
    assertFalse(none.rows().iterator().hasNext());
    assertNull(ReplayComparison.paperClaim(Json.MAPPER.readTree("{}")));
  }

  /**
   * audit.json's capacity answer as the report writes it (Answers.capacity): the rows' routers by
   * role, the other routers as a list, instances as decimals, the interval's ends as integers (null
   * when open); keys as literals, so a renamed constant fails.
   */
  @Test
  void capacityAnswer_readsTheWrittenKeys() throws Exception {
    assertEquals(List.of("capacity", "by_global_ratio", "summary", "others", "router"), List.of(CapacityAnswer.BLOCK,
        CapacityAnswer.BY_GLOBAL_RATIO, CapacityAnswer.SUMMARY, CapacityAnswer.Row.OTHERS, CapacityAnswer.Amount.ROUTER));
    String json = "{\"capacity\":{\"target_attainment\":0.9,\"rule\":\"r\",\"interval\":\"i\",\"gpu\":\"H20\","
        + "\"gpu_hour_usd\":2.5,\"by_global_ratio\":[{\"global_ratio\":1.6,\"traffic_factor\":1.0,\"judged_router\":\"lmetric\","
        + "\"smetric\":{\"router\":\"smetric\",\"instances\":10.0,\"gpus\":10.0,\"usd_per_day\":600.0,"
        + "\"interval\":{\"low\":9,\"high\":null,\"level\":0.95,\"replicates\":10,\"note\":\"n\"}},"
        + "\"judged\":{\"router\":\"lmetric\",\"instances\":null,\"gpus\":null,\"usd_per_day\":null,\"not_found\":\"none\"},"
        + "\"others\":[{\"router\":\"least-load\",\"instances\":12.0,\"gpus\":null,\"usd_per_day\":null}]},"
        + "{\"global_ratio\":0.0,\"traffic_factor\":2.0,\"judged_router\":\"lmetric\"}],\"summary\":\"s\","
        + "\"sized_point\":[{\"global_ratio\":1.6,\"instances\":10,\"policies\":{\"smetric\":{\"tps_within_slo\":5.0}}}]}}";
    CapacityAnswer a = CapacityAnswer.of(Json.MAPPER.readTree(json), "test");
    assertEquals(0.9, a.targetAttainment());
    assertEquals("r", a.rule());
    assertEquals("i", a.interval());
    assertEquals("H20", a.gpu());
    assertEquals(2.5, a.gpuHourUsd());
    assertEquals("s", a.summary());
    CapacityAnswer.Row r = a.rows().get(0);
    assertEquals(1.6, r.globalRatio());
    assertEquals(1.0, r.trafficFactor());
    assertEquals("lmetric", r.judgedRouter());
    assertEquals(new CapacityAnswer.Amount("smetric", 10.0, 10.0, 600.0, null, new CapacityAnswer.Interval(9, null, 0.95, 10, "n")),
        r.smetric());
    assertEquals(new CapacityAnswer.Amount("lmetric", null, null, null, "none", null), r.judged());
    assertEquals(List.of(new CapacityAnswer.Amount("least-load", 12.0, null, null, null, null)), r.others());
    CapacityAnswer.Row bare = a.rows().get(1);
    assertNull(bare.smetric(), "not searched here");
    assertNull(bare.others(), "no other routers without --capacity-all-routers");
    assertEquals(5.0, CapacityBlock.sized(a.sizedPoint(), "test").get(0).metric("smetric", "tps_within_slo"));
    assertNull(CapacityAnswer.of(Json.MAPPER.readTree("{}"), "test"));
    var e = assertThrows(BadInputException.class,
        () -> CapacityAnswer.of(Json.MAPPER.readTree("{\"capacity\":{\"by_global_ratio\":[{\"others\":1}]}}"), "b audit.json"));
    assertEquals("b audit.json", e.file());
    assertTrue(e.getMessage().startsWith("not a capacity answer: "), e.getMessage());
  }
}
