package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The rows the per-file hashing tasks emit, before the driver-side steps (parents, rebased
 * arrivals, optional dense ids, chaining). One schema carries four kinds of row, so that a file
 * is read exactly once: {@code request} rows, {@code skip} rows (a record not used, with its
 * reason), one {@code file} row per input (counters as a small JSON text), and an {@code error}
 * row for a file that cannot be read at all (bad input: the driver raises it, so that the user
 * sees one line naming file, line and field instead of Spark's task failure logs).
 */
public final class StagingRows {
  private StagingRows() {}

  public static final String KIND = "kind";
  public static final String REQUEST_ID = "request_id";
  public static final String SESSION_ID = "session_id";
  /** A parent named by the log itself (a sub-agent's spawning request); else the previous request. */
  public static final String EXPLICIT_PARENT = "explicit_parent";
  public static final String TURN = "turn";
  public static final String TRIGGER = "trigger";
  /** Epoch seconds from the log; for a synthetic arrival, the offset within its conversation. */
  public static final String TIME_S = "time_s";
  /** Synthetic arrivals: the index, within its file, of the conversation (or timestamp-less record). */
  public static final String SYNTH_INDEX = "synth_index";
  public static final String SYNTHETIC = "synthetic_time";
  public static final String INPUT_TOKENS = "input_tokens";
  public static final String OUTPUT_TOKENS = "output_tokens";
  public static final String BLOCK_SIZE = "block_size";
  public static final String HASH_IDS = "hash_ids";
  public static final String SEQ = "seq";
  public static final String FILE_INDEX = "file_index";
  public static final String DETAIL = "detail";
  public static final String PROVIDER_INPUT_TOKENS = Canonical.PROVIDER_INPUT_TOKENS;
  public static final String PROVIDER_CACHED_TOKENS = Canonical.PROVIDER_CACHED_TOKENS;
  public static final String PROVIDER_CACHE_WRITE_TOKENS = Canonical.PROVIDER_CACHE_WRITE_TOKENS;
  public static final String PROVIDER_CACHE = Canonical.PROVIDER_CACHE;
  public static final String SERVED_INSTANCE = Canonical.SERVED_INSTANCE;
  public static final String TTFT_S = Canonical.TTFT_S;
  public static final String E2E_S = Canonical.E2E_S;
  public static final String OUTCOME = Canonical.OUTCOME;

  public static final String KIND_REQUEST = "request";
  public static final String KIND_SKIP = "skip";
  public static final String KIND_FILE = "file";
  public static final String KIND_ERROR = "error";

  public static final StructType SCHEMA =
      new StructType(
          new StructField[] {
            f(KIND, DataTypes.StringType, false),
            f(REQUEST_ID, DataTypes.StringType, true),
            f(SESSION_ID, DataTypes.StringType, true),
            f(EXPLICIT_PARENT, DataTypes.StringType, true),
            f(TURN, DataTypes.IntegerType, true),
            f(TRIGGER, DataTypes.StringType, true),
            f(TIME_S, DataTypes.DoubleType, true),
            f(SYNTHETIC, DataTypes.BooleanType, true),
            f(SYNTH_INDEX, DataTypes.LongType, true),
            f(INPUT_TOKENS, DataTypes.IntegerType, true),
            f(OUTPUT_TOKENS, DataTypes.IntegerType, true),
            f(BLOCK_SIZE, DataTypes.IntegerType, true),
            f(HASH_IDS, DataTypes.createArrayType(DataTypes.LongType, false), true),
            f(SEQ, DataTypes.LongType, false),
            f(FILE_INDEX, DataTypes.IntegerType, false),
            f(DETAIL, DataTypes.StringType, true),
            f(PROVIDER_INPUT_TOKENS, DataTypes.IntegerType, true),
            f(PROVIDER_CACHED_TOKENS, DataTypes.IntegerType, true),
            f(PROVIDER_CACHE_WRITE_TOKENS, DataTypes.IntegerType, true),
            f(PROVIDER_CACHE, DataTypes.StringType, true),
            f(SERVED_INSTANCE, DataTypes.StringType, true),
            f(TTFT_S, DataTypes.DoubleType, true),
            f(E2E_S, DataTypes.DoubleType, true),
            f(OUTCOME, DataTypes.StringType, true)
          });

  private static StructField f(String n, org.apache.spark.sql.types.DataType t, boolean nullable) {
    return new StructField(n, t, nullable, Metadata.empty());
  }

  /** Rows carry the schema, so that tests and readers can use field names. */
  private static Row row(Object... values) {
    return new GenericRowWithSchema(values, SCHEMA);
  }

  public static Row request(String requestId, String sessionId, String explicitParent, int turn, String trigger,
      double timeS, boolean synthetic, long synthIndex, int inputTokens, int outputTokens, int blockSize, long[] hashIds,
      long seq, int fileIndex, TraceRecord.ProviderCache cache) {
    return request(requestId, sessionId, explicitParent, turn, trigger, timeS, synthetic, synthIndex, inputTokens,
        outputTokens, blockSize, hashIds, seq, fileIndex, cache, null);
  }

  /** A request row with its recorded routing (null: the log recorded none). */
  public static Row request(String requestId, String sessionId, String explicitParent, int turn, String trigger,
      double timeS, boolean synthetic, long synthIndex, int inputTokens, int outputTokens, int blockSize, long[] hashIds,
      long seq, int fileIndex, TraceRecord.ProviderCache cache, TraceRecord.Recorded rec) {
    return row(KIND_REQUEST, requestId, sessionId, explicitParent, turn, trigger, timeS, synthetic, synthIndex,
        inputTokens, outputTokens, blockSize, hashIds, seq, fileIndex, null,
        cache == null ? null : cache.inputTokens(), cache == null ? null : cache.cachedTokens(),
        cache == null ? null : cache.cacheWriteTokens(), cache == null ? null : cache.kind(),
        rec == null ? null : rec.servedInstance(), rec == null ? null : rec.ttftS(), rec == null ? null : rec.e2eS(),
        rec == null ? null : rec.outcome());
  }

  public static Row skip(long seq, int fileIndex, String reason) {
    return row(KIND_SKIP, null, null, null, null, null, null, null, null, null, null, null, null,
        seq, fileIndex, reason, null, null, null, null, null, null, null, null);
  }

  /** A file that is bad input as a whole; {@code detail} keeps where and what ({@link #badInput}). */
  public static Row error(int fileIndex, BadInputException e) {
    ObjectNode d = Json.MAPPER.createObjectNode();
    d.put("file", e.file());
    d.put("line", e.line());
    d.put("field", e.field());
    d.put("message", e.getMessage());
    return row(KIND_ERROR, null, null, null, null, null, null, null, null, null, null, null, null,
        -1L, fileIndex, d.toString(), null, null, null, null, null, null, null, null);
  }

  /** The bad input an {@link #error} row's detail describes. */
  public static BadInputException badInput(String detail) {
    try {
      JsonNode d = Json.MAPPER.readTree(detail);
      return new BadInputException(d.path("file").isNull() ? null : d.path("file").asText(), d.path("line").asLong(-1),
          d.path("field").isNull() ? null : d.path("field").asText(), d.path("message").asText());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The rows of one file, ending with an {@link #error} row where reading it raised bad input
   * (at its start, e.g. an undetectable format, or later): the task then succeeds.
   */
  public static Iterator<Row> untilBadInput(int fileIndex, java.util.function.Supplier<Iterator<Row>> open) {
    Iterator<Row> rows;
    try {
      rows = open.get();
    } catch (BadInputException e) {
      return List.of(error(fileIndex, e)).iterator();
    }
    return new Iterator<>() {
      private Row failed;
      private boolean over;

      @Override
      public boolean hasNext() {
        if (over) return failed != null;
        try {
          return rows.hasNext();
        } catch (BadInputException e) {
          over = true;
          failed = error(fileIndex, e);
          return true;
        }
      }

      @Override
      public Row next() {
        if (!hasNext()) throw new java.util.NoSuchElementException();
        if (over) {
          Row r = failed;
          failed = null;
          return r;
        }
        try {
          return rows.next();
        } catch (BadInputException e) {
          over = true;
          return error(fileIndex, e);
        }
      }
    };
  }

  public static Row file(int fileIndex, String countersJson) {
    return row(KIND_FILE, null, null, null, null, null, null, null, null, null, null, null, null,
        -1L, fileIndex, countersJson, null, null, null, null, null, null, null, null);
  }
}
