package io.smetric.audit.generate;

/**
 * SplitMix64 with the few distributions the generator draws from. Written out here (rather than
 * {@code java.util.SplittableRandom} plus {@code nextGaussian}) so that the same seed gives the
 * same bytes on every JDK: the algorithm is fixed in this file and all transcendental functions
 * go through {@link StrictMath}, whose results are specified bit for bit.
 */
final class Rng {
  private long state;

  Rng(long seed) {
    this.state = seed;
  }

  long nextLong() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Uniform in [0, 1) with 53 random bits. */
  double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** An independent stream (a child's draws never shift the parent's sequence afterwards). */
  Rng split() {
    return new Rng(nextLong() ^ 0x6A09E667F3BCC909L);
  }

  boolean chance(double p) {
    return nextDouble() < p;
  }

  /** Uniform integer in [lo, hi]. */
  int uniformInt(int lo, int hi) {
    return lo + (int) Math.floor(nextDouble() * (hi - lo + 1L));
  }

  /** Standard normal by Box-Muller (one value per call; the generator is not bound by this). */
  double gaussian() {
    double u1 = 1.0 - nextDouble(); // (0, 1]
    double u2 = nextDouble();
    return StrictMath.sqrt(-2.0 * StrictMath.log(u1)) * StrictMath.cos(2.0 * StrictMath.PI * u2);
  }

  /** Exponential with the given rate (mean 1/rate). */
  double exponential(double rate) {
    return -StrictMath.log(1.0 - nextDouble()) / rate;
  }

  /** Lognormal with the given median and shape sigma (of the underlying normal). */
  double lognormal(double median, double sigma) {
    return median * StrictMath.exp(sigma * gaussian());
  }

  /** Lognormal rounded to an integer and clamped to [min, max]. */
  int lognormalInt(double median, double sigma, int min, int max) {
    double v = lognormal(median, sigma);
    long r = Math.round(v);
    return (int) Math.max(min, Math.min(max, r));
  }

  /**
   * Discrete Pareto: floor of a Pareto(x_min = 1, alpha) draw, capped at max. So
   * P(T >= t) = t^-alpha for 1 <= t <= max, and E[T] = sum over t = 1..max of t^-alpha.
   */
  int paretoInt(double alpha, int max) {
    double x = StrictMath.pow(1.0 - nextDouble(), -1.0 / alpha);
    if (!(x < max)) return max;
    return Math.max(1, (int) x);
  }
}
