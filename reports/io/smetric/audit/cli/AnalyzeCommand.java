package io.smetric.audit.cli;

import io.smetric.audit.characterize.Characterization;
import io.smetric.audit.characterize.TraceInput;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code analyze CANONICAL_DIR --instances N --out DIR}: the workload characterization
 * (docs/characterization.md). Writes Parquet tables and characterization.json atomically.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true,
    description = {"Characterizes a canonical trace: ideal prefix reuse (overall, per minute, per turn), its sources,",
        "reuse intervals, session structure and the request/instance ratio (trace-model.md sections 2-5, 7)."})
public final class AnalyzeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "CANONICAL_DIR",
      description = "Output folder of `ingest` (holding trace/ and ingest-summary.json) or the Parquet folder itself.")
  String input;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output folder (written atomically).")
  String out;

  @Option(names = "--instances", required = true, paramLabel = "N",
      description = "Serving instances, for the request/instance ratio per minute.")
  int instances;

  @Option(names = "--template-min-sessions", paramLabel = "K", defaultValue = "3",
      description = "A block is a system-prompt (template) block when it occurs in the turn-0 requests of at least K root sessions (default: ${DEFAULT-VALUE}).")
  int templateMinSessions;

  @Option(names = "--interval-threshold", paramLabel = "SECONDS", defaultValue = "100",
      description = "Threshold for the share of reuse within it (default: ${DEFAULT-VALUE} s, the paper's).")
  double intervalThreshold;

  @Option(names = "--overwrite", description = "Replace the output folder if it exists.")
  boolean overwrite;

  @Mixin SparkOptions sparkOptions;

  @Override
  public Integer call() throws Exception {
    if (instances < 1) throw new UsageException("--instances must be >= 1, got " + instances);
    if (templateMinSessions < 1) throw new UsageException("--template-min-sessions must be >= 1, got " + templateMinSessions);
    if (!(intervalThreshold >= 0)) throw new UsageException("--interval-threshold must be >= 0, got " + intervalThreshold);
    PrintWriter w = spec.commandLine().getOut();
    SparkSession spark = sparkOptions.session("analyze");
    try (OutputDir dir = OutputDir.open(out, overwrite, spark.sparkContext().hadoopConfiguration())) {
      TraceInput in = TraceInput.load(spark, input);
      Characterization.Options opt =
          new Characterization.Options(instances, templateMinSessions, intervalThreshold);
      try (Characterization.Result r = new Characterization(spark, in, opt).execute()) {
        writeInto(r, dir);
        dir.commit();
        w.println(summary(r));
      }
    }
    return 0;
  }

  /** The file the headline numbers go to, beside the tables. */
  public static final String JSON_FILE = "characterization.json";

  /** Writes the tables and characterization.json of a result into {@code dir} (not committed). */
  static void writeInto(Characterization.Result r, OutputDir dir) throws java.io.IOException {
    for (Map.Entry<String, Dataset<Row>> t : r.tables().entrySet()) {
      t.getValue().coalesce(1).write().mode(SaveMode.ErrorIfExists).parquet(dir.child(t.getKey()));
    }
    dir.writeString(JSON_FILE, Json.MAPPER.writeValueAsString(r.json()) + "\n");
  }

  static String summary(Characterization.Result r) {
    var j = r.json();
    return String.format(java.util.Locale.ROOT, "analyzed %d requests: ideal reuse (token-weighted) %s; written %d tables + characterization.json",
        j.path("trace").path("requests").asLong(), j.path("reuse").path("token_weighted").path("value").asText("n/a"),
        r.tables().size());
  }
}
