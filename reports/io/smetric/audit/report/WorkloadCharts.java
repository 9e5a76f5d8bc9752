package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.CharacterizationTables;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.contract.Source;
import io.smetric.audit.report.verdict.AuditCriteria;
import java.awt.Color;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The workload family of the report's charts (docs/report.md, "Charts"), drawn from the
 * characterization's tables: ideal reuse over time by source (paper Figure 5), the reuse-interval
 * CDF (Observation 4), the session token Lorenz curve (Section 2.2) and requests per instance per
 * minute (Section 2.1). A chart whose table or metric is absent says why, in the characterization's
 * own words where it has them.
 */
final class WorkloadCharts {
  /** One colour per reuse source in every chart (stacked areas and CDF lines alike). */
  static final Map<String, Color> SOURCE_COLORS = Map.of(
      "intra-session", new Color(0x1F77B4), "system prompt", new Color(0xFF7F0E), "system-prompt", new Color(0xFF7F0E),
      "inter-session", new Color(0x2CA02C), "all sources", new Color(0x1F77B4), Source.ALL, Color.BLACK);

  private final ReportCharts charts;
  private final AuditFolder folder;
  /** characterization.json, or null when the audit has none. */
  private final CharacterizationSummary ch;
  /** The requests-per-instance bound drawn on the ratio chart. */
  private final double ratioThreshold;

  WorkloadCharts(ReportCharts charts) {
    this.charts = charts;
    this.folder = charts.folder();
    this.ch = charts.characterization();
    this.ratioThreshold = charts.ratioThreshold();
  }

  /** A characterization table, or null (AuditFolder#table). */
  private List<Row> table(String name) {
    return folder.table(AuditLayout.CHARACTERIZATION + "/" + name);
  }

  /** Draws this family's charts in page order. */
  void render() {
    reuseOverTime();
    intervalCdf();
    lorenz();
    requestRatio();
  }

  /** Why a chart of the characterization's {@code table} is missing: the {@code metric} says, else the table is absent. */
  private String chMissing(Function<CharacterizationSummary, Metric> metric, String table) {
    if (ch == null) return "the audit has no characterization (no characterization/characterization.json)";
    Metric m = metric.apply(ch);
    if (m != null && m.notApplicable() != null) return m.notApplicable();
    return "the characterization has no " + table + " table";
  }

  /** A metric's value, null without one. */
  private static Double value(Metric m) {
    return m == null ? null : m.value();
  }

  private static Metric reuse(CharacterizationSummary c) {
    return AuditJson.part(c.reuse(), CharacterizationSummary.Reuse::tokenWeighted);
  }

