package io.smetric.audit.replay.trace;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.parquet.CanonicalParquet;
import io.smetric.audit.contract.parquet.TraceBatch;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.functions;

/**
 * Reads a canonical Parquet dataset into a {@link ReplayTrace}. The replay is one sequential
 * simulation, so the trace must end up in one JVM; rows are streamed partition by partition in
 * replay order ({@code toLocalIterator}) and folded into segments on the fly, so the driver holds
 * the compact trace, never the rows. The rows leave the executors as compact records built from
 * Spark's internal rows, so the block arrays are copied in bulk, never boxed one id at a time.
 */
public final class TraceLoader {
  private TraceLoader() {}

  /**
   * The canonical dataset of {@code dir}: an ingest output folder or a {@code replay --record-trace}
   * folder (its {@code trace/}), or the dataset itself.
   */
  public static String datasetPath(SparkSession spark, String dir) {
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir);
      org.apache.hadoop.fs.FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      org.apache.hadoop.fs.Path trace = new org.apache.hadoop.fs.Path(p, AuditLayout.TRACE_DIR);
      boolean summary = fs.exists(new org.apache.hadoop.fs.Path(p, AuditLayout.INGEST_SUMMARY_FILE))
          || fs.exists(new org.apache.hadoop.fs.Path(p, AuditLayout.RECORDING_FILE));
      if (summary && fs.isDirectory(trace)) return trace.toString();
      return dir;
    } catch (java.io.IOException e) {
      throw new BadInputException(dir, "cannot open: " + e.getMessage());
    }
  }

  public static ReplayTrace load(SparkSession spark, String dirOrIngestOutput, boolean keepBlocks) {
    String dir = datasetPath(spark, dirOrIngestOutput);
    // the direct read first: it checks the canonical schema itself, and needs no Spark job
    ReplayTraceBuilder direct = readInFileOrder(spark, dir, keepBlocks, null);
    if (direct != null) return direct.build();
    return loadWithSpark(spark, dir, keepBlocks);
  }

  /**
   * The recorded-routing columns (trace-model v1.3) per request in replay order, read in the same
   * pass as the trace: {@code servedInstance}/{@code outcome} null and {@code ttft}/{@code e2e} NaN
   * where not recorded.
   */
  public record Recorded(String[] servedInstance, double[] ttft, double[] e2e, String[] outcome) {}

  /** A trace with its recorded columns; {@code recorded} is null when the direct read did not apply (read them apart). */
  public record WithRecorded(ReplayTrace trace, Recorded recorded) {}

  /**
   * {@link #load}, and on the direct path (the dataset in replay order with the full canonical
   * schema: what ingest and {@code replay --record-trace} write) the recorded columns in the same
   * pass, so the trace is read once (validate TRACE).
   */
  public static WithRecorded loadWithRecorded(SparkSession spark, String dirOrIngestOutput, boolean keepBlocks) {
    String dir = datasetPath(spark, dirOrIngestOutput);
    RecordedColumns rc = new RecordedColumns();
    ReplayTraceBuilder direct = readInFileOrder(spark, dir, keepBlocks, rc);
    if (direct == null) return new WithRecorded(loadWithSpark(spark, dir, keepBlocks), null);
    ReplayTrace t = direct.build();
    return new WithRecorded(t, rc.aligned(t));
  }

  /** The recorded columns gathered batch by batch in read order, with the ids to check the alignment. */
  static final class RecordedColumns {
    /** Per batch: ids, instance, TTFT, E2E, outcome (not the batch itself: it holds the decoded block-id pages). */
    private final java.util.List<Object[]> batches = new java.util.ArrayList<>();

    void add(TraceBatch b) {
      batches.add(new Object[] {b.requestId, b.servedInstance, b.ttftS, b.e2eS, b.outcome});
    }

    /** Per request of {@code t} (built from these rows in this order); null if the rows do not line up. */
    Recorded aligned(ReplayTrace t) {
      String[] inst = new String[t.n];
      double[] ttft = new double[t.n];
      double[] e2e = new double[t.n];
      String[] outcome = new String[t.n];
      int r = 0;
      for (Object[] b : batches) {
        String[] ids = (String[]) b[0];
        for (int i = 0; i < ids.length; i++, r++) {
          if (r >= t.n || !ids[i].equals(t.requestIds[r])) return null;
          inst[r] = ((String[]) b[1])[i];
          ttft[r] = ((double[]) b[2])[i];
          e2e[r] = ((double[]) b[3])[i];
          outcome[r] = ((String[]) b[4])[i];
        }
      }
      return r == t.n ? new Recorded(inst, ttft, e2e, outcome) : null;
    }
  }

  private static ReplayTrace loadWithSpark(SparkSession spark, String dir, boolean keepBlocks) {
    Dataset<Row> df;
    try {
      df = spark.read().parquet(dir);
    } catch (Exception e) {
      throw new BadInputException(dir, "cannot read a canonical Parquet dataset: " + firstLine(e));
    }
    for (String c : new String[] {Canonical.REQUEST_ID, Canonical.ARRIVAL_S, Canonical.INPUT_TOKENS,
        Canonical.OUTPUT_TOKENS, Canonical.SEQ}) {
      if (!List.of(df.columns()).contains(c)) throw new BadInputException(dir, -1, c, "column missing (not a canonical dataset?)");
    }
    spark.sparkContext().setJobGroup("smetric-replay-load", "replay: load canonical trace " + dir, false);
    ReplayTraceBuilder inOrder = streamInFileOrder(spark, df, dir, keepBlocks);
    if (inOrder != null) {
      spark.sparkContext().clearJobGroup();
      return inOrder.build();
    }
    // The driver receives one sorted partition at a time, so partitions are sized from the input
    // (~PARTITION_BYTES of Parquet each, block ids dominate) instead of spark.sql.shuffle.partitions:
    // with 4 partitions a 2 GB trace put ~0.5 GB of rows at once in the driver.
    int parts = Math.max(spark.sessionState().conf().numShufflePartitions(),
        (int) Math.min(100_000, inputBytes(spark, df) / PARTITION_BYTES + 1));
    Dataset<Row> sorted = columns(df)
        .repartitionByRange(parts, functions.col(Canonical.ARRIVAL_S), functions.col(Canonical.SEQ))
        .sortWithinPartitions(functions.col(Canonical.ARRIVAL_S), functions.col(Canonical.SEQ));
    ReplayTraceBuilder b = new ReplayTraceBuilder(dir, keepBlocks);
    Iterator<Rec> it = records(sorted);
    while (it.hasNext()) add(b, it.next());
    spark.sparkContext().clearJobGroup();
    return b.build();
  }

  /**
   * The fastest path, for a dataset with the full canonical schema already in replay order, as
   * ingest writes it: its Parquet files read in the driver, in name order, straight from their
   * column pages by the contract's {@link CanonicalParquet} (the characterization's reader), block
   * ids folded into the segment tree as slices of the decoded pages. No Spark job, no row objects,
   * no serialization: on the 200k agent trace (2.1 GB of Parquet) the Spark paths below spent
   * 67 s in nine one-task jobs. Returns null when the dataset lacks a canonical column (the Spark
   * paths fill optional ones with nulls) or at the first row out of (arrival_s, seq) order.
   */
  static ReplayTraceBuilder readInFileOrder(SparkSession spark, String dir, boolean keepBlocks) {
    return readInFileOrder(spark, dir, keepBlocks, null);
  }

  /** {@code recorded}: when not null, also gathers the recorded-routing columns of every batch. */
  static ReplayTraceBuilder readInFileOrder(SparkSession spark, String dir, boolean keepBlocks, RecordedColumns recorded) {
    CanonicalParquet cp;
    try {
      cp = CanonicalParquet.open(dir, spark.sparkContext().hadoopConfiguration());
    } catch (BadInputException e) {
      return null; // not the full canonical schema: the Spark paths read what there is, or say what is wrong
    }
    ReplayTraceBuilder b = new ReplayTraceBuilder(dir, keepBlocks);
    double lastArrival = Double.NEGATIVE_INFINITY;
    long lastSeq = Long.MIN_VALUE;
    java.util.Iterator<TraceBatch> it = recorded != null ? cp.batchesWithRecorded(BATCH_ROWS) : cp.batches(BATCH_ROWS);
    while (it.hasNext()) {
      TraceBatch t = it.next();
      if (recorded != null) recorded.add(t);
      for (int i = 0; i < t.n; i++) {
        double a = t.arrival[i];
        long q = t.seq[i];
        if (a < lastArrival || (a == lastArrival && q <= lastSeq)) return null;
        lastArrival = a;
        lastSeq = q;
        boolean blocks = t.idLen[i] >= 0;
        b.add(t.requestId[i], t.sessionId[i], t.parentId[i], t.turn[i] == TraceBatch.NULL_INT ? null : t.turn[i], a,
            t.input[i], t.output[i], t.blockSize[i] == TraceBatch.NULL_INT ? null : t.blockSize[i],
            blocks ? t.ids[i] : null, blocks ? t.idOff[i] : 0, blocks ? t.idLen[i] : 0, q);
      }
    }
    return b;
  }

  /** Rows per batch of the direct read (the block ids stay in the decoded pages). */
  static final int BATCH_ROWS = 4096;

  /**
   * The fast path for a dataset already in replay order, as ingest writes it (parts named in
   * (arrival_s, seq) order): its files are streamed one after another in name order, without the
   * range sort's shuffle of every block array. Returns null at the first row that is not after the
   * previous one in (arrival_s, seq) order (then the caller sorts; the rows read so far are
   * dropped), and for a dataset of one file with several row groups it still holds: a file's
   * splits are read in offset order. Null at once for more than MAX_IN_ORDER_FILES files.
   */
  static ReplayTraceBuilder streamInFileOrder(SparkSession spark, Dataset<Row> df, String dir, boolean keepBlocks) {
    String[] files = df.inputFiles().clone();
    if (files.length > MAX_IN_ORDER_FILES) return null; // one Spark job per file would cost more than the sort
    java.util.Arrays.sort(files);
    ReplayTraceBuilder b = new ReplayTraceBuilder(dir, keepBlocks);
    double lastArrival = Double.NEGATIVE_INFINITY;
    long lastSeq = Long.MIN_VALUE;
    for (String f : files) {
      Iterator<Rec> it = records(columns(spark.read().schema(df.schema()).parquet(f)));
      while (it.hasNext()) {
        Rec r = it.next();
        if (r.arrival() < lastArrival || (r.arrival() == lastArrival && r.seq() <= lastSeq)) return null;
        lastArrival = r.arrival();
        lastSeq = r.seq();
        add(b, r);
      }
    }
    return b;
  }

  private static Dataset<Row> columns(Dataset<Row> df) {
    return df.select(
        col(df, Canonical.REQUEST_ID), col(df, Canonical.SESSION_ID), col(df, Canonical.TURN),
        col(df, Canonical.PARENT_ID),
        col(df, Canonical.ARRIVAL_S), col(df, Canonical.INPUT_TOKENS), col(df, Canonical.OUTPUT_TOKENS),
        col(df, Canonical.BLOCK_SIZE), col(df, Canonical.BLOCKS), col(df, Canonical.SEQ));
  }

  /**
   * Executors turn each row into a compact record straight from Spark's internal rows (the block
   * array is one bulk copy, no boxing); the driver receives them partition by partition, in order.
   */
  private static Iterator<Rec> records(Dataset<Row> ordered) {
    JavaRDD<Rec> recs = ordered.queryExecution().toRdd().toJavaRDD().map(TraceLoader::toRec);
    return recs.toLocalIterator();
  }

  private static void add(ReplayTraceBuilder b, Rec r) {
    b.add(r.id(), r.session(), r.parent(), r.turn(), r.arrival(), r.input(), r.output(), r.blockSize(), r.blocks(),
        r.blocks() == null ? 0 : r.blocks().length, r.seq());
  }

  /** Datasets of more files take the sort: the in-order path runs one job per file. */
  static final int MAX_IN_ORDER_FILES = 512;

  /** Parquet bytes per sorted partition streamed to the driver. */
  static final long PARTITION_BYTES = 32L << 20;

  private static long inputBytes(SparkSession spark, Dataset<Row> df) {
    long total = 0;
    try {
      for (String f : df.inputFiles()) {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(f);
        total += p.getFileSystem(spark.sparkContext().hadoopConfiguration()).getFileStatus(p).getLen();
      }
    } catch (java.io.IOException e) {
      return 0; // sizing only
    }
    return total;
  }

  private static Rec toRec(InternalRow ir) {
    return new Rec(ir.getUTF8String(0).toString(), ir.isNullAt(1) ? null : ir.getUTF8String(1).toString(),
        ir.isNullAt(2) ? null : ir.getInt(2), ir.isNullAt(3) ? null : ir.getUTF8String(3).toString(),
        ir.getDouble(4), ir.getInt(5), ir.getInt(6),
        ir.isNullAt(7) ? null : ir.getInt(7), ir.isNullAt(8) ? null : ir.getArray(8).toLongArray(), ir.getLong(9));
  }

  /** One canonical row as the replay needs it. */
  record Rec(String id, String session, Integer turn, String parent, double arrival, int input, int output, Integer blockSize,
      long[] blocks, long seq) implements Serializable {}

  private static org.apache.spark.sql.Column col(Dataset<Row> df, String name) {
    return List.of(df.columns()).contains(name) ? functions.col(name) : functions.lit(null).as(name);
  }

  private static String firstLine(Exception e) {
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
  }
}
