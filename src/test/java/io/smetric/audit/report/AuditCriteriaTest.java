package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.Metrics;
import io.smetric.audit.report.verdict.Outcome;
import io.smetric.audit.report.verdict.Verdict;
import io.smetric.audit.report.verdict.VerdictEngine;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The default criteria judged on hand-made characterization and replay values, one test per outcome. */
class AuditCriteriaTest {
  /** A characterization where every default precondition holds (paper-like agent numbers). */
  static Metrics agentLike() {
    return new Metrics().put(AuditCriteria.REUSE, 0.82).put(AuditCriteria.INTRA, 0.67).put(AuditCriteria.SYSTEM, 0.19)
        .put(AuditCriteria.FIRST_TURN, 0.06).put(AuditCriteria.WITHIN, 0.90).put(AuditCriteria.RATIO_P5, 31);
  }

  static JsonNode replay(String comparison) throws Exception {
    return Json.MAPPER.readTree("{\"tool\":\"smetric-audit replay\"" + (comparison == null ? "" : ",\"comparison\":" + comparison) + "}");
  }

  static final String AHEAD_EVERYWHERE = "{\"smetric_gain_with_global_tier\":{\"value\":0.13,\"global_ratio\":1.6},"
      + "\"smetric_gain_without_global_tier\":{\"value\":-0.01},\"min_global_ratio_for_gain\":{\"value\":0.4,\"threshold\":0.02}}";

