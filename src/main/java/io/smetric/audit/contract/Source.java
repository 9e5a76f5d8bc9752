package io.smetric.audit.contract;

/** Where a hit block's reuse comes from (trace-model.md section 3); first match wins in this order. */
public enum Source {
  INTRA_SESSION("intra_session"),
  SYSTEM_PROMPT("system_prompt"),
  INTER_SESSION("inter_session");

  /** The name used in tables and JSON. */
  public final String label;

  Source(String label) {
    this.label = label;
  }

  public static final String ALL = "all";
}
