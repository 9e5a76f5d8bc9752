package io.smetric.audit.cli;

import io.smetric.audit.characterize.Characterization;
import io.smetric.audit.characterize.Characterization.Engine;
import io.smetric.audit.characterize.CharacterizationJob;
import io.smetric.audit.characterize.TraceInput;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

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

  @Mixin OutputOptions.Required output;

  @Option(names = "--instances", required = true, paramLabel = "N",
      description = "Serving instances, for the request/instance ratio per minute.")
  int instances;

  @Mixin CharacterizationOptions characterization;

  @Option(names = "--engine", paramLabel = "auto|local|spark", defaultValue = "auto",
      description = {"Where the work runs (default: ${DEFAULT-VALUE}): local = in this process without Spark; spark = Spark",
          "tasks; auto = local on a local master or for traces of at most 50M block ids, else spark."})
  String engine;

  @Mixin SparkOptions sparkOptions;

  @Override
  public Integer call() throws Exception {
    if (instances < 1) throw new UsageException("--instances must be >= 1, got " + instances);
    characterization.validate();
    Engine e = engine(engine);
    PrintWriter w = spec.commandLine().getOut();
    Characterization.Options opt = characterization.options(instances);
    if (e == Engine.AUTO || e == Engine.LOCAL) {
      // decided before any Spark session starts: a small trace or a local master needs none
      String master = sparkOptions.master != null ? sparkOptions.master : System.getProperty("spark.master");
      if (CharacterizationJob.localFirst(e, master) && System.getProperty(SLF4J_PROVIDER) == null
          && !sparkOptions.debug) {
        // Hadoop's and parquet-mr's loggers would start log4j, about 1.5 s of CPU for a few warnings
        // nobody needs here (errors surface as exceptions); Spark, if the input must be sorted, runs quietly
        System.setProperty(SLF4J_PROVIDER, "org.slf4j.helpers.NOP_FallbackServiceProvider");
        System.setProperty("slf4j.internal.verbosity", "WARN");
      }
      CharacterizationJob.InProcess local = CharacterizationJob.withoutSpark(input, opt, e, master, output.out(),
          output::open);
      if (local.written() != null) {
        w.println(local.written().line());
        return 0;
      }
      e = local.sparkEngine();
    }
    SparkSession spark = sparkOptions.session("analyze");
    try (OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
      TraceInput in = TraceInput.load(spark, input);
      CharacterizationJob.Result r = new CharacterizationJob(spark, in, opt).engine(e).run(dir);
      dir.commit();
      w.println(r.line());
    }
    return 0;
  }

  private static final String SLF4J_PROVIDER = "slf4j.provider";

  static Engine engine(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "auto" -> Engine.AUTO;
      case "local" -> Engine.LOCAL;
      case "spark" -> Engine.SPARK;
      default -> throw new UsageException("--engine: unknown value '" + name + "' (one of: auto, local, spark)");
    };
  }
}
