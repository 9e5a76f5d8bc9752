package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * replay.json's {@code sensitivity} block (docs/replay.md): the headline TPS within SLO of the
 * SMetric variants that read OVERLOAD (resp. HIT_RATIO) at every swept value, the other threshold
 * at its default; an axis is present only when it took at least two values, the block only when
 * one did. SweepSummary.sensitivity writes it with these key constants; {@link #of} reads it.
 * Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SensitivityBlock(
    @JsonProperty(OVERLOAD) List<Row> overload,
    @JsonProperty(HIT_RATIO) List<Row> hitRatio) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "sensitivity";
  public static final String OVERLOAD = "overload";
  public static final String HIT_RATIO = "hit_ratio";

  /** One headline of a variant at one threshold value. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(POLICY) String policy,
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      /** Null when the policy does not read OVERLOAD; Infinity (written "Infinity") when the guard is off. */
      @JsonProperty(OVERLOAD) Double overload,
      /** Null when the policy does not read HIT_RATIO; Infinity (written "Infinity") when the guard is off. */
      @JsonProperty(HIT_RATIO) Double hitRatio,
      @JsonProperty(HEADLINE_TPS_WITHIN_SLO) double headlineTpsWithinSlo,
      @JsonProperty(AT_RATE_SCALE) double atRateScale,
      /** The headline run's stickiness; null when the trace has no sessions. */
      @JsonProperty(STICKINESS) Double stickiness) {
    public static final String POLICY = "policy";
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String OVERLOAD = "overload";
    public static final String HIT_RATIO = "hit_ratio";
    public static final String HEADLINE_TPS_WITHIN_SLO = "headline_tps_within_slo";
    public static final String AT_RATE_SCALE = "at_rate_scale";
    /** Also the run metric's name. */
    public static final String STICKINESS = "stickiness";
  }

  /** The block in replay.json; null when the file or its block is missing or not an object. */
  public static SensitivityBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, SensitivityBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static SensitivityBlock read(JsonNode b, String where) {
    return ContractJson.read(b, SensitivityBlock.class, where, "a sensitivity block");
  }

  /** The OVERLOAD axis, empty when it was not swept. */
  public List<Row> overloadRows() {
    return overload == null ? List.of() : overload;
  }

  /** The HIT_RATIO axis, empty when it was not swept. */
  public List<Row> hitRatioRows() {
    return hitRatio == null ? List.of() : hitRatio;
  }
}
