package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * replay.json's {@code sweep} block (presets only; docs/replay.md "replay.json"): the audit
 * sweep's plan, its rate grid and what it replays. AuditPlan.describe writes it with these key
 * constants. The fixed grid writes {@link #rateMultipliers} and {@link #rates}; the adaptive grid
 * writes the knee search's bounds and {@link WarmStart}. Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SweepBlock(
    @JsonProperty(PRESET) String preset,
    /** "fixed" or "adaptive". */
    @JsonProperty(RATE_GRID) String rateGrid,
    @JsonProperty(CURVES) Integer curves,
    @JsonProperty(ROUNDS) Integer rounds,
    /** The offered-rate multiple the grid is relative to (x_ref). */
    @JsonProperty(RATE_REFERENCE) Double rateReference,
    @JsonProperty(RATE_REFERENCE_RULE) String rateReferenceRule,
    /** Fixed grid only. */
    @JsonProperty(RATE_MULTIPLIERS) List<Double> rateMultipliers,
    /** Fixed grid only: the offered-rate multiples replayed. */
    @JsonProperty(RATES) List<Double> rates,
    /** Adaptive grid only: round 0's multiples of x_ref. */
    @JsonProperty(INITIAL_MULTIPLIERS) List<Double> initialMultipliers,
    @JsonProperty(RESOLUTION) Double resolution,
    @JsonProperty(FLOOR_MULTIPLIER) Double floorMultiplier,
    @JsonProperty(CAP_MULTIPLIER) Double capMultiplier,
    /** Adaptive grid only. */
    @JsonProperty(WARM_START) WarmStart warmStart,
    @JsonProperty(POLICIES) List<String> policies,
    @JsonProperty(ABLATION) List<String> ablation,
    @JsonProperty(GLOBAL_RATIOS) List<Double> globalRatios,
    @JsonProperty(SENSITIVITY_GLOBAL_RATIO) Double sensitivityGlobalRatio,
    @JsonProperty(SENSITIVITY_OVERLOADS) List<Overload> sensitivityOverloads,
    @JsonProperty(SENSITIVITY_HIT_RATIOS) List<Double> sensitivityHitRatios) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "sweep";
  public static final String PRESET = "preset";
  public static final String RATE_GRID = "rate_grid";
  public static final String CURVES = "curves";
  public static final String ROUNDS = "rounds";
  public static final String RATE_REFERENCE = "rate_reference";
  public static final String RATE_REFERENCE_RULE = "rate_reference_rule";
  public static final String RATE_MULTIPLIERS = "rate_multipliers";
  public static final String RATES = "rates";
  public static final String INITIAL_MULTIPLIERS = "initial_multipliers";
  public static final String RESOLUTION = "resolution";
  public static final String FLOOR_MULTIPLIER = "floor_multiplier";
  public static final String CAP_MULTIPLIER = "cap_multiplier";
  public static final String WARM_START = "warm_start";
  public static final String POLICIES = "policies";
  public static final String ABLATION = "ablation";
  public static final String GLOBAL_RATIOS = "global_ratios";
  public static final String SENSITIVITY_GLOBAL_RATIO = "sensitivity_global_ratio";
  public static final String SENSITIVITY_OVERLOADS = "sensitivity_overloads";
  public static final String SENSITIVITY_HIT_RATIOS = "sensitivity_hit_ratios";

  /** How the adaptive grid started curves from their anchor's knee. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record WarmStart(
      /** How many curves started warm. */
      @JsonProperty(CURVES) Integer curves,
      @JsonProperty(RULE) String rule,
      /** The warm search's step factor (2^0.25). */
      @JsonProperty(STEP) Double step) {
    public static final String CURVES = "curves";
    public static final String RULE = "rule";
    public static final String STEP = "step";
  }

  /** One OVERLOAD of the sensitivity sweep, an object so that "Infinity" (guard off) can stand in it. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Overload(@JsonProperty(OVERLOAD) JsonNode overload) {
    public static final String OVERLOAD = "overload";
  }

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static SweepBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, SweepBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static SweepBlock read(JsonNode n, String where) {
    return ContractJson.read(n, SweepBlock.class, where, "a sweep block");
  }
}
