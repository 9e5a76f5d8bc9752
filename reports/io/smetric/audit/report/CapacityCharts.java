package io.smetric.audit.report;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.CapacityBlock;
import io.smetric.audit.contract.ReplayTables;
import io.smetric.audit.contract.ReplayTables.RunMetrics;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;

/**
 * The capacity family of the report's charts (docs/report.md, "Charts"), drawn from the replay's
 * runs table: local and global hit ratio by global-tier capacity (paper Figures 11 and 16b), TPS
 * within SLO by capacity and by offered rate (Figure 16a). Each policy at its best offered rate;
 * SMetric and the router the verdict judges it against stand out, the other routers recede.
 */
final class CapacityCharts {
  /** At most this many TPS-by-rate charts: beyond, the smallest, the focus and the largest capacities. */
  private static final int MAX_RATE_CHARTS = 4;

  private final ReportCharts charts;
  private final ReplayRuns runs;
  private final JsonNode replay;
  private final Double focusRatio;
  private final Map<String, Color> policyColors;
  private final String currentRouter;
  private final Map<Double, String> judgedAt;

  CapacityCharts(ReportCharts charts) {
    this.charts = charts;
    this.runs = charts.runs();
    this.replay = charts.replay();
    this.focusRatio = charts.focusRatio();
    this.policyColors = charts.policyColors();
    this.currentRouter = charts.currentRouter();
    this.judgedAt = charts.judgedAt();
  }

  /** Draws this family's charts in page order. */
  void render() {
    hitRatioByCapacity();
    tpsByCapacity();
    instancesByTraffic();
    tpsByRate();
  }

