package io.smetric.audit.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.infer.InferenceAccuracy;
import io.smetric.audit.infer.InferenceOptions;
import io.smetric.audit.infer.InferenceOutput;
import io.smetric.audit.infer.SessionInference;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code smetric-audit infer-sessions}: sessions, parents and turns for a session-less trace. */
@Command(
    name = "infer-sessions",
    mixinStandardHelpOptions = true,
    description = {
      "Assigns sessions, parents and turns to a canonical trace by prefix continuation",
      "(docs/session-inference.md). Writes OUT/trace (canonical, trigger=unknown),",
      "OUT/inference-links and OUT/inference-summary.json. With --truth, also scores the result and",
      "the naive longest-shared-prefix baseline against a generator truth file."
    })
public final class InferSessionsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "CANONICAL_DIR", description = "Output folder of 'ingest' (reads CANONICAL_DIR/trace).")
  String input;

  @Option(names = "--out", required = true, description = "Output folder (must not exist unless --overwrite).")
  String out;

  @Option(names = "--overwrite", description = "Replace an existing output folder.")
  boolean overwrite;

  @Option(names = "--window-s", defaultValue = "" + InferenceOptions.DEFAULT_WINDOW_S,
      description = "Longest gap between a request and its parent, in seconds; also bounds memory (default: ${DEFAULT-VALUE}).")
  double windowS;

  @Option(names = "--template-fanout", defaultValue = "" + InferenceOptions.DEFAULT_TEMPLATE_FANOUT,
      description = "A block after which this many distinct full blocks were founded independently (not by one request's sub-agents) is a template block (default: ${DEFAULT-VALUE}).")
  int templateFanout;

  @Option(names = "--truth", paramLabel = "FILE",
      description = "Generator truth file (<trace>.truth.jsonl) to score the inference against; writes inference-accuracy.json.")
  String truth;

  @Mixin SparkOptions sparkOptions;

  @Override
  public Integer call() {
    InferenceOptions o = new InferenceOptions(windowS, templateFanout);
    SparkSession spark = sparkOptions.session("infer-sessions");
    String tracePath = new Path(input, AuditLayout.TRACE_DIR).toString();
    Dataset<Row> canonical;
    try {
      canonical = spark.read().schema(Canonical.SCHEMA).parquet(tracePath);
    } catch (RuntimeException e) {
      throw new BadInputException(tracePath, "cannot read the canonical dataset (run 'ingest' first): " + e.getMessage());
    }
    try (OutputDir dir = OutputDir.open(out, overwrite, spark.sparkContext().hadoopConfiguration())) {
      SessionInference.Result r = inferInto(spark, canonical, o, dir);
      ObjectNode acc = null;
      if (truth != null) {
        InferenceAccuracy a = new InferenceAccuracy(spark);
        acc = a.score(r.links(), canonical, a.readTruth(truth), truth);
        dir.writeString(AuditLayout.INFERENCE_ACCURACY_FILE, InferenceOutput.json(acc));
      }
      dir.commit();
      PrintWriter w = spec.commandLine().getOut();
      print(w, InferenceOutput.summary(r), acc);
      w.println("wrote " + dir.targetPath());
      w.flush();
      r.links().unpersist();
    }
    return ExitCodes.OK;
  }

  /** Infers sessions on a canonical dataset and writes the result into {@code dir} (not committed). */
  static SessionInference.Result inferInto(SparkSession spark, Dataset<Row> canonical, InferenceOptions o, OutputDir dir) {
    SessionInference.Result r = new SessionInference(spark, o).execute(canonical);
    InferenceOutput.write(r, dir);
    return r;
  }

  static void print(PrintWriter w, JsonNode s, JsonNode acc) {
    JsonNode f = s.get("fork_sessions");
    w.printf(Locale.ROOT, "infer-sessions (%s): %d requests -> %d sessions (%d roots, %d forks), %d continuations%n",
        s.get("method").asText(), s.get("requests").asLong(), s.get("sessions").asLong(),
        s.get("root_sessions").asLong(), f.get("total").asLong(), s.get("continuations").asLong());
    w.printf(Locale.ROOT, "  roots that share only template blocks with earlier requests: %d%n",
        s.get("roots_sharing_only_template_blocks").asLong());
    if (acc == null) return;
    w.printf(Locale.ROOT, "accuracy vs %s (%d requests):%n", acc.get("truth").asText(), acc.get("requests").asLong());
    w.printf(Locale.ROOT, "  %-22s %9s %9s %9s %9s %9s %9s %9s%n", "method", "P(all)", "R(all)", "P(reveal)", "R(reveal)",
        "R(fork)", "R(compact)", "sessions=");
    for (String m : new String[] {"rule", "naive_longest_prefix"}) {
      JsonNode x = acc.get(m);
      w.printf(Locale.ROOT, "  %-22s %9s %9s %9s %9s %9s %9s %9s%n", m,
          pct(x.get("overall").get("precision")), pct(x.get("overall").get("recall")),
          pct(x.get("revealable").get("precision")), pct(x.get("revealable").get("recall")),
          pct(x.get("fork").get("recall")), pct(x.get("compacted").get("recall")),
          pct(x.get("sessions").get("exact_share")));
    }
    JsonNode rule = acc.get("rule");
    w.printf(Locale.ROOT, "  rule: visible-link precision %s recall %s; fork-link precision %s; template-only links %d (recall %s)%n",
        pct(rule.get("visible").get("precision")), pct(rule.get("visible").get("recall")),
        pct(rule.get("fork").get("precision")), rule.get("template_only").get("links").asLong(),
        pct(rule.get("template_only").get("recall")));
  }

  private static String pct(JsonNode v) {
    return v == null || v.isNull() ? "-" : String.format(Locale.ROOT, "%.2f%%", 100 * v.asDouble());
  }
}
