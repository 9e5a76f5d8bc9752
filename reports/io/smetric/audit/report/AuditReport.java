package io.smetric.audit.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.Verdict;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Writes an audit's report into its folder (docs/report.md): {@code index.html} (self-contained:
 * inline style, no script, no network), the PNG charts beside it, and {@code audit.json}. Reads
 * only the stage outputs (characterization, replay, ingest summary, provenance), never the trace.
 * The work is split by job: {@link StageOutputs} reads the folder once, {@link AuditJudge} judges,
 * {@link ReportCharts} draws, {@link AuditJson} builds audit.json and {@link AuditPage} lays out
 * the page; this class runs them in that order and writes the two files.
 */
public final class AuditReport {
  private AuditReport() {}

  /** What the report read and decided; {@link #write} returns its verdict. */
  public record Result(Verdict verdict, ObjectNode auditJson, List<ReportCharts.Entry> charts) {}

  public static final String JOB_GROUP = "smetric-report";

  /**
   * Judges the audit in {@code auditDir} against {@code criteria} and writes index.html, the
   * charts and audit.json into it.
   *
   * @param criteria usually {@code AuditCriteria.withOverrides(AuditCriteria.defaults(), overrides)}
   * @return the verdict (for {@code --fail-on})
   */
  public static Verdict write(SparkSession spark, String auditDir, List<Criterion> criteria) {
    return render(spark, auditDir, auditDir, criteria).verdict();
  }

  /**
   * As {@link #write(SparkSession, String, List)} when the report is written into a temporary
   * folder (e.g. an {@code OutputDir}'s) that is renamed afterwards: {@code displayName} is the
   * folder's final name, printed in the page and in audit.json.
   */
  public static Verdict write(SparkSession spark, String auditDir, String displayName, List<Criterion> criteria) {
    return render(spark, auditDir, displayName, criteria).verdict();
  }

  /** As {@link #write}, returning everything the report computed (tests use it). */
  public static Result render(SparkSession spark, String auditDir, List<Criterion> criteria) {
    return render(spark, auditDir, auditDir, criteria);
  }

  public static Result render(SparkSession spark, String auditDir, String displayName, List<Criterion> criteria) {
    // the report's few Spark reads (small tables) under one named group in the Spark UI
    spark.sparkContext().setJobGroup(JOB_GROUP, "report: " + displayName, false);
    try {
      return renderIn(spark, auditDir, displayName, criteria);
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  private static Result renderIn(SparkSession spark, String auditDir, String displayName, List<Criterion> criteria) {
    AuditFolder f = AuditFolder.open(spark, auditDir, displayName);
    StageOutputs in = StageOutputs.read(f);
    String replayAbsent = AuditJudge.replayAbsentReason(in);
    Verdict v = AuditJudge.judge(in, replayAbsent, criteria);

    ReplayRuns runs = in.replayRuns();
    String chartReplayMissing = in.replay() != null && runs == null ? "the replay folder has no runs table" : replayAbsent;
    ReportCharts charts = new ReportCharts(f, in.characterization(), in.replay(), runs, chartReplayMissing,
        AuditJudge.threshold(criteria, AuditCriteria.RATIO_P5, 30));
    List<ReportCharts.Entry> entries = charts.render();
    MeasuredCacheReport.Section measured = MeasuredCacheReport.draw(f);

    AuditJson.Content content = AuditJson.content(in, v, entries, AuditJudge.threshold(criteria, AuditCriteria.GAIN_WITH_GLOBAL, 0.02));
    ObjectNode audit = AuditJson.build(in, v, content, entries);
    String html = AuditPage.html(new AuditPage.Model(v, content, entries, charts.focusRatio(), in, AuditPage.topSessions(in), measured));
    f.writeString(AuditLayout.INDEX_HTML, html);
    try {
      f.writeString(AuditLayout.AUDIT_JSON, Json.MAPPER.writeValueAsString(audit) + "\n");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return new Result(v, audit, entries);
  }
}
