package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.IChart;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Sets several audits side by side (docs/report.md, "compare"): their verdicts, every criterion's
 * value per audit, headline numbers, and overlaid charts (reuse-interval CDF, session Lorenz
 * curves, requests per instance, reuse over time, SMetric vs the best baseline by global-tier
 * capacity). Reads each audit's audit.json and its small tables; writes index.html, PNGs and
 * compare.json into an output folder.
 */
public final class CompareReport {
  public static final String FORMAT = "smetric-compare/1";

  private CompareReport() {}

  /** One audit being compared. */
  record Audit(String label, AuditFolder folder, JsonNode audit, JsonNode replay) {}

  public record Result(ObjectNode json, List<ReportCharts.Entry> charts) {}

  /**
   * @param dirs audit folders (each must hold audit.json: run the audit's report first)
   * @param labels names for the columns, or null for the folders' own names
   */
  public static Result write(SparkSession spark, List<String> dirs, List<String> labels, OutputDir out) {
    if (dirs.size() < 2) throw new UsageException("compare needs at least two audit folders, got " + dirs.size());
    if (labels != null && !labels.isEmpty() && labels.size() != dirs.size()) {
      throw new UsageException("--label given " + labels.size() + " times for " + dirs.size() + " audit folders");
    }
    List<Audit> audits = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < dirs.size(); i++) {
      AuditFolder f = AuditFolder.open(spark, dirs.get(i));
      JsonNode a = f.json(AuditFolder.AUDIT_JSON);
      if (a == null) {
        throw new BadInputException(dirs.get(i), "no audit.json: not an audit folder, or its report was not written "
            + "(run `smetric-audit audit` on it first)");
      }
      String label = labels != null && !labels.isEmpty() ? labels.get(i) : name(dirs.get(i));
      int n = seen.merge(label, 1, Integer::sum);
      if (n > 1) label = label + " #" + n;
      audits.add(new Audit(label, f, a, f.json(AuditFolder.REPLAY_JSON)));
    }
    List<ReportCharts.Entry> charts = new ArrayList<>();
    overlayIntervalCdf(audits, out, charts);
    overlayLorenz(audits, out, charts);
    overlayReuseOverTime(audits, out, charts);
    overlayRatio(audits, out, charts);
    overlayTps(audits, out, charts);
    ObjectNode json = json(audits, charts);
    try {
      out.writeString("compare.json", Json.MAPPER.writeValueAsString(json) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.writeString("index.html", html(audits, charts));
    return new Result(json, charts);
  }

  static String name(String dir) {
    String d = dir.replaceAll("/+$", "");
    int i = d.lastIndexOf('/');
    return i >= 0 ? d.substring(i + 1) : d;
  }

  // ------------------------------------------------------------------ charts

  private interface Points {
    /** The audit's points, or null with the reason recorded in {@code why}. */
    List<double[]> of(Audit a, StringBuilder why);
  }

  private static void overlay(List<Audit> audits, OutputDir out, List<ReportCharts.Entry> charts, String file, String title,
      String fig, String xTitle, String yTitle, boolean logX, String caption, Points points) {
    XYChart c = ReportCharts.xy(title, xTitle, yTitle);
    if (logX) c.getStyler().setXAxisLogarithmic(true);
    List<String> missing = new ArrayList<>();
    int k = 0;
    int drawn = 0;
    for (Audit a : audits) {
      Color color = ReportCharts.PALETTE[k++ % ReportCharts.PALETTE.length];
      StringBuilder why = new StringBuilder();
      List<double[]> pts = points.of(a, why);
      if (pts == null || pts.isEmpty()) {
        missing.add(a.label() + ": " + (why.length() > 0 ? why : "no data"));
        continue;
      }
      double[][] xy = ReportCharts.columns(pts);
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
    ReportCharts.tidy(c);
    png(out, file, c);
    charts.add(new ReportCharts.Entry("Compare", title, fig, caption + miss, file, null));
  }

  private static void overlayIntervalCdf(List<Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "reuse_interval_cdf.png", "Reuse-interval CDF (all sources)", "Observation 4",
        "reuse interval (s, log scale; zero intervals at 1 us)", "share of hit tokens", true,
        "Token-weighted share of reuse within x seconds.", (a, why) -> {
          List<Row> rows = a.folder().table(AuditFolder.CHARACTERIZATION + "/reuse_interval_cdf");
          if (rows == null) {
            why.append("no reuse_interval_cdf table");
            return null;
          }
          List<double[]> pts = new ArrayList<>();
          for (Row r : ReportCharts.sorted(rows, "interval_le_s")) {
            if ("all".equals(Rows.s(r, "source"))) {
              pts.add(new double[] {Math.max(1e-6, Rows.nan(r, "interval_le_s")), Rows.nan(r, "cumulative_share")});
            }
          }
          if (pts.isEmpty()) why.append("no reuse");
          return pts;
        });
  }

  private static void overlayLorenz(List<Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "session_lorenz.png", "Session token Lorenz curves", "Section 2.2",
        "share of sessions (smallest first)", "share of tokens", false, "Tokens held by the smallest p of sessions.",
        (a, why) -> {
          List<Row> rows = a.folder().table(AuditFolder.CHARACTERIZATION + "/session_token_lorenz");
          if (rows == null) {
            why.append("no sessions");
            return null;
          }
          List<double[]> pts = new ArrayList<>();
          for (Row r : ReportCharts.sorted(rows, "population_share")) {
            pts.add(new double[] {Rows.nan(r, "population_share"), Rows.nan(r, "token_share")});
          }
          return pts;
        });
  }

