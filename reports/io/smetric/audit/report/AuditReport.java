package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.common.Json;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.Metrics;
import io.smetric.audit.report.verdict.Verdict;
import io.smetric.audit.report.verdict.VerdictEngine;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes an audit's report into its folder (docs/report.md): {@code index.html} (self-contained:
 * inline style, no script, no network), the PNG charts beside it, and {@code audit.json}. Reads
 * only the stage outputs (characterization, replay, ingest summary, provenance), never the trace.
 */
public final class AuditReport {
  public static final String FORMAT = "smetric-audit/1";
  static final int TOP_SESSIONS = 10;
  /** The block-hasher's summary when the audit started from raw chat logs. */
  static final String HASH_SUMMARY = "hashed/hash-summary.json";

  private AuditReport() {}

  /** What the report read and decided; {@link #write} returns its verdict. */
  public record Result(Verdict verdict, ObjectNode auditJson, List<ReportCharts.Entry> charts) {}

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
    AuditFolder f = AuditFolder.open(spark, auditDir, displayName);
    JsonNode ch = f.json(AuditFolder.CHARACTERIZATION_JSON);
    JsonNode replay = f.json(AuditFolder.REPLAY_JSON);
    JsonNode prov = f.json(AuditFolder.PROVENANCE);
    JsonNode ingest = f.json(AuditFolder.INGEST_SUMMARY);
    if (ingest == null && ch != null && ch.path("data_quality").path("ingest").isObject()
        && ch.path("data_quality").path("ingest").has("totals")) {
      ingest = ch.path("data_quality").path("ingest");
    }
    JsonNode inferred = f.exists(AuditFolder.INFERRED) ? f.json(AuditFolder.INFERRED + "/inference-summary.json") : null;
    boolean isInferred = f.exists(AuditFolder.INFERRED);

    String replayAbsent = replayAbsentReason(f, ch, prov, replay);
    Metrics m = new Metrics();
    AuditCriteria.addCharacterization(m, ch);
    AuditCriteria.addReplay(m, replay, replayAbsent, criteria);
    Verdict v = VerdictEngine.evaluate(m, criteria);

    ReplayRuns runs = null;
    if (replay != null) {
      List<Row> rows = f.table(AuditFolder.REPLAY + "/runs");
      runs = rows == null ? null : new ReplayRuns(rows, replay);
    }
    double ratioBound = criteria.stream().filter(c -> c.metric().equals(AuditCriteria.RATIO_P5))
        .mapToDouble(Criterion::threshold).findFirst().orElse(30);
    String chartReplayMissing = replay != null && runs == null ? "the replay folder has no runs table" : replayAbsent;
    ReportCharts charts = new ReportCharts(f, ch, replay, runs, chartReplayMissing, ratioBound);
    List<ReportCharts.Entry> entries = charts.render();

    List<String[]> notApplicable = notApplicable(v, ch, replay, entries);
    List<String> findings = findings(ch, ingest, inferred, isInferred);
    JsonNode hashed = f.json(HASH_SUMMARY);
    if (hashed != null) {
      findings.removeIf(x -> x.startsWith("No ingest summary"));
      findings.addAll(0, hashFindings(hashed));
    }
    ObjectNode headline = headline(ch, replay, isInferred);
    double gainThreshold = criteria.stream().filter(c -> c.metric().equals(AuditCriteria.GAIN_WITH_GLOBAL))
        .mapToDouble(Criterion::threshold).findFirst().orElse(0.02);
    ObjectNode answers = Answers.of(replay, gainThreshold);
    String trace = traceName(prov, ch, f);
    ObjectNode audit = auditJson(v, headline, notApplicable, findings, entries, prov, f);
    audit.put("trace", trace);
    if (answers != null) audit.set("answers", answers);
    if (replay != null && replay.path("preconditions").isObject()) audit.set("preconditions", replay.path("preconditions").deepCopy());
    JsonNode measured = MeasuredCacheReport.summary(f);
    if (measured != null) audit.set("measured_cache", measured);
    ObjectNode replayProfile = ReplayProfileSection.json(replay);
    if (replayProfile != null) audit.set("replay_profile", replayProfile);
    if (replay != null && replay.path("conditions").isObject()) audit.set("conditions", replay.path("conditions").deepCopy());
    if (replay != null && replay.path("uncertainty").isObject()) audit.set("uncertainty", replay.path("uncertainty").deepCopy());
    List<Row> topSessions = ch == null ? null : f.top(AuditFolder.CHARACTERIZATION + "/sessions", "tokens", TOP_SESSIONS);
    String html = html(f, trace, v, answers, headline, entries, notApplicable, findings, prov, ch, replay, ingest,
        charts.focusRatio(), topSessions);
    f.writeString(AuditFolder.INDEX_HTML, html);
    try {
      f.writeString(AuditFolder.AUDIT_JSON, Json.MAPPER.writeValueAsString(audit) + "\n");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return new Result(v, audit, entries);
  }

