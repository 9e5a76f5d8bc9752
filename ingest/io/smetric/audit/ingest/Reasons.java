package io.smetric.audit.ingest;

/** Quarantine reason codes: stable strings, documented in docs/ingest.md. */
public final class Reasons {
  private Reasons() {}

  public static final String MALFORMED_JSON = "malformed_json";
  public static final String MALFORMED_CSV = "malformed_csv";
  public static final String MISSING_FIELD = "missing_field";
  public static final String BAD_TYPE = "bad_type";
  public static final String NEGATIVE_VALUE = "negative_value";
  public static final String BAD_VALUE = "bad_value";
  public static final String BAD_TIMESTAMP = "bad_timestamp";
  public static final String LINE_TOO_LONG = "line_too_long";
  public static final String TRUNCATED_INPUT = "truncated_input";
  public static final String DUPLICATE_REQUEST_ID = "duplicate_request_id";
}
