package io.smetric.audit.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.ingest.IngestJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;

/**
 * The ingest and hash stage jobs run as their commands run them, on the shared test session: the
 * job writes into a new output folder, which is then committed ({@link #ingest}, {@link #hash}), for
 * tests that want the committed folder; and the check of a job's contract with the caller that owns
 * its folder ({@link #assertShape}).
 */
public final class StageRuns {
  private StageRuns() {}

  /** An ingest committed to {@code out} (its qualified path) and the job's result. */
  public record Ingested(String out, IngestJob.Result result) {
    public ObjectNode summary() {
      return result.summary().toJson();
    }

    public long read() {
      return result.read();
    }

    public long accepted() {
      return result.accepted();
    }

    public long quarantined() {
      return result.quarantined();
    }
  }

  public static Ingested ingest(IngestJob.Options options, String out) {
    return ingest(options, out, false);
  }

  public static Ingested ingest(IngestJob.Options options, String out, boolean overwrite) {
    SparkSession spark = TestSpark.get();
    IngestJob job = new IngestJob(spark, options);
    return committed(out, overwrite, dir -> new Ingested(dir.targetPath().toString(), job.run(dir)));
  }

  public static HashJob.Result hash(HashJob.Options options, String out) {
    HashJob job = new HashJob(TestSpark.get(), options);
    return committed(out, false, job::run);
  }

  /** What a stage-job test checks on a run's result and the folder it wrote. */
  public interface Check<T> {
    void accept(T result, Path written) throws Exception;
  }

  /**
   * Runs a stage job into a new folder under {@code parent} (an empty folder) and checks the
   * stage-job shape (docs/architecture.md, "Stage jobs"): every Spark job in {@code group}, the
   * group cleared when the job returns, exactly {@code names} written into the folder, nothing
   * created beside it, nothing committed. Then {@code check} sees the result and the written,
   * uncommitted folder; once the folder is closed, {@code parent} is empty again.
   */
  public static <T> void assertShape(Path parent, String group, Set<String> names, Function<OutputDir, T> run, Check<T> check)
      throws Exception {
    SparkSession spark = TestSpark.get();
    Path target = parent.resolve("owned");
    try (OutputDir dir = OutputDir.open(target.toString(), false, spark.sparkContext().hadoopConfiguration())) {
      StageJobs.Recorded<T> rec = StageJobs.recordGroups(spark, () -> run.apply(dir));
      assertEquals(Set.of(group), rec.groupSet(), "every Spark job of the stage in its group");
      assertNull(spark.sparkContext().getLocalProperty("spark.jobGroup.id"), "the group is cleared when the job returns");
      Path temp = Path.of(dir.tempPath().toUri());
      assertEquals(names, StageJobs.names(temp), "the stage's own output and nothing else (no staging left)");
      assertEquals(Set.of(temp.getFileName().toString()), StageJobs.names(parent), "nothing created or renamed beside the folder");
      assertFalse(Files.exists(target), "the job does not commit: the caller owns the folder");
      check.accept(rec.value(), temp);
    }
    assertEquals(Set.of(), StageJobs.names(parent), "the caller's uncommitted folder is gone once closed");
  }

  private static <R> R committed(String out, boolean overwrite, Function<OutputDir, R> write) {
    try (OutputDir dir = OutputDir.open(out, overwrite, TestSpark.get().sparkContext().hadoopConfiguration())) {
      R r = write.apply(dir);
      dir.commit();
      return r;
    }
  }
}
