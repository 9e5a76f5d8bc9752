package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The typed stage summaries write the files as they were written with literal keys (same keys,
 * order and number formatting), and read back what they wrote.
 */
class StageSummariesTest {

  private static String compact(Object o) throws Exception {
    return Json.MAPPER.writer().without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
        .writeValueAsString(Json.MAPPER.valueToTree(o));
  }

  /** A trace without sessions: every session block is written in the not-applicable shape, value null first. */
  @Test
  void sessionsNotApplicable_everyBlockInMetricsShape_andReadsBack() throws Exception {
    String r = "trace has no sessions";
    String na = "{\"value\":null,\"not_applicable\":\"" + r + "\"}";
    CharacterizationSummary.Sessions s = CharacterizationSummary.Sessions.notApplicable(r);
    assertEquals("{\"first_turn_fraction\":" + na + ",\"trigger_mix\":" + na + ",\"turns_per_session\":" + na
        + ",\"duration_s\":" + na + ",\"think_time_s\":" + na + ",\"token_skew\":" + na + "}", compact(s));
    CharacterizationSummary.Sessions back = Json.MAPPER.treeToValue(Json.MAPPER.readTree(compact(s)),
        CharacterizationSummary.Sessions.class);
    assertEquals(r, back.tokenSkew().notApplicable());
    assertNull(back.tokenSkew().gini(), "a block without sessions has no numbers");
    assertEquals(compact(s), compact(back), "the not-applicable shape survives a read");
  }

  /** Numbers keep their JSON form: a whole double as 1.0, a long as 1, an int field as an int. */
  @Test
  void characterization_roundTripsByteForByte() throws Exception {
    String json = "{\"format\":\"smetric-characterization/1\","
        + "\"parameters\":{\"input\":\"t\",\"instances\":4,\"template_min_sessions\":3,\"interval_threshold_s\":100.0,"
        + "\"interval_rounding_us\":1,\"minute_clock\":\"m\",\"percentiles\":\"p\"},"
        + "\"trace\":{\"requests\":3,\"first_arrival_s\":0.0,\"last_arrival_s\":61.5,\"has_sessions\":true,\"has_blocks\":true,"
        + "\"sessions\":null,\"block_sizes\":[16],\"prefill_tokens\":48,\"output_tokens\":3,\"blocks\":3},"
        + "\"data_quality\":{\"ingest\":\"no ingest-summary.json next to the trace\",\"analysis\":{"
        + "\"block_count_mismatch_requests\":0,\"block_count_mismatch_longer\":0,\"block_count_mismatch_shorter\":0,"
        + "\"block_count_mismatch_rule\":\"r\",\"requests_without_blocks\":0,\"requests_without_session\":0,"
        + "\"requests_without_turn\":0}},"
        + "\"reuse\":{\"token_weighted\":{\"value\":1.0,\"numerator\":\"hit tokens\",\"denominator\":\"d\"},"
        + "\"block_weighted\":{\"value\":null,\"not_applicable\":\"n\"},\"hit_tokens\":48,\"hit_blocks\":3,"
        + "\"per_minute_table\":\"a\",\"per_turn_table\":\"b\"},"
        + "\"sessions\":{\"first_turn_fraction\":{\"value\":0.5},\"trigger_mix\":{\"all_requests\":{\"tool\":{\"value\":1.0}},"
        + "\"follow_ups\":{\"tool\":{\"value\":1.0}}},\"follow_ups\":2,\"turns_per_session\":{\"mean\":{\"value\":1.5},"
        + "\"p50\":{\"value\":1.0},\"p90\":{\"value\":2.0},\"p99\":{\"value\":2.0},\"max\":{\"value\":2.0},\"table\":\"turns\"}},"
        + "\"request_instance_ratio\":{\"instances\":4,\"whole_minutes\":1,\"table\":\"ratio\",\"mean\":{\"value\":0.25},"
        + "\"min\":{\"value\":0.25},\"p5\":{\"value\":0.25},\"p50\":{\"value\":0.25}},"
        + "\"tables\":{\"z_first\":\"z_first/\",\"a_second\":\"a_second/\"}}";
    CharacterizationSummary c = CharacterizationSummary.read(Json.MAPPER.readTree(json), "test");
    assertEquals(json, compact(c));
    assertEquals(0.5, c.sessions().firstTurnFraction().value());
    assertNull(c.trace().sessions());
  }

