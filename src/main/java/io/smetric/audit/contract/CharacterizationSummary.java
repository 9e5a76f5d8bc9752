package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.util.List;
import java.util.Map;

/**
 * characterization.json ({@link AuditLayout#CHARACTERIZATION_JSON}, docs/characterization.md
 * "Fields"): the workload characterization's numbers, one record per block of the document, written
 * by the characterization and read by the verdict, audit.json, the page and the charts through this
 * one serde, so a field renamed here is renamed for all of them at compile time. Each number is a
 * {@link Metric}. Fields are written in declaration order; optional ones (marked) are left out when
 * they have no value; unknown fields are ignored when reading (an older or newer file still reads).
 *
 * <p>A session block the trace cannot give (no session ids) is written in {@link Metric}'s
 * not-applicable shape, {@code {"value": null, "not_applicable": reason}}: those records carry the
 * two fields first ({@link #naValue}) and nothing else.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"format", "parameters", "trace", "data_quality", "plan_counters", "reuse", "reuse_by_source",
    "reuse_interval", "sessions", "request_instance_ratio", "tables"})
public record CharacterizationSummary(
    String format,
    Parameters parameters,
    Trace trace,
    @JsonProperty("data_quality") DataQuality dataQuality,
    /** Optional: how the reuse plan ran (engine counters; descriptive, nobody judges on it). */
    @JsonProperty("plan_counters") JsonNode planCounters,
    /** Section 2: ideal prefix reuse. */
    Reuse reuse,
    /** Section 3: where the reuse comes from. */
    @JsonProperty("reuse_by_source") ReuseBySource reuseBySource,
    /** Section 4: how long after its last use a block is reused. */
    @JsonProperty("reuse_interval") ReuseInterval reuseInterval,
    /** Section 5: session structure. */
    Sessions sessions,
    /** Section 7: arrivals per instance per minute. */
    @JsonProperty("request_instance_ratio") RequestInstanceRatio requestInstanceRatio,
    /** Table name -> its folder, in the order the tables are written (a JSON object, so not re-sorted). */
    ObjectNode tables) {

  /** The {@code value} of a block written in the not-applicable shape. */
  static JsonNode naValue(String notApplicable) {
    return notApplicable == null ? null : NullNode.getInstance();
  }

  /** The run's parameters. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"input", "instances", "template_min_sessions", "interval_threshold_s", "interval_rounding_us",
      "minute_clock", "percentiles"})
  public record Parameters(
      String input,
      int instances,
      @JsonProperty("template_min_sessions") int templateMinSessions,
      @JsonProperty("interval_threshold_s") double intervalThresholdS,
      @JsonProperty("interval_rounding_us") int intervalRoundingUs,
      @JsonProperty("minute_clock") String minuteClock,
      String percentiles) {}

  /** What the trace holds. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"requests", "first_arrival_s", "last_arrival_s", "has_sessions", "has_blocks", "sessions",
      "block_sizes", "prefill_tokens", "output_tokens", "blocks"})
  public record Trace(
      long requests,
      @JsonProperty("first_arrival_s") double firstArrivalS,
      @JsonProperty("last_arrival_s") double lastArrivalS,
      @JsonProperty("has_sessions") boolean hasSessions,
      @JsonProperty("has_blocks") boolean hasBlocks,
      /** Distinct session ids; null when the trace has none. */
      Long sessions,
      @JsonProperty("block_sizes") List<Integer> blockSizes,
      /** Prompt tokens summed over the requests. */
      @JsonProperty("prefill_tokens") long prefillTokens,
      @JsonProperty("output_tokens") long outputTokens,
      long blocks) {}

  /**
   * The ingest's summary when the characterization read an ingest output ({@link IngestSummary}'s
   * JSON), else a sentence saying there was none; and what the analysis itself found.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"ingest", "analysis"})
  public record DataQuality(JsonNode ingest, Analysis analysis) {
    /** The ingest summary carried, or null when the field says there was none. */
    public IngestSummary ingestSummary(String where) {
      return ingest != null && ingest.isObject() && ingest.has("totals") ? IngestSummary.read(ingest, where) : null;
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"block_count_mismatch_requests", "block_count_mismatch_longer", "block_count_mismatch_shorter",
      "block_count_mismatch_rule", "requests_without_blocks", "requests_without_session", "requests_without_turn"})
  public record Analysis(
      @JsonProperty("block_count_mismatch_requests") long blockCountMismatchRequests,
      @JsonProperty("block_count_mismatch_longer") long blockCountMismatchLonger,
      @JsonProperty("block_count_mismatch_shorter") long blockCountMismatchShorter,
      @JsonProperty("block_count_mismatch_rule") String blockCountMismatchRule,
      @JsonProperty("requests_without_blocks") long requestsWithoutBlocks,
      @JsonProperty("requests_without_session") long requestsWithoutSession,
      @JsonProperty("requests_without_turn") long requestsWithoutTurn) {}

  /** Section 2: hit tokens over prefill tokens, hit blocks over blocks. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"token_weighted", "block_weighted", "hit_tokens", "hit_blocks", "per_minute_table", "per_turn_table"})
  public record Reuse(
      @JsonProperty("token_weighted") Metric tokenWeighted,
      @JsonProperty("block_weighted") Metric blockWeighted,
      /** Optional: only when the trace has blocks. */
      @JsonProperty("hit_tokens") Long hitTokens,
      @JsonProperty("hit_blocks") Long hitBlocks,
      @JsonProperty("per_minute_table") String perMinuteTable,
      @JsonProperty("per_turn_table") String perTurnTable) {}

  /** Section 3: per {@link Source}, its share of the hit and of the prefill tokens. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"template_min_sessions", "intra_session", "system_prompt", "inter_session"})
  public record ReuseBySource(
      @JsonProperty("template_min_sessions") int templateMinSessions,
      @JsonProperty("intra_session") SourceShare intraSession,
      @JsonProperty("system_prompt") SourceShare systemPrompt,
      @JsonProperty("inter_session") SourceShare interSession) {

    public SourceShare of(Source s) {
      return switch (s) {
        case INTRA_SESSION -> intraSession;
        case SYSTEM_PROMPT -> systemPrompt;
        case INTER_SESSION -> interSession;
      };
    }
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"share_of_hit_tokens", "share_of_prefill_tokens", "hit_tokens"})
  public record SourceShare(
      @JsonProperty("share_of_hit_tokens") Metric shareOfHitTokens,
      @JsonProperty("share_of_prefill_tokens") Metric shareOfPrefillTokens,
      /** Optional: only when the share is applicable. */
      @JsonProperty("hit_tokens") Long hitTokens) {}

  /** Section 4: the threshold, and the interval distribution overall ({@link Source#ALL}) and per source. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"threshold_s", "cdf_table", "all", "intra_session", "system_prompt", "inter_session"})
  public record ReuseInterval(
      @JsonProperty("threshold_s") double thresholdS,
      @JsonProperty("cdf_table") String cdfTable,
      IntervalGroup all,
      @JsonProperty("intra_session") IntervalGroup intraSession,
      @JsonProperty("system_prompt") IntervalGroup systemPrompt,
      @JsonProperty("inter_session") IntervalGroup interSession) {

    public IntervalGroup of(Source s) {
      return switch (s) {
        case INTRA_SESSION -> intraSession;
        case SYSTEM_PROMPT -> systemPrompt;
        case INTER_SESSION -> interSession;
      };
    }
  }

  /** Token-weighted interval quantiles (seconds) and the share within the threshold. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"p50_s", "p90_s", "p99_s", "share_within_threshold", "hit_tokens"})
  public record IntervalGroup(
      @JsonProperty("p50_s") Metric p50S,
      @JsonProperty("p90_s") Metric p90S,
      @JsonProperty("p99_s") Metric p99S,
      @JsonProperty("share_within_threshold") Metric shareWithinThreshold,
      /** Optional: only when applicable. */
      @JsonProperty("hit_tokens") Long hitTokens) {}

  /**
   * Section 5. Without sessions every block is {@link Metric#na}: {@link #notApplicable(String)}
   * builds that form, and reading it gives blocks whose numbers are all null.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"first_turn_fraction", "trigger_mix", "follow_ups", "turns_per_session", "duration_s",
      "think_time_s", "token_skew"})
  public record Sessions(
      @JsonProperty("first_turn_fraction") Metric firstTurnFraction,
      @JsonProperty("trigger_mix") TriggerMix triggerMix,
      /** Optional: requests with turn > 0 (left out without sessions). */
      @JsonProperty("follow_ups") Long followUps,
      @JsonProperty("turns_per_session") Distribution turnsPerSession,
      /** Seconds. */
      @JsonProperty("duration_s") Distribution durationS,
      @JsonProperty("think_time_s") ThinkTime thinkTimeS,
      @JsonProperty("token_skew") TokenSkew tokenSkew) {

    /** Every block not applicable for {@code reason}. */
    public static Sessions notApplicable(String reason) {
      return new Sessions(Metric.na(reason), TriggerMix.na(reason), null, Distribution.na(reason), Distribution.na(reason),
          ThinkTime.na(reason), TokenSkew.na(reason));
    }
  }

  /** Trigger -> share, over all requests and over follow-ups (sorted by trigger). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"value", "not_applicable", "all_requests", "follow_ups"})
  public record TriggerMix(
      @JsonProperty("value") JsonNode value,
      @JsonProperty("not_applicable") String notApplicable,
      @JsonProperty("all_requests") Map<String, Metric> allRequests,
      @JsonProperty("follow_ups") Map<String, Metric> followUps) {
    public static TriggerMix of(Map<String, Metric> allRequests, Map<String, Metric> followUps) {
      return new TriggerMix(null, null, allRequests, followUps);
    }

    static TriggerMix na(String reason) {
      return new TriggerMix(naValue(reason), reason, null, null);
    }
  }

  /** Mean, quantiles and max of a distribution; {@code table} names its histogram (turns per session only). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"value", "not_applicable", "mean", "p50", "p90", "p99", "max", "table"})
  public record Distribution(
      @JsonProperty("value") JsonNode value,
      @JsonProperty("not_applicable") String notApplicable,
      Metric mean,
      Metric p50,
      Metric p90,
      Metric p99,
      Metric max,
      String table) {
    public static Distribution of(Metric mean, Metric p50, Metric p90, Metric p99, Metric max, String table) {
      return new Distribution(null, null, mean, p50, p90, p99, max, table);
    }

    static Distribution na(String reason) {
      return new Distribution(naValue(reason), reason, null, null, null, null, null, null);
    }
  }

  /** Think time: how many follow-ups have their parent in the trace, and the distribution over those. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"value", "not_applicable", "follow_ups_with_parent_in_trace", "follow_ups_without_parent_in_trace",
      "mean", "p50", "p90", "p99", "max"})
  public record ThinkTime(
      @JsonProperty("value") JsonNode value,
      @JsonProperty("not_applicable") String notApplicable,
      @JsonProperty("follow_ups_with_parent_in_trace") Long followUpsWithParentInTrace,
      @JsonProperty("follow_ups_without_parent_in_trace") Long followUpsWithoutParentInTrace,
      Metric mean,
      Metric p50,
      Metric p90,
      Metric p99,
      Metric max) {
    public static ThinkTime of(long withParent, long withoutParent, Distribution d) {
      return new ThinkTime(null, null, withParent, withoutParent, d.mean(), d.p50(), d.p90(), d.p99(), d.max());
    }

    static ThinkTime na(String reason) {
      return new ThinkTime(naValue(reason), reason, null, null, null, null, null, null, null);
    }
  }

  /** How unevenly sessions hold tokens: the top quarter's share and the Gini coefficient. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"value", "not_applicable", "session_tokens", "top_sessions", "top_25pct_share", "gini",
      "lorenz_table"})
  public record TokenSkew(
      @JsonProperty("value") JsonNode value,
      @JsonProperty("not_applicable") String notApplicable,
      /** What a session's tokens are. */
      @JsonProperty("session_tokens") String sessionTokens,
      @JsonProperty("top_sessions") Long topSessions,
      @JsonProperty("top_25pct_share") Metric top25pctShare,
      Metric gini,
      @JsonProperty("lorenz_table") String lorenzTable) {
    public static TokenSkew of(String sessionTokens, long topSessions, Metric top25pctShare, Metric gini, String lorenzTable) {
      return new TokenSkew(null, null, sessionTokens, topSessions, top25pctShare, gini, lorenzTable);
    }

    static TokenSkew na(String reason) {
      return new TokenSkew(naValue(reason), reason, null, null, null, null, null);
    }

    /** The top quarter's share, or the block's reason when it has none. */
    @JsonIgnore
    public Metric top25pctShareOrNa() {
      return top25pctShare != null ? top25pctShare : Metric.na(notApplicable);
    }

    @JsonIgnore
    public Metric giniOrNa() {
      return gini != null ? gini : Metric.na(notApplicable);
    }
  }

  /** Section 7: arrivals per instance in each whole minute. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"instances", "whole_minutes", "table", "mean", "min", "p5", "p50"})
  public record RequestInstanceRatio(
      int instances,
      @JsonProperty("whole_minutes") int wholeMinutes,
      String table,
      Metric mean,
      Metric min,
      Metric p5,
      Metric p50) {}

  /** The JSON tree as written to the file. */
  public ObjectNode toJson() {
    return Json.MAPPER.valueToTree(this);
  }

  /** Reads a characterization; {@code where} names it in an error. */
  public static CharacterizationSummary read(JsonNode n, String where) {
    return ContractJson.read(n, CharacterizationSummary.class, where, "a characterization");
  }
}
