package io.smetric.audit.contract;

/** Column names of the characterization's output tables (docs/characterization.md). */
public final class Cols {
  private Cols() {}

  public static final String MINUTE = "minute";
  public static final String MINUTE_START_S = "minute_start_s";
  public static final String TURN = "turn";
  public static final String REQUESTS = "requests";
  public static final String PREFILL_TOKENS = "prefill_tokens";
  public static final String BLOCKS = "blocks";
  public static final String HIT_TOKENS = "hit_tokens";
  public static final String HIT_BLOCKS = "hit_blocks";
  public static final String REUSE_TOKEN = "reuse_ratio_token";
  public static final String REUSE_BLOCK = "reuse_ratio_block";
  public static final String SOURCE = "source";
  public static final String INTERVAL_LE_S = "interval_le_s";
  public static final String TOKENS = "tokens";
  public static final String CUM_SHARE = "cumulative_share";
  public static final String SESSION_ID = "session_id";
  public static final String FIRST_ARRIVAL_S = "first_arrival_s";
  public static final String DURATION_S = "duration_s";
  public static final String SESSIONS = "sessions";
  public static final String POPULATION_SHARE = "population_share";
  public static final String TOKEN_SHARE = "token_share";
  public static final String SCOPE = "scope";
  public static final String TRIGGER = "trigger";
  public static final String SHARE = "share";
  public static final String ARRIVALS = "arrivals";
  public static final String RATIO = "requests_per_instance";

  /** Hit-token column of one source, e.g. {@code hit_tokens_intra_session}. */
  public static String hitTokens(Source s) {
    return HIT_TOKENS + "_" + s.label;
  }
}