  private void reuseOverTime() {
    String title = "Ideal reuse over time, stacked by source";
    String fig = "Figure 5";
    List<Row> rows = ch == null ? null : table(CharacterizationTables.T_REUSE_MINUTE);
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.WORKLOAD, title, fig, rows == null ? chMissing(WorkloadCharts::reuse, CharacterizationTables.T_REUSE_MINUTE) : "the trace spans no minute");
      return;
    }
    rows = Rows.sorted(rows, Cols.MINUTE);
    double m0 = Rows.nan(rows.get(0), Cols.MINUTE);
    int n = rows.size();
    double[] x = new double[n];
    double[] pre = new double[n];
    double[] hit = new double[n];
    double[][] srcHit = new double[3][n];
    String[] cols = {Cols.hitTokens(Source.INTRA_SESSION), Cols.hitTokens(Source.SYSTEM_PROMPT), Cols.hitTokens(Source.INTER_SESSION)};
    boolean sources = false;
    for (int i = 0; i < n; i++) {
      Row r = rows.get(i);
      x[i] = Rows.nan(r, Cols.MINUTE) - m0;
      pre[i] = Rows.nan(r, Cols.PREFILL_TOKENS);
      hit[i] = Rows.nan(r, Cols.HIT_TOKENS);
      for (int k = 0; k < 3; k++) {
        Double h = Rows.d(r, cols[k]);
        if (h != null) sources = true;
        srcHit[k][i] = h == null ? Double.NaN : h;
      }
    }
    // token-weighted over each bin (a bin of one minute when the trace spans at most MAX_POINTS minutes)
    int w = MinuteBins.width(x[n - 1]);
    MinuteBins.Layout bins = MinuteBins.layout(x, w);
    double[] binPre = MinuteBins.sum(bins, pre);
    double[] all = ratio(MinuteBins.sum(bins, hit), binPre);
    double[][] src = new double[3][];
    for (int k = 0; k < 3; k++) src[k] = ratio(MinuteBins.sum(bins, srcHit[k]), binPre);
    x = bins.start();
    boolean anyValue = false;
    for (double v : all) if (!Double.isNaN(v)) anyValue = true;
    if (!anyValue) {
      charts.missing(ReportCharts.WORKLOAD, title, fig, chMissing(WorkloadCharts::reuse, CharacterizationTables.T_REUSE_MINUTE));
      return;
    }
    XYChart c;
    String caption;
    if (sources) {
      c = Charts.stacked(title, "minute since the first arrival", "hit tokens / prefill tokens", x,
          List.of("intra-session", "system prompt", "inter-session"), List.of(src[0], src[1], src[2]));
      caption = "Share of each minute's prefill tokens an infinite cache would serve, by where the reused block was "
          + "seen before (trace-model.md section 3). Minutes without requests are drawn as 0." + binNote(w, "hit and prefill tokens summed over the bin");
    } else {
      c = Charts.stacked(title, "minute since the first arrival", "hit tokens / prefill tokens", x,
          List.of("all sources"), List.of(all));
      caption = "Share of each minute's prefill tokens an infinite cache would serve. Sources are not shown: "
          + chMissing(ch1 -> AuditCriteria.sourceShare(ch1, Source.INTRA_SESSION), "reuse_by_source") + "." + binNote(w, "hit and prefill tokens summed over the bin");
    }
    for (XYSeries xs : c.getSeriesCollection()) {
      Color col = SOURCE_COLORS.get(xs.getName());
      if (col != null) xs.setFillColor(col);
      if (col != null) xs.setLineColor(col);
    }
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    charts.draw(ReportCharts.WORKLOAD, "reuse_over_time.png", title, fig, caption, c);
  }

  /** hits / prefill per bin; NaN where the bin has no prefill tokens. */
  private static double[] ratio(double[] hits, double[] prefill) {
    double[] out = new double[hits.length];
    for (int b = 0; b < out.length; b++) out[b] = prefill[b] > 0 && !Double.isNaN(hits[b]) ? hits[b] / prefill[b] : Double.NaN;
    return out;
  }

  /** The caption's note on binning, empty for one-minute bins. */
  private static String binNote(int w, String how) {
    return w == 1 ? "" : " The trace spans more than " + MinuteBins.MAX_POINTS + " minutes: drawn in " + w + "-minute bins ("
        + how + ").";
  }

  private void intervalCdf() {
    String title = "Reuse-interval CDF (token-weighted)";
    String fig = "Observation 4 (about 90% of reuse within 100 s)";
    List<Row> rows = ch == null ? null : table(CharacterizationTables.T_INTERVAL_CDF);
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.WORKLOAD, title, fig, rows == null ? chMissing(x -> AuditJson.part(AuditJson.intervalAll(x), CharacterizationSummary.IntervalGroup::p50S), CharacterizationTables.T_INTERVAL_CDF)
          : chMissing(x -> AuditJson.part(AuditJson.intervalAll(x), CharacterizationSummary.IntervalGroup::p50S), CharacterizationTables.T_INTERVAL_CDF + " rows"));
      return;
    }
    Map<String, List<double[]>> bySource = new TreeMap<>(Comparator.comparingInt(WorkloadCharts::sourceOrder).thenComparing(s -> s));
    for (Row r : Rows.sorted(rows, Cols.INTERVAL_LE_S)) {
      String s = Rows.s(r, Cols.SOURCE);
      bySource.computeIfAbsent(s == null ? Source.ALL : s, k -> new ArrayList<>())
          .add(new double[] {Math.max(1e-6, Rows.nan(r, Cols.INTERVAL_LE_S)), Rows.nan(r, Cols.CUM_SHARE)});
    }
    XYChart c = Charts.xy(title, "reuse interval (s, log scale; zero intervals at 1 us)", "share of hit tokens");
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    for (Map.Entry<String, List<double[]>> e : bySource.entrySet()) {
      double[][] xy = Charts.columns(e.getValue());
      XYSeries s = c.addSeries(e.getKey().replace('_', '-'), xy[0], xy[1]);
      s.setMarker(SeriesMarkers.NONE);
      Color col = SOURCE_COLORS.get(e.getKey().replace('_', '-'));
      if (col != null) s.setLineColor(col);
      if (e.getKey().equals(Source.ALL)) s.setLineWidth(3f);
    }
    double thr = ch.reuseInterval() == null ? 100 : ch.reuseInterval().thresholdS();
    if (thr > 0) {
      XYSeries t = c.addSeries("threshold " + Numbers.sig4(thr) + " s", new double[] {thr, thr}, new double[] {0, 1});
      t.setLineStyle(SeriesLines.DASH_DASH);
      t.setLineColor(Color.GRAY);
      t.setMarker(SeriesMarkers.NONE);
    }
    charts.draw(ReportCharts.WORKLOAD, "reuse_interval_cdf.png", title, fig,
        "Cumulative share of hit tokens whose block was last seen at most x seconds earlier, overall and per source "
            + "(trace-model.md section 4); the dashed line is the interval threshold.", c);
  }

  /** The CDF's line order: all sources first, then the sources in the contract's order, then anything else. */
  static int sourceOrder(String s) {
    if (s.equals(Source.ALL)) return 0;
    for (Source x : Source.values()) if (x.label.equals(s)) return 1 + x.ordinal();
    return 1 + Source.values().length;
  }

  private void lorenz() {
    String title = "Session token Lorenz curve";
    String fig = "Section 2.2 (the top 25% of sessions hold over 80% of tokens)";
    List<Row> rows = ch == null ? null : table(CharacterizationTables.T_LORENZ);
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.WORKLOAD, title, fig, chMissing(x -> AuditJson.part(AuditJson.tokenSkew(x), CharacterizationSummary.TokenSkew::gini), CharacterizationTables.T_LORENZ));
      return;
    }
    rows = Rows.sorted(rows, Cols.POPULATION_SHARE);
    double[] x = new double[rows.size()];
    double[] y = new double[rows.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = Rows.nan(rows.get(i), Cols.POPULATION_SHARE);
      y[i] = Rows.nan(rows.get(i), Cols.TOKEN_SHARE);
    }
    XYChart c = Charts.xy(title, "share of sessions (smallest first)", "share of tokens");
    XYSeries s = c.addSeries("sessions", x, y);
    s.setMarker(SeriesMarkers.NONE);
    s.setLineWidth(3f);
    XYSeries eq = c.addSeries("equal shares", new double[] {0, 1}, new double[] {0, 1});
    eq.setLineStyle(SeriesLines.DASH_DASH);
    eq.setLineColor(Color.GRAY);
    eq.setMarker(SeriesMarkers.NONE);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
    Metric top = AuditJson.part(AuditJson.tokenSkew(ch), CharacterizationSummary.TokenSkew::top25pctShare);
    Metric gini = AuditJson.part(AuditJson.tokenSkew(ch), CharacterizationSummary.TokenSkew::gini);
    charts.draw(ReportCharts.WORKLOAD, "session_lorenz.png", title, fig,
        "Tokens (input + output) held by the smallest p of sessions. Top-25% share: "
            + Numbers.percent(value(top)) + ", Gini: " + Numbers.sig4(value(gini)) + ".", c);
  }

  private void requestRatio() {
    String title = "Requests per instance, per minute";
    String fig = "Section 2.1 (per-minute mean 43 and 48, never below 30)";
    List<Row> rows = ch == null ? null : table(CharacterizationTables.T_RATIO);
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.WORKLOAD, title, fig, chMissing(x -> AuditJson.part(x.requestInstanceRatio(), CharacterizationSummary.RequestInstanceRatio::mean), CharacterizationTables.T_RATIO));
      return;
    }
    rows = Rows.sorted(rows, Cols.MINUTE);
    double m0 = Rows.nan(rows.get(0), Cols.MINUTE);
    double[] x = new double[rows.size()];
    double[] y = new double[rows.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = Rows.nan(rows.get(i), Cols.MINUTE) - m0;
      y[i] = Rows.nan(rows.get(i), Cols.RATIO);
    }
    XYChart c = Charts.xy(title, "minute since the first whole minute", "arrivals / instances");
    int w = MinuteBins.width(x[x.length - 1]);
    if (w > 1) {
      // the bin's mean, and its lowest minute (the paper's bound is on every minute)
      MinuteBins.Layout bins = MinuteBins.layout(x, w);
      XYSeries low = c.addSeries("lowest minute of each bin", bins.start(), MinuteBins.min(bins, y));
      y = MinuteBins.mean(bins, y);
      low.setMarker(SeriesMarkers.NONE);
      x = bins.start();
    }
    XYSeries s = c.addSeries(w > 1 ? "requests per instance (bin mean)" : "requests per instance", x, y);
    s.setMarker(x.length == 1 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
    XYSeries t = c.addSeries("criterion bound " + Numbers.sig4(ratioThreshold), new double[] {x[0], x[x.length - 1]},
        new double[] {ratioThreshold, ratioThreshold});
    t.setLineStyle(SeriesLines.DASH_DASH);
    t.setLineColor(Color.GRAY);
    t.setMarker(SeriesMarkers.NONE);
    c.getStyler().setYAxisMin(0.0);
    CharacterizationSummary.RequestInstanceRatio r = ch.requestInstanceRatio();
    charts.draw(ReportCharts.WORKLOAD, "request_instance_ratio.png", title, fig,
        "Arrivals in each whole minute divided by " + (r == null ? "?" : Integer.toString(r.instances()))
            + " instances (trace-model.md section 7): "
            + "mean " + Numbers.sig4(r == null ? null : value(r.mean())) + ", p5 " + Numbers.sig4(r == null ? null : value(r.p5()))
            + ", min " + Numbers.sig4(r == null ? null : value(r.min())) + "." + binNote(w, "the mean and the lowest minute of each bin"), c);
  }
}
