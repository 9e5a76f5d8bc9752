package io.smetric.audit.common;

/**
 * Input data that cannot be used, with the place it was found: the CLI prints
 * {@code file:line: field: message} as one line and exits with {@link ExitCodes#BAD_INPUT}.
 */
public class BadInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String file;
  private final long line;
  private final String field;

  public BadInputException(String file, long line, String field, String message) {
    super(message);
    this.file = file;
    this.line = line;
    this.field = field;
  }

  public BadInputException(String file, String message) {
    this(file, -1, null, message);
  }

  public String file() { return file; }

  public long line() { return line; }

  public String field() { return field; }

  /** One line naming where and what: {@code trace.jsonl:12: field 'turn': not an integer}. */
  public String oneLine() {
    StringBuilder sb = new StringBuilder();
    if (file != null) sb.append(file);
    if (line >= 0) sb.append(':').append(line);
    if (sb.length() > 0) sb.append(": ");
    if (field != null) sb.append("field '").append(field).append("': ");
    sb.append(getMessage());
    return sb.toString();
  }
}
