package io.smetric.audit.replay.policy;

/**
 * SMetric, the paper's Figure 13 (arXiv 2607.08565), in its order: compute the local hit vector c
 * and the load vector l, s = argmax c; if turn > 0 and not_overloaded(s, l) and
 * session_not_evicted(r, s, c) route to s, else round_robin_argmin(l).
 *
 * <p>The guards as implemented (the paper's formulas are not in our source summary; this is our
 * reading, documented in docs/replay.md): not_overloaded(s, l) = l[s] <= OVERLOAD x mean(l);
 * session_not_evicted(r, s, c) = c[s] >= HIT_RATIO x est_hit(r). argmax ties go to the lower
 * load, then the lower index. Each guard can be switched off, giving SMetric basic (both off, the
 * paper's Figure 24) and the two single-guard variants the paper did not publish.
 */
public final class SMetricPolicy extends ScoringPolicy {
  private final boolean overloadGuard;
  private final boolean evictionGuard;
  private final double overload;
  private final double hitRatio;
  private Reason reason = Reason.NONE;

  /**
   * Why {@link #route} chose what it chose for the last request (read by the shadow-routing report;
   * it never feeds back into a decision). Guards are tested in the paper's order, so a request
   * failing both counts as OVERLOADED.
   */
  public enum Reason {
    /** No request routed yet. */
    NONE,
    /** turn == 0: balanced by round_robin_argmin(l), hits not consulted. */
    FIRST_TURN,
    /** A follow-up routed to s = argmax c (both enabled guards passed). */
    STUCK,
    /** A follow-up rebalanced because not_overloaded(s, l) failed. */
    OVERLOADED,
    /** A follow-up rebalanced because session_not_evicted(r, s, c) failed (s was not overloaded). */
    EVICTED
  }

  /** The reason behind the last decision of {@link #route}. */
  public Reason lastReason() {
    return reason;
  }

  /** SMetric with the guards given (the ablation variants drop one or both) and their thresholds. */
  public SMetricPolicy(Policies.SMetricConfig c, boolean overloadGuard, boolean evictionGuard) {
    this.overloadGuard = overloadGuard;
    this.evictionGuard = evictionGuard;
    this.overload = c.overload();
    this.hitRatio = c.hitRatio();
  }

  @Override
  int score(ClusterView v, int n) {
    long[] l = key;
    int s = 0;
    long best = -1;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      l[i] = v.load(i);
      sum += l[i];
    }
    // a first request is balanced whatever the hits, so no tier is probed for it (a probe only
    // brings the instance's memory up to the clock, as its next event does anyway)
    if (v.turn() == 0) {
      reason = Reason.FIRST_TURN;
      return tie.roundRobinArgmin(l, n);
    }
    for (int i = 0; i < n; i++) {
      long c = v.localHitTokens(i);
      if (c > best || (c == best && l[i] < l[s])) {
        best = c;
        s = i;
      }
    }
    boolean fresh = !overloadGuard || notOverloaded(l[s], sum, n);
    boolean kept = fresh && (!evictionGuard || best >= hitRatio * v.estHitTokens());
    reason = kept ? Reason.STUCK : fresh ? Reason.EVICTED : Reason.OVERLOADED;
    return kept ? s : tie.roundRobinArgmin(l, n);
  }

  private boolean notOverloaded(long ls, long sum, int n) {
    if (Double.isInfinite(overload)) return true;
    return ls <= overload * ((double) sum / n);
  }
}
