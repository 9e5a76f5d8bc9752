package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.HashSummary;
import io.smetric.audit.contract.InferenceSummary;
import io.smetric.audit.contract.IngestSummary;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.contract.ReplayComparison;
import io.smetric.audit.contract.Source;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.CriterionResult;
import io.smetric.audit.report.verdict.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Builds audit.json (docs/report.md, "audit.json") from the verdict and the stage outputs: the
 * headline numbers, everything that could not be judged or computed, the data-quality findings in
 * sentences, the two answers and the blocks copied from replay.json. The page prints the same
 * {@link Content}. The field names that other readers of audit.json use (compare) are defined here,
 * where audit.json is written.
 */
public final class AuditJson {
  private AuditJson() {}

  public static final String FORMAT = "smetric-audit/1";

  /** audit.json fields that compare reads back. */
  public static final String VERDICT = "verdict";
  public static final String SENTENCE = "sentence";
  public static final String CRITERIA = "criteria";
  public static final String HEADLINE = "headline";
  /** Fields of one criterion of {@link #CRITERIA}. */
  public static final String C_ID = "id";
  public static final String C_TITLE = "title";
  public static final String C_STATUS = "status";
  public static final String C_VALUE = "value";
  public static final String C_THRESHOLD = "threshold";
  public static final String C_VALUE_TEXT = "value_text";
  public static final String C_THRESHOLD_TEXT = "threshold_text";

  /** One headline number: its audit.json key, the characterization's metric it shows, its label, how it prints. */
  record HeadlineNumber(String key, Function<CharacterizationSummary, Metric> metric, String label, Print print) {}

  /** How a headline number prints: a share as a percentage, a plain number, seconds. */
  enum Print {
    PERCENT, NUMBER, SECONDS;

    String format(JsonNode n) {
      if (n == null || !n.isNumber()) return Numbers.NA;
      double x = n.asDouble();
      return switch (this) {
        case PERCENT -> Numbers.percent(x);
        case SECONDS -> Numbers.sig4(x) + " s";
        case NUMBER -> Numbers.sig4(x);
      };
    }
  }

  /** The characterization's headline numbers, in the order the page lists them. */
  static final List<HeadlineNumber> HEADLINE_NUMBERS = List.of(
      new HeadlineNumber("ideal_reuse", c -> part(c.reuse(), CharacterizationSummary.Reuse::tokenWeighted),
          "ideal prefix reuse (token-weighted)", Print.PERCENT),
      new HeadlineNumber("intra_session_share", c -> AuditCriteria.sourceShare(c, Source.INTRA_SESSION),
          "intra-session share of reuse", Print.PERCENT),
      new HeadlineNumber("system_prompt_share", c -> AuditCriteria.sourceShare(c, Source.SYSTEM_PROMPT),
          "system-prompt share of reuse", Print.PERCENT),
      new HeadlineNumber("inter_session_share", c -> AuditCriteria.sourceShare(c, Source.INTER_SESSION),
          "inter-session share of reuse", Print.PERCENT),
      new HeadlineNumber("reuse_within_threshold", c -> part(intervalAll(c), CharacterizationSummary.IntervalGroup::shareWithinThreshold),
          "share of reuse within the interval threshold", Print.PERCENT),
      new HeadlineNumber("reuse_interval_p90_s", c -> part(intervalAll(c), CharacterizationSummary.IntervalGroup::p90S),
          "reuse interval p90", Print.SECONDS),
      new HeadlineNumber("first_turn_fraction", c -> part(c.sessions(), CharacterizationSummary.Sessions::firstTurnFraction),
          "first-turn fraction", Print.PERCENT),
      new HeadlineNumber("top_25pct_token_share", c -> part(tokenSkew(c), CharacterizationSummary.TokenSkew::top25pctShare),
          "tokens held by the top 25% of sessions", Print.PERCENT),
      new HeadlineNumber("session_token_gini", c -> part(tokenSkew(c), CharacterizationSummary.TokenSkew::gini),
          "session token Gini", Print.NUMBER),
      new HeadlineNumber("requests_per_instance_mean", c -> part(c.requestInstanceRatio(), CharacterizationSummary.RequestInstanceRatio::mean),
          "requests per instance per minute, mean", Print.NUMBER),
      new HeadlineNumber("requests_per_instance_p5", c -> part(c.requestInstanceRatio(), CharacterizationSummary.RequestInstanceRatio::p5),
          "requests per instance per minute, p5", Print.NUMBER));

