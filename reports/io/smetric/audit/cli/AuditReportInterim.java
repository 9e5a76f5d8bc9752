package io.smetric.audit.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.Metrics;
import io.smetric.audit.report.verdict.Verdict;
import io.smetric.audit.report.verdict.VerdictEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Stand-in for the report renderer while it is being built: judges the characterization with
 * the default criteria and writes audit.json (verdict, sentence, criteria). Replaced by
 * {@code report.AuditReport}.
 */
final class AuditReportInterim {
  private AuditReportInterim() {}

  static Verdict write(SparkSession spark, String auditDir, List<Criterion> criteria) throws IOException {
    Path dir = new Path(auditDir);
    FileSystem fs = dir.getFileSystem(spark.sparkContext().hadoopConfiguration());
    Metrics m = new Metrics();
    try (InputStream in = fs.open(new Path(dir, AuditCommand.CHARACTERIZATION + "/" + AnalyzeCommand.JSON_FILE))) {
      AuditCriteria.addCharacterization(m, Json.MAPPER.readTree(in));
    }
    Verdict v = VerdictEngine.evaluate(m, criteria);
    ObjectNode a = Json.MAPPER.createObjectNode();
    a.put("verdict", v.outcome().id());
    a.put("sentence", v.sentence());
    ArrayNode cs = a.putArray("criteria");
    for (CriterionResult r : v.results()) {
      ObjectNode c = cs.addObject();
      c.put("id", r.criterion().id()).put("level", r.criterion().level().name().toLowerCase(java.util.Locale.ROOT))
          .put("status", r.status().name().toLowerCase(java.util.Locale.ROOT)).put("reason", r.reason());
      if (r.observed() != null) c.put("value", r.observed());
      else c.putNull("value");
      c.put("threshold", r.criterion().threshold());
    }
    try (OutputStream o = fs.create(new Path(dir, "audit.json"), false)) {
      o.write((Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(a) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return v;
  }

}
