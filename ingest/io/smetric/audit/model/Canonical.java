package io.smetric.audit.model;

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
            field(SEQ, DataTypes.LongType, false)
          });

  private static StructField field(String name, org.apache.spark.sql.types.DataType t, boolean nullable) {
    return new StructField(name, t, nullable, Metadata.empty());
  }

  /** Number of blocks a well-formed record has: {@code ceil(inputTokens / blockSize)}. */
  public static int expectedBlocks(int inputTokens, int blockSize) {
    return (int) ((inputTokens + (long) blockSize - 1) / blockSize);
  }
}