  /** Why an audit has no replay.json, in the user's words. */
  static String replayAbsentReason(AuditFolder f, JsonNode ch, JsonNode prov, JsonNode replay) {
    if (replay != null) return null;
    JsonNode p = prov == null ? null : prov.path("parameters");
    if (p != null && (p.path("no_replay").asBoolean(false) || p.path("replay").asText("").equals("false"))) {
      return "the replay was skipped (--no-replay)";
    }
    if (ch != null && ch.path("trace").path("has_blocks").isBoolean() && !ch.path("trace").path("has_blocks").asBoolean()) {
      return "the trace has no block hashes, so the KV cache cannot be replayed";
    }
    if (f.exists(AuditFolder.REPLAY)) return "the replay folder has no replay.json (an interrupted replay?)";
    return AuditCriteria.NO_REPLAY;
  }

  // ------------------------------------------------------------------ content

  /** Headline numbers: the characterization's and the replay comparison's, null where not applicable. */
  static ObjectNode headline(JsonNode ch, JsonNode replay, boolean inferred) {
    ObjectNode h = Json.object();
    if (ch != null) {
      h.put("requests", ch.path("trace").path("requests").asLong());
      JsonNode s = ch.path("trace").path("sessions");
      if (s.isNumber()) h.put("sessions", s.asLong());
      else h.putNull("sessions");
    }
    h.put("sessions_inferred", inferred);
    for (String[] k : HEADLINE) putMetric(h, k[0], ch == null ? null : ch.at(k[1]));
    JsonNode thr = ch == null ? null : ch.path("reuse_interval").path("threshold_s");
    if (thr != null && thr.isNumber()) h.put("interval_threshold_s", thr.asDouble());
    // the verdict's comparison (SMetric vs the judged router), or the old all-baselines one
    JsonNode cmp = replay == null ? null : replay.path("judged").isObject() ? replay.path("judged") : replay.path("comparison");
    if (cmp != null && cmp.isObject()) {
      h.put("judged_router", AuditCriteria.judgedName(cmp));
      putMetric(h, "smetric_best_gain_with_global_tier", cmp.path("smetric_best_gain_with_global_tier"));
      JsonNode at = cmp.path("smetric_best_gain_with_global_tier").path("global_ratio");
      if (at.isNumber()) h.put("smetric_best_gain_at_global_ratio", at.asDouble());
      putMetric(h, "smetric_gain_without_global_tier", cmp.path("smetric_gain_without_global_tier"));
      for (String k : List.of("smetric_best_gain_with_global_tier", "smetric_gain_without_global_tier")) {
        JsonNode iv = cmp.path(k).path("interval");
        if (iv.path("low").isNumber()) h.putArray(k + "_interval").add(iv.path("low").asDouble()).add(iv.path("high").asDouble());
      }
      putMetric(h, "min_global_ratio_for_gain", cmp.path("min_global_ratio_for_gain"));
      if (cmp.path("by_global_ratio").isArray()) h.set("by_global_ratio", cmp.path("by_global_ratio").deepCopy());
    } else {
      h.putNull("smetric_best_gain_with_global_tier");
      h.putNull("smetric_gain_without_global_tier");
    }
    return h;
  }

