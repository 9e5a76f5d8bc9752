package io.smetric.audit.infer;

import static io.smetric.audit.contract.AuditLayout.INFERENCE_ACCURACY_FILE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.InferenceSummary;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The session-inference stage as one job (docs/architecture.md, "Stage jobs"): a canonical trace
 * and {@link InferenceOptions} in; {@link #run} infers the sessions and writes the stage's output
 * into the folder it is given ({@code trace/}, {@code inference-links/},
 * {@code inference-summary.json}, and {@code inference-accuracy.json} when a ground truth is
 * given), all under the job group {@link SessionInference#JOB_GROUP}; an immutable result out.
 * The folder is not committed: the caller owns it (the audit commits its folder once, at the end).
 */
public final class InferenceJob {
  /**
   * What the stage wrote, for the caller to print.
   *
   * @param summary inference-summary.json
   * @param accuracy inference-accuracy.json, or null without a ground truth
   */
  public record Result(InferenceSummary summary, JsonNode accuracy) {}

  private final SparkSession spark;
  private final Dataset<Row> canonical;
  private final InferenceOptions options;
  private final String truth;

  /**
   * @param canonical the canonical trace whose sessions are inferred
   * @param truth a ground-truth file to score the inference against (InferenceAccuracy), or null
   */
  public InferenceJob(SparkSession spark, Dataset<Row> canonical, InferenceOptions options, String truth) {
    this.spark = spark;
    this.canonical = canonical;
    this.options = options;
    this.truth = truth;
  }

  /** Infers the sessions and writes the stage's output into {@code out} (not committed). */
  public Result run(OutputDir out) {
    SessionInference.Result r = new SessionInference(spark, options).execute(canonical);
    spark.sparkContext().setJobGroup(SessionInference.JOB_GROUP, "session inference: writing " + out.targetPath(), false);
    try {
      InferenceOutput.write(r, out);
      ObjectNode acc = null;
      if (truth != null) {
        InferenceAccuracy a = new InferenceAccuracy(spark);
        acc = a.score(r.links(), canonical, a.readTruth(truth), truth);
        out.writeString(INFERENCE_ACCURACY_FILE, InferenceOutput.json(acc));
      }
      return new Result(InferenceOutput.summary(r), acc);
    } finally {
      spark.sparkContext().clearJobGroup();
      r.links().unpersist();
    }
  }
}
