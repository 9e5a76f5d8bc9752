package io.smetric.audit.replay.sim;

/**
 * Decode stretches: consecutive decode-only steps of an instance with the same decoding
 * sequences, whose step times form an arithmetic series (the context grows by nd a step), so the
 * end of any step in the stretch is one closed-form expression of its index ({@link #t}), in the
 * step-by-step replay and in decode fast-forward alike. Per instance: when the stretch's first
 * step started, the decode context and step count then, its nd and context-free step cost, the
 * index (steps since its start) at which its last scheduled step ends, and the index of the first
 * step of the run of steps its pending event completes.
 */
final class DecodeStretches {
  private final double perContext;
  private final double[] start;
  private final long[] ctx0;
  private final long[] step0;
  private final int[] nd;
  private final double[] k0;
  private final long[] next;
  private final long[] runJ0;

  /** @param perContext the step cost per decode-context token (ModelProfile.decodePerContextTokenS) */
  DecodeStretches(int instances, double perContext) {
    this.perContext = perContext;
    start = new double[instances];
    ctx0 = new long[instances];
    step0 = new long[instances];
    nd = new int[instances];
    k0 = new double[instances];
    next = new long[instances];
    java.util.Arrays.fill(next, -1);
    runJ0 = new long[instances];
  }

  /**
   * The index of the decode-only step with {@code n} sequences that instance i starts {@code now}
   * (its step count {@code steps}, decode context {@code ctx}) when it continues the current
   * stretch (same n, the stretch's last step ended now, the context grew by n per step); else -1.
   */
  long continued(int i, double now, int n, long steps, long ctx) {
    long j = next[i];
    if (j >= 0 && nd[i] == n && steps - step0[i] == j && ctx == ctx0[i] + (long) n * j && t(i, j) == now) return j;
    return -1;
  }

  /** A new stretch of instance i starts now; {@code stepConst} is its steps' context-free cost. */
  void begin(int i, double now, int n, long steps, long ctx, double stepConst) {
    start[i] = now;
    ctx0[i] = ctx;
    step0[i] = steps;
    nd[i] = n;
    k0[i] = stepConst;
  }

  /**
   * When step j of instance i's stretch starts (= when step j - 1 ends): the stretch's start plus
   * the sum of the step times before j, j * k0 + perContext * (j * c0 + nd * j (j - 1) / 2), with
   * the context sum an exact integer. Strictly increasing in j (each step adds at least k0).
   */
  double t(int i, long j) {
    long ctxSum = j * ctx0[i] + (long) nd[i] * (j * (j - 1) / 2);
    return start[i] + (j * k0[i] + perContext * ctxSum);
  }

  /** Steps j0 .. j0 + count - 1 of instance i's stretch are scheduled as one event; returns when the last ends. */
  double schedule(int i, long j0, long count) {
    runJ0[i] = j0;
    next[i] = j0 + count;
    return t(i, j0 + count);
  }

  /** The stretch index of the first step of instance i's scheduled run. */
  long runStart(int i) {
    return runJ0[i];
  }

  /**
   * Steps of instance i's current run (of {@code count} steps) that ended by {@code now}, at most
   * count - 1 (the last one ends with the run's own event): the largest k with t(j0 + k) <= now,
   * from the quadratic's root and then checked against t itself.
   */
  long endedBy(int i, double now, long count) {
    long j0 = runJ0[i];
    double d = now - start[i];
    double a = perContext * nd[i] / 2;
    double b = k0[i] + perContext * (ctx0[i] - nd[i] / 2.0);
    double j = a > 0 ? (-b + Math.sqrt(b * b + 4 * a * d)) / (2 * a) : d / b;
    long k = Double.isFinite(j) ? Math.max(0, Math.min(count - 1, (long) Math.floor(j) - j0)) : 0;
    while (k > 0 && t(i, j0 + k) > now) k--;
    while (k < count - 1 && t(i, j0 + k + 1) <= now) k++;
    return k;
  }
}
