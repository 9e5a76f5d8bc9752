package io.smetric.audit.report;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.ReplayTables.RunMetrics;
import io.smetric.audit.contract.ReplayTables;
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
    latencyCdf(ReplayTables.TTFT, "TTFT");
    latencyCdf(ReplayTables.TPOT, "TPOT");
  }

  private void heatmaps() {
    String fig = "Figure 11 (bottom)";
    String title = "Load imbalance per instance over time";
    if (charts.replayMissing(title, fig)) return;
    Map<String, ReplayRuns.Run> best = runs.bestByPolicy(focusRatio);
    List<Integer> ids = best.values().stream().map(ReplayRuns.Run::runId).toList();
    List<Row> rows = folder.table(AuditLayout.REPLAY_INSTANCE_LOAD, col(ReplayTables.RUN_ID).isin(ids.toArray()));
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, rows == null ? "the replay has no instance_load table" : "no run recorded a window with load");
      return;
    }
    Map<Integer, List<Row>> byRun = new TreeMap<>();
    for (Row r : rows) byRun.computeIfAbsent(r.getInt(r.fieldIndex(ReplayTables.RUN_ID)), k -> new ArrayList<>()).add(r);
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replay);
    double windowS = settings == null || settings.imbalanceWindowS() == null ? 60 : settings.imbalanceWindowS();
    int k = 0;
    for (Map.Entry<String, ReplayRuns.Run> e : best.entrySet()) {
      k++;
      String p = e.getKey();
      ReplayRuns.Run run = e.getValue();
      String t = "Load / mean load per instance, " + p + " (global tier " + Numbers.sig4(focusRatio) + "x)";
      List<Row> rs = byRun.get(run.runId());
      double[][] load = rs == null ? new double[0][0] : loadMatrix(rs);
      int[] span = load.length == 0 ? null : steadySpan(load);
      if (span == null) {
        charts.missing(ReportCharts.REPLAY, t, fig, "the run recorded no load windows");
        continue;
      }
      Heat h = heat(load, span[0], span[1], windowS);
      // each chart its own colour scale (a shared one left most cells white next to one policy's hot spot)
      double top = Math.max(1.1, Math.ceil(h.top() * 10) / 10);
      HeatMapChart c = Charts.heatmap(t, "minute of the run (column start; " + Numbers.sig4(windowS) + " s windows"
          + (h.group() > 1 ? ", " + h.group() + " per column" : "") + ")", "instance", h.minutes(), h.z(), 0, top, "load / mean");
      int windows = load[0].length;
      charts.draw(ReportCharts.REPLAY, String.format(Locale.ROOT, "imbalance_%02d_%s.png", k, safe(p)), t, fig,
          "Each cell: the instance's time-averaged in-flight token load in the window divided by the mean over instances "
              + "(1 = even). Colour scale 0 to " + Numbers.sig4(top) + " for this chart alone (its legend): compare policies by "
              + "the numbers, not the shades. " + trimNote(span, windows, windowS) + " Mean max/mean over the windows shown: "
              + Numbers.sig4(h.meanImbalance()) + " (the replay's imbalance_mean, over every window with load: "
              + Numbers.sig4(run.metric(RunMetrics.IMBALANCE_MEAN)) + "). Run " + run.runId() + ", offered rate " + charts.rate(run.rateScale())
              + ".", c);
    }
  }

  /** load[instance][window] from the instance_load rows of one run (NaN = no row). */
  static double[][] loadMatrix(List<Row> rs) {
    int instances = 0;
    int windows = 0;
    for (Row r : rs) {
      instances = Math.max(instances, r.getInt(r.fieldIndex(ReplayTables.INSTANCE)) + 1);
      windows = Math.max(windows, r.getInt(r.fieldIndex(ReplayTables.WINDOW)) + 1);
    }
    double[][] load = new double[instances][windows];
    for (double[] l : load) java.util.Arrays.fill(l, Double.NaN);
    for (Row r : rs) load[r.getInt(r.fieldIndex(ReplayTables.INSTANCE))][r.getInt(r.fieldIndex(ReplayTables.WINDOW))] = Rows.nan(r, ReplayTables.TOKEN_LOAD);
    return load;
  }

  /** Share of the median window load below which the run's first and last windows count as warm-up and drain (our rule). */
  static final double RAMP_SHARE = 0.5;

  /**
   * The windows [from, to) the heatmap shows: the run without its warm-up (the leading windows
   * whose load summed over instances is below {@link #RAMP_SHARE} of the median over windows with
   * load) and its drain (the trailing such windows). While few requests are in flight one instance
   * holding them all reads as max/mean = instances, which is ramp-up, not routing. Null when no
   * window has load.
   */
  static int[] steadySpan(double[][] load) {
    int windows = load[0].length;
    double[] total = totals(load);
    double[] loaded = java.util.Arrays.stream(total).filter(x -> x > 0).sorted().toArray();
    if (loaded.length == 0) return null;
    int n = loaded.length;
    double median = n % 2 == 1 ? loaded[n / 2] : (loaded[n / 2 - 1] + loaded[n / 2]) / 2;
    int from = 0;
    while (from < windows && total[from] < RAMP_SHARE * median) from++;
    int to = windows;
    while (to > from && total[to - 1] < RAMP_SHARE * median) to--;
    return new int[] {from, to};
  }

  private static double[] totals(double[][] load) {
    double[] total = new double[load[0].length];
    for (double[] l : load) for (int w = 0; w < total.length; w++) total[w] += Double.isNaN(l[w]) ? 0 : l[w];
    return total;
  }

  /**
   * A heatmap's cells: z[instance][column] = load / mean load over windows [from, to), merged into
   * columns of {@code group} windows (load-weighted: loads summed first); minutes: each column's
   * start, in minutes since the run's first window; top: the largest cell; meanImbalance: the mean
   * over the shown windows with load of max / mean load (before merging, as the replay computes it).
   */
  record Heat(double[][] z, List<String> minutes, int group, double top, double meanImbalance) {}

  static Heat heat(double[][] load, int from, int to, double windowS) {
    int instances = load.length;
    int windows = to - from;
    int group = (windows + MAX_HEAT_COLUMNS - 1) / MAX_HEAT_COLUMNS;
    int cols = (windows + group - 1) / Math.max(1, group);
    double[][] z = new double[instances][cols];
    List<String> minutes = new ArrayList<>();
    double top = 0;
    for (int j = 0; j < cols; j++) {
      double[] sum = new double[instances];
      double total = 0;
      for (int w = from + j * group; w < Math.min(to, from + (j + 1) * group); w++) {
        for (int i = 0; i < instances; i++) {
          double v = Double.isNaN(load[i][w]) ? 0 : load[i][w];
          sum[i] += v;
          total += v;
        }
      }
      double mean = total / instances;
      for (int i = 0; i < instances; i++) {
        z[i][j] = mean > 0 ? sum[i] / mean : 0;
        top = Math.max(top, z[i][j]);
      }
      minutes.add(Numbers.sig4((from + j * group) * windowS / 60));
    }
    double imb = 0;
    int withLoad = 0;
    for (int w = from; w < to; w++) {
      double max = 0;
      double total = 0;
      for (double[] l : load) {
        double v = Double.isNaN(l[w]) ? 0 : l[w];
        max = Math.max(max, v);
        total += v;
      }
      if (total > 0) {
        imb += max / (total / instances);
        withLoad++;
      }
    }
    return new Heat(z, minutes, group, top, withLoad == 0 ? Double.NaN : imb / withLoad);
  }

  /** The caption sentence naming the windows left out. */
  static String trimNote(int[] span, int windows, double windowS) {
    String warm = span[0] == 0 ? "no warm-up window" : "the warm-up, minutes 0-" + Numbers.sig4(span[0] * windowS / 60)
        + " (" + span[0] + (span[0] == 1 ? " window)" : " windows)");
    int drain = windows - span[1];
    String dr = drain == 0 ? "no drain window" : "the drain, minutes " + Numbers.sig4(span[1] * windowS / 60) + "-"
        + Numbers.sig4(windows * windowS / 60) + " (" + drain + (drain == 1 ? " window)" : " windows)");
    return "Left out: " + warm + " and " + dr + ", i.e. the first and last windows whose load summed over instances is below "
        + Numbers.percent(RAMP_SHARE, 0) + " of the run's median window load (our rule: while few requests are in flight, "
        + "max/mean reads ramp-up as imbalance).";
  }

  private void stickiness() {
    String title = "Follow-up stickiness by policy";
    String fig = "Figure 12 (load balance 4.0%, cache-first 96.6%)";
    if (charts.replayMissing(title, fig)) return;
    List<String> cats = new ArrayList<>();
    List<Double> vals = new ArrayList<>();
    Map<Double, List<String>> byRate = new TreeMap<>();
    String why = null;
    for (Map.Entry<String, ReplayRuns.Run> e : runs.bestByPolicy(focusRatio).entrySet()) {
      Double s = e.getValue().metric(RunMetrics.STICKINESS);
      if (s == null) {
        why = ReportCharts.naReason(e.getValue(), RunMetrics.STICKINESS);
        continue;
      }
      cats.add(e.getKey());
      vals.add(s);
      byRate.computeIfAbsent(e.getValue().rateScale(), x -> new ArrayList<>()).add(e.getKey());
    }
    if (cats.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, why != null ? why : "no run has a stickiness value");
      return;
    }
    // one series per policy, its bar in its own category and colour; overlapped, so each bar fills its slot
    List<double[]> series = new ArrayList<>();
    for (int i = 0; i < cats.size(); i++) {
      double[] v = new double[cats.size()];
      java.util.Arrays.fill(v, Double.NaN);
      v[i] = vals.get(i);
      series.add(v);
    }
    CategoryChart c = Charts.bars(title + ", global tier " + Numbers.sig4(focusRatio) + "x", "policy",
        "follow-ups on the turn-0 instance", cats, cats, series);
    c.getStyler().setOverlapped(true);
    c.getStyler().setLegendVisible(false);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    // every bar labelled: XChart thins category labels closer than the spacing hint (12 bars had 6 labels)
    c.getStyler().setXAxisTickMarkSpacingHint(10);
    c.getStyler().setXAxisLabelRotation(60);
    for (String p : cats) c.getSeries(p).setFillColor(policyColors.get(p));
    List<String> rates = new ArrayList<>();
    byRate.forEach((x, ps) -> rates.add(charts.rate(x) + ": " + String.join(", ", ps)));
    charts.draw(ReportCharts.REPLAY, "stickiness.png", title, fig,
        "Share of follow-ups (turn > 0 whose session's turn-0 request is in the trace) routed to the instance that "
            + "served turn 0, at global tier " + Numbers.sig4(focusRatio) + "x and each policy's best offered rate (" + String.join("; ", rates)
            + ")." + charts.guardNote(), c);
  }

  /**
   * The runs the latency CDFs compare at one capacity: per policy the run at one offered rate every
   * policy ran (at the default guard thresholds where the policy has such runs), the common rate
   * nearest SMetric's best rate (in ratio); without a common rate, each policy's best run.
   */
  static Map<String, ReplayRuns.Run> equalRateRuns(ReplayRuns runs, double g) {
    Map<String, ReplayRuns.Run> best = runs.bestByPolicy(g);
    Map<String, Map<Double, ReplayRuns.Run>> byRate = new LinkedHashMap<>();
    for (String p : best.keySet()) {
      boolean hasDefault = runs.all().stream().anyMatch(r -> r.policy().equals(p) && r.globalRatio() == g && runs.atDefaults(r));
      Map<Double, ReplayRuns.Run> m = new TreeMap<>();
      for (ReplayRuns.Run r : runs.all()) {
        if (r.policy().equals(p) && r.globalRatio() == g && (!hasDefault || runs.atDefaults(r))) m.putIfAbsent(r.rateScale(), r);
      }
      byRate.put(p, m);
    }
    java.util.Set<Double> common = null;
    for (Map<Double, ReplayRuns.Run> m : byRate.values()) {
      if (common == null) common = new java.util.TreeSet<>(m.keySet());
      else common.retainAll(m.keySet());
    }
    if (common == null || common.isEmpty()) return best;
    ReplayRuns.Run anchor = best.containsKey("smetric") ? best.get("smetric") : best.values().iterator().next();
    double target = anchor.rateScale();
    double pick = Double.NaN;
    for (double x : common) {
      if (Double.isNaN(pick) || Math.abs(Math.log(x / target)) < Math.abs(Math.log(pick / target))) pick = x;
    }
    Map<String, ReplayRuns.Run> out = new LinkedHashMap<>();
    for (Map.Entry<String, Map<Double, ReplayRuns.Run>> e : byRate.entrySet()) out.put(e.getKey(), e.getValue().get(pick));
    return out;
  }

  private void latencyCdf(String metric, String name) {
    String title = name + " CDF by policy";
    String fig = "Figure 17";
    if (charts.replayMissing(title, fig)) return;
    Map<String, ReplayRuns.Run> chosen = equalRateRuns(runs, focusRatio);
    java.util.Set<Double> rateSet = new java.util.TreeSet<>();
    for (ReplayRuns.Run r : chosen.values()) rateSet.add(r.rateScale());
    boolean equal = rateSet.size() == 1;
    List<Integer> ids = chosen.values().stream().map(ReplayRuns.Run::runId).toList();
    List<Row> rows = folder.table(AuditLayout.REPLAY_LATENCY_CDF,
        col(ReplayTables.RUN_ID).isin(ids.toArray()).and(col(ReplayTables.METRIC).equalTo(metric)));
    if (rows == null || rows.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, rows == null ? "the replay has no latency_cdf table"
          : metric.equals(ReplayTables.TPOT) ? "no run has a TPOT (disaggregated prefill without a decode pool, or outputs of one token)"
          : "no run completed a request");
      return;
    }
    Map<Integer, List<double[]>> byRun = new TreeMap<>();
    for (Row r : rows) {
      byRun.computeIfAbsent(r.getInt(r.fieldIndex(ReplayTables.RUN_ID)), k -> new ArrayList<>())
          .add(new double[] {Rows.nan(r, ReplayTables.VALUE_S), Rows.nan(r, ReplayTables.QUANTILE)});
    }
    XYChart c = Charts.xy(title + ", global tier " + Numbers.sig4(focusRatio) + "x" + (equal ? ", offered rate x"
        + Numbers.sig4(rateSet.iterator().next()) : ""), name + " (s)", "share of requests");
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
    boolean positive = true;
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Map.Entry<String, ReplayRuns.Run> e : chosen.entrySet()) {
      List<double[]> pts = byRun.get(e.getValue().runId());
      if (pts == null) continue;
      pts.sort(Comparator.comparingDouble((double[] a) -> a[1]));
      for (double[] p : pts) {
        if (!(p[0] > 0)) positive = false;
        lo = Math.min(lo, p[0]);
        hi = Math.max(hi, p[0]);
      }
      String label = equal ? e.getKey() : e.getKey() + " x" + Numbers.sig4(e.getValue().rateScale());
      XYSeries s = c.addSeries(label, Charts.columns(pts)[0], Charts.columns(pts)[1]);
      s.setMarker(SeriesMarkers.NONE);
      s.setLineColor(policyColors.get(e.getKey()));
      if (e.getKey().equals("smetric")) s.setLineWidth(3f);
    }
    double slo = sloMarker(metric);
    String sloNote = "";
    if (!Double.isNaN(slo)) {
      lo = Math.min(lo, slo);
      hi = Math.max(hi, slo);
      String label = metric.equals(ReplayTables.TPOT) ? "TPOT SLO " + Numbers.sig4(slo * 1000) + " ms" : "TTFT SLO at the mean prompt " + Numbers.sig4(slo) + " s";
      // a middle point off the quantiles' 0.01 grid: on equally spaced y values XChart puts a tick at every
      // few of them (26 labels on a 0-1 axis)
      XYSeries t = c.addSeries(label, new double[] {slo, slo, slo}, new double[] {0, 1.0 / 3, 1});
      t.setLineStyle(SeriesLines.DASH_DASH);
      t.setLineColor(Color.GRAY);
      t.setMarker(SeriesMarkers.NONE);
      sloNote = metric.equals(ReplayTables.TPOT) ? " Dashed: the TPOT SLO, " + Numbers.sig4(slo * 1000) + " ms."
          : " Dashed: the TTFT SLO of a request with the trace's mean prompt (" + Numbers.count(Math.round(meanPrompt()))
              + " tokens): " + Numbers.sig4(ttftBase()) + " s + " + Numbers.sig4(ttftPerToken() * 1000) + " ms per input token = "
              + Numbers.sig4(slo) + " s; each request is judged at its own prompt's SLO.";
    }
    if (positive && hi / lo > 100) c.getStyler().setXAxisLogarithmic(true);
    String at = equal ? "every policy at the same offered rate, " + charts.rate(rateSet.iterator().next())
        + " (the rate every policy ran nearest SMetric's best)"
        : "each policy at its own best offered rate (no offered rate was run by every policy; the legend gives each)";
    charts.draw(ReportCharts.REPLAY, metric + "_cdf.png", title, fig,
        "Per-request " + name + " distribution (100 quantiles, nearest rank) at global tier " + Numbers.sig4(focusRatio) + "x, "
            + at + "." + sloNote + charts.guardNote(), c);
  }

  private double ttftBase() {
    return orNaN(settings() == null ? null : settings().ttftBaseS());
  }

  private double ttftPerToken() {
    return orNaN(settings() == null ? null : settings().ttftPerTokenS());
  }

  private io.smetric.audit.contract.SettingsBlock settings() {
    return io.smetric.audit.contract.SettingsBlock.of(replay);
  }

  private static double orNaN(Double x) {
    return x == null ? Double.NaN : x;
  }

  /** Prompt tokens per request over the trace (characterization.json), NaN without it. */
  private double meanPrompt() {
    CharacterizationSummary ch = charts.characterization();
    if (ch == null || ch.trace() == null) return Double.NaN;
    CharacterizationSummary.Trace t = ch.trace();
    return t.requests() > 0 ? (double) t.prefillTokens() / t.requests() : Double.NaN;
  }

  /** Where the SLO line goes: TPOT's fixed SLO; TTFT's at the trace's mean prompt. NaN when unknown. */
  private double sloMarker(String metric) {
    if (replay == null) return Double.NaN;
    if (metric.equals(ReplayTables.TPOT)) return orNaN(settings() == null ? null : settings().tpotS());
    return ttftBase() + ttftPerToken() * meanPrompt();
  }

  static String safe(String s) {
    String t = s == null ? "" : s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "_");
    return t.length() > 40 ? t.substring(0, 40) : t;
  }
}
