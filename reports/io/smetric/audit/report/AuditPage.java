package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationTables;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.ReplayComparison;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.Verdict;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;

/**
 * The audit's index.html (docs/report.md, "The page"): a self-contained page (inline style, no
 * script, no network) in five sections, verdict and answers, evidence, charts, data quality,
 * parameters. It only lays out what the judge, the audit.json builder and the charts computed,
 * handed over in one {@link Model}; every text that comes from a trace or a user is escaped.
 */
final class AuditPage {
  private AuditPage() {}

  /** Largest sessions listed under the charts. */
  static final int TOP_SESSIONS = 10;

  /**
   * Everything the page shows.
   *
   * @param verdict the verdict and every criterion's result
   * @param content headline, answers, findings, what could not be computed, the trace's name
   * @param charts the charts in page order, drawn or with the reason they are not
   * @param focusRatio the global-tier capacity of the per-policy charts, or null without replay runs
   * @param stages the stage outputs (provenance, characterization, replay and ingest parameters)
   * @param topSessions the {@link #TOP_SESSIONS} largest sessions by tokens, or null
   * @param measured the measured-cache section (its chart already drawn), or null
   */
  record Model(Verdict verdict, AuditJson.Content content, List<ReportCharts.Entry> charts, Double focusRatio,
      StageOutputs stages, List<Row> topSessions, MeasuredCacheReport.Section measured) {}

  static final String CSS = String.join("\n",
      "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#1c1c1c;line-height:1.45}",
      "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}",
      ".sub{color:#666;margin-top:0}",
      ".verdict{border-left:8px solid #888;padding:.8em 1.2em;background:#f6f6f6;margin:1em 0}",
      ".verdict .level{font-weight:700;letter-spacing:.05em;text-transform:uppercase;margin:0}",
      ".verdict .sentence{font-size:1.25em;margin:.3em 0 0}",
      ".fits{border-color:#1e8449;background:#eafaf1}.fits-with-conditions{border-color:#b9770e;background:#fef5e7}",
      ".does-not-fit{border-color:#c0392b;background:#fdedec}.inconclusive{border-color:#5d6d7e;background:#f2f4f4}",
      "table{border-collapse:collapse;width:100%;margin:.5em 0;font-size:.92em}",
      "th,td{border:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}th{background:#f4f4f4}",
      "td.reason,td.wrap{overflow-wrap:anywhere}td.tag{white-space:nowrap}table.evidence td:first-child{min-width:11em}",
      "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}",
      ".pass{color:#1e8449;font-weight:600}.fail{color:#c0392b;font-weight:600}.not-applicable{color:#5d6d7e;font-weight:600}",
      "figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}",
      "figcaption{color:#444;font-size:.9em}.missing{color:#5d6d7e;font-style:italic}",
      "code{background:#f4f4f4;padding:0 .2em;word-break:break-all}",
      ".answers{display:flex;flex-wrap:wrap;gap:1em}.answer{flex:1 1 480px;border:1px solid #ddd;padding:0 1em}",
      ".answer h2{margin-top:.6em;border:0}.answers p.judged{flex-basis:100%;color:#444}");

  /** The page's head up to the opening body tag: title, viewport, the inline style. */
  static void head(Html h, String title) {
    h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .raw("<title>").text(title).raw("</title>\n")
        .raw("<style>\n").raw(CSS).raw("\n</style>\n</head>\n<body>\n");
  }

  /** A drawn chart as a figure with its caption. */
  static void figure(Html h, ReportCharts.Entry e) {
    h.raw("<figure><img src=\"").text(e.file()).raw("\" alt=\"").text(e.title()).raw("\" width=\"" + Charts.W
        + "\" height=\"" + Charts.H + "\"><figcaption><strong>").text(e.title()).raw("</strong> (").text(e.figure())
        .raw("). ").text(e.caption()).raw("</figcaption></figure>\n");
  }

