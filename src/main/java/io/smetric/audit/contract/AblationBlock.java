package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * replay.json's {@code ablation} block (docs/replay.md): SMetric's 2x2 guard ablation at the
 * default thresholds, each variant's headline TPS within SLO per global-tier capacity; written
 * only when at least two variants ran. SweepSummary.ablation writes it with these key constants;
 * {@link #of} reads it. Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AblationBlock(
    /** The default OVERLOAD the variants ran at. */
    @JsonProperty(OVERLOAD) Double overload,
    /** The default HIT_RATIO the variants ran at. */
    @JsonProperty(HIT_RATIO) Double hitRatio,
    /** The variants replayed, in smetric, smetric-basic, smetric-overload-only, smetric-eviction-only order. */
    @JsonProperty(VARIANTS) List<String> variants,
    @JsonProperty(BY_GLOBAL_RATIO) List<Row> byGlobalRatio) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "ablation";
  public static final String OVERLOAD = "overload";
  public static final String HIT_RATIO = "hit_ratio";
  public static final String VARIANTS = "variants";
  public static final String BY_GLOBAL_RATIO = "by_global_ratio";

  /** One capacity. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      /** Variant name to its headline TPS within SLO, in {@link #variants} order; null when it did not run at this capacity. */
      @JsonProperty(HEADLINE_TPS_WITHIN_SLO) Map<String, Double> headlineTpsWithinSlo) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String HEADLINE_TPS_WITHIN_SLO = "headline_tps_within_slo";
  }

  /** The block in replay.json; null when the file or its block is missing or not an object. */
  public static AblationBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, AblationBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static AblationBlock read(JsonNode b, String where) {
    return ContractJson.read(b, AblationBlock.class, where, "an ablation block");
  }

  /** The capacities, empty when none. */
  public List<Row> capacities() {
    return byGlobalRatio == null ? List.of() : byGlobalRatio;
  }
}
