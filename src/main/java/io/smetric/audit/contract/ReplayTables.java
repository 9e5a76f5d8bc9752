package io.smetric.audit.contract;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The replay's Parquet tables beside replay.json (their folders are {@link AuditLayout#REPLAY_TABLES},
 * docs/replay.md "Output"): their columns and schemas, written here once. The replay writes them
 * with these schemas and the report's charts (and the notebooks) read them by these names.
 */
public final class ReplayTables {
  private ReplayTables() {}

  // ---- columns shared by several tables
  /** The simulation a row belongs to (the runs table's key). */
  public static final String RUN_ID = "run_id";
  public static final String POLICY = "policy";
  /** Global-tier capacity as a multiple of the cluster's local KV capacity. */
  public static final String GLOBAL_RATIO = "global_ratio";
  /** SMetric's overload guard threshold (null for a policy without it). */
  public static final String OVERLOAD = "overload";
  /** SMetric's hit-ratio guard threshold (null for a policy without it). */
  public static final String HIT_RATIO = "hit_ratio";
  /** The load window's index (imbalance and instance-load tables). */
  public static final String WINDOW = "window";

  // ---- runs: one row per simulation, then one nullable double column per run metric ({@link RunMetrics})
  public static final String ARCHITECTURE = "architecture";
  public static final String INSTANCES = "instances";
  /** Local KV capacity in blocks per instance (null: unbounded). */
  public static final String LOCAL_BLOCKS = "local_blocks";
  /** The offered rate as a multiple of the trace's own. */
  public static final String RATE_SCALE = "rate_scale";
  public static final String WALL_S = "wall_s";
  public static final String CPU_S = "cpu_s";
  /** The run metrics that could not be computed, with their reasons (a map printed as text). */
  public static final String NOT_APPLICABLE = "not_applicable";
  /** 0 for the main sweep, else the bootstrap replicate. */
  public static final String REPLICATE = "replicate";
  /** Null for the main sweep, else the conditions-sweep variant. */
  public static final String VARIANT = "variant";
  /** The settings a variant overrides (JSON), null when none. */
  public static final String OVERRIDES = "overrides";
  /** The run whose simulation this one repeats (null when it ran its own). */
  public static final String SAME_SIMULATION_AS = "same_simulation_as";

  /** The runs table's fixed columns; the run metrics follow, sorted by name. */
  public static final StructType RUNS_FIXED = new StructType()
      .add(RUN_ID, DataTypes.IntegerType, false).add(POLICY, DataTypes.StringType, false)
      .add(ARCHITECTURE, DataTypes.StringType, false).add(INSTANCES, DataTypes.IntegerType, false)
      .add(LOCAL_BLOCKS, DataTypes.LongType, true).add(GLOBAL_RATIO, DataTypes.DoubleType, false)
      .add(RATE_SCALE, DataTypes.DoubleType, false).add(OVERLOAD, DataTypes.DoubleType, true)
      .add(HIT_RATIO, DataTypes.DoubleType, true).add(WALL_S, DataTypes.DoubleType, false)
      .add(CPU_S, DataTypes.DoubleType, false)
      .add(NOT_APPLICABLE, DataTypes.StringType, true)
      .add(REPLICATE, DataTypes.IntegerType, false).add(VARIANT, DataTypes.StringType, true)
      .add(OVERRIDES, DataTypes.StringType, true)
      .add(SAME_SIMULATION_AS, DataTypes.IntegerType, true);

  /** The runs table: the fixed columns, then {@code metrics} (sorted) as nullable doubles. */
  public static StructType runs(Iterable<String> metrics) {
    StructType t = RUNS_FIXED;
    for (String m : metrics) t = t.add(m, DataTypes.DoubleType, true);
    return t;
  }

  /** Names of the run metrics the report and the notebooks read from the runs table (the simulator writes them). */
  public static final class RunMetrics {
    private RunMetrics() {}

    /** Output tokens per second of requests that met their SLO (the paper's TPS within SLO). */
    public static final String TPS_WITHIN_SLO = "tps_within_slo";
    public static final String LOCAL_HIT_RATIO = "local_hit_ratio";
    public static final String GLOBAL_HIT_RATIO = "global_hit_ratio";
    public static final String TOTAL_HIT_RATIO = "total_hit_ratio";
    /** Share of follow-ups routed to the instance that served their session's turn 0. */
    public static final String STICKINESS = "stickiness";
    public static final String SESSION_MIGRATIONS = "session_migrations";
    /** Mean over windows with load of max/mean token load over instances. */
    public static final String IMBALANCE_MEAN = "imbalance_mean";
    public static final String TPOT_P50_S = "tpot_p50_s";
    public static final String OFFERED_SESSIONS_PER_MIN = "offered_sessions_per_min";
  }

  // ---- headline: the best run (max TPS within SLO over the offered rates) per policy, capacity and guard thresholds
  public static final String MAX_TPS_WITHIN_SLO = "max_tps_within_slo";
  public static final String AT_RATE_SCALE = "at_rate_scale";
  public static final StructType HEADLINE = new StructType().add(POLICY, DataTypes.StringType, false)
      .add(GLOBAL_RATIO, DataTypes.DoubleType, false).add(OVERLOAD, DataTypes.DoubleType, true)
      .add(HIT_RATIO, DataTypes.DoubleType, true).add(MAX_TPS_WITHIN_SLO, DataTypes.DoubleType, false)
      .add(AT_RATE_SCALE, DataTypes.DoubleType, false).add(RUN_ID, DataTypes.IntegerType, false);

  // ---- latency_cdf: per run and metric, 100 quantiles (nearest rank)
  /** Which latency: {@link #TTFT} or {@link #TPOT}. */
  public static final String METRIC = "metric";
  public static final String QUANTILE = "quantile";
  public static final String VALUE_S = "value_s";
  public static final String TTFT = "ttft";
  public static final String TPOT = "tpot";
  public static final StructType LATENCY_CDF = new StructType().add(RUN_ID, DataTypes.IntegerType, false)
      .add(METRIC, DataTypes.StringType, false).add(QUANTILE, DataTypes.DoubleType, false)
      .add(VALUE_S, DataTypes.DoubleType, false);

  // ---- imbalance_windows: per run and window, max/mean token load over instances (null: no load)
  public static final String WINDOW_START_S = "window_start_s";
  public static final String MAX_OVER_MEAN = "max_over_mean";
  public static final StructType IMBALANCE_WINDOWS = new StructType().add(RUN_ID, DataTypes.IntegerType, false)
      .add(WINDOW, DataTypes.IntegerType, false).add(WINDOW_START_S, DataTypes.DoubleType, false)
      .add(MAX_OVER_MEAN, DataTypes.DoubleType, true);

  // ---- instance_load: per run, window and instance, the time-averaged in-flight token load
  public static final String INSTANCE = "instance";
  public static final String TOKEN_LOAD = "token_load";
  public static final StructType INSTANCE_LOAD = new StructType().add(RUN_ID, DataTypes.IntegerType, false)
      .add(WINDOW, DataTypes.IntegerType, false).add(INSTANCE, DataTypes.IntegerType, false)
      .add(TOKEN_LOAD, DataTypes.DoubleType, false);
}
