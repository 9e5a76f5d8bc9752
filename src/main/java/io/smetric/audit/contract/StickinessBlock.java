package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.List;

/**
 * replay.json's {@code stickiness} array (docs/replay.md): per policy at the default thresholds
 * the range of session stickiness over all its runs and the value (with its diagnostics) at each
 * global ratio's headline run; written only when some run measured it (the trace has sessions).
 * SweepSummary.stickiness writes it with these key constants; {@link #of} reads it. Unknown
 * fields are ignored.
 */
public final class StickinessBlock {
  private StickinessBlock() {}

  /** The block's name in replay.json. */
  public static final String BLOCK = "stickiness";

  /** One policy. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(POLICY) String policy,
      @JsonProperty(MIN) double min,
      @JsonProperty(MAX) double max,
      @JsonProperty(AT_HEADLINE) List<AtHeadline> atHeadline) {
    public static final String POLICY = "policy";
    public static final String MIN = "min";
    public static final String MAX = "max";
    public static final String AT_HEADLINE = "at_headline";
  }

  /** The policy's headline run at one global ratio; a metric the run did not measure is null. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record AtHeadline(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(RATE_SCALE) double rateScale,
      @JsonProperty(STICKINESS) Double stickiness,
      @JsonProperty(STICKINESS_PREVIOUS) Double stickinessPrevious,
      @JsonProperty(STICKINESS_EXTENDING_TURN0) Double stickinessExtendingTurn0,
      @JsonProperty(FOLLOW_UPS_EXTENDING_TURN0_SHARE) Double followUpsExtendingTurn0Share) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String RATE_SCALE = "rate_scale";
    /** The metric keys below are also the run metrics' names. */
    public static final String STICKINESS = "stickiness";
    public static final String STICKINESS_PREVIOUS = "stickiness_previous";
    public static final String STICKINESS_EXTENDING_TURN0 = "stickiness_extending_turn0";
    public static final String FOLLOW_UPS_EXTENDING_TURN0_SHARE = "follow_ups_extending_turn0_share";
  }

  /** The rows in replay.json; empty when the file or its block is missing or not an array. */
  public static List<Row> of(JsonNode replay) {
    JsonNode b = replay == null ? null : replay.path(BLOCK);
    return b == null || !b.isArray() ? List.of() : read(b, "replay.json " + BLOCK);
  }

  /** Reads the array; {@code where} names it in an error. */
  public static List<Row> read(JsonNode a, String where) {
    return Arrays.asList(ContractJson.read(a, Row[].class, where, "a stickiness array"));
  }
}
