package io.smetric.audit.cli;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.report.CompareReport;
import io.smetric.audit.report.ReportCharts;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code compare DIR1 DIR2 ... --out DIR}: several audits side by side (docs/report.md): verdicts,
 * criteria per audit, headline numbers and overlaid charts in one index.html plus compare.json.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = {"Sets several audits side by side (e.g. two clusters, or this week against last week):",
        "verdicts, every criterion per audit, headline numbers and overlaid charts (index.html, compare.json)."})
public final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "2..*", paramLabel = "AUDIT_DIR", description = "Output folders of `audit` (each holding audit.json).")
  List<String> dirs;

  @Mixin OutputOptions.Required output;

  @Option(names = "--label", paramLabel = "NAME",
      description = "A column name per audit, in order (repeat it once per AUDIT_DIR; default: the folders' names).")
  List<String> labels;

  @Mixin SparkOptions sparkOptions;

  @Override
  public Integer call() {
    PrintWriter w = spec.commandLine().getOut();
    SparkSession spark = sparkOptions.session("compare");
    try (OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
      CompareReport.Result r = CompareReport.write(spark, dirs, labels, dir);
      dir.commit();
      long drawn = r.charts().stream().filter(ReportCharts.Entry::drawn).count();
      w.printf("compared %d audits: %s; %d charts; written %s/index.html and compare.json%n", dirs.size(),
          String.join(", ", r.json().path("audits").findValuesAsText("verdict")), drawn, output.out());
    }
    return 0;
  }
}
