package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * replay.json's {@code equal_load} block (docs/replay.md): per global-tier capacity, the routers at
 * the same offered rates, normalised to the judged router's knee. The sweep writes it with these
 * key constants (EqualLoad.describe, ReplayWriter); the verdict, the answers and the page read it
 * through this record. This record only reads: written through the mapper, the per-router maps
 * would come out sorted by name (ORDER_MAP_ENTRIES_BY_KEYS), not in the compared order the file
 * has, so the writer keeps building the JSON tree with these constants. Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EqualLoadBlock(
    /** The normalised loads, multiples of the judged router's reference rate. */
    @JsonProperty(LOADS) List<Double> loads,
    /** The load the verdict reads its gain at. */
    @JsonProperty(DECISION_LOAD) Double decisionLoad,
    /** The global-tier capacity declared before the replay; null without one. */
    @JsonProperty(DECLARED_GLOBAL_RATIO) Double declaredGlobalRatio,
    /** The share of requests within SLO that defines the reference rate. */
    @JsonProperty(TARGET_ATTAINMENT) Double targetAttainment,
    @JsonProperty(REFERENCE_RULE) String referenceRule,
    /** What TPS within SLO counts, in words. */
    @JsonProperty(TPS_COUNTS) String tpsCounts,
    @JsonProperty(BY_GLOBAL_RATIO) List<Row> byGlobalRatio,
    /** Written by ReplayWriter after describe: curves refined around the anchors, and the equal-load simulations. */
    @JsonProperty(REFINED_CURVES) Integer refinedCurves,
    @JsonProperty(SIMULATIONS) Integer simulations) {

  public static final String LOADS = "loads";
  public static final String DECISION_LOAD = "decision_load";
  public static final String DECLARED_GLOBAL_RATIO = "declared_global_ratio";
  public static final String TARGET_ATTAINMENT = "target_attainment";
  public static final String REFERENCE_RULE = "reference_rule";
  public static final String TPS_COUNTS = "tps_counts";
  public static final String BY_GLOBAL_RATIO = "by_global_ratio";
  public static final String REFINED_CURVES = "refined_curves";
  public static final String SIMULATIONS = "simulations";

  /** One capacity: the judged router, its reference rate, and the points at each load. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(JUDGED_ROUTER) String judgedRouter,
      /** The judged router's highest rate (offered-rate multiple) at the target attainment: load 1.0. */
      @JsonProperty(REFERENCE_RATE_SCALE) Double referenceRateScale,
      /** The bisection's resolution: a number, null, or the string "Infinity" (SweepSummary.putNumber), so kept as JSON. */
      @JsonProperty(REFERENCE_RESOLUTION) JsonNode referenceResolution,
      @JsonProperty(POINTS) List<Point> points) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String JUDGED_ROUTER = "judged_router";
    public static final String REFERENCE_RATE_SCALE = "reference_rate_scale";
    public static final String REFERENCE_RESOLUTION = "reference_resolution";
    public static final String POINTS = "points";
  }

  /** One normalised load at one capacity: each compared router's metrics and SMetric's gains. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Point(
      @JsonProperty(LOAD) double load,
      /** The offered-rate multiple this load is at this capacity. */
      @JsonProperty(RATE_SCALE) Double rateScale,
      /** Router name to its metrics (EqualLoad.SHOWN; a metric the run did not measure is absent), in written order. */
      @JsonProperty(POLICIES) Map<String, Map<String, Double>> policies,
      /** Router name to SMetric's TPS-within-SLO gain over it; null where undefined. */
      @JsonProperty(SMETRIC_GAIN_VS) Map<String, Double> smetricGainVs,
      /** Only at the decision load: the gain over the judged router with its paired interval. */
      @JsonProperty(SMETRIC_GAIN_VS_JUDGED) JudgedGain smetricGainVsJudged) {
    public static final String LOAD = "load";
    public static final String RATE_SCALE = "rate_scale";
    public static final String POLICIES = "policies";
    public static final String SMETRIC_GAIN_VS = "smetric_gain_vs";
    public static final String SMETRIC_GAIN_VS_JUDGED = "smetric_gain_vs_judged";

    /** The metric {@code name} of router {@code router} at this point; null when not replayed or not measured. */
    public Double metric(String router, String name) {
      Map<String, Double> m = policies == null ? null : policies.get(router);
      return m == null ? null : m.get(name);
    }
  }

  /**
   * SMetric's gain over the judged router at the decision load. The interval stays JSON: the
   * answers copy it into audit.json as written (level, replicates, paired).
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record JudgedGain(
      @JsonProperty(VS) String vs,
      @JsonProperty(Metric.VALUE) Double value,
      @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable,
      @JsonProperty(Metric.INTERVAL) JsonNode interval) {
    public static final String VS = "vs";
  }

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static EqualLoadBlock of(JsonNode replay) {
    return ContractJson.block(replay, ReplayComparison.EQUAL_LOAD, EqualLoadBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static EqualLoadBlock read(JsonNode el, String where) {
    return ContractJson.read(el, EqualLoadBlock.class, where, "an equal-load block");
  }

  /** The capacities, empty when none. */
  public List<Row> capacities() {
    return byGlobalRatio == null ? List.of() : byGlobalRatio;
  }

  /** The point at the decision load of capacity g; null when the block has none. */
  public Point decisionPoint(double g) {
    for (Row c : capacities()) {
      if (c.globalRatio() != g || c.points() == null) continue;
      for (Point p : c.points()) {
        if (decisionLoad != null && p.load() == decisionLoad) return p;
      }
    }
    return null;
  }
}