  /** A file's skip reasons stay most frequent first and its notes in the order met, not sorted by name. */
  @Test
  void hashFileEntry_keepsItsMapsInTheirOwnOrder() throws Exception {
    Map<String, Long> reasons = new LinkedHashMap<>();
    reasons.put("z frequent", 5L);
    reasons.put("a rare", 1L);
    Map<String, HashSummary.Note> notes = new LinkedHashMap<>();
    notes.put("tool_schemas", new HashSummary.Note(1, "no schemas"));
    notes.put("arrival", new HashSummary.Note(2, "synthesised"));
    HashSummary.FileEntry f = new HashSummary.FileEntry("f", "openai", 7, 1, 1, 6, reasons, List.of("openai"), notes, 0, 1, 0,
        0, 0, 0, 1, null, null, null, null);
    String json = compact(f);
    assertEquals("{\"file\":\"f\",\"format\":\"openai\",\"records\":7,\"conversations\":1,\"requests\":1,\"skipped\":6,"
        + "\"skip_reasons\":{\"z frequent\":5,\"a rare\":1},\"formats_that_fit\":[\"openai\"],"
        + "\"synthesised\":{\"tool_schemas\":{\"count\":1,\"what\":\"no schemas\"},\"arrival\":{\"count\":2,\"what\":\"synthesised\"}},"
        + "\"output_tokens_missing\":0,\"synthetic_arrivals\":1,\"log_timestamps\":0,\"requests_without_session\":0,"
        + "\"provider_cache_requests\":0,\"provider_usage_inconsistent\":0,\"synthetic_units\":1,\"min_log_time_s\":null}", json);
    assertEquals(json, compact(HashSummary.readFile(json)));
  }

  /** A whole epoch second is written as an integer, a fraction as a double: the forms the file always had. */
  @Test
  void hashMinLogTime_wholeSecondsAsAnInteger() throws Exception {
    HashSummary.FileEntry whole = new HashSummary.FileEntry("f", "openai", 1, 1, 1, 0, Map.of(), List.of(), Map.of(), 0, 0, 1,
        0, 0, 0, 0, 1775816541.0, null, null, null);
    HashSummary.FileEntry frac = new HashSummary.FileEntry("f", "openai", 1, 1, 1, 0, Map.of(), List.of(), Map.of(), 0, 0, 1,
        0, 0, 0, 0, 1775816541.5, null, null, null);
    assertEquals(true, compact(whole).contains("\"min_log_time_s\":1775816541}"), compact(whole));
    assertEquals(true, compact(frac).contains("\"min_log_time_s\":1.7758165415E9}"), compact(frac));
    assertEquals(1775816541.0, HashSummary.readFile(compact(whole)).minLogTimeS());
  }

  @Test
  void inferenceSummary_writesTheFieldsInTheFileOrder() throws Exception {
    InferenceSummary s = new InferenceSummary(InferenceSummary.SESSIONS_MODE, "rule", new InferenceSummary.Parameters(600.0, 3),
        4, 2, 1, 2, new InferenceSummary.Forks(1, 1, 0), 0, 0, 9, InferenceSummary.TRIGGER);
    String json = compact(s);
    assertEquals("{\"sessions_mode\":\"inferred\",\"method\":\"rule\",\"parameters\":{\"window_s\":600.0,\"template_fanout\":3},"
        + "\"requests\":4,\"sessions\":2,\"root_sessions\":1,\"continuations\":2,\"fork_sessions\":{\"total\":1,"
        + "\"by_branching_inside_a_prompt\":1,\"by_extending_a_request_whose_session_went_on\":0},"
        + "\"roots_sharing_only_template_blocks\":0,\"template_branch_points\":0,\"max_index_entries\":9,"
        + "\"trigger\":\"unknown (not inferable from content)\"}", json);
    assertEquals(s, InferenceSummary.read(Json.MAPPER.readTree(json), "test"));
  }

