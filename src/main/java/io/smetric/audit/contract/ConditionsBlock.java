package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import java.util.List;

/**
 * replay.json's {@code conditions} block (docs/replay.md "Conditions"): SMetric against the judged
 * router at the verdict's operating point, each parameter no trace can tell over its documented
 * levels, and the grid over the two that move the gain most. The conditions sweep writes it with
 * these key constants (Conditions.describe, ReplayWriter when the sweep did not run); the verdict,
 * the page and the conditions chart read this record. A swept value can be a number, null or the
 * string "Infinity" (SweepSummary.putNumber), so values stay JSON ({@link #number}). Unknown
 * fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ConditionsBlock(
    /** Why the sweep did not run; the block then has nothing else. */
    @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable,
    /** The declared global-tier capacity the points are at. */
    @JsonProperty(GLOBAL_RATIO) Double globalRatio,
    @JsonProperty(JUDGED_ROUTER) String judgedRouter,
    /** The offered-rate multiple every point runs at. */
    @JsonProperty(RATE_SCALE) Double rateScale,
    /** The normalised load (multiple of the judged router's knee) that rate is. */
    @JsonProperty(LOAD) Double load,
    @JsonProperty(RULE) String rule,
    /** Null when the sweep did not run. */
    @JsonProperty(PARAMETERS) List<Parameter> parameters,
    /** Null with fewer than two parameters that move the gain. */
    @JsonProperty(GRID) Grid grid) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "conditions";
  public static final String GLOBAL_RATIO = "global_ratio";
  public static final String JUDGED_ROUTER = "judged_router";
  public static final String RATE_SCALE = "rate_scale";
  public static final String LOAD = "load";
  public static final String RULE = "rule";
  public static final String PARAMETERS = "parameters";
  public static final String GRID = "grid";

  /** One swept parameter: what it is, in which unit it reads, and SMetric's gain at each level. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Parameter(
      @JsonProperty(NAME) String name,
      @JsonProperty(LABEL) String label,
      /** The settings key the sweep varies. */
      @JsonProperty(PATH) String path,
      @JsonProperty(UNIT) String unit,
      /** Display value = value x unit_scale. */
      @JsonProperty(UNIT_SCALE) Double unitScale,
      @JsonProperty(SOURCE) String source,
      /** The parameter changes only SMetric's behaviour. */
      @JsonProperty(SMETRIC_ONLY) Boolean smetricOnly,
      /** The audit's default: a number, null or "Infinity". */
      @JsonProperty(BASE_VALUE) JsonNode baseValue,
      @JsonProperty(POINTS) List<Point> points,
      /** The highest gain minus the lowest; null without two gains. */
      @JsonProperty(GAIN_RANGE) Double gainRange) {
    public static final String NAME = "name";
    public static final String LABEL = "label";
    public static final String PATH = "path";
    public static final String UNIT = "unit";
    public static final String UNIT_SCALE = "unit_scale";
    public static final String SOURCE = "source";
    public static final String SMETRIC_ONLY = "smetric_only";
    public static final String BASE_VALUE = "base_value";
    public static final String POINTS = "points";
    public static final String GAIN_RANGE = "gain_range";

    /** The display scale, 1 when not written. */
    public double scale() {
      return unitScale == null ? 1 : unitScale;
    }

    /** The unit, "" when not written. */
    public String unitOrEmpty() {
      return unit == null ? "" : unit;
    }

    /** The points, empty without any. */
    public List<Point> pointList() {
      return points == null ? List.of() : points;
    }
  }

  /** One level of a parameter: both routers' TPS within SLO there and SMetric's gain (null where undefined). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Point(
      /** The level: a number, null or "Infinity". */
      @JsonProperty(Metric.VALUE) JsonNode value,
      @JsonProperty(SMETRIC_TPS) Double smetricTpsWithinSlo,
      @JsonProperty(ROUTER_TPS) Double routerTpsWithinSlo,
      @JsonProperty(GAIN) Double gain) {
    public static final String SMETRIC_TPS = "smetric_tps_within_slo";
    public static final String ROUTER_TPS = "router_tps_within_slo";
    public static final String GAIN = "gain";
  }

  /** SMetric's gain over every pair of levels of the two parameters that move it most. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Grid(
      /** The parameter along x (its {@link Parameter#name}). */
      @JsonProperty(X) String x,
      @JsonProperty(Y) String y,
      @JsonProperty(X_LEVELS) List<Level> xLevels,
      @JsonProperty(Y_LEVELS) List<Level> yLevels,
      /** [y][x]; null where undefined. */
      @JsonProperty(GAIN) List<List<Double>> gain) {
    public static final String X = "x";
    public static final String Y = "y";
    public static final String X_LEVELS = "x_levels";
    public static final String Y_LEVELS = "y_levels";
    public static final String GAIN = "gain";

    /** The gain at level yi of y and xi of x; null where undefined or not written. */
    public Double gainAt(int yi, int xi) {
      if (gain == null || yi >= gain.size() || gain.get(yi) == null || xi >= gain.get(yi).size()) return null;
      return gain.get(yi).get(xi);
    }

    public List<Level> xs() {
      return xLevels == null ? List.of() : xLevels;
    }

    public List<Level> ys() {
      return yLevels == null ? List.of() : yLevels;
    }
  }

  /** A grid level, written as an object so that "Infinity" can stand in it. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Level(@JsonProperty(V) JsonNode v) {
    public static final String V = "v";
  }

  /** A written level as a number: "Infinity" is infinity, null or missing is NaN. */
  public static double number(JsonNode v) {
    return Numbers.parse(v);
  }

  /** The parameters, empty when the sweep did not run. */
  public List<Parameter> parameterList() {
    return parameters == null ? List.of() : parameters;
  }

  /** The parameter named {@code name}; null when the block has none. */
  public Parameter parameter(String name) {
    for (Parameter p : parameterList()) if (name != null && name.equals(p.name())) return p;
    return null;
  }

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static ConditionsBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, ConditionsBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static ConditionsBlock read(JsonNode n, String where) {
    return ContractJson.read(n, ConditionsBlock.class, where, "a conditions block");
  }
}
