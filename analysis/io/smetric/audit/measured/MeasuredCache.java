package io.smetric.audit.measured;

import static io.smetric.audit.contract.MeasuredCacheCols.GAP_PP;
import static io.smetric.audit.contract.MeasuredCacheCols.GRANULAR_TOKENS;
import static io.smetric.audit.contract.MeasuredCacheCols.HIT_TOKENS;
import static io.smetric.audit.contract.MeasuredCacheCols.MEASURED;
import static io.smetric.audit.contract.MeasuredCacheCols.PREDICTED;
import static io.smetric.audit.contract.MeasuredCacheCols.PREDICTED_GRANULAR;
import static io.smetric.audit.contract.MeasuredCacheCols.SINCE_PREVIOUS_S;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.functions;
import org.apache.spark.storage.StorageLevel;

/**
 * Predicted against provider-measured prefix-cache hits (trace-model section 9): for every request
 * that carries the provider's cache accounting, the ideal reuse the hashed blocks predict (section
 * 2, an infinite cache, the whole trace in processing order) and what a cache of that provider's
 * granularity would hit, beside the provider's measured share. Overall and per request, per
 * accounting convention, with the per-request gap distribution and the gap by the time since the
 * session's previous request (a cache entry needs time to be written: DeepSeek documents that
 * construction takes seconds).
 *
 * <p>Spark plan: the blocks of all requests are exploded once to find each chained id's first
 * occurrence by (arrival, seq); the accounted requests' blocks are joined to it and a request's
 * hit is one past its last block first seen in an earlier request (chained ids: an earlier
 * occurrence of block i implies one of blocks 0..i in the same request). Driver memory: the
 * summary only.
 */
public final class MeasuredCache {
  private MeasuredCache() {}

  /** Buckets of the time since the session's previous request, in seconds (upper bounds; the last is open). */
  static final double[] SINCE_BOUNDS = {2, 5, 10, 60};

  /**
   * Tokens a cache of the provider's granularity serves of a reusable prefix of {@code h} tokens
   * (trace-model section 9): DeepSeek whole 64-token units; OpenAI nothing below 1,024 tokens, then
   * 128-token increments; Anthropic the prefix when at least 1,024 tokens (breakpoint assumed at
   * the end of every prompt).
   */
  public static long granular(String kind, long h) {
    return switch (kind) {
      case Canonical.CACHE_DEEPSEEK -> 64 * (h / 64);
      case Canonical.CACHE_OPENAI -> h < 1024 ? 0 : 1024 + 128 * ((h - 1024) / 128);
      case Canonical.CACHE_ANTHROPIC -> h >= 1024 ? h : 0;
      default -> throw new IllegalArgumentException("unknown provider cache convention " + kind);
    };
  }

  private static Column granularColumn(Column kind, Column h) {
    return when(kind.equalTo(Canonical.CACHE_DEEPSEEK), floor(h.divide(64)).multiply(64))
        .when(kind.equalTo(Canonical.CACHE_OPENAI),
            when(h.lt(1024), lit(0L)).otherwise(lit(1024L).plus(floor(h.minus(1024).divide(128)).multiply(128))))
        .otherwise(when(h.geq(1024), h).otherwise(lit(0L)))
        .cast("long");
  }

  /** The per-request table and the summary; {@code perRequest} is persisted: unpersist when done. */
  public record Result(Dataset<Row> perRequest, ObjectNode summary) {}

  /** Whether a canonical trace has any request with provider cache accounting. */
  public static boolean hasAccounting(Dataset<Row> trace) {
    return java.util.Arrays.asList(trace.columns()).contains(Canonical.PROVIDER_CACHE)
        && !trace.filter(col(Canonical.PROVIDER_CACHE).isNotNull()).limit(1).isEmpty();
  }

