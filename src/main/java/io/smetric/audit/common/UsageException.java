package io.smetric.audit.common;

/** A command line that cannot be run as given; exit code {@link ExitCodes#USAGE}. */
public class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }
}
