package io.smetric.audit.report;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.AuditLayout;
import java.awt.Color;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The per-policy family of the report's charts (docs/report.md, "Charts"): at the focus capacity,
 * each policy's best run as a load-imbalance heatmap per instance over time (paper Figure 11,
 * bottom), follow-up stickiness (Figure 12) and the TTFT and TPOT distributions (Figure 17), read
 * from the replay's instance_load and latency_cdf tables for those runs only.
 */
final class PolicyCharts {
  /** Heatmap columns at most: longer runs merge neighbouring windows. */
  private static final int MAX_HEAT_COLUMNS = 120;

  private final ReportCharts charts;
  private final AuditFolder folder;
  private final ReplayRuns runs;
  private final JsonNode replay;
  private final Double focusRatio;
  private final Map<String, Color> policyColors;

  PolicyCharts(ReportCharts charts) {
    this.charts = charts;
    this.folder = charts.folder();
    this.runs = charts.runs();
    this.replay = charts.replay();
    this.focusRatio = charts.focusRatio();
    this.policyColors = charts.policyColors();
  }

  /** Draws this family's charts in page order. */
  void render() {
    heatmaps();
    stickiness();
    latencyCdf("ttft", "TTFT");
    latencyCdf("tpot", "TPOT");
  }

  private void heatmaps() {
    String fig = "Figure 11 (bottom)";
    String title = "Load imbalance per instance over time";
    if (charts.replayMissing(title, fig)) return;
    Map<String, ReplayRuns.Run> best = runs.bestByPolicy(focusRatio);
    List<Integer> ids = best.values().stream().map(ReplayRuns.Run::runId).toList();
    List<Row> rows = folder.table(AuditLayout.REPLAY_INSTANCE_LOAD, col("run_id").isin(ids.toArray()));
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, rows == null ? "the replay has no instance_load table" : "no run recorded a window with load");
      return;
    }
    Map<Integer, List<Row>> byRun = new TreeMap<>();
    for (Row r : rows) byRun.computeIfAbsent(r.getInt(r.fieldIndex("run_id")), k -> new ArrayList<>()).add(r);
    // one colour scale for every policy, so the heatmaps compare side by side
    Map<String, double[][]> zs = new LinkedHashMap<>();
    double top = 2;
    for (Map.Entry<String, ReplayRuns.Run> e : best.entrySet()) {
      List<Row> rs = byRun.get(e.getValue().runId());
      double[][] z = rs == null ? new double[0][0] : normalisedLoad(rs);
      zs.put(e.getKey(), z);
      for (double[] row : z) for (double x : row) top = Math.max(top, x);
    }
    top = Math.ceil(top * 10) / 10; // a legend bound that prints short
    int k = 0;
    for (Map.Entry<String, ReplayRuns.Run> e : best.entrySet()) {
      k++;
      String p = e.getKey();
      ReplayRuns.Run run = e.getValue();
      String t = "Load / mean load per instance, " + p + " (global tier " + Numbers.sig4(focusRatio) + "x)";
      double[][] z = zs.get(p);
      if (z.length == 0 || z[0].length == 0) {
        charts.missing(ReportCharts.REPLAY, t, fig, "the run recorded no load windows");
        continue;
      }
      HeatMapChart c = Charts.heatmap(t, "time window (" + windowLabel(z[0].length, byRun.get(run.runId())) + ")",
          "instance", z, 0, top);
      Double mean = run.metric("imbalance_mean");
      charts.draw(ReportCharts.REPLAY, String.format(Locale.ROOT, "imbalance_%02d_%s.png", k, safe(p)), t, fig,
          "Each cell: the instance's time-averaged in-flight token load in the window divided by the mean over instances"
              + " (1 = even; one colour scale, 0 to " + Numbers.sig4(top) + ", for every policy). Mean max/mean over windows: "
              + Numbers.sig4(mean) + ". Run " + run.runId() + ", offered rate x" + Numbers.sig4(run.rateScale()) + ".", c);
    }
  }

  /** z[instance][window] = load / mean load of the window, windows merged to at most MAX_HEAT_COLUMNS. */
  static double[][] normalisedLoad(List<Row> rs) {
    int instances = 0;
    int windows = 0;
    for (Row r : rs) {
      instances = Math.max(instances, r.getInt(r.fieldIndex("instance")) + 1);
      windows = Math.max(windows, r.getInt(r.fieldIndex("window")) + 1);
    }
    double[][] load = new double[instances][windows];
    for (Row r : rs) load[r.getInt(r.fieldIndex("instance"))][r.getInt(r.fieldIndex("window"))] = Rows.nan(r, "token_load");
    int group = (windows + MAX_HEAT_COLUMNS - 1) / MAX_HEAT_COLUMNS;
    int cols = (windows + group - 1) / Math.max(1, group);
    double[][] z = new double[instances][cols];
    for (int j = 0; j < cols; j++) {
      // merge windows by summing loads first, so the ratio is load-weighted over the merged span
      double[] sum = new double[instances];
      double total = 0;
      for (int w = j * group; w < Math.min(windows, (j + 1) * group); w++) {
        for (int i = 0; i < instances; i++) {
          double v = Double.isNaN(load[i][w]) ? 0 : load[i][w];
          sum[i] += v;
          total += v;
        }
      }
      double mean = total / instances;
      for (int i = 0; i < instances; i++) z[i][j] = mean > 0 ? sum[i] / mean : 0;
    }
    return z;
  }

  private static String windowLabel(int cols, List<Row> rs) {
    int windows = 0;
    for (Row r : rs) windows = Math.max(windows, r.getInt(r.fieldIndex("window")) + 1);
    return windows == cols ? "one column per window" : windows + " windows merged into " + cols + " columns";
  }

  private void stickiness() {
    String title = "Follow-up stickiness by policy";
    String fig = "Figure 12 (load balance 4.0%, cache-first 96.6%)";
    if (charts.replayMissing(title, fig)) return;
    List<String> cats = new ArrayList<>();
    List<Double> vals = new ArrayList<>();
    String why = null;
    for (Map.Entry<String, ReplayRuns.Run> e : runs.bestByPolicy(focusRatio).entrySet()) {
      Double s = e.getValue().metric("stickiness");
      if (s == null) {
        why = ReportCharts.naReason(e.getValue(), "stickiness");
        continue;
      }
      cats.add(e.getKey());
      vals.add(s);
    }
    if (cats.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, why != null ? why : "no run has a stickiness value");
      return;
    }
    double[] v = vals.stream().mapToDouble(Double::doubleValue).toArray();
    CategoryChart c = Charts.bars(title, "policy", "share of follow-ups on the turn-0 instance", cats,
        List.of("global tier " + Numbers.sig4(focusRatio) + "x"), List.of(v));
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    c.getStyler().setXAxisLabelRotation(30);
    charts.draw(ReportCharts.REPLAY, "stickiness.png", title, fig,
        "Share of follow-ups (turn > 0 whose session's turn-0 request is in the trace) routed to the instance that "
            + "served turn 0, at the policy's best offered rate." + charts.guardNote(), c);
  }

  private void latencyCdf(String metric, String name) {
    String title = name + " CDF by policy";
    String fig = "Figure 17";
    if (charts.replayMissing(title, fig)) return;
    Map<String, ReplayRuns.Run> best = runs.bestByPolicy(focusRatio);
    List<Integer> ids = best.values().stream().map(ReplayRuns.Run::runId).toList();
    List<Row> rows = folder.table(AuditLayout.REPLAY_LATENCY_CDF,
        col("run_id").isin(ids.toArray()).and(col("metric").equalTo(metric)));
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, rows == null ? "the replay has no latency_cdf table"
          : metric.equals("tpot") ? "no run has a TPOT (disaggregated prefill without a decode pool, or outputs of one token)"
          : "no run completed a request");
      return;
    }
    Map<Integer, List<double[]>> byRun = new TreeMap<>();
    for (Row r : rows) {
      byRun.computeIfAbsent(r.getInt(r.fieldIndex("run_id")), k -> new ArrayList<>())
          .add(new double[] {Rows.nan(r, "value_s"), Rows.nan(r, "quantile")});
    }
    XYChart c = Charts.xy(title + ", global tier " + Numbers.sig4(focusRatio) + "x", name + " (s)", "share of requests");
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
    c.getStyler().setYAxisDecimalPattern("0.0#");
    boolean positive = true;
    for (Map.Entry<String, ReplayRuns.Run> e : best.entrySet()) {
      List<double[]> pts = byRun.get(e.getValue().runId());
      if (pts == null) continue;
      pts.sort(Comparator.comparingDouble((double[] a) -> a[1]));
      for (double[] p : pts) if (!(p[0] > 0)) positive = false;
      XYSeries s = c.addSeries(e.getKey(), Charts.columns(pts)[0], Charts.columns(pts)[1]);
      s.setMarker(SeriesMarkers.NONE);
      s.setLineColor(policyColors.get(e.getKey()));
    }
    double range = 0;
    if (positive) {
      double lo = Double.MAX_VALUE;
      double hi = 0;
      for (List<double[]> l : byRun.values()) for (double[] p : l) {
        lo = Math.min(lo, p[0]);
        hi = Math.max(hi, p[0]);
      }
      range = hi / lo;
    }
    if (range > 100) c.getStyler().setXAxisLogarithmic(true);
    double slo = metric.equals("tpot") && replay != null ? replay.path("settings").path("tpotS").asDouble(Double.NaN) : Double.NaN;
    if (!Double.isNaN(slo)) {
      XYSeries t = c.addSeries("TPOT SLO " + Numbers.sig4(slo * 1000) + " ms", new double[] {slo, slo}, new double[] {0, 1});
      t.setLineStyle(SeriesLines.DASH_DASH);
      t.setLineColor(Color.GRAY);
      t.setMarker(SeriesMarkers.NONE);
    }
    charts.draw(ReportCharts.REPLAY, metric + "_cdf.png", title, fig,
        "Per-request " + name + " distribution (100 quantiles, nearest rank) of each policy's best run at global tier "
            + Numbers.sig4(focusRatio) + "x." + charts.guardNote(), c);
  }

  static String safe(String s) {
    String t = s == null ? "" : s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "_");
    return t.length() > 40 ? t.substring(0, 40) : t;
  }
}
