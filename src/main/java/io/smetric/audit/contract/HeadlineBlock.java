package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.List;

/**
 * replay.json's {@code headline} array (docs/replay.md): per (policy, global ratio, OVERLOAD,
 * HIT_RATIO) the maximum TPS within SLO over the offered-rate sweep and the run that reached it,
 * the same rows as the {@code headline} table. ReplayWriter writes it with these key constants;
 * {@link #of} reads it. Unknown fields are ignored.
 */
public final class HeadlineBlock {
  private HeadlineBlock() {}

  /** The block's name in replay.json. */
  public static final String BLOCK = "headline";

  /** One headline row. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(POLICY) String policy,
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      /** Null when the policy does not read OVERLOAD; Infinity (written "Infinity") when the guard is off. */
      @JsonProperty(OVERLOAD) Double overload,
      /** Null when the policy does not read HIT_RATIO; Infinity (written "Infinity") when the guard is off. */
      @JsonProperty(HIT_RATIO) Double hitRatio,
      @JsonProperty(MAX_TPS_WITHIN_SLO) double maxTpsWithinSlo,
      @JsonProperty(AT_RATE_SCALE) double atRateScale,
      /** "single_rate", "highest_rate" or "lowest_rate" when the maximum sits at an edge of the sampled rates; null inside. */
      @JsonProperty(AT_EDGE) String atEdge,
      @JsonProperty(RUN_ID) int runId) {
    public static final String POLICY = "policy";
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String OVERLOAD = "overload";
    public static final String HIT_RATIO = "hit_ratio";
    public static final String MAX_TPS_WITHIN_SLO = "max_tps_within_slo";
    public static final String AT_RATE_SCALE = "at_rate_scale";
    public static final String AT_EDGE = "at_edge";
    public static final String RUN_ID = "run_id";
  }

  /** The rows in replay.json; empty when the file or its block is missing or not an array. */
  public static List<Row> of(JsonNode replay) {
    JsonNode b = replay == null ? null : replay.path(BLOCK);
    return b == null || !b.isArray() ? List.of() : read(b, "replay.json " + BLOCK);
  }

  /** Reads the array; {@code where} names it in an error. */
  public static List<Row> read(JsonNode a, String where) {
    return Arrays.asList(ContractJson.read(a, Row[].class, where, "a headline array"));
  }
}
