package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.MetricValue;
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

  static final String AHEAD_EVERYWHERE = "{\"smetric_best_gain_with_global_tier\":{\"value\":0.13,\"global_ratio\":1.6},"
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
    assertEquals("replay:smetric_best_gain_with_global_tier = -11.0% (threshold >= 2.0%). In the replay SMetric does not "
        + "beat the router it is judged against on this workload.", r.reason());
  }

  @Test
  void noReplay_inconclusiveWithTheReason() {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, null);
    Verdict v = VerdictEngine.evaluate(m, AuditCriteria.defaults());
    assertEquals(Outcome.INCONCLUSIVE, v.outcome());
    assertEquals("Inconclusive: the audit cannot judge SMetric vs the judged router, TPS within SLO, with a global tier ("
        + AuditCriteria.NO_REPLAY + ").", v.sentence());
    assertFalse(m.get(AuditCriteria.GAIN_NO_GLOBAL).present());
  }

  @Test
  void replayWithoutComparisonBlock_notApplicableWithReason() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay(null));
    MetricValue g = m.get(AuditCriteria.GAIN_WITH_GLOBAL);
    assertNull(g.value());
    assertTrue(g.notApplicable().contains("no comparison block"), g.notApplicable());
  }

  @Test
  void comparisonNotApplicable_carriesItsReason() throws Exception {
    Metrics m = agentLike();
    AuditCriteria.addReplay(m, replay("{\"smetric_best_gain_with_global_tier\":{\"value\":null,\"not_applicable\":"
        + "\"the replay swept no global-tier capacity above 0\"},\"smetric_gain_without_global_tier\":{\"value\":0.0}}"));
    assertEquals("the replay swept no global-tier capacity above 0", m.get(AuditCriteria.GAIN_WITH_GLOBAL).notApplicable());
    assertEquals(Outcome.INCONCLUSIVE, VerdictEngine.evaluate(m, AuditCriteria.defaults()).outcome());
  }

  @Test
  void noCharacterization_everyCharacterizationCriterionNotApplicable() {
    Metrics m = new Metrics();
    AuditCriteria.addCharacterization(m, null);
    assertEquals(6, m.all().size());
    m.all().values().forEach(v -> assertTrue(v.notApplicable().contains("no characterization")));
  }
}
