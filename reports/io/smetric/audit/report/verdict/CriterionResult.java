package io.smetric.audit.report.verdict;

import io.smetric.audit.contract.Metric;

/**
 * A criterion judged on one audit: PASS, FAIL or NOT_APPLICABLE, with a reason that prints the
 * observed value, the threshold and (on failure) the hint.
 */
public record CriterionResult(Criterion criterion, Status status, Double observed, String reason) {
  public enum Status { PASS, FAIL, NOT_APPLICABLE }

  static CriterionResult judge(Criterion c, Metric v) {
    if (!v.present()) {
      return new CriterionResult(c, Status.NOT_APPLICABLE, null,
          "not applicable: " + (v.notApplicable() == null ? "no value" : v.notApplicable()));
    }
    double x = v.value();
    boolean ok = c.passes(x);
    String iv = v.hasInterval() ? " [" + c.format(v.low()) + ", " + c.format(v.high()) + "]" : "";
    String what = c.metric() + " = " + c.format(x) + iv + " (threshold " + c.op() + " " + c.format(c.threshold()) + ")";
    if (v.hasInterval() && c.passes(v.low()) != c.passes(v.high())) {
      // the threshold lies inside the interval: neither a pass nor a fail
      return new CriterionResult(c, Status.NOT_APPLICABLE, x, "not applicable: too close to call: " + c.format(x) + iv
          + " straddles the threshold " + c.op() + " " + c.format(c.threshold()) + " (95% interval over bootstrap replicates)");
    }
    return new CriterionResult(c, ok ? Status.PASS : Status.FAIL, x, ok ? what : what + ". " + c.hint());
  }
}
