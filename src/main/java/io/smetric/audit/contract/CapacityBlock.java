package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * replay.json's {@code capacity} block (issue 29; docs/replay.md, "Capacity"): per router, global-tier
 * capacity and traffic factor, the smallest instance count that keeps the target share of requests
 * within SLO, how the search found it, the bootstrap interval at x1, and the sized cluster as a
 * second operating point. The sweep writes it with these key constants (Capacity.describe,
 * ReplayWriter's not-applicable form); the answers, the capacity chart and {@code replay}'s console
 * read it through this record. Only the reading is a record, as for {@link EqualLoadBlock}: the sized
 * point's per-router maps are in run order, which the mapper (sorting map keys) would not keep, and
 * the block's optional keys are left out or written as null case by case. Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CapacityBlock(
    /** The share of requests within SLO an answer must keep. */
    @JsonProperty(TARGET_ATTAINMENT) Double targetAttainment,
    /** How the searches ran, in words (starts lower-case: it reads on inside a sentence). */
    @JsonProperty(RULE) String rule,
    /** What the x1 answers' interval is, in words (point estimates without replicates). */
    @JsonProperty(INTERVAL) String interval,
    @JsonProperty(TRAFFIC_FACTORS) List<Double> trafficFactors,
    @JsonProperty(PROFILE) String profile,
    /** GPUs per instance from the profile's hardware line; null when it does not read as "N x GPU". */
    @JsonProperty(GPUS_PER_INSTANCE) Integer gpusPerInstance,
    @JsonProperty(GPU) String gpu,
    @JsonProperty(GPU_NOT_APPLICABLE) String gpuNotApplicable,
    /** --gpu-hour-usd; null without it. */
    @JsonProperty(GPU_HOUR_USD) Double gpuHourUsd,
    @JsonProperty(RECORDED_INSTANCES) Integer recordedInstances,
    @JsonProperty(SEARCHES) List<Search> searches,
    @JsonProperty(SIMULATIONS) Integer simulations,
    @JsonProperty(SIMULATIONS_STOPPED_EARLY) Integer simulationsStoppedEarly,
    @JsonProperty(CPU_S) Double cpuS,
    /** The interval's replicate runs. */
    @JsonProperty(INTERVAL_SIMULATIONS) Integer intervalSimulations,
    @JsonProperty(INTERVAL_CPU_S) Double intervalCpuS,
    /** The sized point (issue 29 item 3), kept as JSON: audit.json copies it as written; {@link #sized} reads it. */
    @JsonProperty(SIZED_POINT) JsonNode sizedPoint,
    @JsonProperty(SIZED_POINT_SIMULATIONS) Integer sizedPointSimulations,
    @JsonProperty(SIZED_POINT_CPU_S) Double sizedPointCpuS,
    /** Why there is no search (--no-capacity, not the audit sweep, no anchors); the block has nothing else then. */
    @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "capacity";
  public static final String TARGET_ATTAINMENT = "target_attainment";
  public static final String RULE = "rule";
  public static final String INTERVAL = "interval";
  public static final String TRAFFIC_FACTORS = "traffic_factors";
  public static final String PROFILE = "profile";
  public static final String GPUS_PER_INSTANCE = "gpus_per_instance";
  public static final String GPU = "gpu";
  public static final String GPU_NOT_APPLICABLE = "gpu_not_applicable";
  public static final String GPU_HOUR_USD = "gpu_hour_usd";
  public static final String RECORDED_INSTANCES = "recorded_instances";
  public static final String SEARCHES = "searches";
  public static final String SIMULATIONS = "simulations";
  public static final String SIMULATIONS_STOPPED_EARLY = "simulations_stopped_early";
  public static final String CPU_S = "cpu_s";
  public static final String INTERVAL_SIMULATIONS = "interval_simulations";
  public static final String INTERVAL_CPU_S = "interval_cpu_s";
  public static final String SIZED_POINT = "sized_point";
  public static final String SIZED_POINT_SIMULATIONS = "sized_point_simulations";
  public static final String SIZED_POINT_CPU_S = "sized_point_cpu_s";

  /** One search: a router at a capacity and a traffic factor, its answer and the runs that found it. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Search(
      @JsonProperty(POLICY) String policy,
      /** {@link #SMETRIC}, {@link #JUDGED} or {@link #OTHER} (--capacity-all-routers, x1 only). */
      @JsonProperty(ROLE) String role,
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(JUDGED_ROUTER) String judgedRouter,
      @JsonProperty(TRAFFIC_FACTOR) double trafficFactor,
      /** The answer; null when no count up to the cap passed ({@link #notFound} says so). */
      @JsonProperty(INSTANCES) Integer instances,
      @JsonProperty(NOT_FOUND) String notFound,
      /** The answer x GPUs per instance; absent when the profile names no GPU count. */
      @JsonProperty(GPUS) Integer gpus,
      /** GPUs x --gpu-hour-usd x 24; absent without it. */
      @JsonProperty(USD_PER_DAY) Double usdPerDay,
      @JsonProperty(START) Integer start,
      @JsonProperty(START_RULE) String startRule,
      @JsonProperty(START_FROM_RATE_SCALE) Double startFromRateScale,
      @JsonProperty(BRACKET) Bracket bracket,
      @JsonProperty(PROBES) List<Probe> probes,
      @JsonProperty(SIMULATIONS) Integer simulations,
      @JsonProperty(CPU_S) Double cpuS,
      /** Only at x1 at the interval's capacity, with bootstrap replicates. */
      @JsonProperty(INTERVAL) Interval interval) {
    public static final String POLICY = "policy";
    public static final String ROLE = "role";
    public static final String GLOBAL_RATIO = "global_ratio";
    public static final String JUDGED_ROUTER = "judged_router";
    public static final String TRAFFIC_FACTOR = "traffic_factor";
    public static final String INSTANCES = "instances";
    public static final String NOT_FOUND = "not_found";
    public static final String GPUS = "gpus";
    public static final String USD_PER_DAY = "usd_per_day";
    public static final String START = "start";
    public static final String START_RULE = "start_rule";
    public static final String START_FROM_RATE_SCALE = "start_from_rate_scale";
    public static final String BRACKET = "bracket";
    public static final String PROBES = "probes";
    public static final String SIMULATIONS = CapacityBlock.SIMULATIONS;
    public static final String CPU_S = CapacityBlock.CPU_S;
    public static final String INTERVAL = CapacityBlock.INTERVAL;
    /** The roles: SMetric, the router the verdict judges it by, and another router. */
    public static final String SMETRIC = "smetric";
    public static final String JUDGED = "judged";
    public static final String OTHER = "other";
  }

  /** The search's bracket: the highest failing count below the lowest passing one (null where none). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Bracket(
      @JsonProperty(HIGHEST_FAIL) Integer highestFail,
      @JsonProperty(LOWEST_PASS) Integer lowestPass) {
    public static final String HIGHEST_FAIL = "highest_fail";
    public static final String LOWEST_PASS = "lowest_pass";
  }

  /** One tested count: simulated (with its run), reused from the main sweep, or implied by another probe. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Probe(
      @JsonProperty(INSTANCES) int instances,
      @JsonProperty(PASS) boolean pass,
      @JsonProperty(SOURCE) String source,
      @JsonProperty(RUN_ID) Integer runId,
      @JsonProperty(STOPPED_EARLY) Boolean stoppedEarly,
      @JsonProperty(REQUESTS_DECIDED) Long requestsDecided,
      @JsonProperty(REQUESTS_MET) Long requestsMet,
      @JsonProperty(CPU_S) Double cpuS) {
    public static final String INSTANCES = Search.INSTANCES;
    public static final String PASS = "pass";
    public static final String SOURCE = "source";
    public static final String RUN_ID = "run_id";
    public static final String STOPPED_EARLY = "stopped_early";
    public static final String REQUESTS_DECIDED = "requests_decided";
    public static final String REQUESTS_MET = "requests_met";
    public static final String CPU_S = CapacityBlock.CPU_S;
  }

  /** The instance count's bootstrap interval at x1 (nearest-rank percentiles of the replicates' answers). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Interval(
      /** Replicates searched from the point estimate. */
      @JsonProperty(FIRST_WAVE) Integer firstWave,
      /** The count the rest were searched from; null when there was no second wave. */
      @JsonProperty(SECOND_WAVE_START) Integer secondWaveStart,
      @JsonProperty(LOW) Integer low,
      /** Null when a replicate found no count up to the cap (it counts as above every answer). */
      @JsonProperty(HIGH) Integer high,
      @JsonProperty(LEVEL) Double level,
      @JsonProperty(REPLICATES) Integer replicates,
      /** Each replicate's answer, null where it found none. */
      @JsonProperty(REPLICATE_ANSWERS) List<Integer> replicateAnswers,
      @JsonProperty(METHOD) String method,
      @JsonProperty(SIMULATIONS) Integer simulations,
      @JsonProperty(CPU_S) Double cpuS,
      /** Only when the point estimate lies outside the interval. */
      @JsonProperty(NOTE) String note) {
    public static final String FIRST_WAVE = "first_wave";
    public static final String SECOND_WAVE_START = "second_wave_start";
    public static final String LOW = "low";
    public static final String HIGH = "high";
    public static final String LEVEL = "level";
    public static final String REPLICATES = "replicates";
    public static final String REPLICATE_ANSWERS = "replicate_answers";
    public static final String METHOD = "method";
    public static final String SIMULATIONS = CapacityBlock.SIMULATIONS;
    public static final String CPU_S = CapacityBlock.CPU_S;
    public static final String NOTE = "note";

    /** Whether B replicates are too few for the percentile's tails at this level: the ends are then the smallest and largest answer. */
    public boolean rangeOnly() {
      return replicates != null && level != null && (1 - level) / 2 * replicates < 1 - 1e-9;
    }
  }

  /** The sized point at one capacity: each router replayed on the cluster sized for the judged router at x1. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Sized(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(INSTANCES) Integer instances,
      @JsonProperty(RATE_SCALE) Double rateScale,
      @JsonProperty(JUDGED_ROUTER) String judgedRouter,
      @JsonProperty(SIZED_FOR) String sizedFor,
      /** Router name to its run id and metrics (a metric not measured is null), in run order. */
      @JsonProperty(POLICIES) Map<String, Map<String, Double>> policies,
      @JsonProperty(SMETRIC_GAIN_VS_JUDGED) Double smetricGainVsJudged) {
    public static final String GLOBAL_RATIO = Search.GLOBAL_RATIO;
    public static final String INSTANCES = Search.INSTANCES;
    public static final String RATE_SCALE = "rate_scale";
    public static final String JUDGED_ROUTER = Search.JUDGED_ROUTER;
    public static final String SIZED_FOR = "sized_for";
    public static final String POLICIES = "policies";
    /** A router's run id, beside its metrics. */
    public static final String RUN_ID = Probe.RUN_ID;
    public static final String SMETRIC_GAIN_VS_JUDGED = "smetric_gain_vs_judged";

    /** The metric {@code name} of router {@code router}; null when not replayed or not measured. */
    public Double metric(String router, String name) {
      Map<String, Double> m = policies == null ? null : policies.get(router);
      return m == null ? null : m.get(name);
    }
  }

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static CapacityBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, CapacityBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static CapacityBlock read(JsonNode c, String where) {
    return ContractJson.read(c, CapacityBlock.class, where, "a capacity block");
  }

  /** The searches, empty when none (no search, or the not-applicable form). */
  public List<Search> searchList() {
    return searches == null ? List.of() : searches;
  }

  /** The sized point's capacities, empty without any. */
  public List<Sized> sized() {
    return sized(sizedPoint, "replay.json " + BLOCK + "." + SIZED_POINT);
  }

  /** The rows of a sized-point array as written (replay.json, or audit.json's copy of it); empty when not an array. */
  public static List<Sized> sized(JsonNode sizedPoint, String where) {
    if (sizedPoint == null || !sizedPoint.isArray()) return List.of();
    return java.util.Arrays.asList(ContractJson.read(sizedPoint, Sized[].class, where, "a sized point"));
  }
}
