package io.smetric.audit.report;

import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.ReplayTables;
import io.smetric.audit.contract.ReplayTables.RunMetrics;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.knowm.xchart.CategoryChart;

/**
 * The guard family of the report's charts (docs/report.md, "Charts"): SMetric's variants with and
 * without its two guards by global-tier capacity (paper Figure 24) and the sensitivity of its TPS
 * within SLO to the OVERLOAD and HIT_RATIO thresholds (Figure 25), from the replay's runs table.
 */
final class GuardCharts {
  private final ReportCharts charts;
  private final ReplayRuns runs;
  private final Map<String, Color> policyColors;

  GuardCharts(ReportCharts charts) {
    this.charts = charts;
    this.runs = charts.runs();
    this.policyColors = charts.policyColors();
  }

  /** Draws this family's charts in page order. */
  void render() {
    ablation();
    sensitivity();
  }

  private void ablation() {
    String title = "Guard ablation: SMetric variants by global-tier capacity";
    String fig = "Figure 24";
    if (charts.replayMissing(title, fig)) return;
    List<String> present = new ArrayList<>();
    for (String p : ReplayRuns.SMETRIC_FAMILY) if (runs.policies().contains(p)) present.add(p);
    if (present.size() < 2) {
      charts.missing(ReportCharts.REPLAY, title, fig, "the replay ran " + (present.isEmpty() ? "no SMetric variant" : "only " + present.get(0))
          + "; add smetric,smetric-basic,smetric-overload-only,smetric-eviction-only to --policies");
      return;
    }
    // the variants differ by a few percent: bars of TPS from 0 hid that, so each is drawn against smetric's
    String ref = present.get(0);
    List<String> cats = new ArrayList<>();
    List<Double> gs = new ArrayList<>();
    List<String> noRef = new ArrayList<>();
    for (double g : runs.globalRatios()) {
      if (tps(ref, g) > 0) {
        cats.add(Numbers.sig4(g) + "x");
        gs.add(g);
      } else {
        noRef.add(Numbers.sig4(g) + "x");
      }
    }
    if (cats.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, ref + " has no TPS within SLO above 0 at any capacity to compare against");
      return;
    }
    List<String> names = present.subList(1, present.size());
    List<double[]> vals = new ArrayList<>();
    for (String p : names) {
      double[] v = new double[cats.size()];
      for (int i = 0; i < gs.size(); i++) v[i] = 100 * (tps(p, gs.get(i)) / tps(ref, gs.get(i)) - 1);
      vals.add(v);
    }
    CategoryChart c = Charts.bars(title, "global-tier capacity (x total local capacity)",
        "TPS within SLO vs " + ref + " (%; 0 = " + ref + ")", cats, names, vals);
    for (String p : names) c.getSeries(p).setFillColor(policyColors.get(p));
    charts.draw(ReportCharts.REPLAY, "ablation.png", title, fig,
        "Each variant's maximum TPS within SLO over offered rates relative to " + ref + "'s at the same capacity: "
            + "(variant / " + ref + " - 1) in percent, so 0 is " + ref + " and a bar below 0 a variant that does worse. "
            + "smetric = both guards (not_overloaded, session_not_evicted); smetric-basic = neither; the other two keep one. "
            + "At OVERLOAD " + Numbers.sig4(runs.defaultOverload()) + " and HIT_RATIO "
            + Numbers.sig4(runs.defaultHitRatio()) + " where the variant reads them." + (noRef.isEmpty() ? ""
            : " Left out: " + String.join(", ", noRef) + ", where " + ref + " has no TPS within SLO to compare against.")
            + ReportCharts.TPS_NOTE, c);
  }

  /** A policy's best TPS within SLO at a capacity (ReplayRuns#best), NaN without one. */
  private double tps(String policy, double g) {
    ReplayRuns.Run b = runs.best(policy, g);
    return b == null || b.metric(RunMetrics.TPS_WITHIN_SLO) == null ? Double.NaN : b.metric(RunMetrics.TPS_WITHIN_SLO);
  }

  private void sensitivity() {
    String fig = "Figure 25";
    if (charts.replayMissing("Guard threshold sensitivity", fig)) return;
    boolean any = sensitivityOf("overload", "OVERLOAD", fig) | sensitivityOf("hit_ratio", "HIT_RATIO", fig);
    if (!any) {
      charts.missing(ReportCharts.REPLAY, "Guard threshold sensitivity", fig,
          "the replay swept a single OVERLOAD and a single HIT_RATIO (or did not run smetric); sweep e.g. "
              + "--overload 1,1.5,3,Infinity --hit-ratio 0,0.25,0.5,0.75");
    }
  }

  private boolean sensitivityOf(String column, String name, String fig) {
    TreeSet<Double> values = new TreeSet<>();
    for (ReplayRuns.Run r : runs.all()) {
      if (!r.policy().equals("smetric")) continue;
      Double v = column.equals("overload") ? r.overload() : r.hitRatio();
      if (v != null) values.add(v);
    }
    if (values.size() < 2) return false;
    double otherDefault = column.equals("overload") ? runs.defaultHitRatio() : runs.defaultOverload();
    List<String> cats = new ArrayList<>();
    for (double v : values) cats.add(Double.isInfinite(v) ? "off (inf)" : Numbers.sig4(v));
    double ownDefault = column.equals("overload") ? runs.defaultOverload() : runs.defaultHitRatio();
    List<String> names = new ArrayList<>();
    List<double[]> vals = new ArrayList<>();
    List<String> noRef = new ArrayList<>();
    for (double g : runs.globalRatios()) {
      double[] y = new double[values.size()];
      java.util.Arrays.fill(y, Double.NaN);
      int i = 0;
      int others = 0;
      double ref = Double.NaN;
      for (double v : values) {
        double best = Double.NaN;
        double bestAny = Double.NaN;
        for (ReplayRuns.Run r : runs.all()) {
          if (!r.policy().equals("smetric") || r.globalRatio() != g) continue;
          Double mine = column.equals("overload") ? r.overload() : r.hitRatio();
          Double other = column.equals("overload") ? r.hitRatio() : r.overload();
          Double t = r.metric(RunMetrics.TPS_WITHIN_SLO);
          if (mine == null || mine != v || t == null) continue;
          bestAny = Double.isNaN(bestAny) ? t : Math.max(bestAny, t);
          if (other == null || other == otherDefault) best = Double.isNaN(best) ? t : Math.max(best, t);
        }
        y[i++] = Double.isNaN(best) ? bestAny : best;
        if (v == ownDefault) ref = y[i - 1];
        else if (!Double.isNaN(y[i - 1])) others++;
      }
      if (others == 0) continue; // only the default ran here: nothing to compare
      if (!(ref > 0)) {
        noRef.add(Numbers.sig4(g) + "x");
        continue;
      }
      for (int j = 0; j < y.length; j++) y[j] = 100 * (y[j] / ref - 1);
      names.add("global tier " + Numbers.sig4(g) + "x");
      vals.add(y);
    }
    if (names.isEmpty()) return false;
    String title = "SMetric threshold sensitivity: " + name;
    String def = Numbers.sig4(ownDefault);
    CategoryChart c = Charts.bars(title, name, "TPS within SLO vs " + name + " " + def + " (%)", cats, names, vals);
    String otherName = column.equals("overload") ? "HIT_RATIO" : "OVERLOAD";
    charts.draw(ReportCharts.REPLAY, "sensitivity_" + column + ".png", title, fig,
        "SMetric's maximum TPS within SLO over offered rates for each " + name + " value, relative to the default " + name + " "
            + def + " at the same capacity: (TPS / TPS at " + def + " - 1) in percent, so the default's bar is 0. " + otherName
            + " at its default " + Numbers.sig4(otherDefault) + " where that run exists (else the best). Capacities where only the "
            + "default ran are left out" + (noRef.isEmpty() ? "" : ", and " + String.join(", ", noRef) + " where the default has no TPS")
            + ". not_overloaded: l[s] <= OVERLOAD x mean(l); session_not_evicted: c[s] >= HIT_RATIO x est_hit (our reading of "
            + "the paper, docs/replay.md)." + ReportCharts.TPS_NOTE, c);
    return true;
  }
}
