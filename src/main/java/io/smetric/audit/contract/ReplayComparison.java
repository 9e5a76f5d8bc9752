package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;

/**
 * replay.json's comparison blocks (docs/replay.md "replay.json"): {@link #JUDGED}, SMetric against
 * the router the verdict judges it by (--current-router, else the best paper baseline at each
 * capacity), and the older {@link #COMPARISON}, SMetric against the best of every baseline. The
 * replay writes their fields under these names and the verdict, audit.json, the page and the
 * charts read them through this record. Unknown fields are ignored when reading. The descriptive
 * per-capacity rows ({@code by_global_ratio}) are written with the {@link Row} key constants and
 * read through {@link #rows}; the array itself is kept as JSON, copied into audit.json as written.
 * The {@link #EQUAL_LOAD} block is {@link EqualLoadBlock}. The {@link #PAPER_CLAIM} block, answer (a),
 * has the same shape against the paper's baselines, with each row's {@link Row#VS} map and the
 * {@link #PAPER_BASELINES} list; audit.json's paper-claim answer reads it through this record.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ReplayComparison(
    /** SMetric's gain over the judged router at equal load at the declared global-tier capacity (the verdict's criterion). */
    @JsonProperty(GAIN_WITH_GLOBAL) Gain gainWithGlobal,
    /** The same at capacity 0. */
    @JsonProperty(GAIN_NO_GLOBAL) Gain gainWithoutGlobal,
    /** The smallest capacity above 0 whose gain clears the threshold. */
    @JsonProperty(MIN_GLOBAL_RATIO) MinGlobalRatio minGlobalRatio,
    /** The router named by --current-router; null when the judged router is the best paper baseline. */
    @JsonProperty(CURRENT_ROUTER) String currentRouter,
    /** How the judged router was chosen: only the judged block has it (with current_router). */
    @JsonProperty(RULE) String rule,
    /** Per capacity, the routers' maximum TPS within SLO: descriptive rows ({@link #rows} reads them). */
    @JsonProperty(BY_GLOBAL_RATIO) JsonNode byGlobalRatio,
    /** The compared routers, in run order. */
    @JsonProperty(BASELINES) java.util.List<String> baselines,
    /**
     * The largest per-capacity gain in maximum TPS within SLO above capacity 0, descriptive. The
     * judged block drops it once the equal-load gains are written; the comparison and paper_claim
     * blocks keep it.
     */
    @JsonProperty(BEST_GAIN_WITH_GLOBAL) BestGain bestGainWithGlobal,
    /** The paper's own baselines (only the {@link #PAPER_CLAIM} block). */
    @JsonProperty(PAPER_BASELINES) java.util.List<String> paperBaselines,
    /** With --current-router NAME:CONFIG (judged block only): each knob as the replay understood it; null otherwise. */
    @JsonProperty(CURRENT_ROUTER_CONFIG) java.util.List<Knob> currentRouterConfig) {

  /** The block the verdict judges. */
  public static final String JUDGED = "judged";
  /** The block replay.json had before {@link #JUDGED}: SMetric against the best of every baseline. */
  public static final String COMPARISON = "comparison";
  /** The equal-load comparison: per capacity, the compared routers at the normalised loads. */
  public static final String EQUAL_LOAD = "equal_load";
  /** Answer (a): SMetric against the paper's baselines at each capacity. */
  public static final String PAPER_CLAIM = "paper_claim";
  public static final String GAIN_WITH_GLOBAL = "smetric_gain_with_global_tier";
  public static final String GAIN_NO_GLOBAL = "smetric_gain_without_global_tier";
  public static final String MIN_GLOBAL_RATIO = "min_global_ratio_for_gain";
  public static final String CURRENT_ROUTER = "current_router";
  public static final String RULE = "rule";
  public static final String BY_GLOBAL_RATIO = "by_global_ratio";
  public static final String BASELINES = "baselines";
  public static final String BEST_GAIN_WITH_GLOBAL = "smetric_best_gain_with_global_tier";
  public static final String PAPER_BASELINES = "paper_baselines";
  public static final String CURRENT_ROUTER_CONFIG = "current_router_config";

  /**
   * A gain: a {@link Metric} (value or reason, optional interval) and where it was measured.
   * The interval's other fields (level, replicates) are not read here.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Gain(
      @JsonProperty(Metric.VALUE) Double value,
      @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable,
      @JsonProperty(Metric.INTERVAL) Metric.Interval interval,
      /** The global-tier capacity it was measured at. */
      @JsonProperty(GLOBAL_RATIO) Double globalRatio,
      /** The normalised load (multiple of the judged router's knee) it was measured at. */
      @JsonProperty(LOAD) Double load) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String LOAD = "load";

    /** The gain as a metric (null for a missing gain). */
    public static Metric metric(Gain g) {
      return g == null ? null : new Metric(g.value, g.notApplicable, null, null, null, g.interval);
    }
  }

  /** The largest gain over the capacities above 0, where it was, and why it is descriptive; or why there is none. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record BestGain(
      @JsonProperty(Metric.VALUE) Double value,
      @JsonProperty(Gain.GLOBAL_RATIO) Double globalRatio,
      @JsonProperty(SELECTION) String selection,
      @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable) {
    public static final String SELECTION = "selection";
  }

  /** One knob of the configured router: the router, the knob, the value the replay used and where it came from. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Knob(
      @JsonProperty(ROUTER) String router,
      @JsonProperty(KNOB) String knob,
      @JsonProperty(Metric.VALUE) String value,
      @JsonProperty(SOURCE) String source) {
    public static final String ROUTER = "router";
    public static final String KNOB = "knob";
    public static final String SOURCE = "source";
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record MinGlobalRatio(
      @JsonProperty(Metric.VALUE) Double value,
      /** The gain that counts as SMetric ahead. */
      @JsonProperty(THRESHOLD) Double threshold,
      @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable) {
    public static final String THRESHOLD = "threshold";
  }

  /**
   * One capacity's row of a comparison block (SweepSummary.comparison writes it, for the judged,
   * comparison and paper_claim blocks alike): SMetric's and the best compared router's maximum TPS
   * within SLO, each at its own rate. The attainments and resolutions (a number, null or
   * "Infinity") are written under these names but not read as fields.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(SMETRIC_TPS) Double smetricTpsWithinSlo,
      @JsonProperty(SMETRIC_RATE_SCALE) Double smetricRateScale,
      /** The compared router with the highest maximum here (the judged router when only it was compared). */
      @JsonProperty(BEST_BASELINE) String bestBaseline,
      @JsonProperty(BEST_BASELINE_TPS) Double bestBaselineTpsWithinSlo,
      @JsonProperty(BEST_BASELINE_RATE_SCALE) Double bestBaselineRateScale,
      /** SMetric's gain in maximum TPS within SLO; null with {@code not_applicable} when undefined. */
      @JsonProperty(GAIN) Double gain,
      @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable,
      /** Per compared router, in the compared order (paper_claim only; null elsewhere). */
      @JsonProperty(VS) java.util.Map<String, Vs> vs,
      /** The gain's interval: written only by replays before the verdict moved to equal load (6e47b4b), kept as written. */
      @JsonProperty(Metric.INTERVAL) JsonNode interval) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String SMETRIC_TPS = "smetric_tps_within_slo";
    public static final String SMETRIC_RATE_SCALE = "smetric_rate_scale";
    public static final String BEST_BASELINE = "best_baseline";
    public static final String BEST_BASELINE_TPS = "best_baseline_tps_within_slo";
    public static final String BEST_BASELINE_RATE_SCALE = "best_baseline_rate_scale";
    public static final String SMETRIC_SLO_ATTAINMENT = "smetric_slo_attainment";
    public static final String BEST_BASELINE_SLO_ATTAINMENT = "best_baseline_slo_attainment";
    public static final String SMETRIC_RESOLUTION = "smetric_resolution";
    public static final String BEST_BASELINE_RESOLUTION = "best_baseline_resolution";
    public static final String GAIN = "gain";
    /** Per compared router: its maximum TPS within SLO and SMetric's gain over it (paper_claim only). */
    public static final String VS = "vs";
  }

  /** One compared router in a row's {@link Row#VS} map: its maximum TPS within SLO and SMetric's gain over it (null when it has no token within SLO). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Vs(
      @JsonProperty(TPS_WITHIN_SLO) Double tpsWithinSlo,
      @JsonProperty(GAIN) Double gain) {
    public static final String TPS_WITHIN_SLO = "tps_within_slo";
    public static final String GAIN = Row.GAIN;
  }

  /** This block's rows, typed; empty without any. */
  public java.util.List<Row> rows() {
    return rows(byGlobalRatio, "replay.json " + BY_GLOBAL_RATIO);
  }

  /** The rows of any comparison-shaped block's {@code by_global_ratio} array (empty when not an array). */
  public static java.util.List<Row> rows(JsonNode byGlobalRatio, String where) {
    if (byGlobalRatio == null || !byGlobalRatio.isArray()) return java.util.List.of();
    return java.util.Arrays.asList(ContractJson.read(byGlobalRatio, Row[].class, where, "comparison rows"));
  }

  /** How the block names what SMetric was compared with. */
  public String judgedName() {
    if (currentRouter != null) return currentRouter;
    if (rule != null) return "the best of the paper's baselines";
    return "the best baseline";
  }

  /** The comparison the verdict judges: {@link #JUDGED} when replay.json has it, else {@link #COMPARISON}; null with neither. */
  public static ReplayComparison judged(JsonNode replay) {
    if (replay == null) return null;
    JsonNode j = replay.path(JUDGED).isObject() ? replay.path(JUDGED) : replay.path(COMPARISON);
    return j.isObject() ? read(j, "replay.json " + (replay.path(JUDGED).isObject() ? JUDGED : COMPARISON)) : null;
  }

  /** replay.json's {@link #PAPER_CLAIM} block; null when replay.json (or its block) is missing or not an object. */
  public static ReplayComparison paperClaim(JsonNode replay) {
    JsonNode pc = replay == null ? null : replay.path(PAPER_CLAIM);
    return pc == null || !pc.isObject() ? null : read(pc, "replay.json " + PAPER_CLAIM);
  }

  /** Reads one comparison block; {@code where} names it in an error. */
  public static ReplayComparison read(JsonNode n, String where) {
    try {
      return Json.MAPPER.treeToValue(n, ReplayComparison.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
      throw new BadInputException(where, "not a comparison block: " + e.getMessage());
    }
  }
}
