package io.smetric.audit.cli;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.infer.InferenceJob;
import io.smetric.audit.infer.InferenceOptions;
import java.io.PrintWriter;
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

  @Mixin OutputOptions.Required output;

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
    try (OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
      InferenceJob.Result r = new InferenceJob(spark, canonical, o, truth).run(dir);
      dir.commit();
      PrintWriter w = spec.commandLine().getOut();
      StagePrint.inference(w, r.summary(), r.accuracy());
      w.println("wrote " + dir.targetPath());
      w.flush();
    }
    return ExitCodes.OK;
  }
}