  /** {@code f} of a block, null when the block is missing. */
  static <T> Metric part(T block, Function<T, Metric> f) {
    return block == null ? null : f.apply(block);
  }

  static CharacterizationSummary.IntervalGroup intervalAll(CharacterizationSummary c) {
    return c.reuseInterval() == null ? null : c.reuseInterval().all();
  }

  static CharacterizationSummary.TokenSkew tokenSkew(CharacterizationSummary c) {
    return c.sessions() == null ? null : c.sessions().tokenSkew();
  }

  /**
   * What the report says besides the verdict, computed once for audit.json and the page.
   *
   * @param trace the audited trace as the first line names it
   * @param headline audit.json's headline block
   * @param answers audit.json's answers block, or null without a replay
   * @param notApplicable everything that could not be judged or computed: [what, reason]
   * @param findings data-quality findings in sentences
   */
  record Content(String trace, ObjectNode headline, ObjectNode answers, List<String[]> notApplicable, List<String> findings) {}

  /** The report's content for the verdict {@code v} of {@code in} and the charts drawn. */
  static Content content(StageOutputs in, Verdict v, List<ReportCharts.Entry> charts, double gainThreshold) {
    List<String> findings = findings(in.characterization(), in.ingest(), in.inferred(), in.sessionsInferred());
    if (in.hashed() != null) {
      findings.removeIf(x -> x.startsWith("No ingest summary"));
      findings.addAll(0, hashFindings(in.hashed()));
    }
    return new Content(traceName(in.provenance(), in.characterization(), in.folder()),
        headline(in.characterization(), in.replay(), in.sessionsInferred()), Answers.of(in.replay(), gainThreshold),
        notApplicable(v, in.characterization(), in.replay(), charts), findings);
  }

  /** audit.json itself. */
  static ObjectNode build(StageOutputs in, Verdict v, Content c, List<ReportCharts.Entry> charts) {
    JsonNode replay = in.replay();
    ObjectNode a = Json.object();
    a.put("format", FORMAT);
    a.put(VERDICT, v.outcome().id());
    a.put(SENTENCE, v.sentence());
    ArrayNode cond = a.putArray("conditions");
    v.conditions().forEach(cond::add);
    ArrayNode cs = a.putArray(CRITERIA);
    for (CriterionResult r : v.results()) cs.add(criterionJson(r));
    a.set(HEADLINE, c.headline());
    ArrayNode nas = a.putArray("not_applicable");
    for (String[] x : c.notApplicable()) nas.addObject().put("what", x[0]).put("reason", x[1]);
    ArrayNode fs = a.putArray("data_quality_findings");
    c.findings().forEach(fs::add);
    ArrayNode ch = a.putArray("charts");
    for (ReportCharts.Entry e : charts) {
      ObjectNode o = ch.addObject().put("title", e.title()).put("figure", e.figure());
      if (e.drawn()) o.put("file", e.file());
      else o.put("not_drawn", e.missing());
    }
    if (in.provenance() != null) a.set("provenance", in.provenance().deepCopy());
    else a.putObject("provenance").put("not_available", "the audit folder has no provenance.json");
    ObjectNode rep = a.putObject("report");
    rep.put("tool_version", BuildInfo.version());
    rep.put("audit_dir", in.folder().label());
    a.put("trace", c.trace());
    if (c.answers() != null) a.set("answers", c.answers());
    // the preconditions and conditions blocks are copied as replay.json has them (keys: PreconditionsBlock, ConditionsBlock)
    JsonNode pre = replay == null ? null : replay.path(io.smetric.audit.contract.PreconditionsBlock.BLOCK);
    if (pre != null && pre.isObject()) a.set("preconditions", pre.deepCopy());
    JsonNode measured = MeasuredCacheReport.summary(in.folder());
    if (measured != null) a.set("measured_cache", measured);
    JsonNode own = OwnTrafficReport.summary(in.folder());
    if (own != null) a.set("own_traffic_validation", own);
    ObjectNode replayProfile = ReplayProfileSection.json(replay);
    if (replayProfile != null) a.set("replay_profile", replayProfile);
    // the sweep under its own name: "conditions" is the verdict's list of conditions in words (above)
    JsonNode sweep = replay == null ? null : replay.path(io.smetric.audit.contract.ConditionsBlock.BLOCK);
    if (sweep != null && sweep.isObject()) a.set("conditions_sweep", sweep.deepCopy());
    io.smetric.audit.contract.UncertaintyBlock unc = io.smetric.audit.contract.UncertaintyBlock.of(replay);
    if (unc != null) a.set(io.smetric.audit.contract.UncertaintyBlock.BLOCK, Json.MAPPER.valueToTree(unc));
    return a;
  }

