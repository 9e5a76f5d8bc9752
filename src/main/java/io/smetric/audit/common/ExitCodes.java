package io.smetric.audit.common;

/** Named process exit codes shared by every subcommand (documented in the README). */
public final class ExitCodes {
  private ExitCodes() {}

  public static final int OK = 0;
  /** An internal failure: a bug or an environment problem (message printed, stack with --debug). */
  public static final int INTERNAL = 1;
  /** Bad command-line usage: unknown option, missing argument, conflicting flags. */
  public static final int USAGE = 2;
  /** Bad input data: unreadable, unknown format, nothing usable, a named file/line/field. */
  public static final int BAD_INPUT = 3;
  /** The output exists and --overwrite was not given. */
  public static final int OUTPUT_EXISTS = 4;
  /** The audit ran, and its verdict is one that --fail-on asked to fail on. */
  public static final int VERDICT_FAILED = 5;
}
