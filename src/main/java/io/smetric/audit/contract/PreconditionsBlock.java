package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * replay.json's {@code preconditions} block (docs/replay.md "replay.json"): the paper's
 * preconditions at the operating point of every global-tier capacity (SMetric's headline run), and
 * whether the cache-first baseline forms hot spots there. The sweep's summary writes it with these
 * key constants (SweepSummary.preconditions); the verdict's regime criteria, the page's
 * operating-point table and the replay profile's section read this record. A measured value is
 * the run metric of the same name, null when the run did not measure it. Unknown fields are
 * ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PreconditionsBlock(
    /** The reuse interval the within-threshold share counts up to, in seconds. */
    @JsonProperty(REUSE_INTERVAL_THRESHOLD_S) Double reuseIntervalThresholdS,
    @JsonProperty(BY_GLOBAL_RATIO) List<Row> byGlobalRatio,
    /** Why there are no rows (SMetric not simulated). */
    @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "preconditions";
  public static final String REUSE_INTERVAL_THRESHOLD_S = "reuse_interval_threshold_s";
  public static final String BY_GLOBAL_RATIO = "by_global_ratio";

  /** One capacity: SMetric's operating point and what was measured there. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(OPERATING_POINT) OperatingPoint operatingPoint,
      @JsonProperty(REQUESTS_PER_INSTANCE_MINUTE_MEDIAN) Double requestsPerInstanceMinuteMedian,
      @JsonProperty(REQUESTS_PER_INSTANCE_MINUTE_MEAN) Double requestsPerInstanceMinuteMean,
      @JsonProperty(REUSE_WITHIN_THRESHOLD_SHARE) Double reuseWithinThresholdShare,
      /** The local tier's turnover time (seconds). */
      @JsonProperty(LOCAL_HOLD_S) Double localHoldS,
      @JsonProperty(REUSE_WITHIN_LOCAL_HOLD_SHARE) Double reuseWithinLocalHoldShare,
      @JsonProperty(LIVE_SESSIONS_PER_INSTANCE) Double liveSessionsPerInstance,
      /** cache-affinity at its own headline; null when not replayed here. */
      @JsonProperty(CACHE_FIRST) Baseline cacheFirst,
      /** least-load at its own headline; null when not replayed here. */
      @JsonProperty(LOAD_BALANCE) Baseline loadBalance,
      /** cache-affinity's imbalance over least-load's; null without both. */
      @JsonProperty(HOT_SPOT_RATIO) Double hotSpotRatio) {
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String OPERATING_POINT = "operating_point";
    /** The measured fields: each is the run metric of the same name, in the order written. */
    public static final String REQUESTS_PER_INSTANCE_MINUTE_MEDIAN = "requests_per_instance_minute_median";
    public static final String REQUESTS_PER_INSTANCE_MINUTE_MEAN = "requests_per_instance_minute_mean";
    public static final String REUSE_WITHIN_THRESHOLD_SHARE = "reuse_within_threshold_share";
    public static final String LOCAL_HOLD_S = "local_hold_s";
    public static final String REUSE_WITHIN_LOCAL_HOLD_SHARE = "reuse_within_local_hold_share";
    public static final String LIVE_SESSIONS_PER_INSTANCE = "live_sessions_per_instance";
    public static final List<String> MEASURED = List.of(REQUESTS_PER_INSTANCE_MINUTE_MEDIAN,
        REQUESTS_PER_INSTANCE_MINUTE_MEAN, REUSE_WITHIN_THRESHOLD_SHARE, LOCAL_HOLD_S, REUSE_WITHIN_LOCAL_HOLD_SHARE,
        LIVE_SESSIONS_PER_INSTANCE);
    public static final String CACHE_FIRST = "cache_first";
    public static final String LOAD_BALANCE = "load_balance";
    public static final String HOT_SPOT_RATIO = "hot_spot_ratio";
  }

  /** SMetric's headline run at one capacity. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record OperatingPoint(
      @JsonProperty(POLICY) String policy,
      @JsonProperty(RATE_SCALE) Double rateScale,
      @JsonProperty(RUN_ID) Integer runId) {
    public static final String POLICY = "policy";
    public static final String RATE_SCALE = "rate_scale";
    public static final String RUN_ID = "run_id";
  }

  /** A baseline at its own headline: its imbalance (max/mean load) and, for cache-first, its stickiness. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Baseline(
      @JsonProperty(OperatingPoint.POLICY) String policy,
      @JsonProperty(OperatingPoint.RATE_SCALE) Double rateScale,
      @JsonProperty(IMBALANCE_MEAN) Double imbalanceMean,
      /** Written for cache-first only. */
      @JsonProperty(STICKINESS) Double stickiness) {
    /** Run metric names, written under the same keys. */
    public static final String IMBALANCE_MEAN = ReplayTables.RunMetrics.IMBALANCE_MEAN;
    public static final String STICKINESS = ReplayTables.RunMetrics.STICKINESS;
  }

  /** The rows, empty without any. */
  public List<Row> rows() {
    return byGlobalRatio == null ? List.of() : byGlobalRatio;
  }

  /** The row of capacity g (the last written when several are); null when the block has none. */
  public Row at(double g) {
    Row at = null;
    for (Row r : rows()) if (r.globalRatio() == g) at = r;
    return at;
  }

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static PreconditionsBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, PreconditionsBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static PreconditionsBlock read(JsonNode n, String where) {
    return ContractJson.read(n, PreconditionsBlock.class, where, "a preconditions block");
  }
}
