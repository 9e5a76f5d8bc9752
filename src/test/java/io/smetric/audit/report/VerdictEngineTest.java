package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.Metric;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.Level;
import io.smetric.audit.report.verdict.Metrics;
import io.smetric.audit.report.verdict.Outcome;
import io.smetric.audit.report.verdict.Verdict;
import io.smetric.audit.report.verdict.VerdictEngine;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerdictEngineTest {
  private static final Criterion REUSE =
      new Criterion("reuse", "ideal reuse", "reuse", true, 0.7, true, Level.CRITICAL, "Fig. 5", null, "raise it");
  private static final Criterion FIRST =
      new Criterion("first", "first-turn fraction", "first", false, 0.25, true, Level.CRITICAL, "Sec. 2", null, "few follow-ups");
  private static final Criterion GLOBAL =
      new Criterion("global", "no-global gain", "g0", true, -0.02, true, Level.CONDITION, "Fig. 16",
          "a global KV tier is deployed", "add a global tier");
  private static final Criterion INFO =
      new Criterion("info", "info only", "i", true, 1, false, Level.INFO, "-", null, "-");
  private static final List<Criterion> ALL = List.of(REUSE, FIRST, GLOBAL, INFO);

  @Test
  void allPass_fits() {
    Verdict v = VerdictEngine.evaluate(new Metrics().put("reuse", 0.82).put("first", 0.05).put("g0", 0.0).put("i", 0), ALL);
    assertEquals(Outcome.FITS, v.outcome());
    // the INFO criterion fails (0 < 1) and changes nothing
    assertEquals(CriterionResult.Status.FAIL, v.results().get(3).status());
  }

  @Test
  void criticalFails_doesNotFit_andReasonPrintsValueThresholdAndHint() {
    Verdict v = VerdictEngine.evaluate(new Metrics().put("reuse", 0.55).put("first", 0.05).put("g0", 0.0), ALL);
    assertEquals(Outcome.DOES_NOT_FIT, v.outcome());
    CriterionResult r = v.results().get(0);
    assertEquals("reuse = 55.0% (threshold >= 70.0%). raise it", r.reason());
    assertTrue(v.sentence().contains("ideal reuse"));
  }

  @Test
  void conditionFails_fitsWithThatCondition() {
    Verdict v = VerdictEngine.evaluate(new Metrics().put("reuse", 0.8).put("first", 0.1).put("g0", -0.1), ALL);
    assertEquals(Outcome.FITS_WITH_CONDITIONS, v.outcome());
    assertEquals(List.of("a global KV tier is deployed"), v.conditions());
  }

  @Test
  void criticalNotApplicable_isInconclusive_unlessAnotherCriticalFails() {
    Metrics m = new Metrics().put("reuse", Metric.na("trace has no block hashes")).put("first", 0.1).put("g0", 0);
    Verdict v = VerdictEngine.evaluate(m, ALL);
    assertEquals(Outcome.INCONCLUSIVE, v.outcome());
    assertEquals("not applicable: trace has no block hashes", v.results().get(0).reason());
    m.put("first", 0.9);
    assertEquals(Outcome.DOES_NOT_FIT, VerdictEngine.evaluate(m, ALL).outcome());
  }

  @Test
  void boundaryValue_passesInclusive() {
    Verdict v = VerdictEngine.evaluate(new Metrics().put("reuse", 0.7).put("first", 0.25).put("g0", -0.02), ALL);
    assertEquals(Outcome.FITS, v.outcome());
  }

  @Test
  void htmlEscape_neutralisesMarkup() {
    assertEquals("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;", Html.esc("<script>alert('x')</script> & \"q\""));
  }
}