  @Test
  void agentLikeAndReplayAhead_fits() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay(AHEAD_EVERYWHERE));
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.FITS, v.outcome());
    assertEquals(0.13, m.get(AuditCriteria.GAIN_WITH_GLOBAL).value(), 0);
    // -1% >= -2%: passes
    assertEquals(-0.01, m.get(AuditCriteria.GAIN_NO_GLOBAL).value(), 0);
  }

  @Test
  void behindWithoutGlobalTier_fitsWithConditionNamingTheCapacity() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay(AHEAD_EVERYWHERE.replace("-0.01", "-0.08")));
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.FITS_WITH_CONDITIONS, v.outcome());
    assertEquals(List.of("a global KV tier of at least 0.4x the cluster's local KV capacity is deployed (the smallest "
        + "replayed capacity where SMetric gains at least +2.0% over the best baseline)"), v.conditions());
    assertTrue(v.sentence().startsWith("Session-first routing fits this workload, on condition that a global KV tier of at least 0.4x"));
  }

  @Test
  void behindWithoutGlobalTierAndNoMinimum_fallsBackToTheGenericCondition() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay(AHEAD_EVERYWHERE.replace("-0.01", "-0.08")
        .replace("{\"value\":0.4,\"threshold\":0.02}", "{\"value\":null,\"not_applicable\":\"no ratio reaches the threshold\"}")));
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(List.of("a global KV tier is deployed"), v.conditions());
  }

  @Test
  void twoConditionsFail_sentenceNamesBoth() throws Exception {
    Metrics m = agentLike().put(AuditCriteria.RATIO_P5, 12);
    AuditCriteria.addReplay(m, replay(AHEAD_EVERYWHERE.replace("-0.01", "-0.08")));
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.FITS_WITH_CONDITIONS, v.outcome());
    assertEquals(2, v.conditions().size());
    assertTrue(v.sentence().contains("the cluster sees enough new sessions per instance to balance first turns and a global KV tier"),
        v.sentence());
  }

  @Test
  void chatLikeReuse_doesNotFit_evenWhenTheReplayIsAhead() throws Exception {
    // ordinary chat (paper: 54-62% reuse, most requests start a session)
    Metrics m = agentLike().put(AuditCriteria.REUSE, 0.58).put(AuditCriteria.FIRST_TURN, 0.6);
    AuditCriteria.addReplay(m, replay(AHEAD_EVERYWHERE));
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.DOES_NOT_FIT, v.outcome());
    assertEquals("Session-first routing does not fit this workload: ideal prefix reuse and first-turn fraction fail.",
        v.sentence());
  }

  @Test
  void replayBehindWithGlobalTier_doesNotFit() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay(AHEAD_EVERYWHERE.replace("0.13", "-0.11")));
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.DOES_NOT_FIT, v.outcome());
    CriterionResult r = v.results().stream().filter(x -> x.criterion().id().equals("replay_gain_with_global")).findFirst().orElseThrow();
    assertEquals("replay:smetric_gain_with_global_tier = -11.0% (threshold >= 2.0%). In the replay SMetric does not "
        + "beat the router it is judged against on this workload.", r.reason());
  }

  @Test
  void noReplay_inconclusiveWithTheReason() {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, null);
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.INCONCLUSIVE, v.outcome());
    assertEquals("Inconclusive: the audit cannot judge SMetric vs the judged router, TPS within SLO at equal load, with a "
        + "global tier (" + AuditCriteria.NO_REPLAY + ").", v.sentence());
    assertFalse(m.get(AuditCriteria.GAIN_NO_GLOBAL).present());
  }

  @Test
  void replayWithoutComparisonBlock_notApplicableWithReason() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay(null));
    Metric g = m.get(AuditCriteria.GAIN_WITH_GLOBAL);
    assertNull(g.value());
    assertTrue(g.notApplicable().contains("no comparison block"), g.notApplicable());
  }

  @Test
  void comparisonNotApplicable_carriesItsReason() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay("{\"smetric_gain_with_global_tier\":{\"value\":null,\"not_applicable\":"
        + "\"the replay swept no global-tier capacity above 0\"},\"smetric_gain_without_global_tier\":{\"value\":0.0}}"));
    assertEquals("the replay swept no global-tier capacity above 0", m.get(AuditCriteria.GAIN_WITH_GLOBAL).notApplicable());
    assertEquals(Outcome.INCONCLUSIVE, VerdictEngine.evaluate(m, AuditCriteria.defaults()).outcome());
  }

  @Test
  void noCharacterization_everyCharacterizationCriterionNotApplicable() {
    Metrics m = new Metrics();
    AuditCriteria.addCharacterization(m, null);
    assertEquals(7, m.all().size(), "six workload metrics and the sample size");
    m.all().values().forEach(v -> assertTrue(v.notApplicable().contains("no characterization")));
  }

  /** A characterization.json of a chat-like workload (reuse 25%: fails ideal_reuse) with the given trace size. */
  static CharacterizationSummary chatLike(int requests, Integer sessions) throws Exception {
    return CharacterizationSummary.read(Json.MAPPER.readTree("{\"trace\":{\"requests\":" + requests + ",\"has_sessions\":" + (sessions != null)
        + (sessions != null ? ",\"sessions\":" + sessions : "") + "},"
        + "\"reuse\":{\"token_weighted\":{\"value\":0.25}},"
        + "\"reuse_by_source\":{\"intra_session\":{\"share_of_hit_tokens\":{\"value\":0.9}},"
        + "\"system_prompt\":{\"share_of_hit_tokens\":{\"value\":0.0}}},"
        + "\"reuse_interval\":{\"all\":{\"share_within_threshold\":{\"value\":1.0}}},"
        + "\"sessions\":{\"first_turn_fraction\":{\"value\":0.5}},"
        + "\"request_instance_ratio\":{\"p5\":{\"value\":0.0}}}"), "test");
  }

  @Test
  void fewSessions_workloadCriteriaNotApplicable_soAFailCannotDecide() throws Exception {
    // 4 requests in 2 sessions (the shipped Claude Code sample): 25% reuse would fail ideal_reuse
    Metrics m = new Metrics();
    AuditCriteria.addCharacterization(m, chatLike(4, 2), AuditCriteria.defaults());
    AuditCriteria.addReplay(m, null, "the replay was skipped (--no-replay)", AuditCriteria.defaults());
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.INCONCLUSIVE, v.outcome(), v.sentence());
    CriterionResult reuse = result(v, "ideal_reuse");
    assertEquals(CriterionResult.Status.NOT_APPLICABLE, reuse.status());
    assertEquals("not applicable: too little data (sessions in the trace: 2, needs >= 30): the measured 25.0% describes "
        + "them, not the workload", reuse.reason());
    assertEquals(0.25, reuse.observed(), 0.0, "the evidence keeps the measured value");
    assertTrue(v.sentence().contains("ideal prefix reuse (too little data (sessions in the trace: 2"), v.sentence());
    // every CRITICAL workload criterion is blocked, passing or failing; INFO and CONDITION ones are judged as before
    assertEquals(CriterionResult.Status.NOT_APPLICABLE, result(v, "intra_session_share").status());
    assertEquals(CriterionResult.Status.NOT_APPLICABLE, result(v, "first_turn_fraction").status());
    assertEquals(CriterionResult.Status.FAIL, result(v, "system_prompt_reuse").status());
    assertEquals(CriterionResult.Status.PASS, result(v, "reuse_within_100s").status());
    CriterionResult sample = result(v, "sample_sessions");
    assertEquals(CriterionResult.Status.FAIL, sample.status());
    assertEquals(2.0, sample.observed(), 0.0);
  }

  static CriterionResult result(Verdict v, String id) {
    return v.results().stream().filter(r -> r.criterion().id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void enoughSessions_orTheBoundLowered_theFailDecides() throws Exception {
    Metrics m = new Metrics();
    AuditCriteria.addCharacterization(m, chatLike(90, 30), AuditCriteria.defaults());
    assertEquals(Outcome.DOES_NOT_FIT, VerdictEngine.evaluate(m, AuditCriteria.defaults()).outcome());
    // a trace without sessions counts its requests: 40 requests are 40 units
    Metrics s = new Metrics();
    AuditCriteria.addCharacterization(s, chatLike(40, null), AuditCriteria.defaults());
    assertEquals(40.0, s.get(AuditCriteria.SAMPLE_SESSIONS).value(), 0.0);
    assertEquals(0.25, s.get(AuditCriteria.REUSE).value(), 0.0);
    // the user may take the small sample's noise
    var crit = AuditCriteria.withOverrides(AuditCriteria.defaults(), java.util.Map.of("sample_sessions", 2.0));
    Metrics l = new Metrics();
    AuditCriteria.addCharacterization(l, chatLike(4, 2), crit);
    assertEquals(Outcome.DOES_NOT_FIT, VerdictEngine.evaluate(l, crit).outcome());
  }

  /**
   * A replay.json with the verdict's comparison ("judged": +13% at 1.6x, -1% at 0) and its
   * preconditions at 0 and 1.6 given by the caller (rpm = median requests per instance-minute,
   * within = reuse within 100 s, hold = reuse within the local tier's turnover, ca / ll = mean
   * max/mean load of cache-affinity / least-load, stick = cache-affinity's stickiness).
   */
  static JsonNode withPreconditions(int trees, double rpm, double within, double hold, double ca, double ll, double stick)
      throws Exception {
    String pre = String.format(java.util.Locale.ROOT, "\"requests_per_instance_minute_median\":%s,\"reuse_within_threshold_share\":%s,"
        + "\"reuse_within_local_hold_share\":%s,\"cache_first\":{\"imbalance_mean\":%s,\"stickiness\":%s},"
        + "\"load_balance\":{\"imbalance_mean\":%s},\"hot_spot_ratio\":%s", rpm, within, hold, ca, stick, ll, ca / ll);
    return Json.MAPPER.readTree("{\"trace_summary\":{\"session_trees\":" + trees + "},\"judged\":" + AHEAD_EVERYWHERE
        + ",\"preconditions\":{\"by_global_ratio\":[{\"global_ratio\":0,\"operating_point\":{\"rate_scale\":0.25}," + pre
        + "},{\"global_ratio\":1.6,\"operating_point\":{\"rate_scale\":0.3}," + pre + "}]}}");
  }

  @Test
  void preconditionsHold_theReplayDecides() throws Exception {
    Metrics m = agentLike();
    // 40 trees, 35 rpm, 85% within 100 s, 90% within the hold, hot spots 2.8 / 2.0 = 1.4, stickiness 0.95
    AuditCriteria.addReplay(m, withPreconditions(40, 35, 0.85, 0.9, 2.8, 2.0, 0.95), null, AuditCriteria.defaults());
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.FITS, v.outcome(), v.sentence());
    assertEquals(1.4, m.get(AuditCriteria.REGIME_HOT_SPOTS).value(), 1e-12);
    assertEquals(35.0, m.get(AuditCriteria.REGIME_RPM).value(), 0.0);
  }

  /**
   * Issue 26: the mechanism measurements at the operating point explain the answer, they do not
   * gate it. Few requests per instance and no hot spots used to make the replay criteria "not
   * applicable"; now the gain decides and the rows are reported (INFO) with their failures.
   */
  @Test
  void outsideThePapersRegime_mechanismRowsReported_theGainStillDecides() throws Exception {
    Metrics m = agentLike();
    // 10 rpm (< 30) and no hot spots (1.4 / 1.3 = 1.077 < 1.25, stickiness 0.45 < 0.8)
    AuditCriteria.addReplay(m, withPreconditions(40, 10, 0.85, 0.9, 1.4, 1.3, 0.45), null, AuditCriteria.defaults());
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.FITS, v.outcome(), v.sentence());
    assertEquals(0.13, m.get(AuditCriteria.GAIN_WITH_GLOBAL).value(), 0.0);
    assertEquals(-0.01, m.get(AuditCriteria.GAIN_NO_GLOBAL).value(), 0.0);
    // the mechanism rows themselves are judged (and shown) at the declared 1.6x, at INFO level
    CriterionResult rpm = v.results().stream().filter(r -> r.criterion().id().equals("regime_requests_per_instance")).findFirst().get();
    assertEquals(CriterionResult.Status.FAIL, rpm.status());
    assertEquals(io.smetric.audit.report.verdict.Level.INFO, rpm.criterion().level());
    assertEquals(1.4 / 1.3, m.get(AuditCriteria.REGIME_HOT_SPOTS).value(), 1e-12);
  }

  @Test
  void tinyTrace_tooFewSessionTrees_inconclusive() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, withPreconditions(3, 35, 0.85, 0.9, 2.8, 2.0, 0.95), null, AuditCriteria.defaults());
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.INCONCLUSIVE, v.outcome());
    assertTrue(m.get(AuditCriteria.GAIN_WITH_GLOBAL).notApplicable().contains("session trees replayed 3.00 (needs >= 30.0)"),
        m.get(AuditCriteria.GAIN_WITH_GLOBAL).notApplicable());
    // a threshold override lifts it (the user takes the small sample's noise)
    Metrics m2 = agentLike();
    var crit = AuditCriteria.withOverrides(AuditCriteria.defaults(), java.util.Map.of("replay_session_trees", 3.0));
    AuditCriteria.addReplay(m2, withPreconditions(3, 35, 0.85, 0.9, 2.8, 2.0, 0.95), null, crit);
    assertEquals(Outcome.FITS, VerdictEngine.evaluate(m2, crit).outcome());
  }

  /**
   * With an interval over bootstrap replicates, a gain whose interval contains the +2% threshold
   * is neither a pass nor a fail: too close to call, so the verdict is inconclusive.
   */
  @Test
  void gainWithInterval_tooCloseToCall_passOrFailOnlyOutsideTheNoise() throws Exception {
    String[][] cases = {
        {"0.03", "-0.01", "0.07", "INCONCLUSIVE"}, // [-1%, +7%] straddles +2%
        {"0.05", "0.03", "0.07", "FITS"}, // [+3%, +7%] all above
        {"-0.03", "-0.05", "-0.01", "DOES_NOT_FIT"}}; // [-5%, -1%] all below
    for (String[] c : cases) {
      Metrics m = agentLike();
      AuditCriteria.addReplay(m, Json.MAPPER.readTree("{\"judged\":{\"smetric_gain_with_global_tier\":{\"value\":" + c[0]
          + ",\"global_ratio\":1.6,\"interval\":{\"low\":" + c[1] + ",\"high\":" + c[2] + "}},"
          + "\"smetric_gain_without_global_tier\":{\"value\":0.0}}}"), null, AuditCriteria.defaults());
      Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
      assertEquals(Outcome.valueOf(c[3]), v.outcome(), v.sentence());
      CriterionResult g = v.results().stream().filter(r -> r.criterion().id().equals("replay_gain_with_global")).findFirst().get();
      if (c[3].equals("INCONCLUSIVE")) {
        assertEquals(CriterionResult.Status.NOT_APPLICABLE, g.status());
        assertEquals("not applicable: too close to call: 3.0% [-1.0%, 7.0%] straddles the threshold >= 2.0% (95% interval "
            + "over bootstrap replicates)", g.reason());
        assertTrue(v.sentence().contains("too close to call"), v.sentence());
      }
    }
  }

  /**
   * A replay.json with the judged gain at 1.6x (+1% [0%, +2%]: noise +-1 point) and a conditions
   * sweep over two parameters (read rate 1.12 / 6.8 / 25 GB/s with 25 the default, lookup latency
   * 1 / 35 / 116 ms with 1 the default), gains given by the caller for the four non-default points.
   */
  static JsonNode withConditions(double read112, double read68, double lat35, double lat116) throws Exception {
    String f = String.format(java.util.Locale.ROOT, "{\"judged\":{\"smetric_gain_with_global_tier\":{\"value\":0.01,"
        + "\"global_ratio\":1.6,\"interval\":{\"low\":0.0,\"high\":0.02}},\"smetric_gain_without_global_tier\":{\"value\":0.0}},"
        + "\"conditions\":{\"global_ratio\":1.6,\"judged_router\":\"lmetric\",\"grid\":null,\"parameters\":["
        + "{\"name\":\"global_read_rate\",\"label\":\"the global tier's read rate\",\"unit\":\"GB/s\",\"unit_scale\":1,"
        + "\"base_value\":25,\"points\":[{\"value\":1.12,\"gain\":%s},{\"value\":6.8,\"gain\":%s},{\"value\":25,\"gain\":0.01}]},"
        + "{\"name\":\"global_lookup_latency\",\"label\":\"the lookup latency\",\"unit\":\"ms\",\"unit_scale\":1000,"
        + "\"base_value\":0.001,\"points\":[{\"value\":0.001,\"gain\":0.01},{\"value\":0.035,\"gain\":%s},"
        + "{\"value\":0.116,\"gain\":%s}]}]}}", read112, read68, lat35, lat116);
    return Json.MAPPER.readTree(f);
  }

  private static Verdict judgeConditions(JsonNode replay) {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay, null, AuditCriteria.defaults());
    return VerdictEngine.evaluate(m, AuditCriteria.defaults());
  }

  /**
   * Threshold +2%, noise +-1 point: the defaults' +1% is too close; read rates 1.12 and 6.8 GB/s
   * (+5%, +3.5%) clear it (gain - 1 point >= 2%), latencies 35 and 116 ms (0%, -2%) fall clearly
   * below (gain + 1 point < 2%). Clear gains in a named part of the range: fits with the
   * condition naming it, read rates up to 6.8 GB/s.
   */
  @Test
  void conditions_gainInPartOfTheRange_fitsWithTheConditionNamingIt() throws Exception {
    Verdict v = judgeConditions(withConditions(0.05, 0.035, 0.0, -0.02));
    assertEquals(Outcome.FITS_WITH_CONDITIONS, v.outcome(), v.sentence());
    assertEquals(List.of("SMetric gains at least 2.0% over lmetric at a 1.6x global tier only when the global tier's read rate "
        + "<= 6.8 GB/s"), v.conditions());
    CriterionResult g = v.results().stream().filter(r -> r.criterion().id().equals("replay_gain_with_global")).findFirst().get();
    assertEquals(CriterionResult.Status.PASS, g.status());
    assertTrue(g.reason().endsWith("2 of 5 points of the documented ranges clear the threshold, 2 fall clearly below (noise "
        + "+-1.0 points from the bootstrap interval at the defaults)"), g.reason());
  }

  @Test
  void conditions_clearGainsEverywhere_fits_clearLossesEverywhere_doesNotFit_elseTooCloseToCall() throws Exception {
    // every point clear: +5%, +4%, +3.5%, +6% -- but the defaults' +1% [0, 2%] is only close: not "the whole range"
    assertEquals(Outcome.FITS_WITH_CONDITIONS, judgeConditions(withConditions(0.05, 0.04, 0.035, 0.06)).outcome());
    // all clearly below, except the defaults' +1% [0%, +2%], which touches the threshold: too close to call
    Verdict v = judgeConditions(withConditions(-0.05, -0.04, -0.03, -0.06));
    assertEquals(Outcome.INCONCLUSIVE, v.outcome(), v.sentence());
    assertTrue(v.sentence().contains("too close to call over the documented range"), v.sentence());
    // the same with a clear loss at the defaults (-3% [-4%, -2%]): does not fit
    JsonNode r = withConditions(-0.05, -0.04, -0.03, -0.06);
    ((com.fasterxml.jackson.databind.node.ObjectNode) r.path("judged").path("smetric_gain_with_global_tier"))
        .put("value", -0.03).putObject("interval").put("low", -0.04).put("high", -0.02);
    for (JsonNode p : r.path("conditions").path("parameters")) {
      for (JsonNode pt : p.path("points")) {
        if (pt.path("gain").asDouble() == 0.01) ((com.fasterxml.jackson.databind.node.ObjectNode) pt).put("gain", -0.03);
      }
    }
    assertEquals(Outcome.DOES_NOT_FIT, judgeConditions(r).outcome());
    // and a clear gain at the defaults (+5% [+4%, +6%]) with clear gains everywhere: fits
    JsonNode ok = withConditions(0.05, 0.04, 0.035, 0.06);
    ((com.fasterxml.jackson.databind.node.ObjectNode) ok.path("judged").path("smetric_gain_with_global_tier"))
        .put("value", 0.05).putObject("interval").put("low", 0.04).put("high", 0.06);
    assertEquals(Outcome.FITS, judgeConditions(ok).outcome());
  }
}
