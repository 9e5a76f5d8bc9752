package io.smetric.audit.report.verdict;

/**
 * A measured number, or the reason it could not be measured (Deequ style: a metric that cannot
 * be computed is a value with a reason, not an exception and never a zero).
 */
public record MetricValue(Double value, String notApplicable) {
  public static MetricValue of(double v) {
    return new MetricValue(v, null);
  }

  public static MetricValue na(String reason) {
    return new MetricValue(null, reason);
  }

  public String notApplicableOr(String fallback) {
    return notApplicable != null ? notApplicable : fallback;
  }

  public boolean present() {
    return value != null && !value.isNaN();
  }
}
