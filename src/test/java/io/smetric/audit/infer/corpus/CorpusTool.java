package io.smetric.audit.infer.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.infer.InferenceAccuracy;
import io.smetric.audit.infer.InferenceOptions;
import io.smetric.audit.infer.SessionInference;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Command line for the corpus (test classpath; src/test/bench/infer-corpus.sh runs it):
 * <pre>
 *   write DIR [--requests N] [MEMBER...]   Mooncake lines + truth per member (listed in DIR/members.tsv:
 *                                          name, trace, block size), and the content-class counts
 *   eval [--requests N] [MEMBER...]        simulate, infer and score in one JVM; prints the per-class table
 *   table ACCURACY_JSON...                 the per-class table of inference-accuracy.json files
 *   evalfile TRACE TRUTH BLOCK_SIZE        eval on a Mooncake trace + truth of the project's generator
 *   diag MEMBER [MAX] [--requests N]       wrong links on revealable requests, with the rule's evidence
 *   score [--requests N] [MEMBER...]       every link scored with {@link LinkOracle} (per class, rule and naive)
 *   heldout [--requests N] B SEED          the same on a {@link HeldOutSynth} trace (block size B)
 *   scorefile TRACE TRUTH BLOCK_SIZE       the same on a Mooncake trace + truth of the project's generator
 *   wrong (heldout B SEED | member NAME | file TRACE TRUTH B) CLASS_PREFIX [MAX] [--requests N]
 *                                          wrong links of one oracle class, with both parents' evidence
 * </pre>
 * No member named = all of {@link CorpusMembers}.
 */
