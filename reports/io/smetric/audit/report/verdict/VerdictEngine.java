package io.smetric.audit.report.verdict;

import java.util.ArrayList;
import java.util.List;

/**
 * Judges metrics against criteria (Deequ's checks): the verdict is the worst failed level.
 * <ul>
 *   <li>a failed CRITICAL criterion: does not fit;</li>
 *   <li>else a CRITICAL criterion that cannot be judged: inconclusive (the trace lacks what is needed);</li>
 *   <li>else failed CONDITION criteria: fits with those conditions (a condition measured on this
 *       audit, {@link Metrics#condition}, replaces the criterion's generic text);</li>
 *   <li>else: fits.</li>
 * </ul>
 */
public final class VerdictEngine {
  private VerdictEngine() {}

  public static Verdict evaluate(Metrics m, List<Criterion> criteria) {
    List<CriterionResult> results = new ArrayList<>();
    List<String> failedCritical = new ArrayList<>();
    List<String> naCritical = new ArrayList<>();
    List<String> conditions = new ArrayList<>();
    for (Criterion c : criteria) {
      Metrics.Judgement j = m.judgement(c.metric());
      CriterionResult r = j == null ? CriterionResult.judge(c, m.get(c.metric()))
          : new CriterionResult(c, j.status(), m.get(c.metric()).present() ? m.get(c.metric()).value() : null, j.reason());
      results.add(r);
      if (j != null && j.condition() != null && r.status() == CriterionResult.Status.PASS
          && (c.level() == Level.CRITICAL || c.level() == Level.CONDITION)) {
        conditions.add(j.condition());
      }
      if (c.level() == Level.CRITICAL && r.status() == CriterionResult.Status.FAIL) failedCritical.add(c.title());
      if (c.level() == Level.CRITICAL && r.status() == CriterionResult.Status.NOT_APPLICABLE) {
        naCritical.add(c.title() + " (" + r.reason().replaceFirst("^not applicable: ", "") + ")");
      }
      if (c.level() == Level.CONDITION && r.status() == CriterionResult.Status.FAIL) {
        String measured = m.condition(c.metric());
        conditions.add(measured != null ? measured : c.condition());
      }
    }
    if (!failedCritical.isEmpty()) {
      return new Verdict(Outcome.DOES_NOT_FIT,
          "Session-first routing does not fit this workload: " + join(failedCritical)
              + (failedCritical.size() == 1 ? " fails." : " fail."), List.of(), results);
    }
    if (!naCritical.isEmpty()) {
      return new Verdict(Outcome.INCONCLUSIVE,
          "Inconclusive: the audit cannot judge " + join(naCritical) + ".", List.of(), results);
    }
    if (!conditions.isEmpty()) {
      return new Verdict(Outcome.FITS_WITH_CONDITIONS,
          "Session-first routing fits this workload, on condition that " + join(conditions) + ".", conditions, results);
    }
    return new Verdict(Outcome.FITS, "Session-first routing fits this workload: every precondition holds.", List.of(), results);
  }

  private static String join(List<String> xs) {
    if (xs.size() == 1) return xs.get(0);
    return String.join("; ", xs.subList(0, xs.size() - 1)) + " and " + xs.get(xs.size() - 1);
  }
}
