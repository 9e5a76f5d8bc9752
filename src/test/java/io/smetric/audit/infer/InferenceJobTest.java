package io.smetric.audit.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session-inference stage job's shape; what it infers is SessionInferenceTest's. */
class InferenceJobTest {
  @TempDir Path tmp;

  @Test
  void run_writesTheInferredDatasetIntoTheGivenFolderUnderItsGroup_andReturnsWhatItWrote() throws Exception {
    SparkSession spark = TestSpark.get();
    // two requests without session ids; the second extends the first's whole prompt
    Traces.Builder b = Traces.builder().blockSize(16);
    b.req("0", null, null, null, Canonical.TRIGGER_UNKNOWN, 0, 40, 10, 1, 2, 3);
    b.req("1", null, null, null, Canonical.TRIGGER_UNKNOWN, 5, 56, 10, 1, 2, 4, 5);
    Dataset<Row> trace = b.toDataset(spark);
    Path target = tmp.resolve("inferred");
    try (OutputDir out = OutputDir.open(target.toString(), false, spark.sparkContext().hadoopConfiguration())) {
      StageJobs.Recorded<InferenceJob.Result> rec = StageJobs.recordGroups(spark,
          () -> new InferenceJob(spark, trace, new InferenceOptions(3600, 4), null).run(out));
      assertEquals(Set.of(SessionInference.JOB_GROUP), rec.groupSet(), "every Spark job of the stage in its group");
      assertFalse(Files.exists(target), "run does not commit: the caller owns the folder");
      out.commit();
      // no ground truth given: no inference-accuracy.json (its scoring is InferenceAccuracyTest's, the
      // file InferSessionsCommandTest's)
      assertEquals(new TreeSet<>(List.of(AuditLayout.TRACE_DIR, InferenceOutput.LINKS_DIR, AuditLayout.INFERENCE_SUMMARY_FILE)),
          StageJobs.names(target));
      InferenceJob.Result r = rec.value();
      StageJobs.assertWritten(r.summary().toJson(), target.resolve(AuditLayout.INFERENCE_SUMMARY_FILE));
      assertNull(r.accuracy());
      assertEquals(1, r.summary().sessions());
      // the written trace is the input with its sessions filled in: one session of two turns
      List<Row> rows = spark.read().parquet(target.resolve(AuditLayout.TRACE_DIR).toString()).orderBy(Canonical.REQUEST_ID)
          .select(Canonical.SESSION_ID, Canonical.TURN).collectAsList();
      assertEquals(2, rows.size());
      assertEquals(rows.get(0).getString(0), rows.get(1).getString(0));
      assertEquals(List.of(0, 1), List.of(rows.get(0).getInt(1), rows.get(1).getInt(1)));
    }
  }
}
