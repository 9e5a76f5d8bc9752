package io.smetric.audit.cli;

import static io.smetric.audit.contract.AuditLayout.INFERRED;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.IngestSummary;
import io.smetric.audit.infer.InferenceJob;
import io.smetric.audit.ingest.IngestJob;
import io.smetric.audit.ingest.TraceFormat;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code smetric-audit ingest}: trace files of any supported format to the canonical dataset. */
@Command(
    name = "ingest",
    mixinStandardHelpOptions = true,
    description = {
      "Reads trace files (plain or compressed JSONL, CSV, Parquet; files, folders or globs on any",
      "Hadoop file system) into the canonical Parquet dataset, with every rejected record",
      "quarantined with its reason and counted: read = accepted + quarantined for every file."
    })
public final class IngestCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "INPUT", description = "Trace files, folders or globs.")
  List<String> inputs;

  @Option(names = "--format", defaultValue = "auto",
      description = "auto, smetric, bailian, mooncake, parquet or csv (default: ${DEFAULT-VALUE}, per file).")
  String format;

  @Mixin OutputOptions.Required output;

  @Option(names = "--block-size", description = "Tokens per block, overriding the records' and the format's own.")
  Integer blockSize;

  @Option(names = "--max-line-bytes", defaultValue = "" + IngestJob.DEFAULT_MAX_LINE_BYTES,
      description = "Longer lines are quarantined as line_too_long (default: ${DEFAULT-VALUE}).")
  int maxLineBytes;

  @Option(names = "--split-bytes",
      description = {"Bytes per range when a large uncompressed text file is parsed by several tasks in parallel",
          "(default: Spark's file-split rule, min(spark.sql.files.maxPartitionBytes, total bytes / cores))."})
  Long splitBytes;

  @Option(names = "--infer-sessions",
      description = {"When the trace has no session ids, also infer sessions, parents and turns by prefix",
          "continuation (docs/session-inference.md) into DIR/" + INFERRED + "/ (a canonical dataset of its own)."})
  boolean inferSessions;

  @Option(names = "--infer-window-s", defaultValue = "" + io.smetric.audit.infer.InferenceOptions.DEFAULT_WINDOW_S,
      description = "Session inference: how long a prompt stays a candidate parent (default: ${DEFAULT-VALUE}).")
  double inferWindowS;

  @Option(names = "--infer-template-fanout", defaultValue = "" + io.smetric.audit.infer.InferenceOptions.DEFAULT_TEMPLATE_FANOUT,
      description = "Session inference: distinct continuations that make a block a shared template (default: ${DEFAULT-VALUE}).")
  int inferTemplateFanout;

  @Mixin SparkOptions sparkOptions;

  @Override
  public Integer call() {
    IngestJob.Options o = new IngestJob.Options(inputs, TraceFormat.parse(format), blockSize, maxLineBytes, splitBytes);
    SparkSession spark = sparkOptions.session("ingest");
    IngestJob job = new IngestJob(spark, o);
    IngestJob.Result r;
    String written;
    try (OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
      r = job.run(dir);
      dir.commit();
      written = dir.targetPath().toString();
    }
    print(spec.commandLine().getOut(), r, written);
    if (inferSessions) {
      PrintWriter w = spec.commandLine().getOut();
      if (r.summary().dataset().hasSessions()) {
        w.println("infer-sessions: the trace has session ids; nothing to infer");
      } else {
        org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> canonical =
            spark.read().schema(io.smetric.audit.contract.Canonical.SCHEMA).parquet(written + "/" + AuditLayout.TRACE_DIR);
        try (OutputDir dir = OutputDir.open(written + "/" + INFERRED, false, spark.sparkContext().hadoopConfiguration())) {
          InferenceJob.Result inf = new InferenceJob(spark, canonical,
              new io.smetric.audit.infer.InferenceOptions(inferWindowS, inferTemplateFanout), null).run(dir);
          dir.commit();
          StagePrint.inference(w, inf.summary(), null);
          w.println("wrote " + dir.targetPath() + " (sessions inferred)");
          w.flush();
        }
      }
    }
    return ExitCodes.OK;
  }

  /** The ingest's console lines; {@code written} is the committed output folder. */
  static void print(PrintWriter w, IngestJob.Result r, String written) {
    IngestSummary s = r.summary();
    IngestSummary.DatasetPart ds = s.dataset();
    w.printf(Locale.ROOT, "ingest: %d files, %d records read, %d accepted, %d quarantined%n",
        s.totals().files(), r.read(), r.accepted(), r.quarantined());
    s.totals().quarantinedByReason().forEach(
        (k, v) -> w.printf(Locale.ROOT, "  quarantined %-22s %d%n", k, v));
    w.printf(Locale.ROOT, "dataset: %d requests, sessions %s (%s), %d input tokens, %.1f s span, block sizes %s%n",
        ds.requests(), ds.hasSessions() ? Long.toString(ds.sessions()) : "none",
        ds.sessionsMode(), ds.inputTokens(), ds.spanS(), Json.MAPPER.valueToTree(ds.blockSizes()).toString());
    for (String f : s.findings()) w.println("finding: " + f);
    w.println("wrote " + written);
    w.flush();
  }
}