  public static Result compute(Dataset<Row> trace) {
    Dataset<Row> t = trace.select(col(Canonical.REQUEST_ID), col(Canonical.SESSION_ID), col(Canonical.SEQ),
        col(Canonical.ARRIVAL_S), col(Canonical.INPUT_TOKENS), col(Canonical.BLOCK_SIZE), col(Canonical.BLOCKS),
        col(Canonical.PROVIDER_CACHE), col(Canonical.PROVIDER_INPUT_TOKENS), col(Canonical.PROVIDER_CACHED_TOKENS),
        col(Canonical.PROVIDER_CACHE_WRITE_TOKENS));
    Column order = struct(col(Canonical.ARRIVAL_S), col(Canonical.SEQ));
    Dataset<Row> firstSeen = t.filter(col(Canonical.BLOCKS).isNotNull())
        .select(order.as("o"), functions.explode(col(Canonical.BLOCKS)).as("c"))
        .groupBy("c").agg(min("o").as("first"));
    Dataset<Row> accounted = t.filter(col(Canonical.PROVIDER_CACHE).isNotNull());
    Dataset<Row> hits = accounted.filter(col(Canonical.BLOCKS).isNotNull())
        .select(col(Canonical.SEQ), order.as("o"), functions.posexplode(col(Canonical.BLOCKS)).as(new String[] {"pos", "c"}))
        .join(firstSeen, "c")
        .filter(col("first").lt(col("o")))
        .groupBy(Canonical.SEQ).agg(max("pos").plus(1).as("hit_blocks"));
    // the time since the session's previous request (any request of the session, accounted or not)
    Dataset<Row> prev = t.filter(col(Canonical.SESSION_ID).isNotNull())
        .select(col(Canonical.SEQ), col(Canonical.ARRIVAL_S).minus(lag(col(Canonical.ARRIVAL_S), 1).over(
            Window.partitionBy(Canonical.SESSION_ID).orderBy(col(Canonical.ARRIVAL_S), col(Canonical.SEQ)))).as(SINCE_PREVIOUS_S));
    Column hitTokens = least(coalesce(col("hit_blocks"), lit(0)).cast("long").multiply(col(Canonical.BLOCK_SIZE)),
        col(Canonical.INPUT_TOKENS).cast("long"));
    Dataset<Row> per = accounted
        .join(hits.withColumnRenamed(Canonical.SEQ, "_h"), col(Canonical.SEQ).equalTo(col("_h")), "left").drop("_h")
        .join(prev.withColumnRenamed(Canonical.SEQ, "_p"), col(Canonical.SEQ).equalTo(col("_p")), "left").drop("_p")
        .withColumn(HIT_TOKENS, when(col(Canonical.BLOCKS).isNull(), lit(null).cast("long")).otherwise(hitTokens))
        .withColumn(GRANULAR_TOKENS, granularColumn(col(Canonical.PROVIDER_CACHE), col(HIT_TOKENS)))
        .withColumn(PREDICTED, ratio(col(HIT_TOKENS), col(Canonical.INPUT_TOKENS)))
        .withColumn(PREDICTED_GRANULAR, ratio(col(GRANULAR_TOKENS), col(Canonical.INPUT_TOKENS)))
        .withColumn(MEASURED, ratio(col(Canonical.PROVIDER_CACHED_TOKENS), col(Canonical.PROVIDER_INPUT_TOKENS)))
        .withColumn(GAP_PP, col(PREDICTED_GRANULAR).minus(col(MEASURED)).multiply(100))
        .select(col(Canonical.REQUEST_ID), col(Canonical.SESSION_ID), col(Canonical.SEQ), col(Canonical.ARRIVAL_S),
            col(SINCE_PREVIOUS_S), col(Canonical.PROVIDER_CACHE), col(Canonical.INPUT_TOKENS), col(HIT_TOKENS),
            col(GRANULAR_TOKENS), col(Canonical.PROVIDER_INPUT_TOKENS), col(Canonical.PROVIDER_CACHED_TOKENS),
            col(Canonical.PROVIDER_CACHE_WRITE_TOKENS), col(PREDICTED), col(PREDICTED_GRANULAR), col(MEASURED), col(GAP_PP))
        .orderBy(col(Canonical.ARRIVAL_S), col(Canonical.SEQ))
        .persist(StorageLevel.MEMORY_AND_DISK());
    return new Result(per, summary(per));
  }

  private static Column ratio(Column a, Column b) {
    return when(b.gt(0), a.cast("double").divide(b.cast("double")));
  }