  /** key, characterization.json pointer, label, format (p = percent, n = number, s = seconds). */
  static final String[][] HEADLINE = {
    {"ideal_reuse", "/reuse/token_weighted", "ideal prefix reuse (token-weighted)", "p"},
    {"intra_session_share", "/reuse_by_source/intra_session/share_of_hit_tokens", "intra-session share of reuse", "p"},
    {"system_prompt_share", "/reuse_by_source/system_prompt/share_of_hit_tokens", "system-prompt share of reuse", "p"},
    {"inter_session_share", "/reuse_by_source/inter_session/share_of_hit_tokens", "inter-session share of reuse", "p"},
    {"reuse_within_threshold", "/reuse_interval/all/share_within_threshold", "share of reuse within the interval threshold", "p"},
    {"reuse_interval_p90_s", "/reuse_interval/all/p90_s", "reuse interval p90", "s"},
    {"first_turn_fraction", "/sessions/first_turn_fraction", "first-turn fraction", "p"},
    {"top_25pct_token_share", "/sessions/token_skew/top_25pct_share", "tokens held by the top 25% of sessions", "p"},
    {"session_token_gini", "/sessions/token_skew/gini", "session token Gini", "n"},
    {"requests_per_instance_mean", "/request_instance_ratio/mean", "requests per instance per minute, mean", "n"},
    {"requests_per_instance_p5", "/request_instance_ratio/p5", "requests per instance per minute, p5", "n"},
  };

  private static void putMetric(ObjectNode h, String key, JsonNode n) {
    MetricLike v = MetricLike.of(n);
    if (v.value != null) h.put(key, v.value);
    else h.putNull(key);
  }

  /** A characterization metric object reduced to value-or-reason. */
  record MetricLike(Double value, String reason) {
    static MetricLike of(JsonNode n) {
      if (n == null || n.isMissingNode() || n.isNull()) return new MetricLike(null, "not computed");
      if (n.isNumber()) return new MetricLike(n.asDouble(), null);
      JsonNode v = n.path("value");
      if (v.isNumber()) return new MetricLike(v.asDouble(), null);
      return new MetricLike(null, n.path("not_applicable").asText("no value"));
    }
  }

