package io.smetric.audit.characterize;

import static io.smetric.audit.characterize.ReuseAggregates.BLOCKS;
import static io.smetric.audit.characterize.ReuseAggregates.JOB_GROUP;
import static io.smetric.audit.characterize.ReuseAggregates.KEY;
import static io.smetric.audit.characterize.ReuseAggregates.KIND;
import static io.smetric.audit.characterize.ReuseAggregates.KIND_INTERVAL;
import static io.smetric.audit.characterize.ReuseAggregates.KIND_MINUTE;
import static io.smetric.audit.characterize.ReuseAggregates.KIND_QUALITY;
import static io.smetric.audit.characterize.ReuseAggregates.KIND_TURN;
import static io.smetric.audit.characterize.ReuseAggregates.Q_LONGER;
import static io.smetric.audit.characterize.ReuseAggregates.Q_MISMATCH;
import static io.smetric.audit.characterize.ReuseAggregates.Q_WITH_BLOCKS;
import static io.smetric.audit.characterize.ReuseAggregates.SRC;
import static io.smetric.audit.characterize.ReuseAggregates.SRC_ALL_BLOCKS;
import static io.smetric.audit.characterize.ReuseAggregates.TOKENS;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.xxhash64;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.Source;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.CollectionAccumulator;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple2;

/**
 * Ideal prefix reuse, its sources and its intervals (trace-model.md sections 2-4) in four passes
 * whose shuffles carry distinct (fragment, block) pairs and runs, never every block occurrence.
 *
 * <p>A <em>fragment</em> is the part of one session inside one input partition. A block whose
 * occurrences all lie in one fragment (most history blocks of an agent session) is settled inside
 * that partition: its first occurrence is the global first (a miss) and every later one is an
 * intra-session hit whose interval is the gap to the previous occurrence. Only blocks seen in two
 * or more fragments (system prompts, fork-shared context, sessions split across partitions) need
 * a cross-partition timeline, and those are compressed: consecutive blocks of a request with the
 * same global occurrence count have the same set of requests (chained ids: an extension's set is a
 * subset of its prefix's), hence the same hits, sources and intervals, so one record per
 * (request, run) stands for the whole run.
 *
 * <ol start="0">
 *   <li>traces with sessions: {@link SessionShuffle} moves each request to its session's partition
 *       as a delta against the previous request of its session in the same input partition, so
 *       that every session is one fragment;
 *   <li>per partition: occurrence count, fragment count and root turn-0 sessions per block
 *       (map side; shuffle = distinct (partition, block) pairs, packed by {@link BlockTable});
 *   <li>per block bucket: global count, multi-fragment flag, template flag; sent back only for
 *       multi-fragment blocks to the partitions that hold them;
 *   <li>per partition again (zipped with that info): local hits of single-fragment blocks folded
 *       into small aggregates, one run record per (request, run of multi-fragment blocks);
 *   <li>per run key, in (arrival, seq) order: hits, sources and intervals of the runs.
 * </ol>
 * Output: one small table of token and block sums by (kind, source, key) where kind is minute,
 * turn or interval (microseconds).
 */
public final class ReuseJob {
  private static final int KIND_RUN = 0;

  /**
   * This plan in the Spark engine's place of the segment plan ({@link Characterization#reusePlan}),
   * with the session shuffle when the trace has sessions.
   */
  static final Characterization.ReusePlan PLAN = (spark, input, files, k, hasSessions) -> {
    Result r = new ReuseJob(spark, input.trace()).templateMinSessions(k).sessionShuffle(hasSessions).execute();
    return new SegmentJob.Result(r.aggregates(), counters(r));
  };

  /** Runs (kind 0) and aggregates (kinds 1-3) share one schema so that one pass emits both. */
  private static final StructType R3 = new StructType()
      .add(KIND, DataTypes.IntegerType, false).add("c", DataTypes.LongType, false)
      .add("arrival", DataTypes.DoubleType, false).add("seq", DataTypes.LongType, false)
      .add("sess", DataTypes.LongType, false).add(SRC, DataTypes.IntegerType, false)
      .add(KEY, DataTypes.LongType, false).add(TOKENS, DataTypes.LongType, false)
      .add(BLOCKS, DataTypes.LongType, false).add("minute", DataTypes.LongType, false)
      .add("turn", DataTypes.IntegerType, true).add("tmpl", DataTypes.BooleanType, false);

