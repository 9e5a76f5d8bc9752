package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.ReplayComparison;
import java.awt.Color;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.internal.chartpart.IChart;

/**
 * Draws the report's charts (docs/report.md, "Charts") from the audit folder's tables and writes
 * them as PNG files beside index.html. Every chart is drawn only when its data exists; otherwise
 * its entry says why not, and the page prints that line in its place. This class holds what every
 * chart family shares (the stage outputs, the replay's runs, one colour per policy, the focus
 * capacity, the entries in page order); the families draw: {@link WorkloadCharts},
 * {@link CapacityCharts}, {@link PolicyCharts}, {@link GuardCharts}, {@link ConditionsChart}.
 */
public final class ReportCharts {
  /**
   * One chart of the report: drawn ({@code file} set, {@code plot} the data it plots) or missing
   * ({@code missing} says why).
   */
  public record Entry(String section, String title, String figure, String caption, String file, String missing, Charts.Plot plot) {
    public Entry(String section, String title, String figure, String caption, String file, String missing) {
      this(section, title, figure, caption, file, missing, null);
    }

    public boolean drawn() {
      return file != null;
    }
  }

  public static final String WORKLOAD = "Workload";
  public static final String REPLAY = "Replay";

  private final AuditFolder folder;
  private final CharacterizationSummary ch;
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
  private final Map<Double, String> judgedAt = new TreeMap<>();

  /**
   * @param characterization characterization.json, or null when absent
   * @param replay replay.json, or null
   * @param runs the replay's runs, or null when there is no replay
   * @param replayMissing why there is no replay (used as the reason of every replay chart)
   * @param ratioThreshold the requests-per-instance bound drawn on the ratio chart
   */
  public ReportCharts(AuditFolder folder, CharacterizationSummary characterization, JsonNode replay, ReplayRuns runs,
      String replayMissing, double ratioThreshold) {
    this.folder = folder;
    this.ch = characterization;
    this.replay = replay;
    this.runs = runs;
    this.replayMissing = replayMissing;
    this.ratioThreshold = ratioThreshold;
    this.focusRatio = runs == null || runs.isEmpty() ? null : focusRatio(replay, runs);
    if (runs != null) for (String p : runs.policies()) policyColors.put(p, Charts.policyColor(p));
    ReplayComparison j = ReplayComparison.judged(replay);
    this.currentRouter = j != null ? j.currentRouter() : null;
    if (j != null) {
      for (ReplayComparison.Row e : j.rows()) if (e.bestBaseline() != null) judgedAt.put(e.globalRatio(), e.bestBaseline());
    }
  }

  /**
   * The global-tier capacity the per-policy charts show: the one where SMetric's gain is largest in
   * the comparison the verdict and the headline use (replay.json "judged", else "comparison"),
   * else the largest replayed capacity.
   */
  static double focusRatio(JsonNode replay, ReplayRuns runs) {
    List<Double> g = runs.globalRatios();
    ReplayComparison j = ReplayComparison.judged(replay);
    Double at = j == null || j.gainWithGlobal() == null ? null : j.gainWithGlobal().globalRatio();
    if (at != null && g.contains(at)) return at;
    return g.get(g.size() - 1);
  }

  /** Draws every chart (writing the PNG files) and returns the entries in page order. */
  public List<Entry> render() {
    new WorkloadCharts(this).render();
    new CapacityCharts(this).render();
    new PolicyCharts(this).render();
    new GuardCharts(this).render();
    new ConditionsChart(this).render();
    return entries;
  }

  // ------------------------------------------------------------------ what the families share

  AuditFolder folder() {
    return folder;
  }

  CharacterizationSummary characterization() {
    return ch;
  }

  JsonNode replay() {
    return replay;
  }

  ReplayRuns runs() {
    return runs;
  }

  double ratioThreshold() {
    return ratioThreshold;
  }

  /** The capacity the per-policy charts show, null without replay runs. */
  public Double focusRatio() {
    return focusRatio;
  }

  /** Each policy's colour ({@link Charts#policyColor}), in the runs' first-appearance order. */
  Map<String, Color> policyColors() {
    return policyColors;
  }

  String currentRouter() {
    return currentRouter;
  }

  Map<Double, String> judgedAt() {
    return judgedAt;
  }

  /** True (and the chart recorded as missing with the reason) when there are no replay runs to draw from. */
  boolean replayMissing(String title, String fig) {
    if (runs == null || runs.isEmpty()) {
      missing(REPLAY, title, fig, runs == null ? replayMissing : "the replay has no runs");
      return true;
    }
    return false;
  }

  /** The caption sentence on the guard thresholds the SMetric-family lines ran at. */
  String guardNote() {
    return " SMetric-family runs at OVERLOAD " + Numbers.sig4(runs.defaultOverload()) + ", HIT_RATIO " + Numbers.sig4(runs.defaultHitRatio())
        + " when the sweep includes them (else the best setting).";
  }

  /** What TPS within SLO counts, for every caption of a TPS chart (docs/replay.md, "Metrics"). */
  static final String TPS_NOTE = " TPS within SLO counts every input token (cached or prefix-hit ones included) and every output "
      + "token of the requests that meet both SLOs (input only when prefill is disaggregated), per second of the run.";

  /**
   * An offered rate as the page prints it everywhere: the multiple of the trace's own rate and, under
   * session-tree scaling, the session trees started per minute it means: "x0.2446 (10.3 session trees/min)".
   */
  String rate(double rateScale) {
    return OfferedRate.text(replay, rateScale);
  }

  /** Why a run has no value of {@code metric}: its not_applicable reason for it. */
  static String naReason(ReplayRuns.Run r, String metric) {
    String na = r.notApplicable();
    if (na == null) return "the replay did not compute " + metric;
    // not_applicable is written as a Java map's toString: {metric=reason, ...}
    int i = na.indexOf(metric + "=");
    if (i < 0) return na;
    int end = na.indexOf(", ", i);
    String s = na.substring(i + metric.length() + 1, end < 0 ? na.length() : end);
    return s.endsWith("}") ? s.substring(0, s.length() - 1) : s;
  }

  /** Records a chart that is not drawn, with why. */
  void missing(String section, String title, String fig, String why) {
    entries.add(new Entry(section, title, fig, null, null, why));
  }

  /** Writes a chart as {@code file} beside index.html and records it. */
  void draw(String section, String file, String title, String fig, String caption, IChart chart) {
    Charts.tidy(chart);
    folder.writeBytes(file, Charts.pngBytes(chart));
    // read back after drawing: XChart gives series without a set colour theirs while painting
    entries.add(new Entry(section, title, fig, caption, file, null, Charts.plotted(chart)));
  }
}
