package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * replay.json's headline, ablation, sensitivity, stickiness, trace_summary and policies blocks:
 * the key names spelled out as literals (a renamed constant or @JsonProperty fails) and a small
 * hand-written block of each read back field by field. The writers (ReplayWriter, SweepSummary)
 * build the trees with the same constants; arch-identity.sh compared the files byte for byte.
 */
class ReplayResultBlocksTest {

  private static List<String> keys(Class<? extends Record> type) {
    return RecordKeys.of(type);
  }

  private static JsonNode tree(String json) throws Exception {
    return Json.MAPPER.readTree(json);
  }

  @Test
  void keyNames_asTheFileHasThem() {
    assertEquals("headline", HeadlineBlock.BLOCK);
    assertEquals(List.of("policy", "global_ratio", "overload", "hit_ratio", "max_tps_within_slo", "at_rate_scale", "at_edge",
        "run_id"), keys(HeadlineBlock.Row.class));

    assertEquals("ablation", AblationBlock.BLOCK);
    assertEquals(List.of("overload", "hit_ratio", "variants", "by_global_ratio"), keys(AblationBlock.class));
    assertEquals(List.of("global_ratio", "headline_tps_within_slo"), keys(AblationBlock.Row.class));

    assertEquals("sensitivity", SensitivityBlock.BLOCK);
    assertEquals(List.of("overload", "hit_ratio"), keys(SensitivityBlock.class));
    assertEquals(List.of("policy", "global_ratio", "overload", "hit_ratio", "headline_tps_within_slo", "at_rate_scale",
        "stickiness"), keys(SensitivityBlock.Row.class));

    assertEquals("stickiness", StickinessBlock.BLOCK);
    assertEquals(List.of("policy", "min", "max", "at_headline"), keys(StickinessBlock.Row.class));
    assertEquals(List.of("global_ratio", "rate_scale", "stickiness", "stickiness_previous", "stickiness_extending_turn0",
        "follow_ups_extending_turn0_share"), keys(StickinessBlock.AtHeadline.class));

    assertEquals("trace_summary", TraceSummaryBlock.BLOCK);
    assertEquals(List.of("requests", "sessions", "session_trees", "block_size", "segments", "blocks_referenced",
        "block_count_mismatches", "has_blocks", "has_sessions", "has_turns"), keys(TraceSummaryBlock.class));

    assertEquals("policies", PoliciesBlock.BLOCK);
    assertEquals(List.of("name", "source", "defaults", "needs"), keys(PoliciesBlock.Policy.class));
  }

  @Test
  void headline_readsRows_withNullAndInfiniteThresholds() throws Exception {
    List<HeadlineBlock.Row> rows = HeadlineBlock.of(tree("""
        {"headline": [
          {"policy": "least-load", "global_ratio": 0.5, "overload": null, "hit_ratio": null, "max_tps_within_slo": 1234.5,
           "at_rate_scale": 2.0, "at_edge": null, "run_id": 7, "later": 1},
          {"policy": "smetric-basic", "global_ratio": 1.0, "overload": "Infinity", "hit_ratio": 0.3, "max_tps_within_slo": 0.0,
           "at_rate_scale": 0.25, "at_edge": "lowest_rate", "run_id": 12}]}"""));
    assertEquals(2, rows.size());
    HeadlineBlock.Row a = rows.get(0);
    assertEquals("least-load", a.policy());
    assertEquals(0.5, a.globalRatio());
    assertNull(a.overload());
    assertNull(a.hitRatio());
    assertEquals(1234.5, a.maxTpsWithinSlo());
    assertEquals(2.0, a.atRateScale());
    assertNull(a.atEdge());
    assertEquals(7, a.runId());
    HeadlineBlock.Row b = rows.get(1);
    assertEquals(Double.POSITIVE_INFINITY, b.overload(), "the guard-off threshold is written as the string Infinity");
    assertEquals(0.3, b.hitRatio());
    assertEquals("lowest_rate", b.atEdge());
    assertEquals(12, b.runId());

    assertEquals(List.of(), HeadlineBlock.of(tree("{}")));
    assertEquals(List.of(), HeadlineBlock.of(null));
    BadInputException e = assertThrows(BadInputException.class,
        () -> HeadlineBlock.of(tree("{\"headline\": [{\"policy\": \"x\", \"max_tps_within_slo\": \"lots\"}]}")));
    assertEquals("replay.json headline", e.file());
    assertTrue(e.getMessage().startsWith("not a headline array: ") && e.getMessage().contains("max_tps_within_slo"), e.getMessage());
  }

  @Test
  void ablation_readsVariantsInOrder_andMissingCapacitiesAsNull() throws Exception {
    AblationBlock a = AblationBlock.of(tree("""
        {"ablation": {"overload": 1.5, "hit_ratio": 0.3, "variants": ["smetric", "smetric-basic"],
          "by_global_ratio": [
            {"global_ratio": 0.0, "headline_tps_within_slo": {"smetric": 100.0, "smetric-basic": 90.5}},
            {"global_ratio": 2.0, "headline_tps_within_slo": {"smetric": 120.0, "smetric-basic": null}}]}}"""));
    assertEquals(1.5, a.overload());
    assertEquals(0.3, a.hitRatio());
    assertEquals(List.of("smetric", "smetric-basic"), a.variants());
    assertEquals(2, a.capacities().size());
    assertEquals(0.0, a.capacities().get(0).globalRatio());
    Map<String, Double> first = a.capacities().get(0).headlineTpsWithinSlo();
    assertEquals(List.of("smetric", "smetric-basic"), new ArrayList<>(first.keySet()), "the file's order is kept");
    assertEquals(90.5, first.get("smetric-basic"));
    Map<String, Double> second = a.capacities().get(1).headlineTpsWithinSlo();
    assertEquals(2.0, a.capacities().get(1).globalRatio());
    assertEquals(120.0, second.get("smetric"));
    assertTrue(second.containsKey("smetric-basic"));
    assertNull(second.get("smetric-basic"));

    assertNull(AblationBlock.of(tree("{}")), "written only when two variants ran");
    assertEquals(List.of(), new AblationBlock(null, null, null, null).capacities());
  }