  // ------------------------------------------------------------------ headline

  /** Headline numbers: the characterization's and the replay comparison's, null where not applicable. */
  static ObjectNode headline(CharacterizationSummary ch, JsonNode replay, boolean inferred) {
    ObjectNode h = Json.object();
    if (ch != null) {
      h.put("requests", ch.trace() == null ? 0 : ch.trace().requests());
      Long s = ch.trace() == null ? null : ch.trace().sessions();
      if (s != null) h.put("sessions", s);
      else h.putNull("sessions");
    }
    h.put("sessions_inferred", inferred);
    for (HeadlineNumber k : HEADLINE_NUMBERS) putMetric(h, k.key(), ch == null ? null : k.metric().apply(ch));
    if (ch != null && ch.reuseInterval() != null) h.put("interval_threshold_s", ch.reuseInterval().thresholdS());
    // the verdict's comparison (SMetric vs the judged router), or the old all-baselines one
    ReplayComparison cmp = ReplayComparison.judged(replay);
    if (cmp != null) {
      h.put("judged_router", cmp.judgedName());
      ReplayComparison.Gain with = cmp.gainWithGlobal();
      putMetric(h, ReplayComparison.GAIN_WITH_GLOBAL, ReplayComparison.Gain.metric(with));
      if (with != null && with.globalRatio() != null) h.put("smetric_gain_at_global_ratio", with.globalRatio());
      if (with != null && with.load() != null) h.put("smetric_gain_at_load", with.load());
      putMetric(h, ReplayComparison.GAIN_NO_GLOBAL, ReplayComparison.Gain.metric(cmp.gainWithoutGlobal()));
      for (String k : List.of(ReplayComparison.GAIN_WITH_GLOBAL, ReplayComparison.GAIN_NO_GLOBAL)) {
        ReplayComparison.Gain g = k.equals(ReplayComparison.GAIN_WITH_GLOBAL) ? with : cmp.gainWithoutGlobal();
        Metric.Interval iv = g == null ? null : g.interval();
        if (iv != null && iv.low() != null) h.putArray(k + "_interval").add(iv.low()).add(iv.high());
      }
      ReplayComparison.MinGlobalRatio min = cmp.minGlobalRatio();
      putMetric(h, ReplayComparison.MIN_GLOBAL_RATIO, min == null ? null
          : new Metric(min.value(), min.notApplicable(), null, null, null, null));
      if (cmp.byGlobalRatio() != null && cmp.byGlobalRatio().isArray()) h.set("by_global_ratio", cmp.byGlobalRatio().deepCopy());
    } else {
      h.putNull(ReplayComparison.GAIN_WITH_GLOBAL);
      h.putNull(ReplayComparison.GAIN_NO_GLOBAL);
    }
    return h;
  }

  private static void putMetric(ObjectNode h, String key, Metric m) {
    Double v = m == null ? null : m.value();
    if (v != null) h.put(key, v);
    else h.putNull(key);
  }

  /** A headline number as the pages print it: shares and gains as percentages, seconds with a unit. */
  static String formatHeadline(String key, double x) {
    if (key.startsWith("smetric_") && !key.endsWith("_ratio")) return Numbers.signedPercent(x);
    for (HeadlineNumber k : HEADLINE_NUMBERS) if (k.key().equals(key)) return k.print().format(Json.MAPPER.getNodeFactory().numberNode(x));
    return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Numbers.sig4(x);
  }

  // ------------------------------------------------------------------ what could not be judged, findings

