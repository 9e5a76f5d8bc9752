package io.smetric.audit.generate;

import java.util.Locale;

/**
 * The formats the generator writes: one JSON object per line, in arrival order. Field lists are
 * documented in docs/generator.md and are what the ingest readers expect (ingest's {@code
 * TraceFormat} is the other side: the formats it reads).
 */
public enum OutputFormat {
  /** All canonical fields; hash_ids are source ids (ingest chains them). */
  SMETRIC("smetric", 16),
  /** The public Bailian (Alibaba Cloud Model Studio) trace layout: chat_id/parent_chat_id, 1-based turn. */
  BAILIAN("bailian", 16),
  /** The public Mooncake trace layout: ms timestamps, no session fields. */
  MOONCAKE("mooncake", 512);

  private final String cliName;
  private final int defaultBlockSize;

  OutputFormat(String cliName, int defaultBlockSize) {
    this.cliName = cliName;
    this.defaultBlockSize = defaultBlockSize;
  }

  public String cliName() {
    return cliName;
  }

  public int defaultBlockSize() {
    return defaultBlockSize;
  }

  public static OutputFormat byName(String name) {
    for (OutputFormat f : values()) if (f.cliName.equals(name.toLowerCase(Locale.ROOT))) return f;
    return null;
  }
}
