package io.smetric.audit.cli;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.OutputExistsException;
import io.smetric.audit.common.UsageException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code smetric-audit} CLI. Subcommands are {@code Callable<Integer>}; all
 * errors go through {@link #exitCodeOf(Throwable)} so that bad data, bad usage and bugs are told
 * apart by exit code and each is one readable line (stack traces only with --debug).
 */
@Command(
    name = "smetric-audit",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "Audits an LLM agent-serving workload trace: does session-first (SMetric) routing fit?",
    subcommands = {
      CommandLine.HelpCommand.class,
      IngestCommand.class,
      GenerateCommand.class,
      HashCommand.class,
      InferSessionsCommand.class,
      ReplayCommand.class,
      AnalyzeCommand.class,
      CompareCommand.class,
      AuditCommand.class,
      ProfilesCommand.class,
      CalibrateCommand.class,
      ValidateCommand.class,
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:internal error (a bug or an environment problem)",
      "2:usage error",
      "3:bad input data",
      "4:output exists (use --overwrite)",
      "5:verdict matched --fail-on"
    })
public final class Main {

  public static void main(String[] args) {
    int code = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    System.exit(code);
  }

  /** Runs the CLI with the given writers; tests call this instead of {@link #main}. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    boolean debug = java.util.Arrays.asList(args).contains("--debug");
    CommandLine cl = new CommandLine(new Main());
    // the defaults help texts print, read from the code that defines them (see Defaults); given as an
    // object, not a bundle name: under spark-submit picocli may come from another class loader than ours
    cl.setResourceBundle(new Defaults());
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          err.println("smetric-audit: " + describe(ex));
          if (debug || exitCodeOf(ex) == ExitCodes.INTERNAL) {
            if (debug) ex.printStackTrace(err);
            else err.println("(run with --debug for the stack trace)");
          }
          err.flush();
          return exitCodeOf(ex);
        });
    cl.setParameterExceptionHandler(
        (ex, a) -> {
          err.println("smetric-audit: " + ex.getMessage());
          err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
          err.flush();
          return ExitCodes.USAGE;
        });
    try {
      return cl.execute(args);
    } finally {
      // main's writers flush only on println: output ending in print (the YAML of `profiles NAME`)
      // would stay in the buffer when System.exit follows
      out.flush();
      err.flush();
    }
  }

  static int exitCodeOf(Throwable ex) {
    Throwable t = root(ex);
    if (t instanceof BadInputException) return ExitCodes.BAD_INPUT;
    if (t instanceof UsageException) return ExitCodes.USAGE;
    if (t instanceof OutputExistsException) return ExitCodes.OUTPUT_EXISTS;
    if (t instanceof java.io.FileNotFoundException) return ExitCodes.BAD_INPUT;
    return ExitCodes.INTERNAL;
  }

  static String describe(Throwable ex) {
    Throwable t = root(ex);
    if (t instanceof BadInputException b) return b.oneLine();
    String m = t.getMessage();
    return (m == null ? t.getClass().getSimpleName() : m);
  }

  /** Finds our own typed exception inside Spark's and Java's wrappers. */
  private static Throwable root(Throwable ex) {
    Throwable t = ex;
    for (int i = 0; i < 20 && t != null; i++) {
      if (t instanceof BadInputException || t instanceof UsageException || t instanceof OutputExistsException) return t;
      if (t.getCause() == null || t.getCause() == t) break;
      t = t.getCause();
    }
    return ex instanceof UncheckedIOException && ex.getCause() != null ? ex.getCause() : (t == null ? ex : t);
  }
}
