package io.smetric.audit.report;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.Color;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.IChart;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the report's charts (docs/report.md, "Charts") from the audit folder's tables and writes
 * them as PNG files beside index.html. Every chart is drawn only when its data exists; otherwise
 * its entry says why not, and the page prints that line in its place.
 */
public final class ReportCharts {
  /** One chart of the report: drawn ({@code file} set) or missing ({@code missing} says why). */
  public record Entry(String section, String title, String figure, String caption, String file, String missing) {
    public boolean drawn() {
      return file != null;
    }
  }

  public static final String WORKLOAD = "Workload";
  public static final String REPLAY = "Replay";

  /** Fixed policy colours so a policy keeps its colour across charts (SMetric first, red). */
  static final Color[] PALETTE = {
    new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x9467BD), new Color(0xFF7F0E),
    new Color(0x17BECF), new Color(0x7F7F7F), new Color(0xE377C2), new Color(0x8C564B), new Color(0xBCBD22),
    new Color(0x000000), new Color(0x393B79), new Color(0xAD494A)
  };
  /** One colour per reuse source in every chart (stacked areas and CDF lines alike). */
  static final Map<String, Color> SOURCE_COLORS = Map.of(
      "intra-session", new Color(0x1F77B4), "system prompt", new Color(0xFF7F0E), "system-prompt", new Color(0xFF7F0E),
      "inter-session", new Color(0x2CA02C), "all sources", new Color(0x1F77B4), "all", Color.BLACK);
  private static final int MAX_HEAT_COLUMNS = 120;
  private static final int MAX_RATE_CHARTS = 4;

  private final AuditFolder folder;
  private final JsonNode ch;
  private final JsonNode replay;
  private final ReplayRuns runs;
  private final String replayMissing;
  private final double ratioThreshold;
  private final Double focusRatio;
  private final List<Entry> entries = new ArrayList<>();
  private final Map<String, Color> policyColors = new LinkedHashMap<>();
  /** The router the verdict judges SMetric against (--current-router), or null: then per capacity, {@link #judgedAt}. */
  private final String currentRouter;
  /** Per global ratio, the router SMetric was judged against there (replay.json "judged", else "comparison"). */
  private final Map<Double, String> judgedAt = new java.util.TreeMap<>();

  /**
   * @param characterization characterization.json, or null when absent
   * @param replay replay.json, or null
   * @param runs the replay's runs, or null when there is no replay
   * @param replayMissing why there is no replay (used as the reason of every replay chart)
   * @param ratioThreshold the requests-per-instance bound drawn on the ratio chart
   */
  public ReportCharts(AuditFolder folder, JsonNode characterization, JsonNode replay, ReplayRuns runs,
      String replayMissing, double ratioThreshold) {
    this.folder = folder;
    this.ch = characterization;
    this.replay = replay;
    this.runs = runs;
    this.replayMissing = replayMissing;
    this.ratioThreshold = ratioThreshold;
    this.focusRatio = runs == null || runs.isEmpty() ? null : focusRatio(replay, runs);
    if (runs != null) {
      int k = 0;
      for (String p : runs.policies()) policyColors.put(p, PALETTE[k++ % PALETTE.length]);
    }
    JsonNode j = replay == null ? null : replay.path("judged").isObject() ? replay.path("judged") : replay.path("comparison");
    this.currentRouter = j != null && j.path("current_router").isTextual() ? j.path("current_router").asText() : null;
    if (j != null) {
      for (JsonNode e : j.path("by_global_ratio")) {
        if (e.path("best_baseline").isTextual()) judgedAt.put(e.path("global_ratio").asDouble(), e.path("best_baseline").asText());
      }
    }
  }

  /** How a TPS chart draws a policy's line: SMetric and the judged router stand out, the rest recede. */
  private void tpsSeries(XYChart c, String p, List<double[]> pts, boolean judged) {
    series(c, p, pts, policyColors.get(p), SeriesLines.SOLID);
    XYSeries s = c.getSeries(p);
    if (p.equals("smetric")) {
      s.setLineColor(Color.BLACK);
      s.setMarkerColor(Color.BLACK);
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

  /**
   * The global-tier capacity the per-policy charts show: the one where SMetric's gain is largest
   * (replay.json's comparison), else the largest replayed capacity.
   */
  static double focusRatio(JsonNode replay, ReplayRuns runs) {
    List<Double> g = runs.globalRatios();
    JsonNode at = replay == null ? null
        : replay.path("comparison").path("smetric_best_gain_with_global_tier").path("global_ratio");
    if (at != null && at.isNumber() && g.contains(at.asDouble())) return at.asDouble();
    return g.get(g.size() - 1);
  }

  public Double focusRatio() {
    return focusRatio;
  }

  /** Draws every chart (writing the PNG files) and returns the entries in page order. */
  public List<Entry> render() {
    reuseOverTime();
    intervalCdf();
    lorenz();
    requestRatio();
    hitRatioByCapacity();
    tpsByCapacity();
    tpsByRate();
    heatmaps();
    stickiness();
    latencyCdf("ttft", "TTFT");
    latencyCdf("tpot", "TPOT");
    ablation();
    sensitivity();
    conditionsGrid();
    return entries;
  }

  // ------------------------------------------------------------------ workload

  private String chMissing(String pointer, String table) {
    if (ch == null) return "the audit has no characterization (no characterization/characterization.json)";
    JsonNode n = ch.at(pointer);
    if (n.has("not_applicable")) return n.get("not_applicable").asText();
    return "the characterization has no " + table + " table";
  }

  private void reuseOverTime() {
    String title = "Ideal reuse over time, stacked by source";
    String fig = "Figure 5";
    List<Row> rows = ch == null ? null : folder.table(AuditFolder.CHARACTERIZATION + "/reuse_by_minute");
    if (rows == null || rows.isEmpty()) {
      missing(WORKLOAD, title, fig, rows == null ? chMissing("/reuse/token_weighted", "reuse_by_minute") : "the trace spans no minute");
      return;
    }
    rows = sorted(rows, "minute");
    double m0 = Rows.nan(rows.get(0), "minute");
    int n = rows.size();
    double[] x = new double[n];
    double[] all = new double[n];
    double[][] src = new double[3][n];
    String[] cols = {"hit_tokens_intra_session", "hit_tokens_system_prompt", "hit_tokens_inter_session"};
    boolean sources = false;
    boolean anyValue = false;
    for (int i = 0; i < n; i++) {
      Row r = rows.get(i);
      x[i] = Rows.nan(r, "minute") - m0;
      double pre = Rows.nan(r, "prefill_tokens");
      all[i] = pre > 0 ? Rows.nan(r, "hit_tokens") / pre : Double.NaN;
      if (!Double.isNaN(all[i])) anyValue = true;
      for (int k = 0; k < 3; k++) {
        Double h = Rows.d(r, cols[k]);
        if (h != null) sources = true;
        src[k][i] = pre > 0 && h != null ? h / pre : Double.NaN;
      }
    }
    if (!anyValue) {
      missing(WORKLOAD, title, fig, chMissing("/reuse/token_weighted", "reuse_by_minute"));
      return;
    }
    XYChart c;
    String caption;
    if (sources) {
      c = Charts.stacked(title, "minute since the first arrival", "hit tokens / prefill tokens", x,
          List.of("intra-session", "system prompt", "inter-session"), List.of(src[0], src[1], src[2]));
      caption = "Share of each minute's prefill tokens an infinite cache would serve, by where the reused block was "
          + "seen before (trace-model.md section 3). Minutes without requests are drawn as 0.";
    } else {
      c = Charts.stacked(title, "minute since the first arrival", "hit tokens / prefill tokens", x,
          List.of("all sources"), List.of(all));
      caption = "Share of each minute's prefill tokens an infinite cache would serve. Sources are not shown: "
          + chMissing("/reuse_by_source/intra_session/share_of_hit_tokens", "reuse_by_source") + ".";
    }
    for (XYSeries xs : c.getSeriesCollection()) {
      Color col = SOURCE_COLORS.get(xs.getName());
      if (col != null) xs.setFillColor(col);
      if (col != null) xs.setLineColor(col);
    }
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    draw(WORKLOAD, "reuse_over_time.png", title, fig, caption, c);
  }

  private void intervalCdf() {
    String title = "Reuse-interval CDF (token-weighted)";
    String fig = "Observation 4 (about 90% of reuse within 100 s)";
    List<Row> rows = ch == null ? null : folder.table(AuditFolder.CHARACTERIZATION + "/reuse_interval_cdf");
    if (rows == null || rows.isEmpty()) {
      missing(WORKLOAD, title, fig, rows == null ? chMissing("/reuse_interval/all/p50_s", "reuse_interval_cdf")
          : chMissing("/reuse_interval/all/p50_s", "reuse_interval_cdf rows"));
      return;
    }
    Map<String, List<double[]>> bySource = new TreeMap<>(Comparator.comparingInt(ReportCharts::sourceOrder).thenComparing(s -> s));
    for (Row r : sorted(rows, "interval_le_s")) {
      String s = Rows.s(r, "source");
      bySource.computeIfAbsent(s == null ? "all" : s, k -> new ArrayList<>())
          .add(new double[] {Math.max(1e-6, Rows.nan(r, "interval_le_s")), Rows.nan(r, "cumulative_share")});
    }
    XYChart c = xy(title, "reuse interval (s, log scale; zero intervals at 1 us)", "share of hit tokens");
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    for (Map.Entry<String, List<double[]>> e : bySource.entrySet()) {
      double[][] xy = columns(e.getValue());
      XYSeries s = c.addSeries(e.getKey().replace('_', '-'), xy[0], xy[1]);
      s.setMarker(SeriesMarkers.NONE);
      Color col = SOURCE_COLORS.get(e.getKey().replace('_', '-'));
      if (col != null) s.setLineColor(col);
      if (e.getKey().equals("all")) s.setLineWidth(3f);
    }
    double thr = ch.path("reuse_interval").path("threshold_s").asDouble(100);
    if (thr > 0) {
      XYSeries t = c.addSeries("threshold " + fmt(thr) + " s", new double[] {thr, thr}, new double[] {0, 1});
      t.setLineStyle(SeriesLines.DASH_DASH);
      t.setLineColor(Color.GRAY);
      t.setMarker(SeriesMarkers.NONE);
    }
    draw(WORKLOAD, "reuse_interval_cdf.png", title, fig,
        "Cumulative share of hit tokens whose block was last seen at most x seconds earlier, overall and per source "
            + "(trace-model.md section 4); the dashed line is the interval threshold.", c);
  }

  private static int sourceOrder(String s) {
    return switch (s) {
      case "all" -> 0;
      case "intra_session" -> 1;
      case "system_prompt" -> 2;
      case "inter_session" -> 3;
      default -> 4;
    };
  }

  private void lorenz() {
    String title = "Session token Lorenz curve";
    String fig = "Section 2.2 (the top 25% of sessions hold over 80% of tokens)";
    List<Row> rows = ch == null ? null : folder.table(AuditFolder.CHARACTERIZATION + "/session_token_lorenz");
    if (rows == null || rows.isEmpty()) {
      missing(WORKLOAD, title, fig, chMissing("/sessions/token_skew/gini", "session_token_lorenz"));
      return;
    }
    rows = sorted(rows, "population_share");
    double[] x = new double[rows.size()];
    double[] y = new double[rows.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = Rows.nan(rows.get(i), "population_share");
      y[i] = Rows.nan(rows.get(i), "token_share");
    }
    XYChart c = xy(title, "share of sessions (smallest first)", "share of tokens");
    XYSeries s = c.addSeries("sessions", x, y);
    s.setMarker(SeriesMarkers.NONE);
    s.setLineWidth(3f);
    XYSeries eq = c.addSeries("equal shares", new double[] {0, 1}, new double[] {0, 1});
    eq.setLineStyle(SeriesLines.DASH_DASH);
    eq.setLineColor(Color.GRAY);
    eq.setMarker(SeriesMarkers.NONE);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
    JsonNode skew = ch.path("sessions").path("token_skew");
    draw(WORKLOAD, "session_lorenz.png", title, fig,
        "Tokens (input + output) held by the smallest p of sessions. Top-25% share: "
            + pct(skew.path("top_25pct_share").path("value")) + ", Gini: " + num(skew.path("gini").path("value")) + ".", c);
  }

  private void requestRatio() {
    String title = "Requests per instance, per minute";
    String fig = "Section 2.1 (per-minute mean 43 and 48, never below 30)";
    List<Row> rows = ch == null ? null : folder.table(AuditFolder.CHARACTERIZATION + "/request_instance_ratio");
    if (rows == null || rows.isEmpty()) {
      missing(WORKLOAD, title, fig, chMissing("/request_instance_ratio/mean", "request_instance_ratio"));
      return;
    }
    rows = sorted(rows, "minute");
    double m0 = Rows.nan(rows.get(0), "minute");
    double[] x = new double[rows.size()];
    double[] y = new double[rows.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = Rows.nan(rows.get(i), "minute") - m0;
      y[i] = Rows.nan(rows.get(i), "requests_per_instance");
    }
    XYChart c = xy(title, "minute since the first whole minute", "arrivals / instances");
    XYSeries s = c.addSeries("requests per instance", x, y);
    s.setMarker(x.length == 1 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
    XYSeries t = c.addSeries("criterion bound " + fmt(ratioThreshold), new double[] {x[0], x[x.length - 1]},
        new double[] {ratioThreshold, ratioThreshold});
    t.setLineStyle(SeriesLines.DASH_DASH);
    t.setLineColor(Color.GRAY);
    t.setMarker(SeriesMarkers.NONE);
    c.getStyler().setYAxisMin(0.0);
    JsonNode r = ch.path("request_instance_ratio");
    draw(WORKLOAD, "request_instance_ratio.png", title, fig,
        "Arrivals in each whole minute divided by " + r.path("instances").asText("?") + " instances (trace-model.md section 7): "
            + "mean " + num(r.path("mean").path("value")) + ", p5 " + num(r.path("p5").path("value")) + ", min "
            + num(r.path("min").path("value")) + ".", c);
  }

  // ------------------------------------------------------------------ replay

  private boolean replayMissing(String title, String fig) {
    if (runs == null || runs.isEmpty()) {
      missing(REPLAY, title, fig, runs == null ? replayMissing : "the replay has no runs");
      return true;
    }
    return false;
  }

  private void hitRatioByCapacity() {
    String title = "Local vs global hit ratio by global-tier capacity";
    String fig = "Figures 11 and 16b";
    if (replayMissing(title, fig)) return;
    XYChart c = xy(title, "global-tier capacity (x total local capacity)", "hit tokens / input tokens");
    int drawn = 0;
    String why = null;
    for (String p : runs.policies()) {
      List<double[]> local = new ArrayList<>();
      List<double[]> global = new ArrayList<>();
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run b = runs.best(p, g);
        if (b == null) continue;
        Double l = b.metric("local_hit_ratio");
        Double gl = b.metric("global_hit_ratio");
        if (l == null) why = naReason(b, "local_hit_ratio");
        if (l != null) local.add(new double[] {g, l});
        if (gl != null) global.add(new double[] {g, gl});
      }
      if (!local.isEmpty()) {
        series(c, p + " local", local, policyColors.get(p), SeriesLines.SOLID);
        drawn++;
      }
      if (!global.isEmpty()) series(c, p + " global", global, policyColors.get(p), SeriesLines.DASH_DASH);
    }
    if (drawn == 0) {
      missing(REPLAY, title, fig, why != null ? why : "no run has a hit ratio");
      return;
    }
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    draw(REPLAY, "hit_ratio_by_capacity.png", title, fig,
        "Per policy, at its best offered rate: solid = share of input tokens hit in the instance's local KV tier, "
            + "dashed = hit in the global tier." + guardNote(), c);
  }

  private void tpsByCapacity() {
    String title = "TPS within SLO by global-tier capacity";
    String fig = "Figure 16a";
    if (replayMissing(title, fig)) return;
    XYChart c = xy(title, "global-tier capacity (x total local capacity)", "tokens/s within SLO (max over offered rates)");
    int drawn = 0;
    for (String p : runs.policies()) {
      List<double[]> pts = new ArrayList<>();
      for (double g : runs.globalRatios()) {
        ReplayRuns.Run b = runs.best(p, g);
        if (b != null && b.metric("tps_within_slo") != null) pts.add(new double[] {g, b.metric("tps_within_slo")});
      }
      if (!pts.isEmpty()) {
        boolean judged = currentRouter != null ? p.equals(currentRouter)
            : !judgedAt.isEmpty() && judgedAt.values().stream().allMatch(p::equals);
        tpsSeries(c, p, pts, judged);
        drawn++;
      }
    }
    if (drawn == 0) {
      missing(REPLAY, title, fig, "no run has a TPS within SLO");
      return;
    }
    if (currentRouter == null && new java.util.HashSet<>(judgedAt.values()).size() > 1) {
      // the judged router changes with the capacity: one line through the router judged at each
      List<double[]> pts = new ArrayList<>();
      for (Map.Entry<Double, String> e : judgedAt.entrySet()) {
        ReplayRuns.Run b = runs.best(e.getValue(), e.getKey());
        if (b != null && b.metric("tps_within_slo") != null) pts.add(new double[] {e.getKey(), b.metric("tps_within_slo")});
      }
      if (!pts.isEmpty()) {
        series(c, "judged: best paper baseline", pts, Color.DARK_GRAY, SeriesLines.DASH_DASH);
        c.getSeries("judged: best paper baseline").setLineWidth(3.5f);
      }
    }
    c.getStyler().setYAxisMin(0.0);
    draw(REPLAY, "tps_by_capacity.png", title, fig,
        "Maximum over the offered-rate sweep of the tokens per second of requests meeting both SLOs." + emphasisNote(null)
            + guardNote(), c);
  }

  private void tpsByRate() {
    String title = "TPS within SLO by offered rate";
    String fig = "Figure 16a";
    if (replayMissing(title, fig)) return;
    if (runs.rates().size() < 2) {
      missing(REPLAY, title, fig, "the replay ran a single offered rate (x" + fmt(runs.rates().get(0))
          + "); sweep --rate-scale to see where each policy saturates");
      return;
    }
    List<Double> ratios = new ArrayList<>(runs.globalRatios());
    if (ratios.size() > MAX_RATE_CHARTS) {
      // the smallest, the focus and the largest capacities
      TreeSet<Double> keep = new TreeSet<>(List.of(ratios.get(0), focusRatio, ratios.get(ratios.size() - 1)));
      ratios = new ArrayList<>(keep);
    }
    boolean sessions = replay != null && replay.path("settings").path("rateScaling").asText("").equals("SESSIONS");
    for (double g : ratios) {
      String t = title + ", global tier " + fmt(g) + "x";
      XYChart c = xy(t, sessions ? "offered session rate (session trees started per minute)" : "offered rate (x the trace's own)",
          "tokens/s within SLO");
      int drawn = 0;
      for (String p : runs.policies()) {
        TreeMap<Double, Double> best = new TreeMap<>();
        boolean hasDefault = runs.all().stream().anyMatch(r -> r.policy().equals(p) && r.globalRatio() == g && runs.atDefaults(r));
        for (ReplayRuns.Run r : runs.all()) {
          if (!r.policy().equals(p) || r.globalRatio() != g || (hasDefault && !runs.atDefaults(r))) continue;
          Double v = r.metric("tps_within_slo");
          Double offered = sessions ? r.metric("offered_sessions_per_min") : null;
          if (v != null) best.merge(offered != null ? offered : r.rateScale(), v, Math::max);
        }
        if (best.isEmpty()) continue;
        List<double[]> pts = new ArrayList<>();
        best.forEach((k, v) -> pts.add(new double[] {k, v}));
        tpsSeries(c, p, pts, p.equals(currentRouter != null ? currentRouter : judgedAt.get(g)));
        drawn++;
      }
      if (drawn == 0) {
        missing(REPLAY, t, fig, "no run at this capacity has a TPS within SLO");
        continue;
      }
      c.getStyler().setYAxisMin(0.0);
      draw(REPLAY, "tps_by_rate_g" + fileNumber(g) + ".png", t, fig,
          (sessions ? "TPS within SLO against the offered session rate: at rate scale x session trees start x times as often "
              + "as traced and each agent keeps its own time between turns; every offered request counts, and one not answered "
              + "within the agent timeout fails."
              : "TPS within SLO at each offered rate (arrival times divided by the rate scale).") + emphasisNote(g) + guardNote(), c);
    }
  }

  /**
   * SMetric's gain over the judged router over the two conditions that move it most (replay.json
   * "conditions.grid"): one cell per pair of documented values, the gain printed in it; green =
   * gain, red = loss, one symmetric colour scale.
   */
  private void conditionsGrid() {
    String title = "Conditions: SMetric's gain over the judged router";
    String fig = "issue 15, conditions";
    if (replayMissing(title, fig)) return;
    JsonNode cond = replay.path("conditions");
    JsonNode grid = cond.path("grid");
    if (!grid.isObject()) {
      missing(REPLAY, title, fig, cond.has("not_applicable") ? cond.path("not_applicable").asText()
          : "fewer than two swept conditions moved the gain");
      return;
    }
    JsonNode px = null;
    JsonNode py = null;
    for (JsonNode p : cond.path("parameters")) {
      if (p.path("name").asText().equals(grid.path("x").asText())) px = p;
      if (p.path("name").asText().equals(grid.path("y").asText())) py = p;
    }
    if (px == null || py == null) {
      missing(REPLAY, title, fig, "the grid names a parameter the conditions block does not list");
      return;
    }
    List<String> xs = new ArrayList<>();
    for (JsonNode v : grid.path("x_levels")) xs.add(level(v.path("v"), px));
    List<String> ys = new ArrayList<>();
    for (JsonNode v : grid.path("y_levels")) ys.add(level(v.path("v"), py));
    List<Number[]> heat = new ArrayList<>();
    double top = 0.01;
    for (int i = 0; i < ys.size(); i++) {
      for (int j = 0; j < xs.size(); j++) {
        JsonNode g = grid.path("gain").path(i).path(j);
        if (!g.isNumber()) continue;
        heat.add(new Number[] {j, i, 100 * g.asDouble()});
        top = Math.max(top, Math.abs(100 * g.asDouble()));
      }
    }
    if (heat.isEmpty()) {
      missing(REPLAY, title, fig, "no grid point has a gain");
      return;
    }
    top = Math.ceil(top * 10) / 10; // a legend bound that prints short
    String t = title + " at " + fmt(cond.path("global_ratio").asDouble()) + "x (" + cond.path("judged_router").asText() + ")";
    HeatMapChart c = new org.knowm.xchart.HeatMapChartBuilder().width(Charts.W).height(Charts.H).title(t)
        .xAxisTitle(px.path("label").asText() + unitSuffix(px)).yAxisTitle(py.path("label").asText() + unitSuffix(py)).build();
    c.getStyler().setChartBackgroundColor(Color.WHITE);
    c.getStyler().setLegendVisible(true);
    c.getStyler().setRangeColors(new Color[] {new Color(0xC0392B), Color.WHITE, new Color(0x1E8449)});
    c.getStyler().setMin(-top);
    c.getStyler().setMax(top);
    c.getStyler().setShowValue(true);
    c.getStyler().setHeatMapValueDecimalPattern("+0.0;-0.0");
    c.addSeries("gain %", xs, ys, heat);
    draw(REPLAY, "conditions_grid.png", t, fig, "SMetric's TPS within SLO over the judged router's, minus 1, in percent, for "
        + "each pair of documented values of the two conditions that move it most (each point: maximum over offered rates). "
        + "The audit's defaults: " + px.path("label").asText() + " " + level(px.path("base_value"), px) + ", "
        + py.path("label").asText() + " " + level(py.path("base_value"), py) + ". Sources of the ranges: " + px.path("source").asText()
        + "; " + py.path("source").asText() + ".", c);
  }

  private static String level(JsonNode v, JsonNode p) {
    double x = v.isNumber() ? v.asDouble() : v.asText().equals("Infinity") ? Double.POSITIVE_INFINITY : Double.NaN;
    if (Double.isInfinite(x)) return "inf";
    return fmt(x * p.path("unit_scale").asDouble(1));
  }

  private static String unitSuffix(JsonNode p) {
    String u = p.path("unit").asText("");
    return u.isEmpty() ? "" : " (" + u + ")";
  }

  private void heatmaps() {
    String fig = "Figure 11 (bottom)";
    String title = "Load imbalance per instance over time";
    if (replayMissing(title, fig)) return;
    Map<String, ReplayRuns.Run> best = runs.bestByPolicy(focusRatio);
    List<Integer> ids = best.values().stream().map(ReplayRuns.Run::runId).toList();
    List<Row> rows = folder.table(AuditFolder.REPLAY + "/instance_load", col("run_id").isin(ids.toArray()));
    if (rows == null || rows.isEmpty()) {
      missing(REPLAY, title, fig, rows == null ? "the replay has no instance_load table" : "no run recorded a window with load");
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
      String t = "Load / mean load per instance, " + p + " (global tier " + fmt(focusRatio) + "x)";
      double[][] z = zs.get(p);
      if (z.length == 0 || z[0].length == 0) {
        missing(REPLAY, t, fig, "the run recorded no load windows");
        continue;
      }
      HeatMapChart c = Charts.heatmap(t, "time window (" + windowLabel(z[0].length, byRun.get(run.runId())) + ")",
          "instance", z, 0, top);
      Double mean = run.metric("imbalance_mean");
      draw(REPLAY, String.format(Locale.ROOT, "imbalance_%02d_%s.png", k, safe(p)), t, fig,
          "Each cell: the instance's time-averaged in-flight token load in the window divided by the mean over instances"
              + " (1 = even; one colour scale, 0 to " + fmt(top) + ", for every policy). Mean max/mean over windows: "
              + num(mean) + ". Run " + run.runId() + ", offered rate x" + fmt(run.rateScale()) + ".", c);
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
    if (replayMissing(title, fig)) return;
    List<String> cats = new ArrayList<>();
    List<Double> vals = new ArrayList<>();
    String why = null;
    for (Map.Entry<String, ReplayRuns.Run> e : runs.bestByPolicy(focusRatio).entrySet()) {
      Double s = e.getValue().metric("stickiness");
      if (s == null) {
        why = naReason(e.getValue(), "stickiness");
        continue;
      }
      cats.add(e.getKey());
      vals.add(s);
    }
    if (cats.isEmpty()) {
      missing(REPLAY, title, fig, why != null ? why : "no run has a stickiness value");
      return;
    }
    double[] v = vals.stream().mapToDouble(Double::doubleValue).toArray();
    CategoryChart c = Charts.bars(title, "policy", "share of follow-ups on the turn-0 instance", cats,
        List.of("global tier " + fmt(focusRatio) + "x"), List.of(v));
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    c.getStyler().setXAxisLabelRotation(30);
    draw(REPLAY, "stickiness.png", title, fig,
        "Share of follow-ups (turn > 0 whose session's turn-0 request is in the trace) routed to the instance that "
            + "served turn 0, at the policy's best offered rate." + guardNote(), c);
  }

  private void latencyCdf(String metric, String name) {
    String title = name + " CDF by policy";
    String fig = "Figure 17";
    if (replayMissing(title, fig)) return;
    Map<String, ReplayRuns.Run> best = runs.bestByPolicy(focusRatio);
    List<Integer> ids = best.values().stream().map(ReplayRuns.Run::runId).toList();
    List<Row> rows = folder.table(AuditFolder.REPLAY + "/latency_cdf",
        col("run_id").isin(ids.toArray()).and(col("metric").equalTo(metric)));
    if (rows == null || rows.isEmpty()) {
      missing(REPLAY, title, fig, rows == null ? "the replay has no latency_cdf table"
          : metric.equals("tpot") ? "no run has a TPOT (disaggregated prefill without a decode pool, or outputs of one token)"
          : "no run completed a request");
      return;
    }
    Map<Integer, List<double[]>> byRun = new TreeMap<>();
    for (Row r : rows) {
      byRun.computeIfAbsent(r.getInt(r.fieldIndex("run_id")), k -> new ArrayList<>())
          .add(new double[] {Rows.nan(r, "value_s"), Rows.nan(r, "quantile")});
    }
    XYChart c = xy(title + ", global tier " + fmt(focusRatio) + "x", name + " (s)", "share of requests");
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
      XYSeries s = c.addSeries(e.getKey(), columns(pts)[0], columns(pts)[1]);
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
      XYSeries t = c.addSeries("TPOT SLO " + fmt(slo * 1000) + " ms", new double[] {slo, slo}, new double[] {0, 1});
      t.setLineStyle(SeriesLines.DASH_DASH);
      t.setLineColor(Color.GRAY);
      t.setMarker(SeriesMarkers.NONE);
    }
    draw(REPLAY, metric + "_cdf.png", title, fig,
        "Per-request " + name + " distribution (100 quantiles, nearest rank) of each policy's best run at global tier "
            + fmt(focusRatio) + "x." + guardNote(), c);
  }

  private void ablation() {
    String title = "Guard ablation: SMetric variants by global-tier capacity";
    String fig = "Figure 24";
    if (replayMissing(title, fig)) return;
    List<String> present = new ArrayList<>();
    for (String p : ReplayRuns.SMETRIC_FAMILY) if (runs.policies().contains(p)) present.add(p);
    if (present.size() < 2) {
      missing(REPLAY, title, fig, "the replay ran " + (present.isEmpty() ? "no SMetric variant" : "only " + present.get(0))
          + "; add smetric,smetric-basic,smetric-overload-only,smetric-eviction-only to --policies");
      return;
    }
    List<String> cats = new ArrayList<>();
    for (double g : runs.globalRatios()) cats.add(fmt(g) + "x");
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
    draw(REPLAY, "ablation.png", title, fig,
        "smetric = both guards (not_overloaded, session_not_evicted); smetric-basic = neither; the other two keep one. "
            + "Maximum TPS within SLO over offered rates at OVERLOAD " + fmt(runs.defaultOverload()) + " and HIT_RATIO "
            + fmt(runs.defaultHitRatio()) + " where the variant reads them.", c);
  }

  private void sensitivity() {
    String fig = "Figure 25";
    if (replayMissing("Guard threshold sensitivity", fig)) return;
    boolean any = sensitivityOf("overload", "OVERLOAD", fig) | sensitivityOf("hit_ratio", "HIT_RATIO", fig);
    if (!any) {
      missing(REPLAY, "Guard threshold sensitivity", fig,
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
    for (double v : values) cats.add(Double.isInfinite(v) ? "off (inf)" : fmt(v));
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
        names.add("global tier " + fmt(g) + "x");
        vals.add(y);
      }
    }
    String title = "SMetric threshold sensitivity: " + name;
    CategoryChart c = Charts.bars(title, name, "tokens/s within SLO", cats, names, vals);
    String otherName = column.equals("overload") ? "HIT_RATIO" : "OVERLOAD";
    draw(REPLAY, "sensitivity_" + column + ".png", title, fig,
        "Maximum TPS within SLO over offered rates for each " + name + " value, " + otherName + " at its default "
            + fmt(otherDefault) + " where that run exists (else the best). not_overloaded: l[s] <= OVERLOAD x mean(l); "
            + "session_not_evicted: c[s] >= HIT_RATIO x est_hit (our reading of the paper, docs/replay.md).", c);
    return true;
  }

  private String guardNote() {
    return " SMetric-family runs at OVERLOAD " + fmt(runs.defaultOverload()) + ", HIT_RATIO " + fmt(runs.defaultHitRatio())
        + " when the sweep includes them (else the best setting).";
  }

  private static String naReason(ReplayRuns.Run r, String metric) {
    String na = r.notApplicable();
    if (na == null) return "the replay did not compute " + metric;
    // not_applicable is written as a Java map's toString: {metric=reason, ...}
    int i = na.indexOf(metric + "=");
    if (i < 0) return na;
    int end = na.indexOf(", ", i);
    String s = na.substring(i + metric.length() + 1, end < 0 ? na.length() : end);
    return s.endsWith("}") ? s.substring(0, s.length() - 1) : s;
  }

  // ------------------------------------------------------------------ plumbing

  private void missing(String section, String title, String fig, String why) {
    entries.add(new Entry(section, title, fig, null, null, why));
  }

  private void draw(String section, String file, String title, String fig, String caption, IChart chart) {
    tidy(chart);
    folder.writeBytes(file, Charts.pngBytes(chart));
    entries.add(new Entry(section, title, fig, caption, file, null));
  }

  /** Legends with many entries go outside the plot (they would hide lines); fewer, sparser y ticks. */
  static void tidy(IChart chart) {
    if (chart instanceof XYChart c) {
      if (c.getSeriesCollection().size() > 4) c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
      c.getStyler().setYAxisTickMarkSpacingHint(60);
    } else if (chart instanceof CategoryChart c) {
      if (c.getSeriesCollection().size() > 4) c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
      c.getStyler().setYAxisTickMarkSpacingHint(60);
    }
  }

  static XYChart xy(String title, String xTitle, String yTitle) {
    XYChart c = new XYChartBuilder().width(Charts.W).height(Charts.H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    Charts.style(c.getStyler());
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    c.getStyler().setMarkerSize(6);
    return c;
  }

  static void series(XYChart c, String name, List<double[]> pts, Color color, java.awt.BasicStroke line) {
    double[][] xy = columns(pts);
    XYSeries s = c.addSeries(name, xy[0], xy[1]);
    s.setLineColor(color);
    s.setMarkerColor(color);
    s.setLineStyle(line);
    s.setMarker(SeriesMarkers.CIRCLE);
  }

  static double[][] columns(List<double[]> pts) {
    double[][] xy = new double[2][pts.size()];
    for (int i = 0; i < pts.size(); i++) {
      xy[0][i] = pts.get(i)[0];
      xy[1][i] = pts.get(i)[1];
    }
    return xy;
  }

  static List<Row> sorted(List<Row> rows, String col) {
    List<Row> s = new ArrayList<>(rows);
    s.sort(Comparator.comparingDouble(r -> Rows.nan(r, col)));
    return s;
  }

  static String safe(String s) {
    String t = s == null ? "" : s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "_");
    return t.length() > 40 ? t.substring(0, 40) : t;
  }

  static String fileNumber(double g) {
    return fmt(g).replace('.', '_');
  }

  static String fmt(double x) {
    if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
    if (Double.isNaN(x)) return "n/a";
    return new java.math.BigDecimal(String.format(Locale.ROOT, "%.4g", x)).stripTrailingZeros().toPlainString();
  }

  static String num(Double x) {
    return x == null ? "n/a" : fmt(x);
  }

  static String num(JsonNode n) {
    return n != null && n.isNumber() ? fmt(n.asDouble()) : "n/a";
  }

  static String pct(JsonNode n) {
    return n != null && n.isNumber() ? String.format(Locale.ROOT, "%.1f%%", 100 * n.asDouble()) : "n/a";
  }
}
