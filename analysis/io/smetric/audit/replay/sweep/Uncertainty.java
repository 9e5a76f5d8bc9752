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
 * How sure a gain is (docs/replay.md, "Uncertainty"): the gains the verdict and the two answers
 * read are replayed again on B bootstrap replicates of the trace (session trees resampled,
 * {@link io.smetric.audit.replay.trace.TraceResample}), each policy at its own headline's offered
 * rate; the gain's standard error is the standard deviation of the B replicate gains, and its
 * interval the standard bootstrap interval, gain +- 1.96 x SE (Efron and Tibshirani, An
 * Introduction to the Bootstrap, ch. 13).
 */
public final class Uncertainty {
  /** Bootstrap replicates of an audit by default. */
  public static final int DEFAULT_REPLICATES = 10;
  /** z of a two-sided 95% normal interval. */
  public static final double Z95 = 1.959963984540054;

  private Uncertainty() {}

  /**
   * The replicate runs: at every global ratio with an SMetric headline, SMetric, the router the
   * verdict judges it against there (the current router, or the best paper baseline), the best
   * paper baseline and the best other router, each at its headline's rate and guard thresholds,
   * on replicates 1..B (run ids -1).
   */
  public static List<SimSpec> plan(SweepSummary main, String currentRouter, int replicates) {
    List<SimSpec> out = new ArrayList<>();
    if (replicates < 1) return out;
    Map<String, TreeMap<Double, SweepSummary.Headline>> d = main.atDefaults();
    TreeMap<Double, SweepSummary.Headline> sm = d.get(Policies.SMETRIC.cliName());
    if (sm == null) return out;
    List<SweepSummary.Headline> points = new ArrayList<>();
    for (double g : sm.keySet()) {
      Set<String> pol = new LinkedHashSet<>();
      pol.add(Policies.SMETRIC.cliName());
      if (currentRouter != null) pol.add(currentRouter);
      String paper = bestAt(d, main.baselines(), SweepSummary.PAPER_BASELINES, g);
      if (paper != null) pol.add(paper);
      String other = bestAt(d, main.baselines(), null, g);
      if (other != null) pol.add(other);
      if (pol.size() < 2) continue;
      for (String p : pol) {
        SweepSummary.Headline h = d.containsKey(p) ? d.get(p).get(g) : null;
        if (h != null) points.add(h);
      }
    }
    for (int k = 1; k <= replicates; k++) {
      for (SweepSummary.Headline h : points) {
        SimSpec s = h.best().spec();
        out.add(new SimSpec(-1, s.policy(), s.globalRatio(), s.rateScale(), s.overload(), s.hitRatio(), k, null, null));
      }
    }
    return out;
  }

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
    ObjectNode o = Json.object();
    o.put("low", point - Z95 * se);
    o.put("high", point + Z95 * se);
    o.put("standard_error", se);
    o.put("replicates", n);
    o.put("replicate_mean", mean);
    o.put("method", "standard bootstrap interval, gain +- 1.96 x SE over session-tree resamples");
    return o;
  }
}
