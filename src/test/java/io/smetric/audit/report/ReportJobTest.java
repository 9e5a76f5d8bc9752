package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.TestSpark;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report stage job's shape (docs/architecture.md, "Stage jobs"): options in, the report's files
 * written into the audit folder under its job group, the verdict and what was written out. What
 * the report says is AuditReportTest's.
 */
class ReportJobTest {
  @TempDir Path tmp;

  @Test
  void run_writesThePageChartsAndAuditJsonUnderItsGroup_andReturnsWhatItWrote() throws IOException {
    Path dir = new AuditFixture().write(tmp.resolve("audit"));
    TreeSet<String> before = StageJobs.names(dir);
    StageJobs.Recorded<ReportJob.Result> rec = StageJobs.recordGroups(TestSpark.get(),
        () -> new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString()));
    assertEquals(Set.of(ReportJob.JOB_GROUP), rec.groupSet(), "every Spark job of the stage in its group");
    ReportJob.Result r = rec.value();

    // what it says it wrote is what appeared in the folder, and nothing else did
    TreeSet<String> added = StageJobs.names(dir);
    added.removeAll(before);
    assertEquals(added, new TreeSet<>(r.written()));
    assertEquals(r.written().size(), added.size(), "each file written once: " + r.written());
    assertEquals(List.of(AuditLayout.INDEX_HTML, AuditLayout.AUDIT_JSON), r.written().subList(r.written().size() - 2, r.written().size()));
    // before them, the drawn charts (the fixture has no measured-cache folder, so no scatter chart)
    List<String> drawn = r.charts().stream().filter(ReportCharts.Entry::drawn).map(ReportCharts.Entry::file).toList();
    assertTrue(!drawn.isEmpty());
    assertEquals(new TreeSet<>(drawn), new TreeSet<>(r.written().subList(0, r.written().size() - 2)));

    StageJobs.assertWritten(r.auditJson(), dir.resolve(AuditLayout.AUDIT_JSON));
    assertEquals(r.verdict().outcome().id(), r.auditJson().path("verdict").asText());
    assertEquals(dir.toString(), r.auditJson().path("report").path("audit_dir").asText(), "no display name: the folder as given");
  }

  @Test
  void options_unknownCriterion_isAUsageErrorBeforeAnyWork_andOverridesReachTheCriteria() {
    UsageException e = assertThrows(UsageException.class, () -> new ReportJob.Options(null, Map.of("no_such_criterion", 1.0)));
    assertTrue(e.getMessage().contains("unknown criterion 'no_such_criterion'"), e.getMessage());
    ReportJob.Options o = new ReportJob.Options("final", Map.of("ideal_reuse", 0.9));
    assertEquals(0.9, o.criteria().stream().filter(c -> c.id().equals("ideal_reuse")).findFirst().orElseThrow().threshold());
    assertEquals("elsewhere", o.withDisplayName("elsewhere").displayName());
    assertEquals(o.criterionOverrides(), o.withDisplayName("elsewhere").criterionOverrides());
  }
}
