package io.smetric.audit.ingest;

import it.unimi.dsi.fastutil.longs.LongArrayList;

/**
 * One parsed line, reused across lines of a file: either a canonical record (reason == null) or a
 * quarantine reason naming the field. Parsers fill it; {@link FileScanner} turns it into a row.
 */
final class Staged {
  String requestId;
  String sessionId;
  String parentId;
  Integer turn;
  String trigger;
  double arrivalS;
  /** Absolute timestamp in microseconds for formats with wall-clock times (Azure CSV), else null. */
  Long tsAbsUs;
  long inputTokens;
  long outputTokens;
  Integer blockSize;
  final LongArrayList blocks = new LongArrayList();
  boolean hasBlocks;
  String requestType;
  /** Global input order, {@code Canonical.seq(fileIndex, line)}. */
  long seqValue;

  String reason;
  String field;
  String detail;

  void reset() {
    requestId = null;
    sessionId = null;
    parentId = null;
    turn = null;
    trigger = null;
    arrivalS = Double.NaN;
    tsAbsUs = null;
    inputTokens = -1;
    outputTokens = -1;
    blockSize = null;
    blocks.clear();
    hasBlocks = false;
    requestType = null;
    reason = null;
    field = null;
    detail = null;
  }

  /** Marks the record bad; the first reason found wins. Returns false for use in parsers. */
  boolean fail(String reason, String field, String detail) {
    if (this.reason == null) {
      this.reason = reason;
      this.field = field;
      this.detail = detail;
    }
    return false;
  }

  boolean ok() {
    return reason == null;
  }
}
