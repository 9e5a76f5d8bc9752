package io.smetric.audit.replay.policy;

/**
 * Deterministic tie-breaking. {@link #roundRobinArgmin} is the paper's round_robin_argmin: among
 * the instances with the minimal value, the first at or after a rotating cursor, which then moves
 * past the choice; without the rotation empty-cluster ties pin every request to instance 0.
 */
public final class Tiebreak {
  private int cursor;

  /** Round-robin argmin over values[0..n). */
  public int roundRobinArgmin(long[] values, int n) {
    int best = -1;
    long min = Long.MAX_VALUE;
    for (int k = 0; k < n; k++) {
      int i = (cursor + k) % n;
      if (values[i] < min) {
        min = values[i];
        best = i;
      }
    }
    cursor = (best + 1) % n;
    return best;
  }

  /** Round-robin argmin of a double score (exact ties only). */
  public int roundRobinArgmin(double[] values, int n) {
    int best = -1;
    double min = Double.POSITIVE_INFINITY;
    for (int k = 0; k < n; k++) {
      int i = (cursor + k) % n;
      if (best < 0 || values[i] < min) {
        min = values[i];
        best = i;
      }
    }
    cursor = (best + 1) % n;
    return best;
  }

  /** Round-robin argmin of load (the helper most policies fall back to). */
  public int leastLoad(ClusterView v, long[] scratch) {
    int n = v.instances();
    for (int i = 0; i < n; i++) scratch[i] = v.load(i);
    return roundRobinArgmin(scratch, n);
  }
}
