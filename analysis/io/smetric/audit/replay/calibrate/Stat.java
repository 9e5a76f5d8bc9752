package io.smetric.audit.replay.calibrate;

/** A latency summary in seconds; {@code NaN} = not measured (the source did not report it). */
public record Stat(double mean, double p50, double p90, double p99) {
  public static final Stat NONE = new Stat(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  public static Stat ofMean(double mean) {
    return new Stat(mean, Double.NaN, Double.NaN, Double.NaN);
  }

  /** This summary with every value multiplied by {@code k} (unit change or a documented correction). */
  public Stat times(double k) {
    return new Stat(mean * k, p50 * k, p90 * k, p99 * k);
  }

  public boolean hasMean() {
    return !Double.isNaN(mean);
  }
}
