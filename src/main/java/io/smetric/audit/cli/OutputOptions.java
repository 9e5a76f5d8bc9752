package io.smetric.audit.cli;

import io.smetric.audit.common.OutputDir;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import picocli.CommandLine.Option;

/**
 * {@code --out DIR} and {@code --overwrite}, a picocli mixin for every command that writes an output
 * folder, so that each says the same and does the same ({@link OutputDir}): the folder appears only
 * when complete; one that exists and holds anything is refused (exit 4) unless {@code --overwrite};
 * an empty one is used. {@link Required} for the commands whose output is the point, {@link
 * Optional} for {@code validate}, which writes a folder only when asked.
 */
public abstract class OutputOptions {
  static final String OUT = "Output folder, written atomically (it appears only when complete); one that exists must be "
      + "empty unless --overwrite.";
  static final String OVERWRITE = "Replace the output folder if it exists and is not empty (what it held is deleted).";

  @Option(names = "--overwrite", description = OVERWRITE)
  boolean overwrite;

  /** The folder given, or null ({@link Optional} only). */
  public abstract String out();

  public boolean overwrite() {
    return overwrite;
  }

  /** Opens the output folder; refuses a taken one before any work. */
  public OutputDir open(Configuration conf) {
    return OutputDir.open(out(), overwrite, conf);
  }

  /** The same on a file system the caller already holds. */
  public OutputDir open(FileSystem fs) {
    return OutputDir.open(out(), overwrite, fs);
  }

  /** The check {@link #open} makes, for a command that opens its folder only after long work. */
  public void refuseIfTaken(Configuration conf) {
    if (out() != null) OutputDir.refuseIfTaken(out(), overwrite, conf);
  }

  /** {@code --out DIR} required. */
  public static final class Required extends OutputOptions {
    @Option(names = "--out", required = true, paramLabel = "DIR", description = OUT)
    String out;

    @Override
    public String out() {
      return out;
    }
  }

  /** {@code --out DIR} optional: the command writes a folder only when given one. */
  public static final class Optional extends OutputOptions {
    @Option(names = "--out", paramLabel = "DIR", description = "Where to write the results (not written without it). " + OUT)
    String out;

    @Override
    public String out() {
      return out;
    }
  }
}
