package io.smetric.audit.contract;

/**
 * Columns of the measured-cache per-request table ({@link AuditLayout#MEASURED_CACHE_REQUESTS},
 * trace-model section 9): written by the measured-cache job, drawn by the report.
 */
public final class MeasuredCacheCols {
  private MeasuredCacheCols() {}

  public static final String HIT_TOKENS = "hit_tokens";
  public static final String GRANULAR_TOKENS = "granular_hit_tokens";
  public static final String PREDICTED = "predicted_ratio";
  public static final String PREDICTED_GRANULAR = "predicted_granular_ratio";
  public static final String MEASURED = "measured_ratio";
  public static final String GAP_PP = "gap_pp";
  public static final String SINCE_PREVIOUS_S = "since_previous_s";
}
