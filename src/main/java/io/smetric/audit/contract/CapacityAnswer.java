package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * audit.json's capacity answer ({@code answers.capacity}, issue 29; docs/report.md): the
 * sentence the page opens with and, per global-tier capacity and traffic factor, what SMetric, the
 * judged router and (--capacity-all-routers, x1 only) the other routers need, each with its
 * bootstrap interval at x1. The report builds it from {@link CapacityBlock} with these key constants
 * (Answers.capacity; a row's routers in the order replay.json lists the searches, so the tree is
 * built by hand, as for {@link EqualLoadBlock}); the page's capacity table and {@code compare}'s
 * (reading other audits' audit.json) read it through this record. Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CapacityAnswer(
    @JsonProperty(TARGET_ATTAINMENT) Double targetAttainment,
    @JsonProperty(RULE) String rule,
    @JsonProperty(INTERVAL) String interval,
    /** Only when the profile names the GPU. */
    @JsonProperty(GPU) String gpu,
    /** Only with --gpu-hour-usd. */
    @JsonProperty(GPU_HOUR_USD) Double gpuHourUsd,
    @JsonProperty(BY_GLOBAL_RATIO) List<Row> byGlobalRatio,
    /** "Serving this trace within SLO takes ...". */
    @JsonProperty(SUMMARY) String summary,
    /** replay.json's sized point, copied as written (only when it has one); {@link CapacityBlock#sized(JsonNode, String)} reads it. */
    @JsonProperty(CapacityBlock.SIZED_POINT) JsonNode sizedPoint) {

  /** The block's name in audit.json's answers. */
  public static final String BLOCK = CapacityBlock.BLOCK;
  public static final String TARGET_ATTAINMENT = CapacityBlock.TARGET_ATTAINMENT;
  public static final String RULE = CapacityBlock.RULE;
  public static final String INTERVAL = CapacityBlock.INTERVAL;
  public static final String GPU = CapacityBlock.GPU;
  public static final String GPU_HOUR_USD = CapacityBlock.GPU_HOUR_USD;
  public static final String BY_GLOBAL_RATIO = "by_global_ratio";
  public static final String SUMMARY = "summary";

  /** One capacity and traffic factor: SMetric's and the judged router's answers, and the other routers'. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Row(
      @JsonProperty(GLOBAL_RATIO) double globalRatio,
      @JsonProperty(TRAFFIC_FACTOR) double trafficFactor,
      @JsonProperty(JUDGED_ROUTER) String judgedRouter,
      /** Keyed by the search's role ({@link CapacityBlock.Search#SMETRIC}); null when not searched here. */
      @JsonProperty(CapacityBlock.Search.SMETRIC) Amount smetric,
      @JsonProperty(CapacityBlock.Search.JUDGED) Amount judged,
      /** --capacity-all-routers at x1; null without them. */
      @JsonProperty(OTHERS) List<Amount> others) {
    public static final String GLOBAL_RATIO = CapacityBlock.Search.GLOBAL_RATIO;
    public static final String TRAFFIC_FACTOR = CapacityBlock.Search.TRAFFIC_FACTOR;
    public static final String JUDGED_ROUTER = CapacityBlock.Search.JUDGED_ROUTER;
    public static final String OTHERS = "others";
  }

  /** One router's answer: instances (and GPUs, and dollars per day) or why none, with its interval at x1. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Amount(
      @JsonProperty(ROUTER) String router,
      /** Written as a decimal (10.0); null when no count up to the search's cap passed. */
      @JsonProperty(INSTANCES) Double instances,
      @JsonProperty(GPUS) Double gpus,
      @JsonProperty(USD_PER_DAY) Double usdPerDay,
      @JsonProperty(NOT_FOUND) String notFound,
      @JsonProperty(INTERVAL) Interval interval) {
    public static final String ROUTER = "router";
    public static final String INSTANCES = CapacityBlock.Search.INSTANCES;
    public static final String GPUS = CapacityBlock.Search.GPUS;
    public static final String USD_PER_DAY = CapacityBlock.Search.USD_PER_DAY;
    public static final String NOT_FOUND = CapacityBlock.Search.NOT_FOUND;
    public static final String INTERVAL = CapacityBlock.Search.INTERVAL;
  }

  /** The instance count's interval, as the answer keeps it from {@link CapacityBlock.Interval}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Interval(
      @JsonProperty(CapacityBlock.Interval.LOW) Integer low,
      @JsonProperty(CapacityBlock.Interval.HIGH) Integer high,
      @JsonProperty(CapacityBlock.Interval.LEVEL) Double level,
      @JsonProperty(CapacityBlock.Interval.REPLICATES) Integer replicates,
      @JsonProperty(CapacityBlock.Interval.NOTE) String note) {}

  /** The answer in audit.json's {@code answers} block; null when it has none (or it is not an object). */
  public static CapacityAnswer of(JsonNode answers, String where) {
    JsonNode c = answers == null ? null : answers.path(BLOCK);
    return c == null || !c.isObject() ? null : ContractJson.read(c, CapacityAnswer.class, where, "a capacity answer");
  }

  /** The rows, empty when none. */
  public List<Row> rows() {
    return byGlobalRatio == null ? List.of() : byGlobalRatio;
  }
}
