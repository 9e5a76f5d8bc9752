package io.smetric.audit.report.verdict;

import io.smetric.audit.common.Numbers;

/**
 * One declarative check: {@code metric op threshold} at a level, with the paper figure that
 * motivates it and the advice printed when it fails.
 *
 * @param id stable identifier (used in audit.json and to override thresholds)
 * @param title what is checked, in words
 * @param metric the metric name looked up in {@link Metrics}
 * @param atLeast true for {@code >=}, false for {@code <=}
 * @param threshold the bound; defaults are documented in docs/verdict.md with their source
 * @param percent whether to print value and threshold as percentages
 * @param level weight in the verdict
 * @param source the paper figure or section behind the criterion
 * @param condition the condition text a CONDITION-level failure adds to the verdict
 * @param hint what a user can do or should know when it fails
 */
public record Criterion(
    String id,
    String title,
    String metric,
    boolean atLeast,
    double threshold,
    boolean percent,
    Level level,
    String source,
    String condition,
    String hint) {

  public Criterion withThreshold(double t) {
    return new Criterion(id, title, metric, atLeast, t, percent, level, source, condition, hint);
  }

  public boolean passes(double v) {
    return atLeast ? v >= threshold : v <= threshold;
  }

  /** The value as the evidence table prints it (a percentage for shares). */
  public String format(double v) {
    return percent ? Numbers.percent(v) : Numbers.sig3(v);
  }

  public String op() {
    return atLeast ? ">=" : "<=";
  }
}
