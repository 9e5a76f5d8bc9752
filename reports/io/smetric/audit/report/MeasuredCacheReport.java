package io.smetric.audit.report;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.MeasuredCacheCols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Row;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;

/**
 * The report's "Measured against predicted" section (trace-model section 9, docs/block-hasher.md):
 * when the audited logs carried the provider's cache accounting, the audit folder holds
 * {@code measured-cache/summary.json} and the per-request table {@code measured-cache/requests/};
 * this section shows them as a table per provider, the gap by time since the session's previous
 * request, and a scatter chart of predicted against measured hit ratio per request (PNG).
 */
public final class MeasuredCacheReport {
  private MeasuredCacheReport() {}

  public static final String CHART = "measured-vs-predicted.png";
  /** At most this many requests are drawn in the scatter chart (an even sample by input order). */
  static final int MAX_POINTS = 4000;

  /** The summary to put in audit.json, or null when the audit has none. */
  public static JsonNode summary(AuditFolder f) {
    return f.exists(AuditLayout.MEASURED_CACHE_SUMMARY) ? f.json(AuditLayout.MEASURED_CACHE_SUMMARY) : null;
  }

  /**
   * The section of an audit folder with its chart drawn.
   *
   * @param summary measured-cache/summary.json
   * @param chartMissing null when the chart was drawn, else why not
   */
  public record Section(JsonNode summary, String chartMissing) {}

  /** Draws the section's chart (a PNG beside index.html); null when the audit has no measured-cache summary. */
  public static Section draw(AuditFolder f) {
    JsonNode s = summary(f);
    return s == null ? null : new Section(s, chart(f, s));
  }

  /** Appends the section drawn by {@link #draw}; nothing for null. */
  public static void html(Html h, Section section) {
    if (section == null) return;
    JsonNode s = section.summary();
    h.raw("<section id=\"measured-cache\">\n");
    h.tag("h2", null, "Measured against predicted prefix-cache hits");
    h.tag("p", null, "The logs carry the provider's own cache accounting per request. Predicted: the share of each prompt that "
        + "the hashed blocks say an earlier request already had (ideal reuse, trace-model section 2), and what a cache of the "
        + "provider's granularity would serve of it; measured: the provider's cached tokens over its input tokens. The gap "
        + "(predicted at the provider's granularity minus measured, in points) checks the tokenizer, the chat template and the "
        + "block chaining against a real cache; docs/block-hasher.md explains the usual gaps.");
    List<List<String>> rows = new ArrayList<>();
    for (JsonNode k : s.path("by_provider")) {
      JsonNode g = k.path("per_request_gap_pp");
      rows.add(List.of(k.path("provider_cache").asText(), k.path("granularity").asText(), Long.toString(k.path("requests").asLong()),
          pct(k.path("measured_ratio").asDouble()), pct(k.path("predicted_ratio").asDouble()),
          pct(k.path("predicted_granular_ratio").asDouble()), String.format(Locale.ROOT, "%+.2f", k.path("gap_pp").asDouble()),
          String.format(Locale.ROOT, "%+d / %+d / %+d", g.path("p5").asInt(), g.path("p50").asInt(), g.path("p95").asInt()),
          pct(g.path("share_within_5pp").asDouble()), String.format(Locale.ROOT, "%.3f", k.path("token_count_ratio").asDouble())));
    }
    h.table(List.of("provider", "cache granularity", "requests", "measured", "predicted (ideal)", "predicted (granularity)",
        "gap (points)", "per-request gap p5 / p50 / p95", "requests within 5 points", "our tokens / provider's"), rows, "measured");
    List<List<String>> since = new ArrayList<>();
    for (JsonNode k : s.path("by_provider")) {
      for (JsonNode b : k.path("by_time_since_previous_request")) {
        since.add(List.of(k.path("provider_cache").asText(), b.path("since_previous_s").asText(),
            Long.toString(b.path("requests").asLong()), pct(b.path("measured_ratio").asDouble()),
            pct(b.path("predicted_granular_ratio").asDouble())));
      }
    }
    h.tag("h3", null, "By time since the session's previous request");
    h.tag("p", null, "A cache entry is usable only once the provider has written it (DeepSeek: construction takes seconds); "
        + "requests that follow their predecessor within seconds can miss what the ideal cache would hit.");
    h.table(List.of("provider", "time since previous request", "requests", "measured", "predicted (granularity)"), since, "measured-since");
    String drawn = section.chartMissing();
    if (drawn == null) {
      h.raw("<figure><img src=\"").text(CHART).raw("\" alt=\"predicted against measured hit ratio per request\" width=\"" + Charts.W
          + "\" height=\"" + Charts.H + "\"><figcaption><strong>Predicted against measured hit ratio per request</strong>. "
          + "One point per request (an even sample of at most " + MAX_POINTS + "); on the diagonal the hasher predicts what the "
          + "provider served. Points below it: the provider served more than the hashed prompts share (cached system prompt or "
          + "tools the log does not hold); above it: the provider served less (entry not yet written, evicted, or a different "
          + "server).</figcaption></figure>\n");
    } else {
      h.raw("<p class=\"missing\"><strong>Predicted against measured hit ratio per request</strong>: not drawn: ").text(drawn).raw(".</p>\n");
    }
    h.raw("</section>\n");
  }

