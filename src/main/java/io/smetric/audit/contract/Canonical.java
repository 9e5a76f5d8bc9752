package io.smetric.audit.contract;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The canonical request record of docs/trace-model.md section 1: column names and the Spark
 * schema every stage after ingest reads. Column names are constants so that no stage spells one
 * twice.
 */
public final class Canonical {
  private Canonical() {}

  public static final String REQUEST_ID = "request_id";
  public static final String SESSION_ID = "session_id";
  public static final String PARENT_ID = "parent_id";
  public static final String TURN = "turn";
  public static final String TRIGGER = "trigger";
  public static final String ARRIVAL_S = "arrival_s";
  public static final String INPUT_TOKENS = "input_tokens";
  public static final String OUTPUT_TOKENS = "output_tokens";
  public static final String BLOCK_SIZE = "block_size";
  /** Chained block ids (see {@link BlockChain}): equal id at index i means equal prefix 0..i. */
  public static final String BLOCKS = "blocks";
  /** Source request type where the format has one (Bailian: text/search/image/file), else null. */
  public static final String REQUEST_TYPE = "request_type";
  /**
   * Global input order: {@code fileIndex << 40 | lineNumber}. Ties in arrival time are broken by
   * it, as the contract's "ties by input order" asks.
   */
  public static final String SEQ = "seq";
  /**
   * Optional (trace-model v1.2): the provider's own prompt-token count for the request, as its
   * usage accounting reported it (prompt tokens including cached ones); null when the log has none.
   */
  public static final String PROVIDER_INPUT_TOKENS = "provider_input_tokens";
  /** Optional: prompt tokens the provider reported as served from its prefix cache. */
  public static final String PROVIDER_CACHED_TOKENS = "provider_cached_tokens";
  /** Optional: prompt tokens the provider reported as written to its cache (Anthropic only). */
  public static final String PROVIDER_CACHE_WRITE_TOKENS = "provider_cache_write_tokens";
  /**
   * Optional: the accounting convention the cache fields came from, one of {@link #CACHE_OPENAI},
   * {@link #CACHE_DEEPSEEK}, {@link #CACHE_ANTHROPIC}; it decides the cache granularity.
   */
  public static final String PROVIDER_CACHE = "provider_cache";

  public static final String CACHE_OPENAI = "openai";
  public static final String CACHE_DEEPSEEK = "deepseek";
  public static final String CACHE_ANTHROPIC = "anthropic";
  public static final java.util.List<String> CACHE_KINDS = java.util.List.of(CACHE_OPENAI, CACHE_DEEPSEEK, CACHE_ANTHROPIC);

  /**
   * Optional (trace-model v1.3, recorded routing): the instance or endpoint that served the request,
   * as the log names it (a deployment, an {@code api_base}, a {@code server.address}); null when the
   * log does not say.
   */
  public static final String SERVED_INSTANCE = "served_instance";
  /** Optional: measured time to first token [s], from the request's arrival ({@link #ARRIVAL_S}). */
  public static final String TTFT_S = "ttft_s";
  /** Optional: measured end-to-end time [s], arrival to the last token (or to the error or abort). */
  public static final String E2E_S = "e2e_s";
  /** Optional: how the request ended, one of {@link #OUTCOMES}. */
  public static final String OUTCOME = "outcome";
  /**
   * Accepted on input only (JSONL, CSV, Parquet): the first token's and the finish's time on the
   * trace's clock (the clock of {@link #ARRIVAL_S}, seconds); ingest converts them to {@link #TTFT_S}
   * and {@link #E2E_S} (time minus arrival) and does not store them.
   */
  public static final String FIRST_TOKEN_S = "first_token_s";
  public static final String FINISH_S = "finish_s";

