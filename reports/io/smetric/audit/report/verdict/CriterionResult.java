package io.smetric.audit.report.verdict;

/**
 * A criterion judged on one audit: PASS, FAIL or NOT_APPLICABLE, with a reason that prints the
 * observed value, the threshold and (on failure) the hint.
 */
public record CriterionResult(Criterion criterion, Status status, Double observed, String reason) {
  public enum Status { PASS, FAIL, NOT_APPLICABLE }

  static CriterionResult judge(Criterion c, MetricValue v) {
    if (!v.present()) {
      return new CriterionResult(c, Status.NOT_APPLICABLE, null,
          "not applicable: " + (v.notApplicable() == null ? "no value" : v.notApplicable()));
    }
    double x = v.value();
    boolean ok = c.passes(x);
    String what = c.metric() + " = " + c.format(x) + " (threshold " + c.op() + " " + c.format(c.threshold()) + ")";
    return new CriterionResult(c, ok ? Status.PASS : Status.FAIL, x, ok ? what : what + ". " + c.hint());
  }
}
