package io.smetric.audit.characterize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationTables;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The characterization stage job's shape; the metrics themselves are CharacterizationTest's. */
class CharacterizationJobTest {
  @TempDir Path tmp;

  @Test
  void run_writesTheJsonAndEveryTableIntoTheGivenFolderUnderItsGroups_andReturnsWhatItWrote() throws Exception {
    SparkSession spark = TestSpark.get();
    // two sessions of two turns; each follow-up extends its session's previous prompt
    Path canon = tmp.resolve("canon");
    Traces.builder()
        .simple("a0", "A", 0, 0.0, 1, 2).simple("b0", "B", 0, 1.0, 5, 6)
        .simple("a1", "A", 1, 30.0, 1, 2, 3).simple("b1", "B", 1, 70.0, 5, 6, 7)
        .toDataset(spark).write().parquet(canon.resolve(AuditLayout.TRACE_DIR).toString());
    TraceInput input = TraceInput.load(spark, canon.toString());
    Path target = tmp.resolve("characterization");
    for (Characterization.Engine engine : List.of(Characterization.Engine.LOCAL, Characterization.Engine.SPARK)) {
      Path t = target.resolve(engine.name());
      try (OutputDir out = OutputDir.open(t.toString(), false, spark.sparkContext().hadoopConfiguration())) {
        StageJobs.Recorded<CharacterizationJob.Result> rec = StageJobs.recordGroups(spark,
            () -> new CharacterizationJob(spark, input, Characterization.Options.defaults(2)).engine(engine).run(out));
        assertTrue(Set.of(Characterization.JOB_GROUP, ReuseAggregates.JOB_GROUP).containsAll(rec.groupSet()),
            engine + ": every Spark job of the stage in one of its groups: " + rec.groupSet());
        assertFalse(Files.exists(t), "run does not commit: the caller owns the folder");
        out.commit();
        List<String> tables = List.of(CharacterizationTables.T_REUSE_MINUTE, CharacterizationTables.T_REUSE_TURN,
            CharacterizationTables.T_INTERVAL_CDF, CharacterizationTables.T_SESSIONS, CharacterizationTables.T_TURNS,
            CharacterizationTables.T_LORENZ, CharacterizationTables.T_TRIGGERS, CharacterizationTables.T_RATIO);
        TreeSet<String> expected = new TreeSet<>(tables);
        expected.add(AuditLayout.CHARACTERIZATION_FILE);
        assertEquals(expected, StageJobs.names(t), engine.name());
        CharacterizationJob.Result r = rec.value();
        assertEquals(tables.size(), r.tables());
        StageJobs.assertWritten(r.json(), t.resolve(AuditLayout.CHARACTERIZATION_FILE));
        assertEquals(4, r.json().path("trace").path("requests").asLong());
      }
    }
  }
}
