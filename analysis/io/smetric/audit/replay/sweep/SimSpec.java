package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.ReplaySettings;
import java.io.Serializable;
import java.util.Locale;
import java.util.TreeMap;

/**
 * One point of a sweep: the policy and the values that differ from the base settings. OVERLOAD
 * and HIT_RATIO are NaN for policies that do not read them (so outputs never suggest otherwise).
 *
 * @param replicate 0 = the trace as given; k > 0 = bootstrap replicate k (session trees resampled)
 * @param variant null for the main sweep; else the name of the condition this run belongs to
 *     (the conditions sweep)
 * @param overrides settings or profile fields set for this run, by {@link SweepVariable#key}, e.g.
 *     {@code profile.globalReadGBps} or {@code instances}; empty for the main sweep. A key that
 *     names no variable is refused here, when the spec is made
 */
public record SimSpec(int runId, String policy, double globalRatio, double rateScale, double overload, double hitRatio,
    int replicate, String variant, TreeMap<String, Double> overrides) implements Serializable {

  public SimSpec {
    overrides = overrides == null ? new TreeMap<>() : new TreeMap<>(overrides);
    for (String k : overrides.keySet()) SweepVariable.byKey(k);
  }

  public SimSpec(int runId, String policy, double globalRatio, double rateScale, double overload, double hitRatio) {
    this(runId, policy, globalRatio, rateScale, overload, hitRatio, 0, null, null);
  }

  /** The same point with another run id. */
  public SimSpec withRunId(int id) {
    return new SimSpec(id, policy, globalRatio, rateScale, overload, hitRatio, replicate, variant, overrides);
  }

  /** The same point at another offered rate. */
  public SimSpec atRate(double x) {
    return new SimSpec(runId, policy, globalRatio, x, overload, hitRatio, replicate, variant, overrides);
  }

  /** The variant of the equal-load runs ({@link EqualLoad}): main-sweep runs at rates another curve chose. */
  public static final String EQUAL_LOAD = "equal-load";

  /** Whether this run belongs to the main sweep (the trace as given, no condition), equal-load runs included. */
  public boolean isMain() {
    return replicate == 0 && (variant == null || EQUAL_LOAD.equals(variant));
  }

  /**
   * Whether this run is a point of its own curve's rate search (the main sweep less the equal-load
   * runs): the only runs a curve's maximum TPS within SLO is taken over, so that a rate another
   * curve chose never moves a maximum its own search did not bracket.
   */
  public boolean isSearch() {
    return replicate == 0 && variant == null;
  }

  /** This run's settings: {@code base} with the spec's values. */
  public ReplaySettings apply(ReplaySettings base) {
    return base.with(this::apply);
  }

  /** Sets the spec's values on a settings builder. */
  public void apply(ReplaySettings.Builder s) {
    // overrides never carry OVERLOAD or HIT_RATIO (a spec has fields for them), so the order of the two steps is free
    SweepVariable.setAll(s, overrides);
    s.globalRatio = globalRatio;
    s.rateScale = rateScale;
    if (!Double.isNaN(overload)) s.overload = overload;
    if (!Double.isNaN(hitRatio)) s.hitRatio = hitRatio;
  }

  public String label() {
    String base = String.format(Locale.ROOT, "%s g=%s x=%s O=%s H=%s", policy, globalRatio, rateScale, overload, hitRatio);
    if (replicate != 0) base += " replicate=" + replicate;
    if (variant != null) base += " " + variant + "=" + overrides;
    return base;
  }
}
