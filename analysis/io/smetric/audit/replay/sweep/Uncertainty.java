package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.replay.policy.Policies;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How sure a gain is (docs/replay.md, "Uncertainty"): the gains the verdict reads (SMetric over the
 * judged router at equal load, {@link EqualLoad}) are replayed again on B bootstrap replicates of
 * the trace (session trees resampled, {@link io.smetric.audit.replay.trace.TraceResample}), both
 * routers at the same offered rate as the gain (paired: a replicate repeats the very statistic the
 * gain is, with no maximum over rates that the original took and the replicate did not); the
 * gain's standard error is the standard deviation of the B replicate gains, and its
 * interval the standard bootstrap interval, gain +- 1.96 x SE (Efron and Tibshirani, An
 * Introduction to the Bootstrap, ch. 13), widened by the replicates' bias when they do not
 * centre on the measured gain: half-width 1.96 x sqrt(SE^2 + bias^2), bias = mean of the
 * replicate gains - the gain (the estimator's root-mean-square error, ibid. ch. 10). Resampled
 * traces can sit apart from the original (a tree drawn twice doubles its load): an interval of
 * +-1.96 SE around the measured gain would then claim a precision the replicates contradict.
 */
public final class Uncertainty {
  /** Bootstrap replicates of an audit by default. */
  public static final int DEFAULT_REPLICATES = 10;
  /** z of a two-sided 95% normal interval. */
  public static final double Z95 = 1.959963984540054;

  private Uncertainty() {}

  /** The baseline of {@code among} (null = every baseline) with the highest headline at g, or null. */
  static String bestAt(Map<String, TreeMap<Double, SweepSummary.Headline>> d, List<String> baselines, List<String> among, double g) {
    String best = null;
    double y = Double.NEGATIVE_INFINITY;
    for (String b : baselines) {
      if (among != null && !among.contains(b)) continue;
      SweepSummary.Headline h = d.get(b).get(g);
      if (h != null && h.tps() > y) {
        y = h.tps();
        best = b;
      }
    }
    return best;
  }

  /**
   * The interval of a gain measured as {@code point}, from its replicate gains: {"low", "high",
   * "standard_error", "replicates", "method"}; null with fewer than two replicate gains.
   */
  public static ObjectNode interval(double point, double[] replicateGains) {
    int n = replicateGains.length;
    if (n < 2) return null;
    double mean = 0;
    for (double x : replicateGains) mean += x;
    mean /= n;
    double ss = 0;
    for (double x : replicateGains) ss += (x - mean) * (x - mean);
    double se = Math.sqrt(ss / (n - 1));
    double bias = mean - point;
    double half = Z95 * Math.sqrt(se * se + bias * bias);
    ObjectNode o = Json.object();
    o.put("low", point - half);
    o.put("high", point + half);
    o.put("standard_error", se);
    o.put("bias", bias);
    o.put("replicates", n);
    o.put("replicate_mean", mean);
    o.put("method", "bootstrap interval over session-tree resamples: gain +- 1.96 x sqrt(SE^2 + bias^2), bias = "
        + "replicate mean - gain");
    if (Math.abs(bias) > 0.25 * se) {
      o.put("note", String.format(java.util.Locale.ROOT, "the replicates centre %+.1f points away from the measured gain "
          + "(%.1f standard errors): resampled traces replay differently from the original, so the interval is widened "
          + "by that bias", 100 * bias, se > 0 ? Math.abs(bias) / se : Double.POSITIVE_INFINITY));
    }
    return o;
  }
}
