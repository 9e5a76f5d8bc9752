package io.smetric.audit.report;

import java.util.Arrays;

/**
 * Per-minute series drawn as at most {@link #MAX_POINTS} bins of whole minutes. A chart 800 pixels
 * wide cannot show more points, and XChart lays out the ticks of an evenly spaced axis with work that
 * grows with the point count: a trace of logs spread over 472 days (680,000 minutes) took six minutes
 * to draw one chart. Bins aggregate exactly (sums, means, minima over the bin's own minutes); a
 * series that fits is returned as it is (width 1).
 */
final class MinuteBins {
  private MinuteBins() {}

  static final int MAX_POINTS = 2000;

  /** The bin width in minutes for minutes {@code 0..span}: 1 when {@code span + 1 <= MAX_POINTS}. */
  static int width(double span) {
    return (int) Math.max(1, Math.ceil((span + 1) / MAX_POINTS));
  }

  /** The bins that hold a point: bin b covers minutes [b w, (b + 1) w); {@code index[i]} is point i's bin. */
  record Layout(double[] start, int[] index) {}

  /** Bins of width {@code w} over minutes {@code x} (sorted ascending, from 0). */
  static Layout layout(double[] x, int w) {
    int[] index = new int[x.length];
    double[] start = new double[x.length];
    int bins = 0;
    long last = Long.MIN_VALUE;
    for (int i = 0; i < x.length; i++) {
      long b = (long) Math.floor(x[i] / w);
      if (b != last) {
        start[bins++] = (double) b * w;
        last = b;
      }
      index[i] = bins - 1;
    }
    return new Layout(Arrays.copyOf(start, bins), index);
  }

  /** Per bin, the sum of {@code v} over its points (NaN values skipped; NaN when the bin has none). */
  static double[] sum(Layout l, double[] v) {
    return fold(l, v, Double::sum);
  }

  /** Per bin, the mean of {@code v} over its points. */
  static double[] mean(Layout l, double[] v) {
    double[] s = sum(l, v);
    int[] n = new int[s.length];
    for (int i = 0; i < v.length; i++) if (!Double.isNaN(v[i])) n[l.index()[i]]++;
    for (int b = 0; b < s.length; b++) s[b] = n[b] == 0 ? Double.NaN : s[b] / n[b];
    return s;
  }

  /** Per bin, the least of {@code v} over its points. */
  static double[] min(Layout l, double[] v) {
    return fold(l, v, Math::min);
  }

  /** Per bin, {@code op} over its points' values, NaN skipped (NaN when the bin has none). */
  private static double[] fold(Layout l, double[] v, java.util.function.DoubleBinaryOperator op) {
    double[] out = new double[l.start().length];
    Arrays.fill(out, Double.NaN);
    for (int i = 0; i < v.length; i++) {
      if (Double.isNaN(v[i])) continue;
      int b = l.index()[i];
      out[b] = Double.isNaN(out[b]) ? v[i] : op.applyAsDouble(out[b], v[i]);
    }
    return out;
  }
}