  /** Everything the audit could not judge or compute: [what, reason]. */
  static List<String[]> notApplicable(Verdict v, CharacterizationSummary ch, JsonNode replay, List<ReportCharts.Entry> charts) {
    List<String[]> out = new ArrayList<>();
    for (CriterionResult r : v.results()) {
      if (r.status() == CriterionResult.Status.NOT_APPLICABLE) {
        out.add(new String[] {"criterion " + r.criterion().id(), r.reason().replaceFirst("^not applicable: ", "")});
      }
    }
    if (ch != null) walkNotApplicable(ch.toJson(), "", out);
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
      JsonNode cmp = replay.path(ReplayComparison.COMPARISON);
      if (cmp.isObject()) walkNotApplicable(cmp, "replay comparison ", out);
    }
    for (ReportCharts.Entry e : charts) if (!e.drawn()) out.add(new String[] {"chart: " + e.title(), e.missing()});
    return out;
  }

  private static void walkNotApplicable(JsonNode n, String path, List<String[]> out) {
    if (!n.isObject()) return;
    if (n.has(Metric.NOT_APPLICABLE) && n.path(Metric.VALUE).isNull()) {
      out.add(new String[] {path.isEmpty() ? "/" : path, n.path(Metric.NOT_APPLICABLE).asText()});
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
  static List<String> findings(CharacterizationSummary ch, IngestSummary ingest, InferenceSummary inferred, boolean isInferred) {
    List<String> out = new ArrayList<>();
    if (isInferred) {
      String s = "Sessions were inferred from prompt content (no session ids in the trace)";
      if (inferred != null) {
        s += String.format(Locale.ROOT, ": method %s, %d sessions over %d requests, %d forks", inferred.method(),
            inferred.sessions(), inferred.requests(), inferred.forkSessions().total());
      }
      out.add(s + ". Every session-based number rests on the inference (docs/session-inference.md).");
    }
    if (ingest != null) {
      IngestSummary.Totals t = ingest.totals();
      if (t != null && t.quarantined() > 0) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%d of %d records were quarantined", t.quarantined(), t.read()));
        List<String> parts = new ArrayList<>();
        if (t.quarantinedByReason() != null) t.quarantinedByReason().forEach((k, n) -> parts.add(k + " " + n));
        if (!parts.isEmpty()) sb.append(" (").append(String.join(", ", parts)).append(")");
        out.add(sb.append("; they are in ingest/quarantine/ with their reasons.").toString());
      }
      if (ingest.findings() != null) for (String x : ingest.findings()) out.add("ingest: " + x);
    } else {
      out.add("No ingest summary: the input was already canonical (or ingest ran elsewhere), so quarantine counts are unknown here.");
    }
    if (ch != null && ch.dataQuality() != null && ch.dataQuality().analysis() != null) {
      // every count the analysis found above zero, and its rule, in the file's order
      Iterator<Map.Entry<String, JsonNode>> it = Json.MAPPER.valueToTree(ch.dataQuality().analysis()).fields();
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
  static List<String> hashFindings(HashSummary h) {
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, "Raw chat logs were hashed (tokenizer %s, %d-token blocks): %d records read, %d requests in %d sessions.",
        h.tokenizer() == null ? "?" : h.tokenizer(), h.blockSize(), h.recordsRead(), h.requests(), h.sessions()));
    long skipped = h.skipped() == null ? 0 : h.skipped().count();
    if (skipped > 0) {
      List<String> reasons = new ArrayList<>();
      for (String r : h.skipped().reasons() == null ? List.<String>of() : h.skipped().reasons()) {
        if (reasons.size() == 5) break;
        reasons.add(r);
      }
      out.add(skipped + " log records were skipped" + (reasons.isEmpty() ? "" : ", e.g. " + String.join("; ", reasons)) + ".");
    }
    long synth = h.arrivals() == null ? 0 : h.arrivals().synthesised();
    if (synth > 0) {
      out.add(synth + " requests had no log timestamp; their arrivals are synthesised (" + h.arrivals().rule()
          + "), so time-based numbers (intervals, per-minute ratios, replay latencies) rest on that rule.");
    }
    long noOut = h.outputTokensMissing();
    if (noOut > 0) out.add(noOut + " requests have no recorded output; their output tokens count as 0 (docs/block-hasher.md), which lowers session token totals and decode load in the replay.");
    // more than half of a file's records skipped: the file was probably read as the wrong format
    for (String w : h.warnings() == null ? List.<String>of() : h.warnings()) out.add("Mostly skipped: " + w + ".");
    // what the logs lacked, per kind and sentence over all files (the summary has it per file): log
    // formats word the same kind differently (ShareGPT's and SWE-agent's "arrival"), each keeps its own
    Map<List<String>, long[]> counts = new TreeMap<>(Comparator.comparing((List<String> k) -> k.get(0)).thenComparing(k -> k.get(1)));
    for (HashSummary.FileEntry f : h.perFile() == null ? List.<HashSummary.FileEntry>of() : h.perFile()) {
      if (f.synthesised() == null) continue;
      f.synthesised().forEach((key, note) -> {
        long[] c = counts.computeIfAbsent(List.of(key, note.what()), k -> new long[2]);
        c[0]++;
        c[1] += note.count();
      });
    }
    counts.forEach((k, c) -> out.add(String.format(Locale.ROOT, "Synthesised or missing in %d file(s), %d time(s): %s.", c[0], c[1], k.get(1))));
    return out;
  }

  // ------------------------------------------------------------------ criteria, trace name

  static ObjectNode criterionJson(CriterionResult r) {
    Criterion c = r.criterion();
    ObjectNode o = Json.object();
    o.put(C_ID, c.id());
    o.put(C_TITLE, c.title());
    o.put("metric", c.metric());
    o.put("level", c.level().name().toLowerCase(Locale.ROOT));
    o.put(C_STATUS, status(r.status()));
    if (r.observed() != null) o.put(C_VALUE, r.observed());
    else o.putNull(C_VALUE);
    o.put(C_THRESHOLD, c.threshold());
    o.put(C_VALUE_TEXT, r.observed() == null ? Numbers.NA : c.format(r.observed()));
    o.put(C_THRESHOLD_TEXT, c.op() + " " + c.format(c.threshold()));
    o.put("op", c.op());
    o.put("reason", r.reason());
    o.put("source", c.source());
    o.put("operating_point", operatingPoint(c.metric()));
    return o;
  }

  /**
   * Which operating point a criterion reads (issue 29 item 3): the trace as recorded, the
   * equal-load point or the maximum-TPS point at --instances; the sized cluster (the capacity
   * answer) is reported beside them and judges nothing.
   */
  static String operatingPoint(String metric) {
    if (metric.startsWith("characterization:")) return "the trace as recorded (no simulation)";
    if (metric.equals(io.smetric.audit.report.verdict.AuditCriteria.GAIN_WITH_GLOBAL)
        || metric.equals(io.smetric.audit.report.verdict.AuditCriteria.GAIN_NO_GLOBAL)) {
      return "equal load at --instances: SMetric and the judged router at the decision load (1.5x the judged router's "
          + "90%-attainment rate)";
    }
    if (metric.equals(io.smetric.audit.report.verdict.AuditCriteria.SESSION_TREES)) return "the trace as replayed (its session trees)";
    if (metric.equals(io.smetric.audit.report.verdict.AuditCriteria.REGIME_HOT_SPOTS)
        || metric.equals(io.smetric.audit.report.verdict.AuditCriteria.REGIME_STICKINESS)) {
      // AuditCriteria.precondition reads these at equal load when the replay has it
      return "equal load at --instances: cache-affinity and least-load at the decision load (else, in a replay "
          + "without equal-load runs, the maximum-TPS point)";
    }
    if (metric.startsWith("replay:precondition:")) {
      return "maximum TPS within SLO at --instances (SMetric's headline rate; the cache-first router at its own)";
    }
    return metric.startsWith("replay:") ? "the replay at --instances" : "the trace as recorded";
  }

  static String status(CriterionResult.Status s) {
    return switch (s) {
      case PASS -> "pass";
      case FAIL -> "fail";
      case NOT_APPLICABLE -> "not-applicable";
    };
  }

  /**
   * The audited trace as the report's first line names it: the input files of provenance.json
   * (file names; "and N more" beyond three), else the characterization's input, else the folder.
   */
  static String traceName(JsonNode prov, CharacterizationSummary ch, AuditFolder f) {
    List<String> names = new ArrayList<>();
    if (prov != null) for (JsonNode i : prov.path("inputs")) names.add(lastComponent(i.path("path").asText()));
    names.removeIf(String::isEmpty);
    if (!names.isEmpty()) {
      if (names.size() <= 3) return String.join(", ", names);
      return String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more files";
    }
    String in = ch == null || ch.parameters() == null || ch.parameters().input() == null ? "" : ch.parameters().input();
    return in.isEmpty() ? f.label() : in;
  }

  private static String lastComponent(String path) {
    String p = path.replaceAll("/+$", "");
    int k = p.lastIndexOf('/');
    return k >= 0 ? p.substring(k + 1) : p;
  }
}