  static String html(Model m) {
    Verdict v = m.verdict();
    AuditJson.Content c = m.content();
    StageOutputs in = m.stages();
    Html h = new Html();
    head(h, "SMetric audit of " + c.trace() + ": " + v.outcome().id());
    h.tag("h1", null, "SMetric audit of " + c.trace());
    h.tag("p", "sub", "Does session-first routing fit this workload? Judged by smetric-audit " + BuildInfo.version()
        + " against the SMetric paper (arXiv 2607.08565); audit folder " + in.folder().label() + ".");
    Answers.capacityHtml(h, c.answers());
    verdict(h, v, c, in.replay());
    OwnTrafficReport.html(h, OwnTrafficReport.summary(in.folder()));
    evidence(h, v);
    charts(h, m.charts(), m.focusRatio(), m.topSessions());
    MeasuredCacheReport.html(h, m.measured());
    dataQuality(h, c);
    reproduce(h, in);
    h.raw("</body>\n</html>\n");
    return h.toString();
  }

  // ------------------------------------------------------------------ 1. verdict, answers, key numbers

  private static void verdict(Html h, Verdict v, AuditJson.Content c, JsonNode replay) {
    h.raw("<section id=\"verdict\" class=\"verdict " + v.outcome().id() + "\">\n");
    h.tag("p", "level", v.outcome().id().replace('-', ' '));
    h.tag("p", "sentence", v.sentence());
    h.raw("</section>\n");
    Answers.html(h, c.answers());
    if (replay != null) {
      h.tag("p", "tps-note", "Gains and rankings compare maximum TPS within SLO over the offered-rate sweep." + ReportCharts.TPS_NOTE
          + OfferedRate.mapping(replay));
    }
    keyNumbers(h, c.headline());
    Answers.equalLoadHtml(h, replay);
    GlobalTierTraffic.html(h, replay);
    Answers.operatingPointHtml(h, replay);
    ReplayProfileSection.html(h, ReplayProfileSection.json(replay));
    String onRange = null;
    for (CriterionResult r : v.results()) {
      if (r.criterion().metric().equals(AuditCriteria.GAIN_WITH_GLOBAL)) onRange = r.reason();
    }
    Answers.conditionsHtml(h, replay, onRange);
  }

  private static void keyNumbers(Html h, JsonNode headline) {
    List<List<String>> rows = new ArrayList<>();
    if (headline.has("requests")) rows.add(List.of("requests", Numbers.count(headline.path("requests"))));
    if (headline.has("sessions")) {
      rows.add(List.of("sessions" + (headline.path("sessions_inferred").asBoolean() ? " (inferred)" : ""),
          Numbers.count(headline.path("sessions"))));
    }
    for (AuditJson.HeadlineNumber k : AuditJson.HEADLINE_NUMBERS) {
      String label = k.label();
      if (k.key().equals("reuse_within_threshold") && headline.has("interval_threshold_s")) {
        label = "share of reuse within " + Numbers.sig4(headline.path("interval_threshold_s").asDouble()) + " s";
      }
      rows.add(List.of(label, k.print().format(headline.path(k.key()))));
    }
    String vs = headline.path("judged_router").asText("the best baseline");
    JsonNode best = headline.path(ReplayComparison.GAIN_WITH_GLOBAL);
    String load = headline.has("smetric_gain_at_load")
        ? ", at equal load (" + Numbers.sig4(headline.path("smetric_gain_at_load").asDouble())
            + "x the rate where the judged router keeps 90% within SLO)" : "";
    rows.add(List.of("SMetric vs " + vs + load + ", with a global tier"
            + (headline.has("smetric_gain_at_global_ratio")
                ? " of " + Numbers.sig4(headline.path("smetric_gain_at_global_ratio").asDouble()) + "x (declared)" : ""),
        Numbers.signedPercent(best) + interval(headline.path(ReplayComparison.GAIN_WITH_GLOBAL + "_interval"))));
    rows.add(List.of("SMetric vs " + vs + load + ", without a global tier", Numbers.signedPercent(headline.path(ReplayComparison.GAIN_NO_GLOBAL))
        + interval(headline.path(ReplayComparison.GAIN_NO_GLOBAL + "_interval"))));
    h.raw("<section id=\"key-numbers\">\n");
    h.tag("h2", null, "Key numbers");
    h.table(List.of("measure", "value"), rows, "key");
    h.raw("</section>\n");
  }

