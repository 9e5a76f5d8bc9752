package io.smetric.audit.ingest;

import java.util.Locale;

/**
 * The trace formats ingest reads, one parser class each (Caffeine-simulator style: a format is an
 * enum constant bound to its reader's constructor; the JSONL ones share {@link JsonRecordParser}'s
 * streaming reading). Adding a text format = one parser class and one constant here.
 * {@code PARQUET} is read by Spark itself.
 */
public enum TraceFormat {
  SMETRIC("smetric", SmetricRecordParser::new),
  BAILIAN("bailian", BailianRecordParser::new),
  MOONCAKE("mooncake", MooncakeRecordParser::new),
  CSV("csv", CsvRecordParser::new),
  PARQUET("parquet", null);

  interface ParserFactory extends java.io.Serializable {
    RecordParser create(ParseContext context);
  }

  /**
   * What a parser needs besides the line.
   *
   * @param blockSizeOverride the user's --block-size, or null for the record's or format's own
   * @param idPrefix prefix of line-number ids (formats without ids): "" for a single input file
   * @param originUs wall-clock origin (epoch microseconds) of formats with absolute timestamps
   */
  record ParseContext(Integer blockSizeOverride, String idPrefix, long originUs) implements java.io.Serializable {}

  private final String id;
  private final ParserFactory factory;

  TraceFormat(String id, ParserFactory factory) {
    this.id = id;
    this.factory = factory;
  }

  public String id() {
    return id;
  }

  RecordParser parser(ParseContext context) {
    return factory.create(context);
  }

  /** Whether the format carries session fields (given), derives them (Bailian) or has none. */
  public String sessions() {
    return switch (this) {
      case SMETRIC, PARQUET, CSV -> "given";
      case BAILIAN -> "derived";
      case MOONCAKE -> "absent";
    };
  }

  /** Parses a --format value; "auto" returns null. */
  public static TraceFormat parse(String s) {
    if (s == null || s.equalsIgnoreCase("auto")) return null;
    for (TraceFormat f : values()) if (f.id.equalsIgnoreCase(s)) return f;
    throw new io.smetric.audit.common.UsageException(
        "unknown --format '" + s + "' (expected auto, smetric, bailian, mooncake, parquet or csv)");
  }

  @Override
  public String toString() {
    return id.toLowerCase(Locale.ROOT);
  }
}
