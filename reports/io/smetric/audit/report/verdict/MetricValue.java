package io.smetric.audit.report.verdict;

/**
 * A measured number, or the reason it could not be measured (Deequ style: a metric that cannot
 * be computed is a value with a reason, not an exception and never a zero). A value may carry an
 * uncertainty interval [low, high] (e.g. a replay gain over bootstrap replicates): a criterion
 * whose threshold lies inside it is too close to call ({@link CriterionResult#judge}).
 */
public record MetricValue(Double value, String notApplicable, Double low, Double high) {
  public MetricValue(Double value, String notApplicable) {
    this(value, notApplicable, null, null);
  }

  public static MetricValue of(double v) {
    return new MetricValue(v, null);
  }

  public static MetricValue of(double v, double low, double high) {
    return new MetricValue(v, null, low, high);
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

  public boolean hasInterval() {
    return low != null && high != null && !low.isNaN() && !high.isNaN();
  }
}
