package io.smetric.audit.contract.parquet;

import io.smetric.audit.contract.Canonical;

/**
 * Consecutive canonical requests, in trace order, as plain columns: what the segment passes and
 * the request-level statistics read. Block ids are not copied into one array per request: row i's
 * ids are {@code ids[i][idOff[i] .. idOff[i] + idLen[i])}, usually a slice of one decoded Parquet
 * page shared by many rows ({@code idLen[i] < 0}: the row has no block list).
 */
public final class TraceBatch {
  /** Stands for a null int column value. */
  public static final int NULL_INT = Integer.MIN_VALUE;

  public final int n;
  public final double[] arrival;
  public final long[] seq;
  /** turn, or {@link #NULL_INT}. */
  public final int[] turn;
  public final int[] input;
  public final int[] output;
  /** block_size, or {@link #NULL_INT}. */
  public final int[] blockSize;
  public final String[] requestId;
  public final String[] sessionId;
  public final String[] parentId;
  public final String[] trigger;
  public final long[][] ids;
  public final int[] idOff;
  public final int[] idLen;
  /**
   * The recorded routing of trace-model v1.3 (only from {@link CanonicalParquet#batchesWithRecorded};
   * else null): the served instance and outcome (null values where not recorded), measured TTFT and
   * end-to-end seconds (NaN where not recorded).
   */
  public String[] servedInstance;
  public double[] ttftS;
  public double[] e2eS;
  public String[] outcome;

  public TraceBatch(int n) {
    this.n = n;
    arrival = new double[n];
    seq = new long[n];
    turn = new int[n];
    input = new int[n];
    output = new int[n];
    blockSize = new int[n];
    requestId = new String[n];
    sessionId = new String[n];
    parentId = new String[n];
    trigger = new String[n];
    ids = new long[n][];
    idOff = new int[n];
    idLen = new int[n];
  }

  void recorded(String[] servedInstance, double[] ttftS, double[] e2eS, String[] outcome) {
    this.servedInstance = servedInstance;
    this.ttftS = ttftS;
    this.e2eS = e2eS;
    this.outcome = outcome;
  }

  /** Blocks the analyses use: the first min(count, ceil(input / B)) (trace-model section 1); 0 without blocks. */
  public int usedBlocks(int i) {
    int b = blockSize[i];
    if (idLen[i] < 0 || b == NULL_INT || b <= 0) return 0;
    return Math.min(idLen[i], expectedBlocks(input[i], b));
  }

  /**
   * {@link Canonical#expectedBlocks}, restated: calling it would load {@code Canonical}, whose
   * Spark schema constant pulls in Spark's type system (a few hundred classes) on the path that
   * runs without Spark.
   */
  public static int expectedBlocks(int inputTokens, int blockSize) {
    return (int) ((inputTokens + (long) blockSize - 1) / blockSize);
  }

  /** Whether the request carries blocks at all (a block list and a positive block size). */
  public boolean hasBlocks(int i) {
    return idLen[i] >= 0 && blockSize[i] != NULL_INT && blockSize[i] > 0;
  }

  public long id(int i, int k) {
    return ids[i][idOff[i] + k];
  }
}
