package io.smetric.audit.model;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * One canonical request in memory (the generator, the block-hasher and the replay use it; Spark
 * stages use {@link Canonical#SCHEMA} rows). {@code turn} is null where a format has no sessions;
 * {@code blocks} and {@code blockSize} are null where it has no hashes (Azure CSV).
 */
public record TraceRecord(
    String requestId,
    String sessionId,
    String parentId,
    Integer turn,
    String trigger,
    double arrivalS,
    int inputTokens,
    int outputTokens,
    Integer blockSize,
    long[] blocks,
    String requestType,
    long seq) {

  public Row toRow() {
    return RowFactory.create(
        requestId, sessionId, parentId, turn, trigger, arrivalS, inputTokens, outputTokens,
        blockSize, blocks, requestType, seq);
  }

  /** Reads a row of {@link Canonical#SCHEMA} (any column order). */
  public static TraceRecord fromRow(Row r) {
    Object b = r.get(r.fieldIndex(Canonical.BLOCKS));
    long[] blocks = null;
    if (b != null) {
      scala.collection.Seq<?> s = (scala.collection.Seq<?>) b;
      blocks = new long[s.size()];
      scala.collection.Iterator<?> it = s.iterator();
      for (int i = 0; it.hasNext(); i++) blocks[i] = (Long) it.next();
    }
    return new TraceRecord(
        r.getString(r.fieldIndex(Canonical.REQUEST_ID)),
        (String) r.get(r.fieldIndex(Canonical.SESSION_ID)),
        (String) r.get(r.fieldIndex(Canonical.PARENT_ID)),
        (Integer) r.get(r.fieldIndex(Canonical.TURN)),
        r.getString(r.fieldIndex(Canonical.TRIGGER)),
        r.getDouble(r.fieldIndex(Canonical.ARRIVAL_S)),
        r.getInt(r.fieldIndex(Canonical.INPUT_TOKENS)),
        r.getInt(r.fieldIndex(Canonical.OUTPUT_TOKENS)),
        (Integer) r.get(r.fieldIndex(Canonical.BLOCK_SIZE)),
        blocks,
        (String) r.get(r.fieldIndex(Canonical.REQUEST_TYPE)),
        r.getLong(r.fieldIndex(Canonical.SEQ)));
  }
}