  /** Draws the scatter chart; returns null when drawn, else why not. */
  static String chart(AuditFolder f, JsonNode s) {
    long n = 0;
    for (JsonNode k : s.path("by_provider")) n += k.path("requests").asLong();
    long every = Math.max(1, (n + MAX_POINTS - 1) / MAX_POINTS);
    List<Row> rows = f.table(AuditLayout.MEASURED_CACHE_REQUESTS, pmod(col(Canonical.SEQ), lit(every)).equalTo(0)
        .and(col(MeasuredCacheCols.PREDICTED_GRANULAR).isNotNull()).and(col(MeasuredCacheCols.MEASURED).isNotNull()));
    if (rows == null || rows.isEmpty()) return "the per-request table is empty";
    XYChart c = new XYChartBuilder().width(Charts.W).height(Charts.H).title("Predicted against measured hit ratio per request")
        .xAxisTitle("measured: provider's cached / input tokens").yAxisTitle("predicted at the provider's granularity").build();
    Charts.style(c.getStyler());
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    c.getStyler().setMarkerSize(4);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
    c.getStyler().setXAxisMin(0.0);
    c.getStyler().setXAxisMax(1.0);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    java.util.Map<String, List<double[]>> byKind = new java.util.TreeMap<>();
    for (Row r : rows) {
      byKind.computeIfAbsent(r.getString(r.fieldIndex(Canonical.PROVIDER_CACHE)), k -> new ArrayList<>())
          .add(new double[] {r.getDouble(r.fieldIndex(MeasuredCacheCols.MEASURED)), r.getDouble(r.fieldIndex(MeasuredCacheCols.PREDICTED_GRANULAR))});
    }
    for (java.util.Map.Entry<String, List<double[]>> e : byKind.entrySet()) {
      double[] x = e.getValue().stream().mapToDouble(p -> p[0]).toArray();
      double[] y = e.getValue().stream().mapToDouble(p -> p[1]).toArray();
      c.addSeries(e.getKey() + " (" + x.length + " requests)", x, y);
    }
    XYSeries diag = c.addSeries("predicted = measured", new double[] {0, 1}, new double[] {0, 1});
    diag.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    diag.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
    diag.setLineColor(java.awt.Color.GRAY);
    f.writeBytes(CHART, Charts.pngBytes(c));
    return null;
  }

  /** Hit ratios with two decimals: the gaps the table shows are a few points. */
  static String pct(double r) {
    return Numbers.percent(r, 2);
  }
}
