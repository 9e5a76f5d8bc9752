package io.smetric.audit.replay.policy;

/**
 * The shape most cache-aware routers share: score every instance for the request (reading each
 * one's local hit, so {@link #probesEveryInstance} is true) and take a round-robin argmin. Holds
 * the tie-breaker and one reusable score array of each type, sized to the cluster before {@link
 * #score} runs; a subclass only writes its scoring rule.
 */
abstract class ScoringPolicy implements Policy {
  final Tiebreak tie = new Tiebreak();
  /** One slot per instance, reused between requests (a policy instance serves one simulation). */
  long[] key = new long[0];
  double[] cost = new double[0];

  @Override
  public final boolean probesEveryInstance() {
    return true;
  }

  @Override
  public final int route(ClusterView v) {
    int n = v.instances();
    if (key.length != n) {
      key = new long[n];
      cost = new double[n];
    }
    return score(v, n);
  }

  /** The chosen instance among {@code n}; {@link #key} and {@link #cost} have n slots. */
  abstract int score(ClusterView v, int n);
}
