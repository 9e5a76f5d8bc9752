package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CapacityAnswer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Sets several audits side by side (docs/report.md, "compare"): their verdicts, every criterion's
 * value per audit, headline numbers, and overlaid charts (reuse-interval CDF, session Lorenz
 * curves, requests per instance, reuse over time, SMetric vs the best baseline by global-tier
 * capacity, drawn by {@link CompareCharts}). Reads each audit's audit.json (the fields
 * {@link AuditJson} writes) and its small tables; writes index.html, PNGs and compare.json into an
 * output folder.
 */
public final class CompareReport {
  public static final String FORMAT = "smetric-compare/1";

  private CompareReport() {}

  /** One audit being compared. */
  record Audit(String label, AuditFolder folder, JsonNode audit, JsonNode replay) {}

  public record Result(ObjectNode json, List<ReportCharts.Entry> charts) {}

  /**
   * @param dirs audit folders (each must hold audit.json: run the audit's report first)
   * @param labels names for the columns, or null for the folders' own names
   */
  public static Result write(SparkSession spark, List<String> dirs, List<String> labels, OutputDir out) {
    if (dirs.size() < 2) throw new UsageException("compare needs at least two audit folders, got " + dirs.size());
    if (labels != null && !labels.isEmpty() && labels.size() != dirs.size()) {
      throw new UsageException("--label given " + labels.size() + " times for " + dirs.size() + " audit folders");
    }
    List<Audit> audits = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < dirs.size(); i++) {
      AuditFolder f = AuditFolder.open(spark, dirs.get(i));
      JsonNode a = f.json(AuditLayout.AUDIT_JSON);
      if (a == null) {
        throw new BadInputException(dirs.get(i), "no audit.json: not an audit folder, or its report was not written "
            + "(run `smetric-audit audit` on it first)");
      }
      String label = labels != null && !labels.isEmpty() ? labels.get(i) : name(dirs.get(i));
      int n = seen.merge(label, 1, Integer::sum);
      if (n > 1) label = label + " #" + n;
      audits.add(new Audit(label, f, a, f.json(AuditLayout.REPLAY_JSON)));
    }
    List<ReportCharts.Entry> charts = CompareCharts.render(audits, out);
    ObjectNode json = json(audits, charts);
    try {
      out.writeString("compare.json", Json.MAPPER.writeValueAsString(json) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.writeString(AuditLayout.INDEX_HTML, html(audits, charts));
    return new Result(json, charts);
  }

  /** An audit's capacity answer (audit.json answers.capacity, issue 29), missing when it has none. */
  static JsonNode capacity(Audit a) {
    return a.audit().path("answers").path(CapacityAnswer.BLOCK);
  }

  /**
   * The capacity answers side by side: each audit's sentence, then one row per audit, global-tier
   * capacity and traffic factor with the judged router's and SMetric's instances (GPUs).
   */
  static void capacityHtml(Html h, List<Audit> audits) {
    h.raw("<section id=\"capacity\">\n");
    h.tag("h2", null, "Capacity: what serving each trace within SLO takes");
    List<List<String>> rows = new ArrayList<>();
    for (Audit a : audits) {
      CapacityAnswer c = CapacityAnswer.of(a.audit().path("answers"), a.label() + " audit.json answers." + CapacityAnswer.BLOCK);
      if (c == null) {
        h.tag("p", "missing", a.label() + ": no capacity answer (--no-capacity, or an audit from before it existed).");
        continue;
      }
      h.tag("p", null, a.label() + ": " + (c.summary() == null ? "" : c.summary()));
      for (CapacityAnswer.Row r : c.rows()) {
        rows.add(List.of(a.label(), Numbers.sig4(r.globalRatio()) + "x", "x" + Numbers.sig4(r.trafficFactor()),
            r.judged() == null || r.judged().router() == null ? Numbers.NA : r.judged().router(),
            amount(r.judged()), amount(r.smetric())));
      }
    }
    if (!rows.isEmpty()) {
      h.table(List.of("audit", "global tier", "traffic", "judged router", "judged router needs", "SMetric needs"), rows,
          "capacity");
    }
    h.raw("</section>\n");
  }

  private static String amount(CapacityAnswer.Amount a) {
    if (a == null || a.instances() == null) return a == null ? Numbers.NA : "not found";
    return Numbers.count(a.instances().longValue()) + " instances"
        + (a.gpus() != null ? " (" + Numbers.count(a.gpus().longValue()) + " GPUs)" : "");
  }

  static String name(String dir) {
    String d = dir.replaceAll("/+$", "");
    int i = d.lastIndexOf('/');
    return i >= 0 ? d.substring(i + 1) : d;
  }

  // ------------------------------------------------------------------ output

  static ObjectNode json(List<Audit> audits, List<ReportCharts.Entry> charts) {
    ObjectNode j = Json.object();
    j.put("format", FORMAT);
    j.put("tool_version", BuildInfo.version());
    ArrayNode as = j.putArray("audits");
    for (Audit a : audits) {
      ObjectNode o = as.addObject();
      o.put("label", a.label());
      o.put("dir", a.folder().label());
      o.put(AuditJson.VERDICT, a.audit().path(AuditJson.VERDICT).asText());
      o.put(AuditJson.SENTENCE, a.audit().path(AuditJson.SENTENCE).asText());
      ObjectNode cs = o.putObject(AuditJson.CRITERIA);
      for (JsonNode c : a.audit().path(AuditJson.CRITERIA)) {
        ObjectNode x = cs.putObject(c.path(AuditJson.C_ID).asText());
        x.put(AuditJson.C_STATUS, c.path(AuditJson.C_STATUS).asText());
        x.set(AuditJson.C_VALUE, c.path(AuditJson.C_VALUE).deepCopy());
        x.set(AuditJson.C_THRESHOLD, c.path(AuditJson.C_THRESHOLD).deepCopy());
      }
      o.set(AuditJson.HEADLINE, a.audit().path(AuditJson.HEADLINE).deepCopy());
      JsonNode cap = capacity(a);
      if (cap.isObject()) o.set("capacity", cap.deepCopy());
      else o.putNull("capacity");
    }
    ArrayNode ch = j.putArray("charts");
    for (ReportCharts.Entry e : charts) {
      ObjectNode o = ch.addObject().put("title", e.title());
      if (e.drawn()) o.put("file", e.file());
      else o.put("not_drawn", e.missing());
    }
    return j;
  }

  static String html(List<Audit> audits, List<ReportCharts.Entry> charts) {
    Html h = new Html();
    AuditPage.head(h, "SMetric audits compared: " + String.join(", ", audits.stream().map(Audit::label).toList()));
    h.tag("h1", null, "Audits side by side");
    h.tag("p", "sub", audits.size() + " audits compared by smetric-audit " + BuildInfo.version() + ".");

    h.raw("<section id=\"verdicts\">\n");
    h.tag("h2", null, "Verdicts");
    h.raw("<table class=\"verdicts\">\n<thead><tr><th>audit</th><th>verdict</th><th>sentence</th></tr></thead>\n<tbody>\n");
    for (Audit a : audits) {
      String v = a.audit().path(AuditJson.VERDICT).asText();
      h.raw("<tr><td>").text(a.label()).raw("<br><code>").text(a.folder().label()).raw("</code></td><td class=\"verdict-cell ")
          .text(v).raw("\">").text(v.replace('-', ' ')).raw("</td><td>").text(a.audit().path(AuditJson.SENTENCE).asText()).raw("</td></tr>\n");
    }
    h.raw("</tbody></table>\n</section>\n");

    // criteria: union of ids in first-seen order; a cell is "value (status)"
    Set<String> ids = new LinkedHashSet<>();
    Map<String, String> titles = new LinkedHashMap<>();
    for (Audit a : audits) {
      for (JsonNode c : a.audit().path(AuditJson.CRITERIA)) {
        ids.add(c.path(AuditJson.C_ID).asText());
        titles.putIfAbsent(c.path(AuditJson.C_ID).asText(), c.path(AuditJson.C_TITLE).asText());
      }
    }
    h.raw("<section id=\"criteria\">\n");
    h.tag("h2", null, "Criteria");
    h.raw("<table class=\"criteria\">\n<thead><tr><th>criterion</th>");
    for (Audit a : audits) h.raw("<th>").text(a.label()).raw("</th>");
    h.raw("</tr></thead>\n<tbody>\n");
    for (String id : ids) {
      h.raw("<tr id=\"criterion-").text(id).raw("\"><td>").text(titles.get(id)).raw("<br><code>").text(id).raw("</code></td>");
      for (Audit a : audits) {
        JsonNode c = null;
        for (JsonNode x : a.audit().path(AuditJson.CRITERIA)) if (x.path(AuditJson.C_ID).asText().equals(id)) c = x;
        if (c == null) {
          h.raw("<td>not judged</td>");
          continue;
        }
        String st = c.path(AuditJson.C_STATUS).asText();
        h.raw("<td class=\"num\">").text(c.path(AuditJson.C_VALUE_TEXT).asText(c.path(AuditJson.C_VALUE).asText())).raw(" <span class=\"")
            .text(st).raw("\">").text(st).raw("</span><br>").text(c.path(AuditJson.C_THRESHOLD_TEXT).asText("")).raw("</td>");
      }
      h.raw("</tr>\n");
    }
    h.raw("</tbody></table>\n</section>\n");

    Set<String> keys = new LinkedHashSet<>();
    for (Audit a : audits) a.audit().path(AuditJson.HEADLINE).fieldNames().forEachRemaining(k -> {
      if (a.audit().path(AuditJson.HEADLINE).path(k).isValueNode()) keys.add(k);
    });
    h.raw("<section id=\"headline\">\n");
    h.tag("h2", null, "Headline numbers");
    List<String> header = new ArrayList<>();
    header.add("measure");
    for (Audit a : audits) header.add(a.label());
    List<List<String>> rows = new ArrayList<>();
    for (String k : keys) {
      List<String> r = new ArrayList<>();
      r.add(k.replace('_', ' '));
      for (Audit a : audits) {
        JsonNode v = a.audit().path(AuditJson.HEADLINE).path(k);
        r.add(v.isMissingNode() || v.isNull() ? Numbers.NA : v.isNumber() ? AuditJson.formatHeadline(k, v.asDouble()) : v.asText());
      }
      rows.add(r);
    }
    h.table(header, rows, "headline");
    h.raw("</section>\n");

    capacityHtml(h, audits);

    h.raw("<section id=\"charts\">\n");
    h.tag("h2", null, "Charts");
    for (ReportCharts.Entry e : charts) {
      if (e.drawn()) {
        AuditPage.figure(h, e);
      } else {
        h.raw("<p class=\"missing\"><strong>").text(e.title()).raw("</strong>: not drawn: ").text(e.missing()).raw(".</p>\n");
      }
    }
    h.raw("</section>\n</body>\n</html>\n");
    return h.toString();
  }
}
