package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.ReplaySettings;
import java.io.Serializable;
import java.util.Locale;

/**
 * One point of a sweep: the policy and the values that differ from the base settings. OVERLOAD
 * and HIT_RATIO are NaN for policies that do not read them (so outputs never suggest otherwise).
 */
public record SimSpec(int runId, String policy, double globalRatio, double rateScale, double overload, double hitRatio)
    implements Serializable {

  public ReplaySettings apply(ReplaySettings base) {
    ReplaySettings s = base.copy();
    s.globalRatio = globalRatio;
    s.rateScale = rateScale;
    if (!Double.isNaN(overload)) s.overload = overload;
    if (!Double.isNaN(hitRatio)) s.hitRatio = hitRatio;
    return s;
  }

  public String label() {
    return String.format(Locale.ROOT, "%s g=%s x=%s O=%s H=%s", policy, globalRatio, rateScale, overload, hitRatio);
  }
}
