package io.smetric.audit.measured;

import static io.smetric.audit.contract.AuditLayout.MEASURED_CACHE_REQUESTS_DIR;
import static io.smetric.audit.contract.AuditLayout.MEASURED_CACHE_SUMMARY_FILE;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import java.io.UncheckedIOException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The measured-cache stage as one job (docs/architecture.md, "Stage jobs"): a canonical trace
 * whose requests carry the provider's cache accounting in; {@link #run} computes
 * {@link MeasuredCache} and writes the per-request table ({@code requests/}) and
 * {@code summary.json} into the folder it is given, under the job group {@link #JOB_GROUP}; the
 * summary out. The folder is not committed: the caller owns it.
 */
public final class MeasuredCacheJob {
  public static final String JOB_GROUP = "smetric-measured-cache";

  /** @param summary summary.json */
  public record Result(JsonNode summary) {}

  /** Whether a canonical trace has any request with provider cache accounting (the job has nothing to measure without). */
  public static boolean hasAccounting(Dataset<Row> trace) {
    return MeasuredCache.hasAccounting(trace);
  }

  /** The summary alone, nothing written (hash prints it for the trace it has just written). */
  public static Result summarize(Dataset<Row> trace) {
    MeasuredCache.Result m = MeasuredCache.compute(trace);
    try {
      return new Result(m.summary());
    } finally {
      m.perRequest().unpersist();
    }
  }

  private final SparkSession spark;
  private final Dataset<Row> trace;

  public MeasuredCacheJob(SparkSession spark, Dataset<Row> trace) {
    this.spark = spark;
    this.trace = trace;
  }

  /** Computes predicted against measured hits and writes them into {@code out} (not committed). */
  public Result run(OutputDir out) {
    spark.sparkContext().setJobGroup(JOB_GROUP, "measured against predicted prefix-cache hits", false);
    MeasuredCache.Result mc = MeasuredCache.compute(trace);
    try {
      mc.perRequest().write().parquet(out.child(MEASURED_CACHE_REQUESTS_DIR));
      out.writeString(MEASURED_CACHE_SUMMARY_FILE, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(mc.summary()) + "\n");
      return new Result(mc.summary());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    } finally {
      mc.perRequest().unpersist();
      spark.sparkContext().clearJobGroup();
    }
  }
}
