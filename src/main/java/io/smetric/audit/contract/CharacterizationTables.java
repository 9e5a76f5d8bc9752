package io.smetric.audit.contract;

/**
 * The names of the characterization's result tables (Parquet folders beside characterization.json,
 * docs/characterization.md): the characterization writes them, the report reads them. Their
 * columns are in {@link Cols}.
 */
public final class CharacterizationTables {
  private CharacterizationTables() {}

  public static final String T_REUSE_MINUTE = "reuse_by_minute";
  public static final String T_REUSE_TURN = "reuse_by_turn";
  public static final String T_INTERVAL_CDF = "reuse_interval_cdf";
  public static final String T_SESSIONS = "sessions";
  public static final String T_TURNS = "turns_per_session";
  public static final String T_LORENZ = "session_token_lorenz";
  public static final String T_TRIGGERS = "trigger_mix";
  public static final String T_RATIO = "request_instance_ratio";
}