  @Test
  void sensitivity_readsEachAxis_absentAxisEmpty() throws Exception {
    SensitivityBlock s = SensitivityBlock.of(tree("""
        {"sensitivity": {"overload": [
          {"policy": "smetric", "global_ratio": 1.0, "overload": 1.25, "hit_ratio": 0.3, "headline_tps_within_slo": 55.5,
           "at_rate_scale": 1.5, "stickiness": 0.875},
          {"policy": "smetric", "global_ratio": 1.0, "overload": "Infinity", "hit_ratio": 0.3, "headline_tps_within_slo": 50.0,
           "at_rate_scale": 1.0, "stickiness": null}]}}"""));
    assertEquals(2, s.overloadRows().size());
    assertEquals(List.of(), s.hitRatioRows(), "HIT_RATIO took one value: no axis");
    SensitivityBlock.Row r = s.overloadRows().get(0);
    assertEquals("smetric", r.policy());
    assertEquals(1.0, r.globalRatio());
    assertEquals(1.25, r.overload());
    assertEquals(0.3, r.hitRatio());
    assertEquals(55.5, r.headlineTpsWithinSlo());
    assertEquals(1.5, r.atRateScale());
    assertEquals(0.875, r.stickiness());
    assertEquals(Double.POSITIVE_INFINITY, s.overloadRows().get(1).overload());
    assertNull(s.overloadRows().get(1).stickiness());
    assertNull(SensitivityBlock.of(tree("{\"sensitivity\": []}")), "not an object");
  }

  @Test
  void stickiness_readsRangeAndHeadlineRuns() throws Exception {
    List<StickinessBlock.Row> rows = StickinessBlock.of(tree("""
        {"stickiness": [{"policy": "cache-affinity", "min": 0.5, "max": 0.75, "at_headline": [
          {"global_ratio": 0.0, "rate_scale": 2.0, "stickiness": 0.625, "stickiness_previous": 0.5,
           "stickiness_extending_turn0": null, "follow_ups_extending_turn0_share": 0.25}]}]}"""));
    assertEquals(1, rows.size());
    StickinessBlock.Row r = rows.get(0);
    assertEquals("cache-affinity", r.policy());
    assertEquals(0.5, r.min());
    assertEquals(0.75, r.max());
    StickinessBlock.AtHeadline h = r.atHeadline().get(0);
    assertEquals(0.0, h.globalRatio());
    assertEquals(2.0, h.rateScale());
    assertEquals(0.625, h.stickiness());
    assertEquals(0.5, h.stickinessPrevious());
    assertNull(h.stickinessExtendingTurn0());
    assertEquals(0.25, h.followUpsExtendingTurn0Share());
    assertEquals(List.of(), StickinessBlock.of(tree("{}")), "written only when the trace has sessions");
  }

  @Test
  void traceSummary_readsCountsAndFlags() throws Exception {
    TraceSummaryBlock t = TraceSummaryBlock.of(tree("""
        {"trace_summary": {"requests": 300, "sessions": 40, "session_trees": 31, "block_size": 16, "segments": 2,
          "blocks_referenced": 5000000000, "block_count_mismatches": 0, "has_blocks": true, "has_sessions": true,
          "has_turns": false}}"""));
    assertEquals(300L, t.requests());
    assertEquals(40L, t.sessions());
    assertEquals(31L, t.sessionTrees());
    assertEquals(16, t.blockSize());
    assertEquals(2L, t.segments());
    assertEquals(5_000_000_000L, t.blocksReferenced(), "a long count");
    assertEquals(0L, t.blockCountMismatches());
    assertEquals(true, t.hasBlocks());
    assertEquals(true, t.hasSessions());
    assertEquals(false, t.hasTurns());
    assertNull(TraceSummaryBlock.of(tree("{\"trace_summary\": {}}")).sessionTrees(), "a count the file lacks is null");
    assertNull(TraceSummaryBlock.of(tree("{}")));
    BadInputException e = assertThrows(BadInputException.class,
        () -> TraceSummaryBlock.of(tree("{\"trace_summary\": {\"session_trees\": \"many\"}}")));
    assertEquals("replay.json trace_summary", e.file());
    assertTrue(e.getMessage().startsWith("not a trace summary: ") && e.getMessage().contains("session_trees"), e.getMessage());
  }

  @Test
  void policies_readInOrder() throws Exception {
    List<PoliciesBlock.Policy> ps = PoliciesBlock.of(tree("""
        {"policies": [{"name": "smetric", "source": "paper section 4", "defaults": "OVERLOAD=1.5", "needs": "[BLOCKS, SESSIONS]"},
                      {"name": "round-robin", "source": "by definition", "defaults": "none", "needs": "[]"}]}"""));
    assertEquals(Arrays.asList("smetric", "round-robin"), ps.stream().map(PoliciesBlock.Policy::name).toList());
    assertEquals("paper section 4", ps.get(0).source());
    assertEquals("OVERLOAD=1.5", ps.get(0).defaults());
    assertEquals("[BLOCKS, SESSIONS]", ps.get(0).needs());
    assertEquals("[]", ps.get(1).needs());
    assertEquals(List.of(), PoliciesBlock.of(tree("{\"policies\": {}}")), "not an array");
  }
}