  public static final String OUTCOME_COMPLETED = "completed";
  public static final String OUTCOME_ABORTED = "aborted";
  public static final String OUTCOME_ERROR = "error";
  public static final java.util.List<String> OUTCOMES = java.util.List.of(OUTCOME_COMPLETED, OUTCOME_ABORTED, OUTCOME_ERROR);
  /** The recorded-routing columns, in schema order. */
  public static final java.util.List<String> RECORDED_COLUMNS = java.util.List.of(SERVED_INSTANCE, TTFT_S, E2E_S, OUTCOME);

  /**
   * Columns a canonical dataset may lack (older datasets, other writers): readers add them as
   * typed nulls ({@link #withOptionalColumns}).
   */
  public static final java.util.List<String> OPTIONAL_COLUMNS = java.util.List.of(
      REQUEST_TYPE, PROVIDER_INPUT_TOKENS, PROVIDER_CACHED_TOKENS, PROVIDER_CACHE_WRITE_TOKENS, PROVIDER_CACHE,
      SERVED_INSTANCE, TTFT_S, E2E_S, OUTCOME);

  public static final String TRIGGER_USER = "user";
  public static final String TRIGGER_TOOL = "tool";
  public static final String TRIGGER_SUBAGENT = "subagent";
  public static final String TRIGGER_UNKNOWN = "unknown";

  /** Bit position of the file index inside {@link #SEQ}. */
  public static final int SEQ_FILE_SHIFT = 40;

  public static long seq(int fileIndex, long line) {
    return ((long) fileIndex << SEQ_FILE_SHIFT) | line;
  }

  public static final StructType SCHEMA =
      new StructType(
          new StructField[] {
            field(REQUEST_ID, DataTypes.StringType, false),
            field(SESSION_ID, DataTypes.StringType, true),
            field(PARENT_ID, DataTypes.StringType, true),
            field(TURN, DataTypes.IntegerType, true),
            field(TRIGGER, DataTypes.StringType, false),
            field(ARRIVAL_S, DataTypes.DoubleType, false),
            field(INPUT_TOKENS, DataTypes.IntegerType, false),
            field(OUTPUT_TOKENS, DataTypes.IntegerType, false),
            field(BLOCK_SIZE, DataTypes.IntegerType, true),
            field(BLOCKS, DataTypes.createArrayType(DataTypes.LongType, false), true),
            field(REQUEST_TYPE, DataTypes.StringType, true),
            field(SEQ, DataTypes.LongType, false),
            field(PROVIDER_INPUT_TOKENS, DataTypes.IntegerType, true),
            field(PROVIDER_CACHED_TOKENS, DataTypes.IntegerType, true),
            field(PROVIDER_CACHE_WRITE_TOKENS, DataTypes.IntegerType, true),
            field(PROVIDER_CACHE, DataTypes.StringType, true),
            field(SERVED_INSTANCE, DataTypes.StringType, true),
            field(TTFT_S, DataTypes.DoubleType, true),
            field(E2E_S, DataTypes.DoubleType, true),
            field(OUTCOME, DataTypes.StringType, true)
          });

  private static StructField field(String name, org.apache.spark.sql.types.DataType t, boolean nullable) {
    return new StructField(name, t, nullable, Metadata.empty());
  }

  /**
   * The dataset with every optional canonical column it lacks added as a typed null, so that a
   * dataset written before trace-model v1.3 (or by another tool) reads with {@link #SCHEMA}'s columns.
   */
  public static org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> withOptionalColumns(
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> d) {
    java.util.List<String> have = java.util.Arrays.asList(d.columns());
    for (String c : OPTIONAL_COLUMNS) {
      if (!have.contains(c)) d = d.withColumn(c, org.apache.spark.sql.functions.lit(null).cast(SCHEMA.apply(c).dataType()));
    }
    return d;
  }

  /** Number of blocks a well-formed record has: {@code ceil(inputTokens / blockSize)}. */
  public static int expectedBlocks(int inputTokens, int blockSize) {
    return (int) ((inputTokens + (long) blockSize - 1) / blockSize);
  }
}
