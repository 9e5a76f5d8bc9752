package io.smetric.audit.report;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationTables;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.ReplayTables;
import io.smetric.audit.contract.ReplayTables.RunMetrics;
import io.smetric.audit.contract.Source;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.IChart;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The compare family of charts (docs/report.md, "compare"): one line per audit, overlaid, for the
 * reuse-interval CDF, the session Lorenz curves, ideal reuse per minute, requests per instance per
 * minute, and SMetric against the best non-SMetric policy by global-tier capacity. An audit
 * without the data is named under the chart with the reason.
 */
final class CompareCharts {
  private CompareCharts() {}

  /** Draws every overlay into {@code out} and returns the entries in page order. */
  static List<ReportCharts.Entry> render(List<CompareReport.Audit> audits, OutputDir out) {
    List<ReportCharts.Entry> charts = new ArrayList<>();
    overlayIntervalCdf(audits, out, charts);
    overlayLorenz(audits, out, charts);
    overlayReuseOverTime(audits, out, charts);
    overlayRatio(audits, out, charts);
    overlayTps(audits, out, charts);
    return charts;
  }

  private interface Points {
    /** The audit's points, or null with the reason recorded in {@code why}. */
    List<double[]> of(CompareReport.Audit a, StringBuilder why);
  }

  private static void overlay(List<CompareReport.Audit> audits, OutputDir out, List<ReportCharts.Entry> charts, String file, String title,
      String fig, String xTitle, String yTitle, boolean logX, String caption, Points points) {
    XYChart c = Charts.xy(title, xTitle, yTitle);
    if (logX) c.getStyler().setXAxisLogarithmic(true);
    List<String> missing = new ArrayList<>();
    int k = 0;
    int drawn = 0;
    for (CompareReport.Audit a : audits) {
      Color color = Charts.PALETTE[k++ % Charts.PALETTE.length];
      StringBuilder why = new StringBuilder();
      List<double[]> pts = points.of(a, why);
      if (pts == null || pts.isEmpty()) {
        missing.add(a.label() + ": " + (why.length() > 0 ? why : "no data"));
        continue;
      }
      double[][] xy = Charts.columns(pts);
      XYSeries s = c.addSeries(a.label(), xy[0], xy[1]);
      s.setLineColor(color);
      s.setMarker(pts.size() == 1 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
      s.setMarkerColor(color);
      drawn++;
    }
    String miss = missing.isEmpty() ? "" : " Not shown: " + String.join("; ", missing) + ".";
    if (drawn == 0) {
      charts.add(new ReportCharts.Entry("Compare", title, fig, null, null, "no audit has the data (" + String.join("; ", missing) + ")"));
      return;
    }
    Charts.tidy(c);
    png(out, file, c);
    charts.add(new ReportCharts.Entry("Compare", title, fig, caption + miss, file, null));
  }

  private static void overlayIntervalCdf(List<CompareReport.Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "reuse_interval_cdf.png", "Reuse-interval CDF (all sources)", "Observation 4",
        "reuse interval (s, log scale; zero intervals at 1 us)", "share of hit tokens", true,
        "Token-weighted share of reuse within x seconds.", (a, why) -> {
          List<Row> rows = a.folder().table(AuditLayout.CHARACTERIZATION + "/" + CharacterizationTables.T_INTERVAL_CDF);
          if (rows == null) {
            why.append("no " + CharacterizationTables.T_INTERVAL_CDF + " table");
            return null;
          }
          List<double[]> pts = new ArrayList<>();
          for (Row r : Rows.sorted(rows, Cols.INTERVAL_LE_S)) {
            if (Source.ALL.equals(Rows.s(r, Cols.SOURCE))) {
              pts.add(new double[] {Math.max(1e-6, Rows.nan(r, Cols.INTERVAL_LE_S)), Rows.nan(r, Cols.CUM_SHARE)});
            }
          }
          if (pts.isEmpty()) why.append("no reuse");
          return pts;
        });
  }

