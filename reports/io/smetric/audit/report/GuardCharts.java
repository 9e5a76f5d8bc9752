package io.smetric.audit.report;

import io.smetric.audit.common.Numbers;
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
    List<String> cats = new ArrayList<>();
    for (double g : runs.globalRatios()) cats.add(Numbers.sig4(g) + "x");
    List<double[]> vals = new ArrayList<>();
    for (String p : present) {
      double[] v = new double[cats.size()];
      int i = 0;
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run b = runs.best(p, g);
        v[i++] = b == null || b.metric("tps_within_slo") == null ? Double.NaN : b.metric("tps_within_slo");
      }
      vals.add(v);
    }
    CategoryChart c = Charts.bars(title, "global-tier capacity (x total local capacity)", "tokens/s within SLO", cats, present, vals);
    for (String p : present) c.getSeries(p).setFillColor(policyColors.get(p));
    charts.draw(ReportCharts.REPLAY, "ablation.png", title, fig,
        "smetric = both guards (not_overloaded, session_not_evicted); smetric-basic = neither; the other two keep one. "
            + "Maximum TPS within SLO over offered rates at OVERLOAD " + Numbers.sig4(runs.defaultOverload()) + " and HIT_RATIO "
            + Numbers.sig4(runs.defaultHitRatio()) + " where the variant reads them.", c);
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
    List<String> names = new ArrayList<>();
    List<double[]> vals = new ArrayList<>();
    for (double g : runs.globalRatios()) {
      double[] y = new double[values.size()];
      java.util.Arrays.fill(y, Double.NaN);
      int i = 0;
      boolean any = false;
      for (double v : values) {
        double best = Double.NaN;
        double bestAny = Double.NaN;
        for (ReplayRuns.Run r : runs.all()) {
          if (!r.policy().equals("smetric") || r.globalRatio() != g) continue;
          Double mine = column.equals("overload") ? r.overload() : r.hitRatio();
          Double other = column.equals("overload") ? r.hitRatio() : r.overload();
          Double t = r.metric("tps_within_slo");
          if (mine == null || mine != v || t == null) continue;
          bestAny = Double.isNaN(bestAny) ? t : Math.max(bestAny, t);
          if (other == null || other == otherDefault) best = Double.isNaN(best) ? t : Math.max(best, t);
        }
        y[i++] = Double.isNaN(best) ? bestAny : best;
        any |= !Double.isNaN(y[i - 1]);
      }
      if (any) {
        names.add("global tier " + Numbers.sig4(g) + "x");
        vals.add(y);
      }
    }
    String title = "SMetric threshold sensitivity: " + name;
    CategoryChart c = Charts.bars(title, name, "tokens/s within SLO", cats, names, vals);
    String otherName = column.equals("overload") ? "HIT_RATIO" : "OVERLOAD";
    charts.draw(ReportCharts.REPLAY, "sensitivity_" + column + ".png", title, fig,
        "Maximum TPS within SLO over offered rates for each " + name + " value, " + otherName + " at its default "
            + Numbers.sig4(otherDefault) + " where that run exists (else the best). not_overloaded: l[s] <= OVERLOAD x mean(l); "
            + "session_not_evicted: c[s] >= HIT_RATIO x est_hit (our reading of the paper, docs/replay.md).", c);
    return true;
  }
}
