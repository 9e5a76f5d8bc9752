package io.smetric.audit.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.Verdict;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The report stage as one job (docs/architecture.md, "Stage jobs"; docs/report.md): {@link Options}
 * in; {@link #run} judges the audit folder it is given and writes {@code index.html}
 * (self-contained: inline style, no script, no network), the PNG charts beside it and
 * {@code audit.json} into it, under the job group {@link #JOB_GROUP}; an immutable {@link Result}
 * out. Reads only the stage outputs (characterization, replay, ingest summary, provenance), never
 * the trace. The work is split by job: {@link StageOutputs} reads the folder once,
 * {@link AuditJudge} judges, {@link ReportCharts} draws, {@link AuditJson} builds audit.json and
 * {@link AuditPage} lays out the page; this class runs them in that order and writes the two files.
 */
public final class ReportJob {
  public static final String JOB_GROUP = "smetric-report";

  /**
   * What the report is asked for.
   *
   * @param displayName the audit folder's name printed in the page and in audit.json; null = the
   *     folder {@link #run} is given. An audit writes its report into a temporary folder renamed
   *     afterwards, and names the final one here.
   * @param criterionOverrides criterion id to threshold (--criterion id=value, docs/verdict.md); an
   *     unknown id is a usage error, raised here, before any work
   */
  public record Options(String displayName, Map<String, Double> criterionOverrides) {
    public Options {
      criterionOverrides = Collections.unmodifiableMap(new LinkedHashMap<>(criterionOverrides));
      AuditCriteria.withOverrides(AuditCriteria.defaults(), criterionOverrides);
    }

    /** The default criteria, the folder named as given. */
    public static Options defaults() {
      return new Options(null, Map.of());
    }

    public Options withDisplayName(String name) {
      return new Options(name, criterionOverrides);
    }

    /** The criteria the verdict is judged by: the defaults with the overrides applied. */
    public List<Criterion> criteria() {
      return AuditCriteria.withOverrides(AuditCriteria.defaults(), criterionOverrides);
    }
  }

  /**
   * What the report decided and wrote.
   *
   * @param verdict the verdict (for {@code --fail-on})
   * @param auditJson audit.json as written
   * @param charts every chart of the page, drawn or with the reason it is not
   * @param written the files written into the folder, in order (the charts' PNGs, index.html, audit.json)
   */
  public record Result(Verdict verdict, ObjectNode auditJson, List<ReportCharts.Entry> charts, List<String> written) {
    public Result {
      charts = List.copyOf(charts);
      written = List.copyOf(written);
    }
  }

  private final SparkSession spark;
  private final Options options;

  public ReportJob(SparkSession spark, Options options) {
    this.spark = spark;
    this.options = options;
  }

  /** Judges the audit in {@code auditDir} and writes the report's files into it. */
  public Result run(String auditDir) {
    String displayName = options.displayName() == null ? auditDir : options.displayName();
    // the report's few Spark reads (small tables) under one named group in the Spark UI
    spark.sparkContext().setJobGroup(JOB_GROUP, "report: " + displayName, false);
    try {
      return render(AuditFolder.open(spark, auditDir, displayName), options.criteria());
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  private static Result render(AuditFolder f, List<Criterion> criteria) {
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
    return new Result(v, audit, entries, f.written());
  }
}