  private static ObjectNode summary(Dataset<Row> per) {
    ObjectNode s = Json.object();
    s.put("contract", "trace-model v1.2, section 9");
    Dataset<Row> withBlocks = per.filter(col(HIT_TOKENS).isNotNull());
    ArrayNode kinds = s.putArray("by_provider");
    List<Row> totals = withBlocks.groupBy(Canonical.PROVIDER_CACHE).agg(
            count(lit(1)), sum(Canonical.INPUT_TOKENS), sum(HIT_TOKENS), sum(GRANULAR_TOKENS),
            sum(Canonical.PROVIDER_INPUT_TOKENS), sum(Canonical.PROVIDER_CACHED_TOKENS),
            sum(coalesce(col(Canonical.PROVIDER_CACHE_WRITE_TOKENS), lit(0))))
        .orderBy(Canonical.PROVIDER_CACHE).collectAsList();
    // gap distribution at 1-point resolution, exact nearest rank on the buckets
    List<Row> gapRows = withBlocks.filter(col(GAP_PP).isNotNull())
        .groupBy(col(Canonical.PROVIDER_CACHE), functions.round(col(GAP_PP)).cast("int").as("g"))
        .agg(count(lit(1)).as("n")).collectAsList();
    Column bucket = lit(SINCE_BOUNDS.length);
    for (int i = SINCE_BOUNDS.length - 1; i >= 0; i--) bucket = when(col(SINCE_PREVIOUS_S).lt(SINCE_BOUNDS[i]), lit(i)).otherwise(bucket);
    List<Row> sinceRows = withBlocks.withColumn("b", when(col(SINCE_PREVIOUS_S).isNull(), lit(-1)).otherwise(bucket))
        .groupBy(col(Canonical.PROVIDER_CACHE), col("b"))
        .agg(count(lit(1)), sum(Canonical.INPUT_TOKENS), sum(GRANULAR_TOKENS), sum(Canonical.PROVIDER_INPUT_TOKENS),
            sum(Canonical.PROVIDER_CACHED_TOKENS))
        .orderBy(Canonical.PROVIDER_CACHE, "b").collectAsList();
    for (Row r : totals) {
      String kind = r.getString(0);
      ObjectNode k = kinds.addObject();
      k.put("provider_cache", kind);
      k.put("granularity", granularityText(kind));
      long n = r.getLong(1), in = r.getLong(2), hit = r.getLong(3), gran = r.getLong(4), pin = r.getLong(5), pc = r.getLong(6);
      k.put("requests", n);
      k.put("input_tokens", in);
      k.put("predicted_hit_tokens", hit);
      k.put("predicted_granular_hit_tokens", gran);
      k.put("provider_input_tokens", pin);
      k.put("provider_cached_tokens", pc);
      k.put("provider_cache_write_tokens", r.getLong(7));
      k.put("predicted_ratio", in == 0 ? 0 : (double) hit / in);
      k.put("predicted_granular_ratio", in == 0 ? 0 : (double) gran / in);
      k.put("measured_ratio", pin == 0 ? 0 : (double) pc / pin);
      k.put("gap_pp", in == 0 || pin == 0 ? 0 : 100.0 * ((double) gran / in - (double) pc / pin));
      k.put("token_count_ratio", pin == 0 ? 0 : (double) in / pin);
      gapStats(k.putObject("per_request_gap_pp"), gapRows, kind);
      ArrayNode since = k.putArray("by_time_since_previous_request");
      for (Row b : sinceRows) {
        if (!kind.equals(b.getString(0))) continue;
        int i = b.getInt(1);
        ObjectNode o = since.addObject();
        o.put("since_previous_s", sinceLabel(i));
        long bin = b.getLong(3), bpin = b.getLong(5);
        o.put("requests", b.getLong(2));
        o.put("predicted_granular_ratio", bin == 0 ? 0 : (double) b.getLong(4) / bin);
        o.put("measured_ratio", bpin == 0 ? 0 : (double) b.getLong(6) / bpin);
      }
    }
    s.put("requests_without_blocks", per.filter(col(HIT_TOKENS).isNull()).count());
    return s;
  }

  static String sinceLabel(int i) {
    if (i < 0) return "first request of its session";
    if (i == 0) return "< " + num(SINCE_BOUNDS[0]) + " s";
    if (i == SINCE_BOUNDS.length) return ">= " + num(SINCE_BOUNDS[i - 1]) + " s";
    return num(SINCE_BOUNDS[i - 1]) + "-" + num(SINCE_BOUNDS[i]) + " s";
  }

  private static String num(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  public static String granularityText(String kind) {
    return switch (kind) {
      case Canonical.CACHE_DEEPSEEK -> "64-token units";
      case Canonical.CACHE_OPENAI -> "from 1,024 tokens, in 128-token increments";
      case Canonical.CACHE_ANTHROPIC -> "at cache_control breakpoints (assumed at every prompt's end), from 1,024 tokens";
      default -> "unknown";
    };
  }

  /** Nearest-rank percentiles of the per-request gap (1-point buckets), mean absolute gap, share within 5 points. */
  private static void gapStats(ObjectNode o, List<Row> rows, String kind) {
    List<long[]> b = new ArrayList<>();
    long n = 0;
    for (Row r : rows) {
      if (!kind.equals(r.getString(0))) continue;
      b.add(new long[] {r.getInt(1), r.getLong(2)});
      n += r.getLong(2);
    }
    b.sort((x, y) -> Long.compare(x[0], y[0]));
    o.put("requests", n);
    if (n == 0) return;
    double absSum = 0;
    long within5 = 0;
    for (long[] x : b) {
      absSum += Math.abs(x[0]) * (double) x[1];
      if (Math.abs(x[0]) <= 5) within5 += x[1];
    }
    o.put("mean_abs", absSum / n);
    o.put("share_within_5pp", (double) within5 / n);
    for (double q : new double[] {0.05, 0.5, 0.95}) {
      long rank = (long) Math.ceil(q * n);
      long cum = 0;
      for (long[] x : b) {
        cum += x[1];
        if (cum >= rank) {
          o.put(String.format(Locale.ROOT, "p%d", Math.round(q * 100)), x[0]);
          break;
        }
      }
    }
  }
}