  /**
   * replay.json's equal_load block as the sweep writes it (keys spelled out here, so a renamed
   * constant fails): every field reads back; a resolution written as "Infinity" stays JSON; a NaN
   * metric (written as a string) reads as NaN; router maps keep the written order.
   */
  @Test
  void equalLoadBlock_readsTheWrittenKeys() throws Exception {
    String json = "{\"loads\":[1.0,1.5],\"decision_load\":1.5,\"declared_global_ratio\":null,\"target_attainment\":0.9,"
        + "\"reference_rule\":\"r\",\"tps_counts\":\"t\",\"by_global_ratio\":[{\"global_ratio\":1.6,\"judged_router\":\"lmetric\","
        + "\"reference_rate_scale\":0.2,\"reference_resolution\":\"Infinity\",\"points\":["
        + "{\"load\":1.0,\"rate_scale\":0.2,\"policies\":{\"smetric\":{\"tps_within_slo\":30.0},\"lmetric\":{\"tps_within_slo\":25.0,"
        + "\"imbalance_mean\":\"NaN\"}},\"smetric_gain_vs\":{\"lmetric\":0.2}},"
        + "{\"load\":1.5,\"rate_scale\":0.3,\"policies\":{\"smetric\":{\"tps_within_slo\":24.0},\"lmetric\":{\"tps_within_slo\":25.0},"
        + "\"least-load\":{}},\"smetric_gain_vs\":{\"lmetric\":-0.04,\"least-load\":null},"
        + "\"smetric_gain_vs_judged\":{\"vs\":\"lmetric\",\"value\":-0.04,\"interval\":{\"low\":-0.1,\"high\":0.05,\"level\":0.95}}}]}],"
        + "\"refined_curves\":2,\"simulations\":7}";
    EqualLoadBlock el = EqualLoadBlock.read(Json.MAPPER.readTree(json), "test");
    assertEquals(List.of(1.0, 1.5), el.loads());
    assertEquals(1.5, el.decisionLoad());
    assertNull(el.declaredGlobalRatio());
    assertEquals(0.9, el.targetAttainment());
    assertEquals("r", el.referenceRule());
    assertEquals("t", el.tpsCounts());
    assertEquals(2, el.refinedCurves());
    assertEquals(7, el.simulations());
    EqualLoadBlock.Row row = el.capacities().get(0);
    assertEquals(1.6, row.globalRatio());
    assertEquals("lmetric", row.judgedRouter());
    assertEquals(0.2, row.referenceRateScale());
    assertEquals("Infinity", row.referenceResolution().asText());
    assertTrue(Double.isNaN(row.points().get(0).metric("lmetric", "imbalance_mean")));
    EqualLoadBlock.Point p = el.decisionPoint(1.6);
    assertEquals(1.5, p.load());
    assertEquals(0.3, p.rateScale());
    assertEquals(List.of("smetric", "lmetric", "least-load"), List.copyOf(p.policies().keySet()));
    assertNull(p.metric("least-load", "tps_within_slo"), "replayed but not measured");
    assertNull(p.metric("cache-affinity", "tps_within_slo"), "not replayed");
    assertTrue(p.smetricGainVs().containsKey("least-load"));
    assertNull(p.smetricGainVs().get("least-load"), "an undefined gain is null");
    assertEquals("lmetric", p.smetricGainVsJudged().vs());
    assertEquals(-0.04, p.smetricGainVsJudged().value());
    assertEquals("{\"low\":-0.1,\"high\":0.05,\"level\":0.95}", p.smetricGainVsJudged().interval().toString(),
        "the interval is kept as written (audit.json copies it)");
    assertNull(el.decisionPoint(0.0));
    assertNull(EqualLoadBlock.of(Json.MAPPER.readTree("{}")), "no block, no record");
  }

  /** A field of the wrong type fails naming the block. */
  @Test
  void equalLoadBlock_wrongType_failsNamingTheBlock() throws Exception {
    var e = org.junit.jupiter.api.Assertions.assertThrows(io.smetric.audit.common.BadInputException.class,
        () -> EqualLoadBlock.of(Json.MAPPER.readTree("{\"equal_load\":{\"by_global_ratio\":{\"global_ratio\":1}}}")));
    assertEquals("replay.json equal_load", e.file());
    assertTrue(e.getMessage().startsWith("not an equal-load block: "), e.getMessage());
  }

  /** A comparison row as SweepSummary writes it: the read fields by their written keys, the rest ignored. */
  @Test
  void comparisonRows_readTheWrittenKeys() throws Exception {
    String json = "[{\"global_ratio\":0.0,\"smetric_tps_within_slo\":100.0,\"smetric_rate_scale\":0.5,\"best_baseline\":\"lmetric\","
        + "\"best_baseline_tps_within_slo\":120.0,\"best_baseline_rate_scale\":0.6,\"smetric_slo_attainment\":0.9,"
        + "\"best_baseline_slo_attainment\":null,\"smetric_resolution\":\"Infinity\",\"best_baseline_resolution\":1.05,"
        + "\"gain\":null,\"not_applicable\":\"n\",\"vs\":{\"lmetric\":{\"tps_within_slo\":120.0,\"gain\":-0.1}}}]";
    List<ReplayComparison.Row> rows = ReplayComparison.rows(Json.MAPPER.readTree(json), "test");
    assertEquals(List.of(new ReplayComparison.Row(0.0, 100.0, 0.5, "lmetric", 120.0, 0.6, null, "n",
        java.util.Map.of("lmetric", new ReplayComparison.Vs(120.0, -0.1)), null)), rows);
    assertEquals(List.of(), ReplayComparison.rows(null, "test"));
  }
}