  private final SparkSession spark;
  private final Dataset<Row> trace;
  private int templateMinSessions = 3;
  private boolean sessionShuffle = true;

  public ReuseJob(SparkSession spark, Dataset<Row> trace) {
    this.spark = spark;
    this.trace = trace;
  }

  /**
   * Whether pass 0 ({@link SessionShuffle}) first gathers each session on one partition (default on;
   * pointless for a trace without sessions, where every request is its own session and the input's
   * time ranges are the better fragments).
   */
  public ReuseJob sessionShuffle(boolean on) {
    this.sessionShuffle = on;
    return this;
  }

  public ReuseJob templateMinSessions(int k) {
    if (k < 1) throw new IllegalArgumentException("template_min_sessions must be >= 1, got " + k);
    this.templateMinSessions = k;
    return this;
  }

  /** Aggregates (kind, src, key, tokens, blocks) persisted; the caller unpersists. Plus pass counters. */
  public record Result(Dataset<Row> aggregates, long pairRecords, long multiFragmentBlocks, long templateBlocks,
      long runRecords, long distinctBlocks, long sessionShuffleIds) {}

  public Result execute() {
    spark.sparkContext().setJobGroup(JOB_GROUP, "ideal prefix reuse, sources and intervals", false);
    try {
      return run();
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  private Result run() {
    // Input order is kept: ingest writes (arrival_s, seq) order, and pass 1 records which
    // partitions are not sorted so that pass 3 sorts only those (in memory, one partition).
    // One RDD object for passes 1 and 3: the same partitions, recomputed deterministically.
    JavaRDD<InternalRow> input = selectInput(trace);
    LongAccumulator shipped = spark.sparkContext().longAccumulator("reuse.pass0ShippedIds");
    if (sessionShuffle) {
      int parts = Math.max(input.getNumPartitions(), spark.sparkContext().defaultParallelism());
      input = SessionShuffle.bySession(input, parts, shipped);
    }
    int nParts = input.getNumPartitions();

    LongAccumulator runs = spark.sparkContext().longAccumulator("reuse.runRecords");
    CollectionAccumulator<Integer> unsorted = spark.sparkContext().collectionAccumulator("reuse.unsortedPartitions");

    // Pass 1: per (partition, block) counts, map side, packed per block bucket.
    // Pass 2: per bucket, sums in primitive maps; (block, count, template) of multi-fragment blocks
    // go back to the partitions that hold them (BlockTable).
    LongAccumulator distinctAcc = spark.sparkContext().longAccumulator("reuse.distinctBlocks");
    LongAccumulator pairsAcc = spark.sparkContext().longAccumulator("reuse.partitionBlockPairs");
    LongAccumulator multiAcc = spark.sparkContext().longAccumulator("reuse.multiFragmentBlocks");
    LongAccumulator tmplAcc = spark.sparkContext().longAccumulator("reuse.templateBlocks");
    final int k = templateMinSessions;
    final int buckets = nParts;
    final int parts = nParts;
    JavaRDD<byte[]> info = input.mapPartitionsWithIndex((pid, it) -> pass1(pid, it, unsorted, buckets), true)
        .mapToPair(x -> x)
        .partitionBy(new IdentityPartitioner(buckets))
        .values()
        .mapPartitions(it -> BlockTable.aggregate(it, parts, k, distinctAcc, pairsAcc, multiAcc, tmplAcc))
        .mapToPair(x -> x)
        .partitionBy(new IdentityPartitioner(nParts))
        .values();
    // pass 3 needs the unsorted partitions of pass 1: run passes 1 and 2 now (their output is
    // shuffle files, read once by pass 3)
    info.count();
    Set<Integer> unsortedPids = new HashSet<>(unsorted.value());

    // Pass 3: local hits + run records.
    JavaRDD<Row> r3 = input.zipPartitions(info, (in, inf) -> pass3(in, inf, runs, unsortedPids));
    // Pass 4: runs by key in time order. Pass 3's aggregate rows ride along in the same shuffle,
    // spread by a hash of their group key and sorted after the runs (kind > 0), and are folded by
    // pass 4 into its own sums: pass 3 is read once (no persisted copy read by two branches, whose
    // stages AQE would submit together, computing pass 3 twice), and one job per shuffle.
    Column spread = when(col(KIND).equalTo(KIND_RUN), col("c")).otherwise(xxhash64(col(KIND), col(SRC), col(KEY)));
    Dataset<Row> folded = spark.createDataFrame(r3, R3).withColumn("part", spread)
        .repartition(col("part")).sortWithinPartitions(KIND, "c", "arrival", "seq").drop("part")
        .mapPartitions((org.apache.spark.api.java.function.MapPartitionsFunction<Row, Row>) ReuseJob::pass4,
            Encoders.row(R3));
    Dataset<Row> aggs = folded.groupBy(KIND, SRC, KEY).agg(sum(TOKENS).as(TOKENS), sum(BLOCKS).as(BLOCKS))
        .persist(StorageLevel.MEMORY_AND_DISK());
    aggs.count();
    return new Result(aggs, pairsAcc.value(), multiAcc.value(), tmplAcc.value(), runs.value(), distinctAcc.value(),
        sessionShuffle ? shipped.value() : -1);
  }

  private static ObjectNode counters(Result reuse) {
    ObjectNode passes = Json.object();
    if (reuse.sessionShuffleIds() >= 0) {
      passes.put("session_shuffle", "requests moved to their session's partition, as deltas");
      passes.put("session_shuffle_ids", reuse.sessionShuffleIds());
    } else {
      passes.put("session_shuffle", "not run: trace has no sessions (input partitions are the fragments)");
      passes.putNull("session_shuffle_ids");
    }
    passes.put("distinct_blocks", reuse.distinctBlocks());
    passes.put("partition_block_pairs", reuse.pairRecords());
    passes.put("multi_fragment_blocks", reuse.multiFragmentBlocks());
    passes.put("template_blocks", reuse.templateBlocks());
    passes.put("run_records", reuse.runRecords());
    return passes;
  }


  /** The columns the passes read, in the layout of the I_* indices, as Spark's internal rows. */
  static JavaRDD<InternalRow> selectInput(Dataset<Row> trace) {
    Dataset<Row> selected = trace.select(
        col(Canonical.SESSION_ID), col(Canonical.REQUEST_ID), col(Canonical.TURN), col(Canonical.PARENT_ID),
        col(Canonical.TRIGGER), col(Canonical.ARRIVAL_S), col(Canonical.INPUT_TOKENS), col(Canonical.BLOCK_SIZE),
        col(Canonical.BLOCKS), col(Canonical.SEQ));
    return selected.queryExecution().toRdd().toJavaRDD();
  }

  /** Partition id -> the same partition id, for zipping pass-2 output with pass-3 input. */
  static final class IdentityPartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int n;

    IdentityPartitioner(int n) {
      this.n = n;
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof IdentityPartitioner p && p.n == n;
    }

    @Override
    public int hashCode() {
      return n;
    }
  }

  // ---- per-request field access on the selected columns ----
  private static final int I_SESSION = 0, I_REQUEST = 1, I_TURN = 2, I_PARENT = 3, I_TRIGGER = 4, I_ARRIVAL = 5,
      I_INPUT = 6, I_BSIZE = 7, I_BLOCKS = 8, I_SEQ = 9;

  static long sessionKey(InternalRow r) {
    return r.isNullAt(I_SESSION) ? Hashing.lonelyRequest(r.getUTF8String(I_REQUEST).getBytes())
        : Hashing.session(r.getUTF8String(I_SESSION).getBytes());
  }

  /** Blocks analyses use: the first min(count, ceil(input / B)) (section 1, "Tokens of a block"). */
  static int usedBlocks(InternalRow r) {
    if (r.isNullAt(I_BLOCKS) || r.isNullAt(I_BSIZE)) return 0;
    int b = r.getInt(I_BSIZE);
    if (b <= 0) return 0;
    return Math.min(r.getArray(I_BLOCKS).numElements(), Canonical.expectedBlocks(r.getInt(I_INPUT), b));
  }

  /** A root session's turn-0 request: turn 0, no parent, not a sub-agent (forks never make templates). */
  private static boolean rootTurn0(InternalRow r) {
    return !r.isNullAt(I_SESSION) && !r.isNullAt(I_TURN) && r.getInt(I_TURN) == 0 && r.isNullAt(I_PARENT)
        && !Canonical.TRIGGER_SUBAGENT.equals(r.getUTF8String(I_TRIGGER).toString());
  }

  /** Used block ids of a request, copied (rows are reused by the reader). */
  private static long[] usedIds(InternalRow r, int n) {
    long[] out = new long[n];
    ArrayData a = r.getArray(I_BLOCKS);
    for (int i = 0; i < n; i++) out[i] = a.getLong(i);
    return out;
  }

  /** Length of the common prefix of x[0..nx) and y[0..ny): a plain array compare, no hashing. */
  static int lcp(long[] x, int nx, long[] y, int ny) {
    int m = Math.min(nx, ny);
    int i = 0;
    while (i < m && x[i] == y[i]) i++;
    return i;
  }

  /** Pass-1 state of one session inside the partition: its latest request and when each position was first held. */
  static final class Chain1 {
    long[] prev = new long[0];
    int[] since = new int[0];
    int requests;
  }

  /**
   * Occurrence counts without touching every occurrence: a request shares its first L blocks with
   * the previous request of its session (L = common prefix), so those positions just stay "held";
   * only the blocks that leave (positions >= L of the previous request: count += requests held)
   * and the blocks that arrive (positions >= L of this one) are hashed. Counts are
   * order-independent, so this pass needs no sorting.
   */
  static Iterator<Tuple2<Integer, byte[]>> pass1(int pid, Iterator<InternalRow> it, CollectionAccumulator<Integer> unsorted,
      int buckets) {
    Long2LongOpenHashMap cnt = new Long2LongOpenHashMap();
    Long2LongOpenHashMap sess = new Long2LongOpenHashMap();
    LongOpenHashSet multi = new LongOpenHashSet();
    Long2ObjectOpenHashMap<Chain1> chains = new Long2ObjectOpenHashMap<>();
    Long2LongOpenHashMap roots = new Long2LongOpenHashMap();
    LongOpenHashSet rootSessions = new LongOpenHashSet();
    double lastA = Double.NEGATIVE_INFINITY;
    long lastSeq = Long.MIN_VALUE;
    boolean sorted = true;
    while (it.hasNext()) {
      InternalRow r = it.next();
      double a0 = r.getDouble(I_ARRIVAL);
      long q0 = r.getLong(I_SEQ);
      if (a0 < lastA || (a0 == lastA && q0 < lastSeq)) sorted = false;
      lastA = a0;
      lastSeq = q0;
      int n = usedBlocks(r);
      boolean hasSession = !r.isNullAt(I_SESSION);
      if (n == 0 && !hasSession) continue;
      long s = sessionKey(r);
      long[] cur = usedIds(r, n);
      if (rootTurn0(r) && rootSessions.add(s)) {
        // a session counts once per partition, with its first root turn-0 request
        for (int i = 0; i < n; i++) roots.addTo(cur[i], 1);
      }
      Chain1 ch = hasSession ? chains.computeIfAbsent(s, k -> new Chain1()) : new Chain1();
      int l = lcp(ch.prev, ch.prev.length, cur, n);
      for (int i = l; i < ch.prev.length; i++) cnt.addTo(ch.prev[i], ch.requests - ch.since[i]);
      int[] since = new int[n];
      System.arraycopy(ch.since, 0, since, 0, l);
      for (int i = l; i < n; i++) {
        since[i] = ch.requests;
        long c = cur[i];
        if (!sess.containsKey(c)) sess.put(c, s);
        else if (sess.get(c) != s) multi.add(c);
      }
      ch.prev = cur;
      ch.since = since;
      ch.requests++;
      if (!hasSession) {
        for (int i = 0; i < n; i++) cnt.addTo(cur[i], 1);
      }
    }
    for (Chain1 ch : chains.values()) {
      for (int i = 0; i < ch.prev.length; i++) cnt.addTo(ch.prev[i], ch.requests - ch.since[i]);
    }
    if (!sorted) unsorted.add(pid);
    chains.clear();
    BlockTable.Out out = new BlockTable.Out(pid, buckets);
    var entries = cnt.long2LongEntrySet().fastIterator();
    while (entries.hasNext()) {
      Long2LongOpenHashMap.Entry e = entries.next();
      long c = e.getLongKey();
      out.add(c, e.getLongValue(), roots.get(c), multi.contains(c));
    }
    return out.blocks();
  }

  private static final int NSRC = 3;

  /** Token and block sums by (kind, source, key), folded locally before any shuffle. */
  static final class Agg {
    final Long2LongOpenHashMap[][] tok = new Long2LongOpenHashMap[5][NSRC + 1];
    final Long2LongOpenHashMap[][] blk = new Long2LongOpenHashMap[5][NSRC + 1];

    Agg() {
      for (int k = 1; k <= 4; k++) {
        for (int s = 0; s <= NSRC; s++) {
          tok[k][s] = new Long2LongOpenHashMap();
          blk[k][s] = new Long2LongOpenHashMap();
        }
      }
    }

    void hit(int src, long minute, int turnOrMin, long intervalUs, long tokens, long blocks) {
      add(KIND_MINUTE, src, minute, tokens, blocks);
      if (turnOrMin != Integer.MIN_VALUE) add(KIND_TURN, src, turnOrMin, tokens, blocks);
      add(KIND_INTERVAL, src, intervalUs, tokens, blocks);
    }

    /** All blocks a request uses (source slot {@link #SRC_ALL_BLOCKS}), by minute and turn. */
    void request(long minute, int turnOrMin, long blocks) {
      add(KIND_MINUTE, SRC_ALL_BLOCKS, minute, 0, blocks);
      if (turnOrMin != Integer.MIN_VALUE) add(KIND_TURN, SRC_ALL_BLOCKS, turnOrMin, 0, blocks);
    }

    void quality(int key) {
      add(KIND_QUALITY, 0, key, 1, 0);
    }

    void add(int kind, int src, long key, long tokens, long blocks) {
      tok[kind][src].addTo(key, tokens);
      blk[kind][src].addTo(key, blocks);
    }

    void emit(List<Row> out) {
      for (int k = 1; k <= 4; k++) {
        for (int s = 0; s <= NSRC; s++) {
          for (Long2LongOpenHashMap.Entry e : tok[k][s].long2LongEntrySet()) {
            out.add(RowFactory.create(k, 0L, 0.0, 0L, 0L, s, e.getLongKey(), e.getLongValue(),
                blk[k][s].get(e.getLongKey()), 0L, null, false));
          }
        }
      }
    }
  }

  static long intervalUs(double now, double prev) {
    return Math.round((now - prev) * 1e6);
  }

  /** Pass-3 state of one session inside the partition. */
  static final class Chain3 {
    long[] prev = new long[0];
    double arrival;
    int[] runStart = new int[0];
    int[] runEnd = new int[0];
    long[] runKey = new long[0];
    final DoubleArrayList arrivals = new DoubleArrayList();
    final IntArrayList lcps = new IntArrayList();
  }

  /** Tokens of blocks [from, to) of a request: min(to B, input) - from B. */
  static long tokens(int from, int to, int b, int input) {
    if (to <= from) return 0;
    return Math.min((long) to * b, input) - (long) from * b;
  }

  /**
   * Hits of single-fragment blocks folded into aggregates, and one record per (request, run of
   * multi-fragment blocks). The first L blocks a request shares with the previous request of its
   * session are settled in O(runs): its single-fragment blocks are intra-session hits whose latest
   * holder is that previous request, and its runs are the previous request's runs there (a run
   * never straddles L: equal counts across L would force the same next block). Only blocks from
   * L on are hashed.
   */
  static Iterator<Row> pass3(Iterator<InternalRow> rows, Iterator<byte[]> info, LongAccumulator runs,
      Set<Integer> unsortedPids) {
    Iterator<InternalRow> in = rows;
    if (unsortedPids.contains(TaskContext.getPartitionId())) {
      // Fallback for inputs not in (arrival_s, seq) order: this partition is sorted in memory.
      List<InternalRow> buf = new ArrayList<>();
      while (rows.hasNext()) buf.add(rows.next().copy());
      buf.sort((x, y) -> {
        int c = Double.compare(x.getDouble(I_ARRIVAL), y.getDouble(I_ARRIVAL));
        return c != 0 ? c : Long.compare(x.getLong(I_SEQ), y.getLong(I_SEQ));
      });
      in = buf.iterator();
    }
    Long2LongOpenHashMap multiCnt = new Long2LongOpenHashMap();
    multiCnt.defaultReturnValue(-1);
    LongOpenHashSet tmpl = new LongOpenHashSet();
    while (info.hasNext()) {
      BlockTable.Reader x = new BlockTable.Reader(info.next());
      while (x.more()) {
        long c = x.fixed();
        multiCnt.put(c, x.var());
        if (x.var() != 0) tmpl.add(c);
      }
    }
    // single-fragment block -> (request index in its session's chain << 32 | position) of its latest touch
    Long2LongOpenHashMap touched = new Long2LongOpenHashMap();
    touched.defaultReturnValue(-1);
    Long2ObjectOpenHashMap<Chain3> chains = new Long2ObjectOpenHashMap<>();
    Agg agg = new Agg();
    List<Row> out = new ArrayList<>();
    long nRuns = 0;
    IntArrayList rs = new IntArrayList(), re = new IntArrayList();
    LongArrayList rk = new LongArrayList();
    while (in.hasNext()) {
      InternalRow r = in.next();
      if (r.isNullAt(I_BLOCKS) || r.isNullAt(I_BSIZE) || r.getInt(I_BSIZE) <= 0) continue;
      int b = r.getInt(I_BSIZE);
      int input = r.getInt(I_INPUT);
      int len = r.getArray(I_BLOCKS).numElements();
      int exp = Canonical.expectedBlocks(input, b);
      double a = r.getDouble(I_ARRIVAL);
      long minute = (long) Math.floor(a / 60.0);
      Integer turn = r.isNullAt(I_TURN) ? null : r.getInt(I_TURN);
      int turnKey = turn == null ? Integer.MIN_VALUE : turn;
      int n = Math.min(len, exp);
      agg.quality(Q_WITH_BLOCKS);
      if (len != exp) agg.quality(Q_MISMATCH);
      if (len > exp) agg.quality(Q_LONGER);
      agg.request(minute, turnKey, n);
      boolean hasSession = !r.isNullAt(I_SESSION);
      if (n == 0 && !hasSession) continue;
      long seq = r.getLong(I_SEQ);
      long s = sessionKey(r);
      long[] cur = usedIds(r, n);
      Chain3 ch = hasSession ? chains.computeIfAbsent(s, k -> new Chain3()) : null;
      int l = ch == null ? 0 : lcp(ch.prev, ch.prev.length, cur, n);
      int self = ch == null ? 0 : ch.arrivals.size(); // this request's index in the chain
      rs.clear();
      re.clear();
      rk.clear();
      // inherited region [0, l)
      long multiBlocks = 0, multiTokens = 0;
      if (ch != null) {
        for (int k = 0; k < ch.runStart.length && ch.runEnd[k] <= l; k++) {
          long t = tokens(ch.runStart[k], ch.runEnd[k], b, input);
          out.add(runRow(ch.runKey[k], a, seq, s, t, ch.runEnd[k] - ch.runStart[k], minute, turn, tmpl.contains(ch.runKey[k])));
          nRuns++;
          multiBlocks += ch.runEnd[k] - ch.runStart[k];
          multiTokens += t;
          rs.add(ch.runStart[k]);
          re.add(ch.runEnd[k]);
          rk.add(ch.runKey[k]);
        }
        long singleBlocks = l - multiBlocks;
        if (singleBlocks > 0) {
          agg.hit(Source.INTRA_SESSION.ordinal(), minute, turnKey, intervalUs(a, ch.arrival),
              tokens(0, l, b, input) - multiTokens, singleBlocks);
        }
      }
      // touched region [l, n)
      int runFrom = -1;
      long runC = 0, runCnt = 0;
      for (int i = l; i <= n; i++) {
        long c = i < n ? cur[i] : 0;
        long cnt = i < n ? multiCnt.get(c) : -1;
        if (runFrom >= 0 && (cnt < 0 || cnt != runCnt)) {
          out.add(runRow(runC, a, seq, s, tokens(runFrom, i, b, input), i - runFrom, minute, turn, tmpl.contains(runC)));
          nRuns++;
          rs.add(runFrom);
          re.add(i);
          rk.add(runC);
          runFrom = -1;
        }
        if (i == n) break;
        if (cnt >= 0) {
          if (runFrom < 0) {
            runFrom = i;
            runC = c;
            runCnt = cnt;
          }
          continue;
        }
        // single-fragment block: all its occurrences are in this session and this partition
        if (ch == null) continue; // a request without a session: never seen again
        long t = touched.get(c);
        if (t >= 0) {
          // seen before but not in the previous request (the session went back to an older state):
          // its latest holder is the end of the chain of requests that kept it after that touch
          int k = (int) (t >>> 32);
          int pos = (int) t;
          while (k + 1 < self && ch.lcps.getInt(k + 1) > pos) k++;
          agg.hit(Source.INTRA_SESSION.ordinal(), minute, turnKey, intervalUs(a, ch.arrivals.getDouble(k)),
              tokens(i, i + 1, b, input), 1);
        }
        touched.put(c, ((long) self << 32) | i);
      }
      if (ch != null) {
        ch.prev = cur;
        ch.arrival = a;
        ch.runStart = rs.toIntArray();
        ch.runEnd = re.toIntArray();
        ch.runKey = rk.toLongArray();
        ch.arrivals.add(a);
        ch.lcps.add(l);
      }
    }
    agg.emit(out);
    runs.add(nRuns);
    return out.iterator();
  }

  private static Row runRow(long c, double a, long seq, long s, long w, long nb, long minute, Integer turn,
      boolean tmpl) {
    return RowFactory.create(KIND_RUN, c, a, seq, s, 0, 0L, w, nb, minute, turn, tmpl);
  }

  static Iterator<Row> pass4(Iterator<Row> it) {
    Agg agg = new Agg();
    LongOpenHashSet sessions = new LongOpenHashSet();
    boolean any = false;
    long c = 0;
    double prev = 0;
    while (it.hasNext()) {
      Row r = it.next();
      if (r.getInt(0) != KIND_RUN) {
        // one of pass 3's aggregate rows (they come after every run of the partition)
        agg.add(r.getInt(0), r.getInt(5), r.getLong(6), r.getLong(7), r.getLong(8));
        continue;
      }
      long rc = r.getLong(1);
      double a = r.getDouble(2);
      long s = r.getLong(4);
      if (!any || rc != c) {
        any = true;
        c = rc;
        if (sessions.size() > 4096) sessions = new LongOpenHashSet(); // clear() would keep a huge table
        else sessions.clear();
        sessions.add(s);
        prev = a;
        continue; // the first request with this run anywhere in the trace: a miss
      }
      int src = sessions.contains(s) ? Source.INTRA_SESSION.ordinal()
          : r.getBoolean(11) ? Source.SYSTEM_PROMPT.ordinal() : Source.INTER_SESSION.ordinal();
      int turnKey = r.isNullAt(10) ? Integer.MIN_VALUE : r.getInt(10);
      agg.hit(src, r.getLong(9), turnKey, intervalUs(a, prev), r.getLong(7), r.getLong(8));
      sessions.add(s);
      prev = a;
    }
    List<Row> out = new ArrayList<>();
    agg.emit(out);
    return out.iterator();
  }

}