  private static String interval(JsonNode a) {
    return a != null && a.isArray() && a.size() == 2
        ? " [" + Numbers.signedPercent(a.get(0)) + ", " + Numbers.signedPercent(a.get(1)) + "] (95% interval)" : "";
  }

  // ------------------------------------------------------------------ 2. evidence

  private static void evidence(Html h, Verdict v) {
    h.raw("<section id=\"evidence\">\n");
    h.tag("h2", null, "Evidence");
    h.tag("p", null, "Each criterion judges one measured number against a threshold (configurable with --criterion id=value). "
        + "A failed critical criterion means the routing does not fit; a failed condition criterion makes the fit conditional; "
        + "a critical criterion the audit cannot judge makes it inconclusive; a failed precondition (measured at the replay's "
        + "operating point) makes the replay criteria inconclusive; info criteria never change the verdict.");
    h.raw("<table class=\"evidence\">\n<thead><tr><th>criterion</th><th>level</th><th>measured</th><th>threshold</th>"
        + "<th>result</th><th>reason</th><th>paper</th></tr></thead>\n<tbody>\n");
    for (CriterionResult r : v.results()) {
      Criterion c = r.criterion();
      String st = AuditJson.status(r.status());
      h.raw("<tr id=\"criterion-" + Html.esc(c.id()) + "\"><td>").text(c.title()).raw("<br><code>").text(c.id()).raw("</code></td><td class=\"tag\">")
          .text(c.level().name().toLowerCase(Locale.ROOT)).raw("</td><td class=\"num\">")
          .text(r.observed() == null ? Numbers.NA : c.format(r.observed())).raw("</td><td class=\"num\">")
          .text(c.op() + " " + c.format(c.threshold())).raw("</td><td class=\"tag " + st + "\">").text(st)
          .raw("</td><td class=\"reason\">").text(r.reason()).raw("</td><td>").text(c.source()).raw("</td></tr>\n");
    }
    h.raw("</tbody></table>\n</section>\n");
  }

  // ------------------------------------------------------------------ 3. charts

  private static void charts(Html h, List<ReportCharts.Entry> charts, Double focusRatio, List<Row> topSessions) {
    h.raw("<section id=\"charts\">\n");
    h.tag("h2", null, "Charts");
    if (focusRatio != null) {
      h.tag("p", null, "Per-policy replay charts (heatmaps, stickiness, latency CDFs) show global-tier capacity "
          + Numbers.sig4(focusRatio) + "x: the capacity of SMetric's best gain over the judged router (the key numbers' "
          + "\"best gain with a global tier\") when the replay compared them, else the largest replayed. Each router keeps one "
          + "colour in every chart; SMetric is black.");
    }
    String section = null;
    for (ReportCharts.Entry e : charts) {
      if (!e.section().equals(section)) {
        section = e.section();
        h.tag("h3", null, section);
      }
      if (e.drawn()) {
        figure(h, e);
      } else {
        h.raw("<p class=\"missing\"><strong>").text(e.title()).raw("</strong> (").text(e.figure()).raw("): not drawn: ")
            .text(e.missing()).raw(".</p>\n");
      }
    }
    if (topSessions != null && !topSessions.isEmpty()) {
      h.tag("h3", null, "Largest sessions by tokens");
      List<List<String>> rows = new ArrayList<>();
      for (Row r : topSessions) {
        rows.add(List.of(String.valueOf(Rows.s(r, Cols.SESSION_ID)), count(Rows.d(r, Cols.REQUESTS)),
            count(Rows.d(r, Cols.TOKENS)), Numbers.sig4(Rows.d(r, Cols.DURATION_S))));
      }
      h.table(List.of("session", "requests", "tokens (input + output)", "duration (s)"), rows, "sessions");
    }
    h.raw("</section>\n");
  }

  /** A count column's value with thousands separators, "n/a" when absent. */
  private static String count(Double v) {
    return v == null ? Numbers.NA : Numbers.count(Math.round(v));
  }