  private static void overlayReuseOverTime(List<Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "reuse_over_time.png", "Ideal reuse per minute", "Figure 5",
        "minute since the first arrival", "hit tokens / prefill tokens", false,
        "Token-weighted ideal reuse of each minute (minutes without requests are left out).", (a, why) -> {
          List<Row> rows = a.folder().table(AuditFolder.CHARACTERIZATION + "/reuse_by_minute");
          if (rows == null || rows.isEmpty()) {
            why.append("no reuse_by_minute table");
            return null;
          }
          rows = ReportCharts.sorted(rows, "minute");
          double m0 = Rows.nan(rows.get(0), "minute");
          List<double[]> pts = new ArrayList<>();
          for (Row r : rows) {
            Double v = Rows.d(r, "reuse_ratio_token");
            if (v != null) pts.add(new double[] {Rows.nan(r, "minute") - m0, v});
          }
          if (pts.isEmpty()) why.append("no block hashes");
          return pts;
        });
  }

  private static void overlayRatio(List<Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    overlay(audits, out, charts, "request_instance_ratio.png", "Requests per instance, per minute", "Section 2.1",
        "minute since the first whole minute", "arrivals / instances", false,
        "Each audit divides by its own --instances.", (a, why) -> {
          List<Row> rows = a.folder().table(AuditFolder.CHARACTERIZATION + "/request_instance_ratio");
          if (rows == null || rows.isEmpty()) {
            why.append("no whole minute");
            return null;
          }
          rows = ReportCharts.sorted(rows, "minute");
          double m0 = Rows.nan(rows.get(0), "minute");
          List<double[]> pts = new ArrayList<>();
          for (Row r : rows) pts.add(new double[] {Rows.nan(r, "minute") - m0, Rows.nan(r, "requests_per_instance")});
          return pts;
        });
  }

  /** SMetric (solid) and the best non-SMetric policy (dashed) by global-tier capacity, per audit. */
  private static void overlayTps(List<Audit> audits, OutputDir out, List<ReportCharts.Entry> charts) {
    String title = "TPS within SLO by global-tier capacity: SMetric vs best baseline";
    XYChart c = ReportCharts.xy(title, "global-tier capacity (x total local capacity)", "tokens/s within SLO (max over rates)");
    List<String> missing = new ArrayList<>();
    int k = 0;
    int drawn = 0;
    for (Audit a : audits) {
      Color color = ReportCharts.PALETTE[k++ % ReportCharts.PALETTE.length];
      List<Row> rows = a.replay() == null ? null : a.folder().table(AuditFolder.REPLAY + "/runs");
      if (rows == null || rows.isEmpty()) {
        missing.add(a.label() + ": no replay");
        continue;
      }
      ReplayRuns runs = new ReplayRuns(rows, a.replay());
      List<double[]> sm = new ArrayList<>();
      List<double[]> base = new ArrayList<>();
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run s = runs.best("smetric", g);
        if (s != null && s.metric("tps_within_slo") != null) sm.add(new double[] {g, s.metric("tps_within_slo")});
        double best = Double.NaN;
        for (String p : runs.policies()) {
          if (ReplayRuns.SMETRIC_FAMILY.contains(p)) continue;
          ReplayRuns.Run b = runs.best(p, g);
          if (b != null && b.metric("tps_within_slo") != null) best = Double.isNaN(best) ? b.metric("tps_within_slo") : Math.max(best, b.metric("tps_within_slo"));
        }
        if (!Double.isNaN(best)) base.add(new double[] {g, best});
      }
      if (sm.isEmpty() && base.isEmpty()) {
        missing.add(a.label() + ": no TPS within SLO");
        continue;
      }
      if (!sm.isEmpty()) ReportCharts.series(c, a.label() + " smetric", sm, color, SeriesLines.SOLID);
      if (!base.isEmpty()) ReportCharts.series(c, a.label() + " best baseline", base, color, SeriesLines.DASH_DASH);
      drawn++;
    }
    String miss = missing.isEmpty() ? "" : " Not shown: " + String.join("; ", missing) + ".";
    if (drawn == 0) {
      charts.add(new ReportCharts.Entry("Compare", title, "Figure 16a", null, null, "no audit has a replay (" + String.join("; ", missing) + ")"));
      return;
    }
    c.getStyler().setYAxisMin(0.0);
    ReportCharts.tidy(c);
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

  // ------------------------------------------------------------------ output

  static ObjectNode json(List<Audit> audits, List<ReportCharts.Entry> charts) {
    ObjectNode j = Json.object();
    j.put("format", FORMAT);
    j.put("tool_version", BuildInfo.version());
    ArrayNode as = j.putArray("audits");
    for (Audit a : audits) {
      ObjectNode o = as.addObject();
      o.put("label", a.label());
      o.put("dir", a.folder().label());
      o.put("verdict", a.audit().path("verdict").asText());
      o.put("sentence", a.audit().path("sentence").asText());
      ObjectNode cs = o.putObject("criteria");
      for (JsonNode c : a.audit().path("criteria")) {
        ObjectNode x = cs.putObject(c.path("id").asText());
        x.put("status", c.path("status").asText());
        x.set("value", c.path("value").deepCopy());
        x.set("threshold", c.path("threshold").deepCopy());
      }
      o.set("headline", a.audit().path("headline").deepCopy());
    }
    ArrayNode ch = j.putArray("charts");
    for (ReportCharts.Entry e : charts) {
      ObjectNode o = ch.addObject().put("title", e.title());
      if (e.drawn()) o.put("file", e.file());
      else o.put("not_drawn", e.missing());
    }
    return j;
  }

  static String html(List<Audit> audits, List<ReportCharts.Entry> charts) {
    Html h = new Html();
    h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        .text("SMetric audits compared: " + String.join(", ", audits.stream().map(Audit::label).toList()))
        .raw("</title>\n<style>\n").raw(AuditReport.CSS).raw("\n</style>\n</head>\n<body>\n");
    h.tag("h1", null, "Audits side by side");
    h.tag("p", "sub", audits.size() + " audits compared by smetric-audit " + BuildInfo.version() + ".");

    h.raw("<section id=\"verdicts\">\n");
    h.tag("h2", null, "Verdicts");
    h.raw("<table class=\"verdicts\">\n<thead><tr><th>audit</th><th>verdict</th><th>sentence</th></tr></thead>\n<tbody>\n");
    for (Audit a : audits) {
      String v = a.audit().path("verdict").asText();
      h.raw("<tr><td>").text(a.label()).raw("<br><code>").text(a.folder().label()).raw("</code></td><td class=\"verdict-cell ")
          .text(v).raw("\">").text(v.replace('-', ' ')).raw("</td><td>").text(a.audit().path("sentence").asText()).raw("</td></tr>\n");
    }
    h.raw("</tbody></table>\n</section>\n");

    // criteria: union of ids in first-seen order; a cell is "value (status)"
    Set<String> ids = new LinkedHashSet<>();
    Map<String, String> titles = new LinkedHashMap<>();
    for (Audit a : audits) {
      for (JsonNode c : a.audit().path("criteria")) {
        ids.add(c.path("id").asText());
        titles.putIfAbsent(c.path("id").asText(), c.path("title").asText());
      }
    }
    h.raw("<section id=\"criteria\">\n");
    h.tag("h2", null, "Criteria");
    h.raw("<table class=\"criteria\">\n<thead><tr><th>criterion</th>");
    for (Audit a : audits) h.raw("<th>").text(a.label()).raw("</th>");
    h.raw("</tr></thead>\n<tbody>\n");
    for (String id : ids) {
      h.raw("<tr id=\"criterion-").text(id).raw("\"><td>").text(titles.get(id)).raw("<br><code>").text(id).raw("</code></td>");
      for (Audit a : audits) {
        JsonNode c = null;
        for (JsonNode x : a.audit().path("criteria")) if (x.path("id").asText().equals(id)) c = x;
        if (c == null) {
          h.raw("<td>not judged</td>");
          continue;
        }
        String st = c.path("status").asText();
        h.raw("<td class=\"num\">").text(c.path("value_text").asText(c.path("value").asText())).raw(" <span class=\"")
            .text(st).raw("\">").text(st).raw("</span><br>").text(c.path("threshold_text").asText("")).raw("</td>");
      }
      h.raw("</tr>\n");
    }
    h.raw("</tbody></table>\n</section>\n");

    Set<String> keys = new LinkedHashSet<>();
    for (Audit a : audits) a.audit().path("headline").fieldNames().forEachRemaining(k -> {
      if (a.audit().path("headline").path(k).isValueNode()) keys.add(k);
    });
    h.raw("<section id=\"headline\">\n");
    h.tag("h2", null, "Headline numbers");
    List<String> header = new ArrayList<>();
    header.add("measure");
    for (Audit a : audits) header.add(a.label());
    List<List<String>> rows = new ArrayList<>();
    for (String k : keys) {
      List<String> r = new ArrayList<>();
      r.add(k.replace('_', ' '));
      for (Audit a : audits) {
        JsonNode v = a.audit().path("headline").path(k);
        r.add(v.isMissingNode() || v.isNull() ? "n/a" : v.isNumber() ? AuditReport.formatHeadline(k, v.asDouble()) : v.asText());
      }
      rows.add(r);
    }
    h.table(header, rows, "headline");
    h.raw("</section>\n");

    h.raw("<section id=\"charts\">\n");
    h.tag("h2", null, "Charts");
    for (ReportCharts.Entry e : charts) {
      if (e.drawn()) {
        h.raw("<figure><img src=\"").text(e.file()).raw("\" alt=\"").text(e.title()).raw("\" width=\"" + Charts.W
            + "\" height=\"" + Charts.H + "\"><figcaption><strong>").text(e.title()).raw("</strong> (").text(e.figure())
            .raw("). ").text(e.caption()).raw("</figcaption></figure>\n");
      } else {
        h.raw("<p class=\"missing\"><strong>").text(e.title()).raw("</strong>: not drawn: ").text(e.missing()).raw(".</p>\n");
      }
    }
    h.raw("</section>\n</body>\n</html>\n");
    return h.toString();
  }
}
