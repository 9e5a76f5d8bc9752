package io.smetric.audit.measured;

import static io.smetric.audit.measured.MeasuredCacheTest.concat;
import static io.smetric.audit.measured.MeasuredCacheTest.ids;
import static io.smetric.audit.measured.MeasuredCacheTest.r;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.TestSpark;
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

/** The measured-cache stage job's shape; the numbers themselves are MeasuredCacheTest's. */
class MeasuredCacheJobTest {
  @TempDir Path tmp;

  @Test
  void run_writesRequestsAndSummaryIntoTheGivenFolderUnderItsGroup_andReturnsTheSummary() {
    SparkSession spark = TestSpark.get();
    // r1 and r2 carry the provider's accounting; r3 does not (no row in requests/)
    Dataset<Row> trace = spark.createDataFrame(List.of(
        r("r1", "A", 0, 80, ids(1, 5), 1, new ProviderCache("deepseek", 100, 0, null)).toRow(),
        r("r2", "A", 10, 140, concat(ids(1, 8), new long[] {9}), 2, new ProviderCache("deepseek", 170, 64, null)).toRow(),
        r("r3", "B", 12, 40, new long[] {1, 2, 500}, 3, null).toRow()), Canonical.SCHEMA);
    Path target = tmp.resolve("measured");
    try (OutputDir out = OutputDir.open(target.toString(), false, spark.sparkContext().hadoopConfiguration())) {
      StageJobs.Recorded<MeasuredCacheJob.Result> rec = StageJobs.recordGroups(spark, () -> new MeasuredCacheJob(spark, trace).run(out));
      assertEquals(Set.of(MeasuredCacheJob.JOB_GROUP), rec.groupSet(), "every Spark job of the stage in its group");
      assertFalse(Files.exists(target), "run does not commit: the caller owns the folder");
      out.commit();
      assertEquals(new TreeSet<>(List.of(AuditLayout.MEASURED_CACHE_REQUESTS_DIR, AuditLayout.MEASURED_CACHE_SUMMARY_FILE)),
          StageJobs.names(target));
      StageJobs.assertWritten(rec.value().summary(), target.resolve(AuditLayout.MEASURED_CACHE_SUMMARY_FILE));
      assertEquals(2, spark.read().parquet(target.resolve(AuditLayout.MEASURED_CACHE_REQUESTS_DIR).toString()).count());
    }
  }
}