  /**
   * Goodput at the attainment target (issue 29 item 3), from the capacity search's answers in
   * replay.json (no run of its own): per router and global-tier capacity, the smallest cluster
   * that keeps the target share of requests within SLO at each traffic factor, i.e. the cluster
   * whose goodput at the target covers that traffic; at x1 the bootstrap interval as a bar.
   */
  private void instancesByTraffic() {
    String title = "Instances needed at the attainment target, by traffic";
    String fig = "issue 29";
    CapacityBlock cap = CapacityBlock.of(replay);
    if (cap == null || cap.searchList().isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, "no capacity search in replay.json (--no-capacity, or not the audit sweep)");
      return;
    }
    XYChart c = Charts.xy(title, "traffic (x the trace's own pace)", "instances");
    Map<String, List<double[]>> lines = new java.util.LinkedHashMap<>();
    Map<String, double[]> bars = new java.util.LinkedHashMap<>();
    Map<String, String> policyOf = new java.util.HashMap<>();
    Map<String, Double> ratioOf = new java.util.HashMap<>();
    java.util.Set<String> others = new java.util.HashSet<>();
    for (CapacityBlock.Search s : cap.searchList()) {
      if (s.instances() == null) continue;
      double g = s.globalRatio();
      String p = s.policy() == null ? "" : s.policy();
      String name = p + (g > 0 ? ", " + Numbers.sig4(g) + "x tier" : ", no tier");
      // the other routers (--capacity-all-routers) are sized at x1 only: a point each, not a line
      if (CapacityBlock.Search.OTHER.equals(s.role())) others.add(name);
      policyOf.put(name, p);
      ratioOf.put(name, g);
      lines.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {s.trafficFactor(), s.instances()});
      CapacityBlock.Interval iv = s.interval();
      if (iv != null && iv.low() != null && iv.high() != null) {
        bars.put(name, new double[] {s.trafficFactor(), iv.low(), iv.high()});
      }
    }
    if (lines.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, "no search found an instance count");
      return;
    }
    int i = 0;
    for (Map.Entry<String, List<double[]>> e : lines.entrySet()) {
      String p = policyOf.get(e.getKey());
      Color col = policyColors.getOrDefault(p, Color.DARK_GRAY);
      Charts.series(c, e.getKey(), e.getValue(), col, ratioOf.get(e.getKey()) > 0 ? SeriesLines.SOLID : SeriesLines.DOT_DOT);
      if (others.contains(e.getKey())) {
        XYSeries o = c.getSeries(e.getKey());
        o.setMarker(ratioOf.get(e.getKey()) > 0 ? org.knowm.xchart.style.markers.SeriesMarkers.DIAMOND
            : org.knowm.xchart.style.markers.SeriesMarkers.SQUARE);
        continue;
      }
      c.getSeries(e.getKey()).setLineWidth(p.equals("smetric") ? 3.5f : 2.5f);
      double[] b = bars.get(e.getKey());
      if (b != null) {
        // the bar sits a little beside x1 so that two routers' bars do not hide each other
        double x = b[0] + 0.012 * (i - 1.5);
        XYSeries bar = c.addSeries(e.getKey() + " interval", new double[] {x, x}, new double[] {b[1], b[2]});
        bar.setLineColor(col);
        bar.setLineStyle(SeriesLines.SOLID);
        bar.setLineWidth(2f);
        bar.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
        bar.setShowInLegend(false);
      }
      i++;
    }
    String target = Numbers.percent(cap.targetAttainment() == null ? 0.0 : cap.targetAttainment());
    charts.draw(ReportCharts.REPLAY, "instances_by_traffic.png", title, fig,
        "Goodput at the attainment target: for each router and global-tier capacity (solid: with the tier, dotted: without), "
            + "the smallest number of instances that keeps " + target + " of the requests within the TTFT and TPOT SLO at each "
            + "traffic factor (x1 = the trace's own pace; more traffic by session-tree scaling), from the capacity search's "
            + "pass/fail runs; a vertical bar at x1 is the instance count's bootstrap interval"
            + (others.isEmpty() ? "" : "; the other routers (--capacity-all-routers) are sized at x1 only, a marker each "
                + "(diamond: with the tier, square: without)")
            + ". Beside the maximum TPS within SLO "
            + "above (the paper's unit, at --instances), this is the cluster a platform team would buy.", c);
  }

  /** How a TPS chart draws a policy's line: SMetric and the judged router stand out, the rest recede. */
  private void tpsSeries(XYChart c, String p, List<double[]> pts, boolean judged) {
    Charts.series(c, p, pts, policyColors.get(p), SeriesLines.SOLID);
    XYSeries s = c.getSeries(p);
    if (p.equals("smetric")) {
      s.setLineWidth(4f);
    } else if (judged) {
      s.setLineWidth(3.5f);
      s.setLineStyle(SeriesLines.DASH_DASH);
    } else {
      Color col = policyColors.get(p);
      Color faint = new Color(col.getRed(), col.getGreen(), col.getBlue(), 90);
      s.setLineColor(faint);
      s.setMarkerColor(faint);
      s.setLineWidth(1.2f);
    }
  }

  /** The caption sentence naming the lines that stand out. */
  private String emphasisNote(Double g) {
    String who = currentRouter != null ? currentRouter + " (--current-router)"
        : g != null && judgedAt.containsKey(g) ? judgedAt.get(g) + " (the best paper baseline here)"
        : judgedAt.isEmpty() ? null : "the best paper baseline at each capacity (" + String.join(", ",
            new java.util.LinkedHashSet<>(judgedAt.values())) + ")";
    return " Bold black: smetric" + (who == null ? "" : "; bold dashed: the router the verdict judges it against, " + who)
        + "; faint: every other router.";
  }

  private void hitRatioByCapacity() {
    String title = "Local (solid) and global (dashed) hit ratio by global-tier capacity";
    String fig = "Figures 11 and 16b";
    if (charts.replayMissing(title, fig)) return;
    XYChart c = Charts.xy(title, "global-tier capacity (x total local capacity)", "hit tokens / input tokens");
    int drawn = 0;
    String why = null;
    for (String p : runs.policies()) {
      List<double[]> local = new ArrayList<>();
      List<double[]> global = new ArrayList<>();
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run b = runs.best(p, g);
        if (b == null) continue;
        Double l = b.metric(RunMetrics.LOCAL_HIT_RATIO);
        Double gl = b.metric(RunMetrics.GLOBAL_HIT_RATIO);
        if (l == null) why = ReportCharts.naReason(b, RunMetrics.LOCAL_HIT_RATIO);
        if (l != null) local.add(new double[] {g, l});
        if (gl != null) global.add(new double[] {g, gl});
      }
      if (!local.isEmpty()) {
        Charts.series(c, p, local, policyColors.get(p), SeriesLines.SOLID);
        drawn++;
      }
      if (!global.isEmpty()) {
        Charts.series(c, p + " global", global, policyColors.get(p), SeriesLines.DASH_DASH);
        // one legend entry per router (its colour, named by the local line); the line style tells local from
        // global, as the title says: two entries per router overflowed the chart's height
        c.getSeries(p + " global").setShowInLegend(local.isEmpty());
      }
      if (p.equals("smetric")) {
        for (String k : List.of(p, p + " global")) if (c.getSeries(k) != null) c.getSeries(k).setLineWidth(3f);
      }
    }
    if (drawn == 0) {
      charts.missing(ReportCharts.REPLAY, title, fig, why != null ? why : "no run has a hit ratio");
      return;
    }
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    charts.draw(ReportCharts.REPLAY, "hit_ratio_by_capacity.png", title, fig,
        "Per policy (legend: its colour), at its best offered rate: solid = share of input tokens hit in the instance's local "
            + "KV tier, dashed = hit in the global tier." + charts.guardNote(), c);
  }

  private void tpsByCapacity() {
    String title = "TPS within SLO by global-tier capacity";
    String fig = "Figure 16a";
    if (charts.replayMissing(title, fig)) return;
    XYChart c = Charts.xy(title, "global-tier capacity (x total local capacity)", "tokens/s within SLO (max over offered rates)");
    int drawn = 0;
    for (String p : runs.policies()) {
      List<double[]> pts = new ArrayList<>();
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run b = runs.best(p, g);
        if (b != null && b.metric(RunMetrics.TPS_WITHIN_SLO) != null) pts.add(new double[] {g, b.metric(RunMetrics.TPS_WITHIN_SLO)});
      }
      if (!pts.isEmpty()) {
        boolean judged = currentRouter != null ? p.equals(currentRouter)
            : !judgedAt.isEmpty() && judgedAt.values().stream().allMatch(p::equals);
        tpsSeries(c, p, pts, judged);
        drawn++;
      }
    }
    if (drawn == 0) {
      charts.missing(ReportCharts.REPLAY, title, fig, "no run has a TPS within SLO");
      return;
    }
    if (currentRouter == null && new java.util.HashSet<>(judgedAt.values()).size() > 1) {
      // the judged router changes with the capacity: one line through the router judged at each
      List<double[]> pts = new ArrayList<>();
      for (Map.Entry<Double, String> e : judgedAt.entrySet()) {
        ReplayRuns.Run b = runs.best(e.getValue(), e.getKey());
        if (b != null && b.metric(RunMetrics.TPS_WITHIN_SLO) != null) pts.add(new double[] {e.getKey(), b.metric(RunMetrics.TPS_WITHIN_SLO)});
      }
      if (!pts.isEmpty()) {
        Charts.series(c, "judged: best paper baseline", pts, Color.DARK_GRAY, SeriesLines.DASH_DASH);
        c.getSeries("judged: best paper baseline").setLineWidth(3.5f);
      }
    }
    // the y axis follows the data (not from 0): the gains the verdict judges are a few percent
    charts.draw(ReportCharts.REPLAY, "tps_by_capacity.png", title, fig,
        "Maximum over the offered-rate sweep of the tokens per second of requests meeting both SLOs; the y axis starts near "
            + "the lowest value, not at 0." + ReportCharts.TPS_NOTE + emphasisNote(null) + charts.guardNote(), c);
  }

  private void tpsByRate() {
    String title = "TPS within SLO by offered rate";
    String fig = "Figure 16a";
    if (charts.replayMissing(title, fig)) return;
    if (runs.rates().size() < 2) {
      charts.missing(ReportCharts.REPLAY, title, fig, "the replay ran a single offered rate (x" + Numbers.sig4(runs.rates().get(0))
          + "); sweep --rate-scale to see where each policy saturates");
      return;
    }
    List<Double> ratios = new ArrayList<>(runs.globalRatios());
    if (ratios.size() > MAX_RATE_CHARTS) {
      // the smallest, the focus and the largest capacities
      TreeSet<Double> keep = new TreeSet<>(List.of(ratios.get(0), focusRatio, ratios.get(ratios.size() - 1)));
      ratios = new ArrayList<>(keep);
    }
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replay);
    boolean sessions = settings != null && settings.sessionScaling();
    for (double g : ratios) {
      String t = title + ", global tier " + Numbers.sig4(g) + "x";
      XYChart c = Charts.xy(t, sessions ? "offered session rate (session trees started per minute)" : "offered rate (x the trace's own)",
          "tokens/s within SLO");
      int drawn = 0;
      for (String p : runs.policies()) {
        TreeMap<Double, Double> best = new TreeMap<>();
        boolean hasDefault = runs.all().stream().anyMatch(r -> r.policy().equals(p) && r.globalRatio() == g && runs.atDefaults(r));
        for (ReplayRuns.Run r : runs.all()) {
          if (!r.policy().equals(p) || r.globalRatio() != g || (hasDefault && !runs.atDefaults(r))) continue;
          Double v = r.metric(RunMetrics.TPS_WITHIN_SLO);
          Double offered = sessions ? r.metric(RunMetrics.OFFERED_SESSIONS_PER_MIN) : null;
          if (v != null) best.merge(offered != null ? offered : r.rateScale(), v, Math::max);
        }
        if (best.isEmpty()) continue;
        List<double[]> pts = new ArrayList<>();
        best.forEach((k, v) -> pts.add(new double[] {k, v}));
        tpsSeries(c, p, pts, p.equals(currentRouter != null ? currentRouter : judgedAt.get(g)));
        drawn++;
      }
      if (drawn == 0) {
        charts.missing(ReportCharts.REPLAY, t, fig, "no run at this capacity has a TPS within SLO");
        continue;
      }
      c.getStyler().setYAxisMin(0.0);
      charts.draw(ReportCharts.REPLAY, "tps_by_rate_g" + fileNumber(g) + ".png", t, fig,
          (sessions ? "TPS within SLO against the offered session rate: at rate scale x session trees start x times as often "
              + "as traced and each agent keeps its own time between turns; every offered request counts, and one not answered "
              + "within the agent timeout fails." + OfferedRate.mapping(replay)
              : "TPS within SLO at each offered rate (arrival times divided by the rate scale).") + ReportCharts.TPS_NOTE
              + emphasisNote(g) + charts.guardNote(), c);
    }
  }

  static String fileNumber(double g) {
    return Numbers.sig4(g).replace('.', '_');
  }
}