  private static void overlayLorenz(List<CompareReport.Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "session_lorenz.png", "Session token Lorenz curves", "Section 2.2",
        "share of sessions (smallest first)", "share of tokens", false, "Tokens held by the smallest p of sessions.",
        (a, why) -> {
          List<Row> rows = a.folder().table(AuditLayout.CHARACTERIZATION + "/" + CharacterizationTables.T_LORENZ);
          if (rows == null) {
            why.append("no sessions");
            return null;
          }
          List<double[]> pts = new ArrayList<>();
          for (Row r : Rows.sorted(rows, Cols.POPULATION_SHARE)) {
            pts.add(new double[] {Rows.nan(r, Cols.POPULATION_SHARE), Rows.nan(r, Cols.TOKEN_SHARE)});
          }
          return pts;
        });
  }

  private static void overlayReuseOverTime(List<CompareReport.Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "reuse_over_time.png", "Ideal reuse per minute", "Figure 5",
        "minute since the first arrival", "hit tokens / prefill tokens", false,
        "Token-weighted ideal reuse of each minute (minutes without requests are left out).", (a, why) -> {
          List<Row> rows = a.folder().table(AuditLayout.CHARACTERIZATION + "/" + CharacterizationTables.T_REUSE_MINUTE);
          if (rows == null || rows.isEmpty()) {
            why.append("no " + CharacterizationTables.T_REUSE_MINUTE + " table");
            return null;
          }
          List<double[]> pts = sinceFirstMinute(rows, Cols.REUSE_TOKEN);
          if (pts.isEmpty()) why.append("no block hashes");
          return pts;
        });
  }

  private static void overlayRatio(List<CompareReport.Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "request_instance_ratio.png", "Requests per instance, per minute", "Section 2.1",
        "minute since the first whole minute", "arrivals / instances", false,
        "Each audit divides by its own --instances.", (a, why) -> {
          List<Row> rows = a.folder().table(AuditLayout.CHARACTERIZATION + "/" + CharacterizationTables.T_RATIO);
          if (rows == null || rows.isEmpty()) {
            why.append("no whole minute");
            return null;
          }
          return sinceFirstMinute(rows, Cols.RATIO);
        });
  }

  /** A per-minute table's points (minutes since its first minute, {@code col}), rows without a value left out. */
  private static List<double[]> sinceFirstMinute(List<Row> rows, String col) {
    List<Row> sorted = Rows.sorted(rows, Cols.MINUTE);
    double m0 = Rows.nan(sorted.get(0), Cols.MINUTE);
    List<double[]> pts = new ArrayList<>();
    for (Row r : sorted) {
      Double v = Rows.d(r, col);
      if (v != null) pts.add(new double[] {Rows.nan(r, Cols.MINUTE) - m0, v});
    }
    return pts;
  }

  /** SMetric (solid) and the best non-SMetric policy (dashed) by global-tier capacity, per audit. */
  private static void overlayTps(List<CompareReport.Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    String title = "TPS within SLO by global-tier capacity: SMetric vs best baseline";
    XYChart c = Charts.xy(title, "global-tier capacity (x total local capacity)", "tokens/s within SLO (max over rates)");
    List<String> missing = new ArrayList<>();
    int k = 0;
    int drawn = 0;
    for (CompareReport.Audit a : audits) {
      Color color = Charts.PALETTE[k++ % Charts.PALETTE.length];
      List<Row> rows = a.replay() == null ? null : a.folder().table(AuditLayout.REPLAY_RUNS);
      if (rows == null || rows.isEmpty()) {
        missing.add(a.label() + ": no replay");
        continue;
      }
      ReplayRuns runs = new ReplayRuns(rows, a.replay());
      List<double[]> sm = new ArrayList<>();
      List<double[]> base = new ArrayList<>();
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run s = runs.best("smetric", g);
        if (s != null && s.metric(RunMetrics.TPS_WITHIN_SLO) != null) sm.add(new double[] {g, s.metric(RunMetrics.TPS_WITHIN_SLO)});
        double best = Double.NaN;
        for (String p : runs.policies()) {
          if (ReplayRuns.SMETRIC_FAMILY.contains(p)) continue;
          ReplayRuns.Run b = runs.best(p, g);
          if (b != null && b.metric(RunMetrics.TPS_WITHIN_SLO) != null) best = Double.isNaN(best) ? b.metric(RunMetrics.TPS_WITHIN_SLO) : Math.max(best, b.metric(RunMetrics.TPS_WITHIN_SLO));
        }
        if (!Double.isNaN(best)) base.add(new double[] {g, best});
      }
      if (sm.isEmpty() && base.isEmpty()) {
        missing.add(a.label() + ": no TPS within SLO");
        continue;
      }
      if (!sm.isEmpty()) Charts.series(c, a.label() + " smetric", sm, color, SeriesLines.SOLID);
      if (!base.isEmpty()) Charts.series(c, a.label() + " best baseline", base, color, SeriesLines.DASH_DASH);
      drawn++;
    }
    String miss = missing.isEmpty() ? "" : " Not shown: " + String.join("; ", missing) + ".";
    if (drawn == 0) {
      charts.add(new ReportCharts.Entry("Compare", title, "Figure 16a", null, null, "no audit has a replay (" + String.join("; ", missing) + ")"));
      return;
    }
    c.getStyler().setYAxisMin(0.0);
    Charts.tidy(c);
    png(out, "tps_by_capacity.png", c);
    charts.add(new ReportCharts.Entry("Compare", title, "Figure 16a",
        "Solid: SMetric; dashed: the best policy outside the SMetric family at that capacity (each at its best offered rate)."
            + miss, "tps_by_capacity.png", null));
  }

  private static void png(OutputDir out, String file, IChart c) {
    try (OutputStream o = out.create(file)) {
      o.write(Charts.pngBytes(c));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
