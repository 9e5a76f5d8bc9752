package io.smetric.audit.common;

/** The output location exists and the user did not ask to overwrite it (exit code 4). */
public class OutputExistsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private OutputExistsException(String message) {
    super(message);
  }

  /** An output file that exists. */
  public static OutputExistsException file(String path) {
    return new OutputExistsException("output exists: " + path + " (pass --overwrite to replace it)");
  }

  /** An output folder that holds something ({@link OutputDir}: an empty one is used as it is). */
  public static OutputExistsException folder(String path) {
    return new OutputExistsException("output folder " + path + " exists and is not empty (pass --overwrite to replace it "
        + "and everything in it, or choose another folder)");
  }
}