  /** The sessions table's largest sessions for the page, or null without a characterization. */
  static List<Row> topSessions(StageOutputs in) {
    return in.characterization() == null ? null
        : in.folder().top(AuditLayout.CHARACTERIZATION + "/" + CharacterizationTables.T_SESSIONS, Cols.TOKENS, TOP_SESSIONS);
  }

  // ------------------------------------------------------------------ 4. data quality, 5. parameters

  private static void dataQuality(Html h, AuditJson.Content c) {
    h.raw("<section id=\"data-quality\">\n");
    h.tag("h2", null, "Data quality and what the trace could not support");
    h.tag("h3", null, "Findings");
    if (c.findings().isEmpty()) h.tag("p", null, "No data-quality finding.");
    else {
      h.raw("<ul>\n");
      for (String s : c.findings()) h.tag("li", null, s);
      h.raw("</ul>\n");
    }
    h.tag("h3", null, "Not applicable");
    if (c.notApplicable().isEmpty()) h.tag("p", null, "Everything could be computed.");
    else {
      List<List<String>> rows = new ArrayList<>();
      for (String[] x : c.notApplicable()) rows.add(List.of(x[0], x[1]));
      h.table(List.of("what", "reason"), rows, "na");
    }
    h.raw("</section>\n");
  }

  private static void reproduce(Html h, StageOutputs in) {
    JsonNode prov = in.provenance();
    h.raw("<section id=\"reproduce\">\n");
    h.tag("h2", null, "Parameters, version and inputs");
    if (prov == null) {
      h.tag("p", "missing", "The audit folder has no provenance.json: the command line and input checksums are unknown.");
    } else {
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("tool version", prov.path("tool_version").asText("?")));
      rows.add(List.of("command line", commandLine(prov.path("command_line"))));
      rows.add(List.of("started at", prov.path("started_at").asText("?")));
      h.table(List.of("", ""), rows, "prov");
      h.tag("h3", null, "Input files");
      List<List<String>> files = new ArrayList<>();
      for (JsonNode i : prov.path("inputs")) files.add(List.of(i.path("path").asText(), i.path("bytes").asText(), i.path("sha256").asText()));
      if (files.isEmpty()) h.tag("p", null, "No input file recorded.");
      else h.table(List.of("path", "bytes", "sha256"), files, "inputs");
      parameterTable(h, "Audit parameters", prov.path("parameters"));
    }
    if (in.characterization() != null) parameterTable(h, "Characterization parameters",
        Json.MAPPER.valueToTree(in.characterization().parameters()));
    if (in.replay() != null) {
      h.raw("<details><summary>Replay settings and cost profile</summary>\n");
      parameterTable(h, "Replay settings", in.replay().path("settings"));
      h.raw("</details>\n");
    }
    if (in.ingest() != null) parameterTable(h, "Ingest parameters", Json.MAPPER.valueToTree(in.ingest().parameters()));
    h.raw("</section>\n");
  }

  private static String commandLine(JsonNode n) {
    if (n.isArray()) {
      List<String> parts = new ArrayList<>();
      n.forEach(x -> parts.add(x.asText()));
      return String.join(" ", parts);
    }
    return n.asText("?");
  }

  private static void parameterTable(Html h, String title, JsonNode params) {
    if (params == null || !params.isObject() || params.isEmpty()) return;
    List<List<String>> rows = new ArrayList<>();
    flatten(params, "", rows);
    h.tag("h3", null, title);
    h.table(List.of("parameter", "value"), rows, "params");
  }

  private static void flatten(JsonNode n, String prefix, List<List<String>> rows) {
    if (n.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = n.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(e.getValue(), prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), rows);
      }
    } else if (n.isArray()) {
      List<String> parts = new ArrayList<>();
      n.forEach(x -> parts.add(x.isValueNode() ? x.asText() : x.toString()));
      rows.add(List.of(prefix, String.join(", ", parts)));
    } else {
      rows.add(List.of(prefix, n.isNull() ? "null" : n.asText()));
    }
  }
}
