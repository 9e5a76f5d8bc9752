package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * replay.json's {@code best_router} block, answer (b) "what should you run" (docs/replay.md): per
 * global-tier capacity every router at the defaults (SMetric's ablation variants left out) ranked
 * by maximum TPS within SLO, the best with its margin over the runner-up, and SMetric's gain over
 * the best other router. The sweep's summary (SweepSummary.bestRouter) writes it with these key
 * constants; audit.json's what-to-run answer reads it through this record. The ranking array stays
 * JSON (audit.json copies it as written); {@link Row#ranked} reads it. Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BestRouter(@JsonProperty(BY_GLOBAL_RATIO) List<Row> byGlobalRatio) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "best_router";
  public static final String BY_GLOBAL_RATIO = "by_global_ratio";

  /** One capacity with at least two routers replayed at it. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      /** Descending maximum TPS within SLO, ties in run order; kept as JSON, {@link #ranked} reads it. */
      @JsonProperty(RANKING) JsonNode ranking,
      @JsonProperty(BEST) String best,
      @JsonProperty(BEST_TPS) Double bestTpsWithinSlo,
      @JsonProperty(RUNNER_UP) String runnerUp,
      /** The best's gain over the runner-up; null when the runner-up has no token within SLO. */
      @JsonProperty(MARGIN) Double margin,
      /** Present only when SMetric was replayed at this capacity. */
      @JsonProperty(BEST_OTHER) String bestOtherThanSmetric,
      /** SMetric's gain over {@link #bestOtherThanSmetric}; null when that router has no token within SLO. */
      @JsonProperty(SMETRIC_GAIN_VS_BEST_OTHER) Double smetricGainVsBestOther,
      /** Written only by replays before the verdict moved to equal load (6e47b4b); read so such a file still shows it. */
      @JsonProperty(SMETRIC_GAIN_VS_BEST_OTHER_INTERVAL) JsonNode smetricGainVsBestOtherInterval) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String RANKING = "ranking";
    public static final String BEST = "best";
    public static final String BEST_TPS = "best_tps_within_slo";
    public static final String RUNNER_UP = "runner_up";
    public static final String MARGIN = "margin";
    public static final String BEST_OTHER = "best_other_than_smetric";
    public static final String SMETRIC_GAIN_VS_BEST_OTHER = "smetric_gain_vs_best_other";
    public static final String SMETRIC_GAIN_VS_BEST_OTHER_INTERVAL = "smetric_gain_vs_best_other_interval";

    /** The ranking, typed; empty without one. */
    public List<Ranked> ranked() {
      if (ranking == null || !ranking.isArray()) return List.of();
      return java.util.Arrays.asList(ContractJson.read(ranking, Ranked[].class, "replay.json " + BLOCK + " " + RANKING, "a ranking"));
    }
  }

  /** One router in a capacity's ranking, at its own best offered rate. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Ranked(
      @JsonProperty(POLICY) String policy,
      @JsonProperty(TPS_WITHIN_SLO) double tpsWithinSlo,
      @JsonProperty(RATE_SCALE) double rateScale,
      /** Null when the run did not measure it. */
      @JsonProperty(SLO_ATTAINMENT) Double sloAttainment,
      @JsonProperty(TTFT_P90_S) Double ttftP90S,
      /** The maximum's resolution: a number, null or the string "Infinity", so kept as JSON. */
      @JsonProperty(RESOLUTION) JsonNode resolution) {
    public static final String POLICY = "policy";
    public static final String TPS_WITHIN_SLO = "tps_within_slo";
    public static final String RATE_SCALE = "rate_scale";
    public static final String SLO_ATTAINMENT = "slo_attainment";
    public static final String TTFT_P90_S = "ttft_p90_s";
    public static final String RESOLUTION = "resolution";
  }

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static BestRouter of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, BestRouter::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static BestRouter read(JsonNode b, String where) {
    return ContractJson.read(b, BestRouter.class, where, "a best-router block");
  }

  /** The capacities, empty when none. */
  public List<Row> capacities() {
    return byGlobalRatio == null ? List.of() : byGlobalRatio;
  }
}
