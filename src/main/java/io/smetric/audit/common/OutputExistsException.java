package io.smetric.audit.common;

/** The output location exists and the user did not ask to overwrite it. */
public class OutputExistsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OutputExistsException(String path) {
    super("output exists: " + path + " (pass --overwrite to replace it)");
  }
}
