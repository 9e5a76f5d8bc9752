package io.smetric.audit.cli;

import io.smetric.audit.common.Sparks;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/** Options every Spark-running subcommand shares (a picocli mixin). */
public final class SparkOptions {
  @Option(names = "--master", description = "Spark master (default: spark-submit's, else local[*]).")
  String master;

  @Option(names = "--spark-ui", description = "Start the Spark UI in local mode (off by default).")
  boolean ui;

  @Option(names = "--debug", description = "Print stack traces of errors.")
  boolean debug;

  public SparkSession session(String app) {
    return Sparks.session("smetric-audit " + app, master, ui);
  }
}
