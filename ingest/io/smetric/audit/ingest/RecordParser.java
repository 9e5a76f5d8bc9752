package io.smetric.audit.ingest;

/** Parses one line of one text format into a {@link Staged} record or a quarantine reason. */
interface RecordParser {
  /**
   * @param line bytes of the line (without the newline)
   * @param len number of valid bytes
   * @param index 0-based index of this record among the file's data lines (ids for id-less formats)
   */
  void parse(byte[] line, int len, long index, Staged out);

  /** True if the first data line of the file is a header to be read by {@link #header}. */
  default boolean hasHeader() {
    return false;
  }

  /** Reads the header line; returns an error text if it is not usable, else null. */
  default String header(String line) {
    return null;
  }
}
