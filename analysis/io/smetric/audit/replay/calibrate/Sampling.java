package io.smetric.audit.replay.calibrate;

import java.util.SplittableRandom;

/** The few random draws the load generators use, on a seeded {@link SplittableRandom}. */
final class Sampling {
  private Sampling() {}

  static double exponential(SplittableRandom r, double mean) {
    return -Math.log(1.0 - r.nextDouble()) * mean;
  }

  /**
   * inference-perf's ConstantLoadTimer (load_timer.py L46-63 at b81afa4): n gaps drawn exponential,
   * then scaled to sum to exactly {@code span}; returns the n arrival offsets (the last = span).
   */
  static double[] normalisedExponentialArrivals(SplittableRandom r, int n, double span) {
    double[] gaps = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      gaps[i] = exponential(r, 1.0);
      sum += gaps[i];
    }
    double t = 0;
    double scale = span / sum;
    for (int i = 0; i < n; i++) {
      t += gaps[i] * scale;
      gaps[i] = t;
    }
    if (n > 0) gaps[n - 1] = span;
    return gaps;
  }

  /** Poisson(lambda) by multiplication, in chunks of at most 30 (a sum of Poissons is Poisson). */
  static int poisson(SplittableRandom r, double lambda) {
    int k = 0;
    while (lambda > 0) {
      double l = Math.min(lambda, 30.0);
      lambda -= l;
      double limit = Math.exp(-l);
      double p = r.nextDouble();
      while (p > limit) {
        k++;
        p *= r.nextDouble();
      }
    }
    return k;
  }

  static double normal(SplittableRandom r) {
    double u = 1.0 - r.nextDouble();
    double v = r.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * v);
  }

  /** Gamma(shape, scale) (Marsaglia-Tsang; shape < 1 by the boost G(a) = G(a+1) U^(1/a)). */
  static double gamma(SplittableRandom r, double shape, double scale) {
    if (!(shape > 0) || !(scale > 0)) throw new IllegalArgumentException("gamma needs shape, scale > 0");
    if (shape < 1) return gamma(r, shape + 1, scale) * Math.pow(1.0 - r.nextDouble(), 1.0 / shape);
    double d = shape - 1.0 / 3.0;
    double c = 1.0 / Math.sqrt(9.0 * d);
    while (true) {
      double x = normal(r);
      double v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      double u = 1.0 - r.nextDouble();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v * scale;
    }
  }

  static void shuffle(SplittableRandom r, int[] a) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
