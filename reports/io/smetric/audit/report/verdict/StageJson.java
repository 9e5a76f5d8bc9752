package io.smetric.audit.report.verdict;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Where the report finds its numbers in the stages' JSON outputs: JSON pointers into
 * characterization.json (written by the characterization, docs/characterization.md) and the fields
 * of replay.json's comparison blocks (written by the replay, docs/replay.md). The verdict's criteria
 * ({@link AuditCriteria}), audit.json's headline (the report's AuditJson) and the charts' "not drawn"
 * reasons all read them from here, so that no reader can drift from the others. They live in the
 * verdict package, the lowest one of the report, because every other part of the report imports it.
 */
public final class StageJson {
  private StageJson() {}

  // ---------------------------------------------------------------- characterization.json

  /** Ideal prefix reuse, token-weighted (trace-model section 2). */
  public static final String REUSE = "/reuse/token_weighted";
  /** Share of hit tokens whose block was last seen in the same session (section 3). */
  public static final String INTRA_SHARE = "/reuse_by_source/intra_session/share_of_hit_tokens";
  /** Share of hit tokens from shared system prompts (templates). */
  public static final String SYSTEM_SHARE = "/reuse_by_source/system_prompt/share_of_hit_tokens";
  /** Share of hit tokens from other sessions. */
  public static final String INTER_SHARE = "/reuse_by_source/inter_session/share_of_hit_tokens";
  /** The reuse-interval block: its threshold and the CDF summaries (section 4). */
  public static final String INTERVAL = "/reuse_interval";
  /** The interval threshold in seconds (the analysis' --interval-threshold). */
  public static final String INTERVAL_THRESHOLD = INTERVAL + "/threshold_s";
  /** Share of reuse (all sources) within the interval threshold. */
  public static final String WITHIN_THRESHOLD = INTERVAL + "/all/share_within_threshold";
  public static final String INTERVAL_P50 = INTERVAL + "/all/p50_s";
  public static final String INTERVAL_P90 = INTERVAL + "/all/p90_s";
  /** Share of requests that start a session (section 5). */
  public static final String FIRST_TURN = "/sessions/first_turn_fraction";
  /** The session token-skew block (Lorenz summaries). */
  public static final String TOKEN_SKEW = "/sessions/token_skew";
  public static final String TOP_25PCT_SHARE = TOKEN_SKEW + "/top_25pct_share";
  public static final String GINI = TOKEN_SKEW + "/gini";
  /** The request/instance ratio block (section 7): instances, mean, p5, min. */
  public static final String RATIO = "/request_instance_ratio";
  public static final String RATIO_MEAN = RATIO + "/mean";
  public static final String RATIO_P5 = RATIO + "/p5";
  /** The trace block: requests, sessions, whether it has block hashes. */
  public static final String TRACE_REQUESTS = "/trace/requests";
  public static final String TRACE_SESSIONS = "/trace/sessions";
  /** Prompt tokens of every request (the TTFT SLO marker at the mean prompt). */
  public static final String TRACE_PREFILL_TOKENS = "/trace/prefill_tokens";
  public static final String TRACE_HAS_BLOCKS = "/trace/has_blocks";
  public static final String TRACE_HAS_SESSIONS = "/trace/has_sessions";
  /** The ingest summary the characterization carries when it read an ingest output. */
  public static final String INGEST_SUMMARY = "/data_quality/ingest";

  // ---------------------------------------------------------------- replay.json

  /** SMetric against the router the verdict judges it by (--current-router, else the best paper baseline). */
  public static final String JUDGED = "/judged";
  /** SMetric against the best of every baseline (the block replay.json had before "judged"). */
  public static final String COMPARISON = "/comparison";
  /**
   * Fields of the judged block: SMetric's gain over the judged router at equal load at the
   * declared global-tier capacity and at capacity 0 (replay.json "equal_load"), the verdict's two
   * replay criteria.
   */
  public static final String GAIN_WITH_GLOBAL = "smetric_gain_with_global_tier";
  public static final String GAIN_NO_GLOBAL = "smetric_gain_without_global_tier";
  public static final String MIN_GLOBAL_RATIO = "min_global_ratio_for_gain";
  /** The equal-load comparison: per capacity, the compared routers at the normalised loads. */
  public static final String EQUAL_LOAD = "/equal_load";

  /** The comparison the verdict judges: "judged" when replay.json has it, else the older "comparison". */
  public static JsonNode judged(JsonNode replay) {
    return replay.at(JUDGED).isObject() ? replay.at(JUDGED) : replay.at(COMPARISON);
  }
}