  /** Everything the audit could not judge or compute: [what, reason]. */
  static List<String[]> notApplicable(Verdict v, JsonNode ch, JsonNode replay, List<ReportCharts.Entry> charts) {
    List<String[]> out = new ArrayList<>();
    for (CriterionResult r : v.results()) {
      if (r.status() == CriterionResult.Status.NOT_APPLICABLE) {
        out.add(new String[] {"criterion " + r.criterion().id(), r.reason().replaceFirst("^not applicable: ", "")});
      }
    }
    if (ch != null) walkNotApplicable(ch, "", out);
    if (replay != null) {
      for (JsonNode s : replay.path("skipped")) out.add(new String[] {"replay policy", s.asText()});
      Map<String, Integer> runNa = new TreeMap<>();
      for (JsonNode run : replay.path("runs")) {
        Iterator<Map.Entry<String, JsonNode>> it = run.path("not_applicable").fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          runNa.merge("replay metric " + e.getKey() + "\u0000" + e.getValue().asText(), 1, Integer::sum);
        }
      }
      runNa.forEach((k, n) -> {
        String[] p = k.split("\u0000", 2);
        out.add(new String[] {p[0], p[1] + " (" + n + " run" + (n == 1 ? "" : "s") + ")"});
      });
      JsonNode cmp = replay.path("comparison");
      if (cmp.isObject()) walkNotApplicable(cmp, "replay comparison ", out);
    }
    for (ReportCharts.Entry e : charts) if (!e.drawn()) out.add(new String[] {"chart: " + e.title(), e.missing()});
    return out;
  }

  private static void walkNotApplicable(JsonNode n, String path, List<String[]> out) {
    if (!n.isObject()) return;
    if (n.has("not_applicable") && n.path("value").isNull()) {
      out.add(new String[] {path.isEmpty() ? "/" : path, n.path("not_applicable").asText()});
      return;
    }
    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (path.isEmpty() && e.getKey().equals("data_quality")) continue;
      walkNotApplicable(e.getValue(), path + (path.isEmpty() || path.endsWith(" ") ? "" : "/") + e.getKey(), out);
    }
  }

  /** Data-quality findings in plain sentences: ingest, quarantine, analysis counters, inference. */
  static List<String> findings(JsonNode ch, JsonNode ingest, JsonNode inferred, boolean isInferred) {
    List<String> out = new ArrayList<>();
    if (isInferred) {
      String s = "Sessions were inferred from prompt content (no session ids in the trace)";
      if (inferred != null) {
        s += String.format(Locale.ROOT, ": method %s, %s sessions over %s requests, %s forks", inferred.path("method").asText("?"),
            inferred.path("sessions").asText("?"), inferred.path("requests").asText("?"),
            inferred.path("fork_sessions").path("total").asText("?"));
      }
      out.add(s + ". Every session-based number rests on the inference (docs/session-inference.md).");
    }
    if (ingest != null) {
      JsonNode t = ingest.path("totals");
      if (t.path("quarantined").asLong(0) > 0) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%d of %d records were quarantined", t.path("quarantined").asLong(),
            t.path("read").asLong()));
        List<String> parts = new ArrayList<>();
        t.path("quarantined_by_reason").fields().forEachRemaining(e -> parts.add(e.getKey() + " " + e.getValue().asText()));
        if (!parts.isEmpty()) sb.append(" (").append(String.join(", ", parts)).append(")");
        out.add(sb.append("; they are in ingest/quarantine/ with their reasons.").toString());
      }
      for (JsonNode x : ingest.path("findings")) out.add("ingest: " + x.asText());
    } else {
      out.add("No ingest summary: the input was already canonical (or ingest ran elsewhere), so quarantine counts are unknown here.");
    }
    if (ch != null) {
      Iterator<Map.Entry<String, JsonNode>> it = ch.path("data_quality").path("analysis").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isNumber() && e.getValue().asLong() > 0) {
          out.add("analysis: " + e.getKey().replace('_', ' ') + ": " + e.getValue().asText());
        } else if (e.getValue().isTextual()) {
          out.add("analysis: " + e.getKey().replace('_', ' ') + ": " + e.getValue().asText());
        }
      }
    }
    return out;
  }

  /** Findings of the block-hasher (raw chat logs): skipped records, synthesised arrivals, missing outputs. */
  static List<String> hashFindings(JsonNode h) {
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, "Raw chat logs were hashed (tokenizer %s, %s-token blocks): %d records read, %d requests in %d sessions.",
        h.path("tokenizer").asText("?"), h.path("block_size").asText("?"), h.path("records_read").asLong(),
        h.path("requests").asLong(), h.path("sessions").asLong()));
    long skipped = h.path("skipped").path("count").asLong(0);
    if (skipped > 0) {
      List<String> reasons = new ArrayList<>();
      for (JsonNode r : h.path("skipped").path("reasons")) {
        if (reasons.size() == 5) break;
        reasons.add(r.asText());
      }
      out.add(skipped + " log records were skipped" + (reasons.isEmpty() ? "" : ", e.g. " + String.join("; ", reasons)) + ".");
    }
    long synth = h.path("arrivals").path("synthesised").asLong(0);
    if (synth > 0) {
      out.add(synth + " requests had no log timestamp; their arrivals are synthesised (" + h.path("arrivals").path("rule").asText()
          + "), so time-based numbers (intervals, per-minute ratios, replay latencies) rest on that rule.");
    }
    long noOut = h.path("output_tokens_missing").asLong(0);
    if (noOut > 0) out.add(noOut + " requests have no recorded output; their output tokens count as 0 (docs/block-hasher.md), which lowers session token totals and decode load in the replay.");
    // more than half of a file's records skipped: the file was probably read as the wrong format
    for (JsonNode w : h.path("warnings")) out.add("Mostly skipped: " + w.asText() + ".");
    // what the logs lacked, per kind over all files (the summary has it per file)
    java.util.Map<String, long[]> counts = new java.util.TreeMap<>();
    java.util.Map<String, String> what = new java.util.HashMap<>();
    for (JsonNode f : h.path("per_file")) {
      f.path("synthesised").fields().forEachRemaining(e -> {
        long[] c = counts.computeIfAbsent(e.getKey(), k -> new long[2]);
        c[0]++;
        c[1] += e.getValue().path("count").asLong();
        what.put(e.getKey(), e.getValue().path("what").asText());
      });
    }
    counts.forEach((k, c) -> out.add(String.format(Locale.ROOT, "Synthesised or missing in %d file(s), %d time(s): %s.", c[0], c[1], what.get(k))));
    return out;
  }

  static ObjectNode auditJson(Verdict v, ObjectNode headline, List<String[]> na, List<String> findings,
      List<ReportCharts.Entry> charts, JsonNode prov, AuditFolder f) {
    ObjectNode a = Json.object();
    a.put("format", FORMAT);
    a.put("verdict", v.outcome().id());
    a.put("sentence", v.sentence());
    ArrayNode cond = a.putArray("conditions");
    v.conditions().forEach(cond::add);
    ArrayNode cs = a.putArray("criteria");
    for (CriterionResult r : v.results()) cs.add(criterionJson(r));
    a.set("headline", headline);
    ArrayNode nas = a.putArray("not_applicable");
    for (String[] x : na) nas.addObject().put("what", x[0]).put("reason", x[1]);
    ArrayNode fs = a.putArray("data_quality_findings");
    findings.forEach(fs::add);
    ArrayNode ch = a.putArray("charts");
    for (ReportCharts.Entry e : charts) {
      ObjectNode o = ch.addObject().put("title", e.title()).put("figure", e.figure());
      if (e.drawn()) o.put("file", e.file());
      else o.put("not_drawn", e.missing());
    }
    if (prov != null) a.set("provenance", prov.deepCopy());
    else a.putObject("provenance").put("not_available", "the audit folder has no provenance.json");
    ObjectNode rep = a.putObject("report");
    rep.put("tool_version", BuildInfo.version());
    rep.put("audit_dir", f.label());
    return a;
  }

  static ObjectNode criterionJson(CriterionResult r) {
    Criterion c = r.criterion();
    ObjectNode o = Json.object();
    o.put("id", c.id());
    o.put("title", c.title());
    o.put("metric", c.metric());
    o.put("level", c.level().name().toLowerCase(Locale.ROOT));
    o.put("status", status(r.status()));
    if (r.observed() != null) o.put("value", r.observed());
    else o.putNull("value");
    o.put("threshold", c.threshold());
    o.put("value_text", r.observed() == null ? "n/a" : c.format(r.observed()));
    o.put("threshold_text", c.op() + " " + c.format(c.threshold()));
    o.put("op", c.op());
    o.put("reason", r.reason());
    o.put("source", c.source());
    return o;
  }

  static String status(CriterionResult.Status s) {
    return switch (s) {
      case PASS -> "pass";
      case FAIL -> "fail";
      case NOT_APPLICABLE -> "not-applicable";
    };
  }

  // ------------------------------------------------------------------ HTML

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

  /**
   * The audited trace as the report's first line names it: the input files of provenance.json
   * (file names; "and N more" beyond three), else the characterization's input, else the folder.
   */
  static String traceName(JsonNode prov, JsonNode ch, AuditFolder f) {
    List<String> names = new ArrayList<>();
    if (prov != null) for (JsonNode i : prov.path("inputs")) names.add(lastComponent(i.path("path").asText()));
    names.removeIf(String::isEmpty);
    if (!names.isEmpty()) {
      if (names.size() <= 3) return String.join(", ", names);
      return String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more files";
    }
    String in = ch == null ? "" : ch.path("parameters").path("input").asText("");
    return in.isEmpty() ? f.label() : in;
  }

  private static String lastComponent(String path) {
    String p = path.replaceAll("/+$", "");
    int k = p.lastIndexOf('/');
    return k >= 0 ? p.substring(k + 1) : p;
  }

  static String html(AuditFolder f, String trace, Verdict v, ObjectNode answers, ObjectNode headline,
      List<ReportCharts.Entry> charts, List<String[]> na,
      List<String> findings, JsonNode prov, JsonNode ch, JsonNode replay, JsonNode ingest, Double focusRatio,
      List<Row> topSessions) {
    Html h = new Html();
    h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .raw("<title>").text("SMetric audit of " + trace + ": " + v.outcome().id()).raw("</title>\n")
        .raw("<style>\n").raw(CSS).raw("\n</style>\n</head>\n<body>\n");
    h.tag("h1", null, "SMetric audit of " + trace);
    h.tag("p", "sub", "Does session-first routing fit this workload? Judged by smetric-audit " + BuildInfo.version()
        + " against the SMetric paper (arXiv 2607.08565); audit folder " + f.label() + ".");

    // 1. verdict
    h.raw("<section id=\"verdict\" class=\"verdict " + v.outcome().id() + "\">\n");
    h.tag("p", "level", v.outcome().id().replace('-', ' '));
    h.tag("p", "sentence", v.sentence());
    h.raw("</section>\n");
    Answers.html(h, answers);
    keyNumbers(h, headline);
    Answers.operatingPointHtml(h, replay);
    ReplayProfileSection.html(h, ReplayProfileSection.json(replay));
    String onRange = null;
    for (CriterionResult r : v.results()) {
      if (r.criterion().metric().equals(AuditCriteria.GAIN_WITH_GLOBAL)) onRange = r.reason();
    }
    Answers.conditionsHtml(h, replay, onRange);

    // 2. evidence
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
      String st = status(r.status());
      h.raw("<tr id=\"criterion-" + Html.esc(c.id()) + "\"><td>").text(c.title()).raw("<br><code>").text(c.id()).raw("</code></td><td class=\"tag\">")
          .text(c.level().name().toLowerCase(Locale.ROOT)).raw("</td><td class=\"num\">")
          .text(r.observed() == null ? "n/a" : c.format(r.observed())).raw("</td><td class=\"num\">")
          .text(c.op() + " " + c.format(c.threshold())).raw("</td><td class=\"tag " + st + "\">").text(st)
          .raw("</td><td class=\"reason\">").text(r.reason()).raw("</td><td>").text(c.source()).raw("</td></tr>\n");
    }
    h.raw("</tbody></table>\n</section>\n");

    // 3. charts
    h.raw("<section id=\"charts\">\n");
    h.tag("h2", null, "Charts");
    if (focusRatio != null) {
      h.tag("p", null, "Per-policy replay charts (heatmaps, stickiness, latency CDFs) show global-tier capacity "
          + ReportCharts.fmt(focusRatio) + "x: the capacity of SMetric's largest gain when the replay compared it, else the largest replayed.");
    }
    String section = null;
    for (ReportCharts.Entry e : charts) {
      if (!e.section().equals(section)) {
        section = e.section();
        h.tag("h3", null, section);
      }
      if (e.drawn()) {
        h.raw("<figure><img src=\"").text(e.file()).raw("\" alt=\"").text(e.title()).raw("\" width=\"" + Charts.W
            + "\" height=\"" + Charts.H + "\"><figcaption><strong>").text(e.title()).raw("</strong> (").text(e.figure())
            .raw("). ").text(e.caption()).raw("</figcaption></figure>\n");
      } else {
        h.raw("<p class=\"missing\"><strong>").text(e.title()).raw("</strong> (").text(e.figure()).raw("): not drawn: ")
            .text(e.missing()).raw(".</p>\n");
      }
    }
    if (topSessions != null && !topSessions.isEmpty()) {
      h.tag("h3", null, "Largest sessions by tokens");
      List<List<String>> rows = new ArrayList<>();
      for (Row r : topSessions) {
        rows.add(List.of(String.valueOf(Rows.s(r, "session_id")), String.valueOf(Rows.s(r, "requests")),
            String.valueOf(Rows.s(r, "tokens")), ReportCharts.num(Rows.d(r, "duration_s"))));
      }
      h.table(List.of("session", "requests", "tokens (input + output)", "duration (s)"), rows, "sessions");
    }
    h.raw("</section>\n");

    MeasuredCacheReport.html(h, f);

    // 4. data quality and not applicable
    h.raw("<section id=\"data-quality\">\n");
    h.tag("h2", null, "Data quality and what the trace could not support");
    h.tag("h3", null, "Findings");
    if (findings.isEmpty()) h.tag("p", null, "No data-quality finding.");
    else {
      h.raw("<ul>\n");
      for (String s : findings) h.tag("li", null, s);
      h.raw("</ul>\n");
    }
    h.tag("h3", null, "Not applicable");
    if (na.isEmpty()) h.tag("p", null, "Everything could be computed.");
    else {
      List<List<String>> rows = new ArrayList<>();
      for (String[] x : na) rows.add(List.of(x[0], x[1]));
      h.table(List.of("what", "reason"), rows, "na");
    }
    h.raw("</section>\n");

    // 5. reproduce
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
      List<List<String>> in = new ArrayList<>();
      for (JsonNode i : prov.path("inputs")) in.add(List.of(i.path("path").asText(), i.path("bytes").asText(), i.path("sha256").asText()));
      if (in.isEmpty()) h.tag("p", null, "No input file recorded.");
      else h.table(List.of("path", "bytes", "sha256"), in, "inputs");
      parameterTable(h, "Audit parameters", prov.path("parameters"));
    }
    if (ch != null) parameterTable(h, "Characterization parameters", ch.path("parameters"));
    if (replay != null) {
      h.raw("<details><summary>Replay settings and cost profile</summary>\n");
      parameterTable(h, "Replay settings", replay.path("settings"));
      h.raw("</details>\n");
    }
    if (ingest != null) parameterTable(h, "Ingest parameters", ingest.path("parameters"));
    h.raw("</section>\n</body>\n</html>\n");
    return h.toString();
  }

  private static String commandLine(JsonNode n) {
    if (n.isArray()) {
      List<String> parts = new ArrayList<>();
      n.forEach(x -> parts.add(x.asText()));
      return String.join(" ", parts);
    }
    return n.asText("?");
  }

  private static void keyNumbers(Html h, ObjectNode headline) {
    List<List<String>> rows = new ArrayList<>();
    if (headline.has("requests")) rows.add(List.of("requests", headline.path("requests").asText()));
    if (headline.has("sessions")) {
      rows.add(List.of("sessions" + (headline.path("sessions_inferred").asBoolean() ? " (inferred)" : ""),
          headline.path("sessions").isNull() ? "n/a" : headline.path("sessions").asText()));
    }
    for (String[] k : HEADLINE) {
      JsonNode n = headline.path(k[0]);
      String label = k[2];
      if (k[0].equals("reuse_within_threshold") && headline.has("interval_threshold_s")) {
        label = "share of reuse within " + ReportCharts.fmt(headline.path("interval_threshold_s").asDouble()) + " s";
      }
      rows.add(List.of(label, value(n, k[3])));
    }
    String vs = headline.path("judged_router").asText("the best baseline");
    rows.add(List.of("SMetric vs " + vs + ", best gain with a global tier",
        signed(headline.path("smetric_best_gain_with_global_tier")) + interval(headline.path("smetric_best_gain_with_global_tier_interval"))
            + (headline.has("smetric_best_gain_at_global_ratio")
                ? " (at " + ReportCharts.fmt(headline.path("smetric_best_gain_at_global_ratio").asDouble()) + "x)" : "")));
    rows.add(List.of("SMetric vs " + vs + ", without a global tier", signed(headline.path("smetric_gain_without_global_tier"))
        + interval(headline.path("smetric_gain_without_global_tier_interval"))));
    h.raw("<section id=\"key-numbers\">\n");
    h.tag("h2", null, "Key numbers");
    h.table(List.of("measure", "value"), rows, "key");
    h.raw("</section>\n");
  }

  /** A headline number as the pages print it: shares and gains as percentages, seconds with a unit. */
  static String formatHeadline(String key, double x) {
    if (key.startsWith("smetric_") && !key.endsWith("_ratio")) return String.format(Locale.ROOT, "%+.1f%%", 100 * x);
    for (String[] k : HEADLINE) if (k[0].equals(key)) return value(Json.MAPPER.getNodeFactory().numberNode(x), k[3]);
    return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : ReportCharts.fmt(x);
  }

  private static String value(JsonNode n, String fmt) {
    if (n == null || !n.isNumber()) return "n/a";
    double x = n.asDouble();
    return switch (fmt) {
      case "p" -> String.format(Locale.ROOT, "%.1f%%", 100 * x);
      case "s" -> ReportCharts.fmt(x) + " s";
      default -> ReportCharts.fmt(x);
    };
  }

  private static String interval(JsonNode a) {
    return a != null && a.isArray() && a.size() == 2 ? " [" + signed(a.get(0)) + ", " + signed(a.get(1)) + "] (95% interval)" : "";
  }

  private static String signed(JsonNode n) {
    return n != null && n.isNumber() ? String.format(Locale.ROOT, "%+.1f%%", 100 * n.asDouble()) : "n/a";
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