public final class CorpusTool {
  private CorpusTool() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 0) throw new IllegalArgumentException("usage: write DIR | eval | table FILE... [--requests N] [MEMBER...]");
    String cmd = args[0];
    int requests = -1;
    Path dir = null;
    List<String> names = new ArrayList<>();
    int i = 1;
    if (cmd.equals("write")) dir = Path.of(args[i++]);
    for (; i < args.length; i++) {
      if (args[i].equals("--requests")) requests = Integer.parseInt(args[++i]);
      else names.add(args[i]);
    }
    if (cmd.equals("table")) {
      for (String f : names) {
        JsonNode acc = io.smetric.audit.common.Json.MAPPER.readTree(new java.io.File(f));
        System.out.println("### " + f);
        System.out.print(table(acc));
      }
      return;
    }
    if (cmd.equals("evalfile")) { // TRACE TRUTH BLOCK_SIZE: a trace of another generator
      List<CorpusRequest> reqs = ExternalTrace.read(Path.of(names.get(0)), Path.of(names.get(1)));
      int b = Integer.parseInt(names.get(2));
      Revealability.classify(reqs, b);
      ObjectNode acc = evaluate(session(), reqs, b, InferenceOptions.defaults());
      System.out.println("### " + names.get(0) + " (" + reqs.size() + " requests)");
      System.out.print(table(acc));
      System.out.print(legacy(acc));
      return;
    }
    if (cmd.equals("score") || cmd.equals("heldout") || cmd.equals("scorefile") || cmd.equals("wrong")) {
      oracleScore(cmd, names, requests);
      return;
    }
    if (cmd.equals("diag")) {
      diag(session(), CorpusMembers.get(names.get(0)).withRequests(requests > 0 ? requests : 3000),
          names.size() > 1 ? Integer.parseInt(names.get(1)) : 40, names.size() > 2 ? names.get(2) : "");
      return;
    }
    if (names.isEmpty()) names.addAll(CorpusMembers.all().keySet());
    SparkSession spark = cmd.equals("eval") ? session() : null;
    for (String n : names) {
      CorpusSpec spec = CorpusMembers.get(n);
      if (requests > 0) spec = spec.withRequests(requests);
      long t0 = System.nanoTime();
      List<CorpusRequest> reqs = generate(spec);
      if (cmd.equals("write")) {
        Path p = CorpusWriter.write(reqs, dir, n);
        java.nio.file.Files.writeString(dir.resolve("members.tsv"), n + "\t" + p + "\t" + spec.blockSize + "\n",
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        System.out.printf(Locale.ROOT, "%s: %d requests, B=%d -> %s (%.1f s)%n", n, reqs.size(), spec.blockSize, p,
            (System.nanoTime() - t0) / 1e9);
        System.out.print(counts(reqs));
      } else {
        ObjectNode acc = evaluate(spark, reqs, spec.blockSize, InferenceOptions.defaults());
        System.out.printf(Locale.ROOT, "### %s (%d requests, B=%d, %.1f s)%n", n, reqs.size(), spec.blockSize,
            (System.nanoTime() - t0) / 1e9);
        System.out.print(table(acc));
        System.out.print(legacy(acc));
      }
    }
  }

  /** Simulates a member and labels every request's content class. */
  public static List<CorpusRequest> generate(CorpusSpec spec) {
    List<CorpusRequest> reqs = new AgentTraceSimulator(spec).run();
    Revealability.classify(reqs, spec.blockSize);
    return reqs;
  }

  /** Infers sessions on the member's canonical trace and scores them against its truth. */
  public static ObjectNode evaluate(SparkSession spark, List<CorpusRequest> reqs, int blockSize, InferenceOptions o) {
    Dataset<Row> canonical = CorpusWriter.canonical(spark, reqs, blockSize);
    SessionInference.Result r = new SessionInference(spark, o).execute(canonical);
    ObjectNode acc = new InferenceAccuracy(spark).score(r.links(), canonical, CorpusWriter.truth(spark, reqs), "corpus");
    r.links().unpersist();
    return acc;
  }

  private static void oracleScore(String cmd, List<String> names, int requests) throws IOException {
    SparkSession spark = session();
    List<String> todo = new ArrayList<>();
    if (cmd.equals("wrong")) {
      List<String> src = names.subList(0, names.get(0).equals("member") ? 2 : names.get(0).equals("heldout") ? 3 : 4);
      Object[] t = trace(src, requests);
      @SuppressWarnings("unchecked")
      List<CorpusRequest> reqs = (List<CorpusRequest>) t[0];
      int b = (Integer) t[1];
      String prefix = names.get(src.size());
      int max = names.size() > src.size() + 1 ? Integer.parseInt(names.get(src.size() + 1)) : 30;
      String[] cls = LinkOracle.classify(reqs, b);
      int[][] pred = predict(spark, reqs, b);
      int shown = 0;
      for (CorpusRequest c : reqs) {
        if (!cls[c.line].startsWith(prefix) || pred[0][c.line] == c.parentLine || shown++ >= max) continue;
        System.out.printf(Locale.ROOT, "line %d t=%d %s %s %s turn %d in=%d: rule %d %s; truth %d %s%n", c.line,
            c.timestampMs, cls[c.line], c.linkClass, c.session, c.turn, c.inputTokens, pred[0][c.line],
            pred[0][c.line] < 0 ? "" : describe(reqs.get(pred[0][c.line]), c), c.parentLine,
            c.parentLine < 0 ? "" : describe(reqs.get(c.parentLine), c));
      }
      return;
    }
    if (cmd.equals("heldout")) todo.add("heldout");
    else if (cmd.equals("scorefile")) todo.add("file");
    else if (names.isEmpty()) todo.addAll(CorpusMembers.all().keySet());
    else todo.addAll(names);
    for (String n : todo) {
      List<String> src = n.equals("heldout") ? List.of("heldout", names.get(0), names.get(1))
          : n.equals("file") ? List.of("file", names.get(0), names.get(1), names.get(2)) : List.of("member", n);
      long t0 = System.nanoTime();
      Object[] t = trace(src, requests);
      @SuppressWarnings("unchecked")
      List<CorpusRequest> reqs = (List<CorpusRequest>) t[0];
      int b = (Integer) t[1];
      String[] cls = LinkOracle.classify(reqs, b);
      int[][] pred = predict(spark, reqs, b);
      System.out.printf(Locale.ROOT, "### %s (%d requests, B=%d, %.1f s)%n", String.join(" ", src), reqs.size(), b,
          (System.nanoTime() - t0) / 1e9);
      System.out.print("rule: " + LinkScore.score(reqs, cls, pred[0]).table());
      LinkScore naive = LinkScore.score(reqs, cls, pred[1]);
      System.out.printf(Locale.ROOT, "naive longest prefix: all links %s; revealable + roots %s%n", naive.all, naive.revealable);
    }
  }

  /** {reqs, block size} of a source: heldout B SEED | member NAME | file TRACE TRUTH B. */
  static Object[] trace(List<String> src, int requests) throws IOException {
    switch (src.get(0)) {
      case "heldout": {
        HeldOutSynth h = new HeldOutSynth();
        h.blockSize = Integer.parseInt(src.get(1));
        h.seed = Long.parseLong(src.get(2));
        if (requests > 0) h.requests = requests;
        return new Object[] {h.run(), h.blockSize};
      }
      case "member": {
        CorpusSpec spec = CorpusMembers.get(src.get(1));
        if (requests > 0) spec = spec.withRequests(requests);
        return new Object[] {generate(spec), spec.blockSize};
      }
      default:
        return new Object[] {ExternalTrace.read(Path.of(src.get(1)), Path.of(src.get(2))), Integer.parseInt(src.get(3))};
    }
  }

  /** The rule's predicted parent line per line ([0]) and the naive baseline's ([1]); -1 for none. */
  public static int[][] predict(SparkSession spark, List<CorpusRequest> reqs, int blockSize) {
    SessionInference.Result res = new SessionInference(spark, InferenceOptions.defaults())
        .execute(CorpusWriter.canonical(spark, reqs, blockSize));
    int[][] pred = new int[2][reqs.size()];
    for (Row x : res.links().select(io.smetric.audit.contract.Canonical.REQUEST_ID,
        io.smetric.audit.contract.Canonical.PARENT_ID, SessionInference.NAIVE_PARENT_ID).collectAsList()) {
      int line = Integer.parseInt(x.getString(0));
      pred[0][line] = x.isNullAt(1) ? -1 : Integer.parseInt(x.getString(1));
      pred[1][line] = x.isNullAt(2) ? -1 : Integer.parseInt(x.getString(2));
    }
    res.links().unpersist();
    return pred;
  }

  /** Prints wrong links on revealable requests and clean roots, with the rule's evidence (development aid). */
  static void diag(SparkSession spark, CorpusSpec spec, int max, String linkClass) {
    List<CorpusRequest> reqs = generate(spec);
    Dataset<Row> canonical = CorpusWriter.canonical(spark, reqs, spec.blockSize);
    SessionInference.Result r = new SessionInference(spark, InferenceOptions.defaults()).execute(canonical);
    Map<String, Row> links = new java.util.HashMap<>();
    for (Row x : r.links().collectAsList()) links.put(x.getString(0), x);
    int shown = 0;
    for (CorpusRequest c : reqs) {
      boolean scope = Revealability.revealable(c.contentClass) || Revealability.ROOT_CLEAN.equals(c.contentClass);
      Row x = links.get("" + c.line);
      String pred = (String) x.getAs(io.smetric.audit.contract.Canonical.PARENT_ID);
      String truth = c.parentLine < 0 ? null : "" + c.parentLine;
      if (!scope || !c.linkClass.startsWith(linkClass) || java.util.Objects.equals(pred, truth) || shown++ >= max) continue;
      CorpusRequest p = c.parentLine < 0 ? null : reqs.get(c.parentLine);
      CorpusRequest q = pred == null ? null : reqs.get(Integer.parseInt(pred));
      System.out.printf(Locale.ROOT, "line %d t=%d %s/%s %s turn %d in=%d: rule %s (%s, L=%d T=%d) %s; truth %s %s%n",
          c.line, c.timestampMs, c.linkClass, c.contentClass, c.session, c.turn, c.inputTokens, pred,
          x.getAs(SessionInference.LINK_KIND), (int) x.getAs(SessionInference.L_SHARED),
          (int) x.getAs(SessionInference.L_TEMPLATE), q == null ? "" : describe(q, c), truth,
          p == null ? "" : describe(p, c));
    }
  }

  private static String describe(CorpusRequest q, CorpusRequest c) {
    return String.format(Locale.ROOT, "[%s %s turn %d t=%d in=%d out=%d lcp=%d]", q.linkClass, q.session, q.turn,
        q.timestampMs, q.inputTokens, q.outputTokens, Revealability.lcp(q.hashIds, c.hashIds));
  }

  /** Requests per link class and content class. */
  public static String counts(List<CorpusRequest> reqs) {
    Map<String, Map<String, Integer>> m = new TreeMap<>();
    for (CorpusRequest r : reqs) m.computeIfAbsent(r.linkClass, k -> new TreeMap<>()).merge(r.contentClass, 1, Integer::sum);
    StringBuilder sb = new StringBuilder();
    for (var e : m.entrySet()) sb.append("  ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
    return sb.toString();
  }

  /** Markdown rows: per link class, requests, revealable links, rule and naive P / R on them, and on all links. */
  public static String table(JsonNode acc) {
    JsonNode rule = acc.get("rule");
    JsonNode naive = acc.get("naive_longest_prefix");
    StringBuilder sb = new StringBuilder();
    JsonNode cr = rule.get("content_revealable");
    if (cr == null) return "(truth has no content classes)\n";
    sb.append(String.format(Locale.ROOT, "content-revealable: rule P %s R %s (%d of %d links, %d predicted; same kind %d); naive P %s R %s%n",
        pct(cr.get("precision")), pct(cr.get("recall")), cr.get("correct").asLong(), cr.get("true").asLong(),
        cr.get("predicted").asLong(), cr.get("same_kind").asLong(),
        pct(naive.get("content_revealable").get("precision")), pct(naive.get("content_revealable").get("recall"))));
    sb.append("| link class | requests | revealable links | rule P / R (revealable) | same kind | rule P / R (all links) | parent in true parent's session | naive P / R (revealable) |\n");
    sb.append("|---|---|---|---|---|---|---|---|\n");
    var it = rule.get("by_link_class").fields();
    while (it.hasNext()) {
      var e = it.next();
      JsonNode x = e.getValue();
      JsonNode rv = x.get("revealable");
      JsonNode all = x.get("all");
      JsonNode nv = naive.get("by_link_class").get(e.getKey()).get("revealable");
      sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %s / %s | %d | %s / %s | %d of %d | %s / %s |%n", e.getKey(),
          x.get("requests").asLong(), rv.get("true").asLong(), pct(rv.get("precision")), pct(rv.get("recall")),
          rv.get("same_kind").asLong(), pct(all.get("precision")), pct(all.get("recall")),
          all.get("same_session_parent").asLong(), all.get("predicted").asLong(), pct(nv.get("precision")),
          pct(nv.get("recall"))));
    }
    StringBuilder cc = new StringBuilder("content classes:");
    var ic = rule.get("by_content_class").fields();
    while (ic.hasNext()) {
      var e = ic.next();
      cc.append(String.format(Locale.ROOT, " %s %d (rule right %d/%d)", e.getKey(), e.getValue().get("requests").asLong(),
          e.getValue().get("correct_links").asLong(), e.getValue().get("true_links").asLong()));
    }
    sb.append(cc).append('\n');
    JsonNode s = rule.get("sessions");
    sb.append(String.format(Locale.ROOT, "sessions exact: %s of %d; false links on clean roots: %d%n",
        pct(s.get("exact_share")), s.get("true").asLong(),
        rule.get("by_content_class").has("root_clean") ? rule.get("by_content_class").get("root_clean").get("predicted_links").asLong() : 0));
    return sb.toString();
  }

  /** The figures of the earlier accuracy report (classes from the truth's fork and compacted flags). */
  public static String legacy(JsonNode acc) {
    StringBuilder sb = new StringBuilder();
    for (String m : new String[] {"rule", "naive_longest_prefix"}) {
      JsonNode x = acc.get(m);
      sb.append(String.format(Locale.ROOT,
          "%s: links P %s R %s; revealable (not compacted) P %s R %s; visible P %s R %s; fork R %s (P %s); compacted %d; template-only %d; false links on true roots %d; sessions exact %s%n",
          m, pct(x.get("overall").get("precision")), pct(x.get("overall").get("recall")),
          pct(x.get("revealable").get("precision")), pct(x.get("revealable").get("recall")),
          pct(x.get("visible").get("precision")), pct(x.get("visible").get("recall")),
          pct(x.get("fork").get("recall")), pct(x.get("fork").get("precision")),
          x.get("compacted").get("links").asLong(), x.get("template_only").get("links").asLong(),
          x.get("false_links_on_true_roots").asLong(), pct(x.get("sessions").get("exact_share"))));
    }
    return sb.toString();
  }

  static String pct(JsonNode v) {
    return v == null || v.isNull() ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v.asDouble());
  }

  private static SparkSession session() {
    SparkSession s = SparkSession.builder().appName("infer-corpus").master("local[2]")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC").getOrCreate();
    s.sparkContext().setLogLevel("ERROR");
    return s;
  }
}
