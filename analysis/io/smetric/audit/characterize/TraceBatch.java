package io.smetric.audit.characterize;

import io.smetric.audit.contract.Canonical;
import java.nio.charset.StandardCharsets;

/**
 * Consecutive canonical requests, in trace order, as plain columns: what the segment passes and
 * the request-level statistics read. Block ids are not copied into one array per request: row i's
 * ids are {@code ids[i][idOff[i] .. idOff[i] + idLen[i])}, usually a slice of one decoded Parquet
 * page shared by many rows ({@code idLen[i] < 0}: the row has no block list).
 */
final class TraceBatch {
  /** Stands for a null int column value. */
  static final int NULL_INT = Integer.MIN_VALUE;

  final int n;
  final double[] arrival;
  final long[] seq;
  /** turn, or {@link #NULL_INT}. */
  final int[] turn;
  final int[] input;
  final int[] output;
  /** block_size, or {@link #NULL_INT}. */
  final int[] blockSize;
  final String[] requestId;
  final String[] sessionId;
  final String[] parentId;
  final String[] trigger;
  final long[][] ids;
  final int[] idOff;
  final int[] idLen;

  TraceBatch(int n) {
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

  /** Blocks the analyses use: the first min(count, ceil(input / B)) (trace-model section 1); 0 without blocks. */
  int usedBlocks(int i) {
    int b = blockSize[i];
    if (idLen[i] < 0 || b == NULL_INT || b <= 0) return 0;
    return Math.min(idLen[i], expectedBlocks(input[i], b));
  }

  /**
   * {@link Canonical#expectedBlocks}, restated: calling it would load {@code Canonical}, whose
   * Spark schema constant pulls in Spark's type system (a few hundred classes) on the path that
   * runs without Spark.
   */
  static int expectedBlocks(int inputTokens, int blockSize) {
    return (int) ((inputTokens + (long) blockSize - 1) / blockSize);
  }

  /** Whether the request carries blocks at all (a block list and a positive block size). */
  boolean hasBlocks(int i) {
    return idLen[i] >= 0 && blockSize[i] != NULL_INT && blockSize[i] > 0;
  }

  long id(int i, int k) {
    return ids[i][idOff[i] + k];
  }

  /** The 64-bit session key of the block passes (a request without a session is a session of its own). */
  long sessionKey(int i) {
    return sessionId[i] == null ? Hashing.lonelyRequest(requestId[i].getBytes(StandardCharsets.UTF_8))
        : Hashing.session(sessionId[i].getBytes(StandardCharsets.UTF_8));
  }

  /** A root session's turn-0 request: turn 0, no parent, not a sub-agent (forks never make templates). */
  boolean rootTurn0(int i) {
    return sessionId[i] != null && turn[i] == 0 && parentId[i] == null
        && !Canonical.TRIGGER_SUBAGENT.equals(trigger[i]);
  }
}
