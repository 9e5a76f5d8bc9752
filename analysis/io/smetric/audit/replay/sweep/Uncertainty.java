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
 * routers at the gain's rate scaled to the replicate's offered tokens, so that every replicate
 * offers the trace's prompt+output token rate (paired at equal load: a replicate repeats the very
 * statistic the gain is, with no maximum over rates that the original took and the replicate did
 * not, and without the replicate's own excess or deficit of load); the
 * interval is the standard bootstrap interval (Efron and Tibshirani, An Introduction to the
 * Bootstrap, ch. 13) on the log of the TPS ratio, u = log(1 + gain), transformed back so that it
 * stays above -100%: u +- 1.96 x sqrt(SE^2 + bias^2), SE the standard deviation of the B
 * replicates' u, widened by their bias (mean - u) when they do not centre on the measured gain
 * (the estimator's root-mean-square error, ibid. ch. 10). Resampled
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
   * "standard_error", "bias", "replicates", "replicate_mean", "method", "note"?}; null with fewer
   * than two replicate gains (or a gain of -100% or below, where the ratio has no logarithm).
   *
   * <p>Computed on the log of the TPS ratio, u = log(1 + gain), and transformed back (issue 26:
   * on a 200k trace without a global tier the interval on the gain itself ran to "-75% [-218%,
   * +68%]", below the -100% no ratio of two throughputs can reach): half-width 1.96 x sqrt(SE_u^2 +
   * bias_u^2), SE_u the standard deviation of the replicates' u, bias_u their mean - the measured
   * u; low = exp(u - half) - 1 > -100%, high = exp(u + half) - 1. A ratio's sampling distribution
   * is skewed, its logarithm's much less so (the delta method's usual transformation for a ratio
   * of means). standard_error, bias and replicate_mean are reported on the gain's own scale
   * (standard deviation, mean - gain) for reading.
   */
  public static ObjectNode interval(double point, double[] replicateGains) {
    int n = replicateGains.length;
    if (n < 2 || !(point > -1)) return null;
    double[] u = new double[n];
    for (int i = 0; i < n; i++) {
      if (!(replicateGains[i] > -1)) return null;
      u[i] = Math.log1p(replicateGains[i]);
    }
    double u0 = Math.log1p(point);
    double seU = sd(u);
    double biasU = mean(u) - u0;
    double half = Z95 * Math.sqrt(seU * seU + biasU * biasU);
    double mean = mean(replicateGains);
    double se = sd(replicateGains);
    double bias = mean - point;
    ObjectNode o = Json.object();
    o.put("low", Math.expm1(u0 - half));
    o.put("high", Math.expm1(u0 + half));
    o.put("standard_error", se);
    o.put("bias", bias);
    o.put("replicates", n);
    o.put("replicate_mean", mean);
    o.put("log_ratio_standard_error", seU);
    o.put("log_ratio_bias", biasU);
    o.put("method", "bootstrap interval over session-tree resamples on the log of the TPS ratio: exp(u +- 1.96 x "
        + "sqrt(SE^2 + bias^2)) - 1, u = log(1 + gain), SE the standard deviation of the replicates' u, bias their mean - u");
    if (Math.abs(biasU) > 0.25 * seU) {
      o.put("note", String.format(java.util.Locale.ROOT, "the replicates centre %+.1f points away from the measured gain "
          + "(%.1f standard errors): resampled traces replay differently from the original, so the interval is widened "
          + "by that bias", 100 * bias, seU > 0 ? Math.abs(biasU) / seU : Double.POSITIVE_INFINITY));
    }
    return o;
  }

  private static double mean(double[] x) {
    double m = 0;
    for (double v : x) m += v;
    return m / x.length;
  }

  /** Sample standard deviation (n - 1). */
  private static double sd(double[] x) {
    double m = mean(x);
    double ss = 0;
    for (double v : x) ss += (v - m) * (v - m);
    return Math.sqrt(ss / (x.length - 1));
  }
}
