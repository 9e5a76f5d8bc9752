package io.smetric.audit.characterize;

/**
 * The reuse aggregate table: token and block sums by (kind, source, key), where kind is minute,
 * turn, interval (microseconds) or a data-quality counter. The segment plan ({@link SegmentJob},
 * {@link ReuseSums}) writes it and {@link Characterization} reads it; the block-pass plan it
 * replaced (test scope, kept to check the segment plan against) writes the same table.
 */
public final class ReuseAggregates {
  private ReuseAggregates() {}

  /** The Spark job group of the block-reuse jobs. */
  public static final String JOB_GROUP = "smetric-characterize-reuse";

  /** Table columns. */
  public static final String KIND = "kind";
  public static final String SRC = "src";
  public static final String KEY = "key";
  public static final String TOKENS = "tokens";
  public static final String BLOCKS = "blocks";

  public static final int KIND_MINUTE = 1;
  public static final int KIND_TURN = 2;
  public static final int KIND_INTERVAL = 3;
  /** Data-quality counters: key {@link #Q_WITH_BLOCKS}, {@link #Q_MISMATCH}, {@link #Q_LONGER}; tokens = count. */
  public static final int KIND_QUALITY = 4;
  public static final int Q_WITH_BLOCKS = 0;
  public static final int Q_MISMATCH = 1;
  public static final int Q_LONGER = 2;
  /** Source slot of minute/turn rows holding all blocks the requests use (hit or not). */
  public static final int SRC_ALL_BLOCKS = 3;
}
