package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.CanonicalParquet;
import io.smetric.audit.contract.parquet.TraceBatch;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.round;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.Source;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Runs every metric of trace-model.md sections 2-5 and 7 on one canonical trace and assembles
 * characterization.json plus its tables (docs/characterization.md lists both). The block-level
 * work is the segment plan ({@link SegmentReuse}); the request-level statistics read the scalar
 * columns only. Two engines compute the same numbers:
 * <ul>
 *   <li>{@link Engine#LOCAL}: in this process, no Spark job (the canonical files are read with
 *       parquet-mr; {@link LocalStats} for the request level);
 *   <li>{@link Engine#SPARK}: the segment tasks run as Spark tasks that read the files
 *       themselves, and the request level as Spark jobs ({@link RequestTotals}, one group-by and
 *       join, {@link SortedStats}): nothing grows with the trace on the driver.
 * </ul>
 * The block-pass plan the segment plan replaced lives in test scope, where it checks this one
 * ({@link #reusePlan}).
 */
public final class Characterization {
  public static final String JOB_GROUP = "smetric-characterize";
  public static final String FORMAT = "smetric-characterization/1";

  public static final String NO_SESSIONS = "trace has no sessions (session_id is null in every request)";
  public static final String NO_BLOCKS = "trace has no block hashes (blocks or block_size null in every request)";
  public static final String NO_HITS = "no block of the trace is ever reused";
  public static final String NO_FOLLOW_UP_PARENTS = "no follow-up request (turn > 0) has its parent in the trace";
  public static final String NO_WHOLE_MINUTE = "the trace spans no whole minute";
  public static final String NO_TURNS = "trace has no turn numbers";

  static final double[] Q = {0.5, 0.9, 0.99};
  static final String[] QN = {"p50", "p90", "p99"};

  /** Where the work runs. */
  public enum Engine {
    /** LOCAL when the master is local or the trace is small, else SPARK. */
    AUTO,
    /** In this process, no Spark job. */
    LOCAL,
    /** Spark tasks (a cluster). */
    SPARK
  }

  /**
   * How the Spark engine computes block reuse: the aggregate table ({@link ReuseAggregates},
   * persisted; the caller unpersists) and its plan counters. The segment plan ({@link SegmentJob})
   * in production; tests put the block-pass plan it replaced here to check it against.
   */
  interface ReusePlan {
    SegmentJob.Result run(SparkSession spark, TraceInput input, CanonicalParquet files, int templateMinSessions,
        boolean hasSessions);
  }

  /**
   * AUTO runs in-process when the trace has at most this many block ids (about 8 bytes of memory
   * per distinct block), whatever the master: a cluster round trip costs more than the work.
   */
  public static final long LOCAL_MAX_BLOCK_IDS = 50_000_000L;

  /** The canonical files are not in (arrival_s, seq) order (the in-process reader found out); sort, then retry. */
  public static final class UnsortedInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnsortedInput(String what) {
      super(what, null, false, false);
    }
  }

  public record Options(int instances, int templateMinSessions, double intervalThresholdS) {
    public Options {
      if (instances < 1) throw new IllegalArgumentException("instances must be >= 1, got " + instances);
      if (templateMinSessions < 1) throw new IllegalArgumentException("template_min_sessions must be >= 1");
      if (!(intervalThresholdS >= 0)) throw new IllegalArgumentException("interval threshold must be >= 0");
    }

    public static Options defaults(int instances) {
      return new Options(instances, 3, 100.0);
    }
  }

  /** The JSON document and the tables (write them, then close: Spark tables may be persisted). */
  public record Result(ObjectNode json, Map<String, Table> tables, List<Dataset<Row>> persisted)
      implements AutoCloseable {
    @Override
    public void close() {
      for (Dataset<Row> d : persisted) d.unpersist(false);
    }
  }

  private final SparkSession spark;
  private final TraceInput input;
  private final Options opt;
  private Engine engine = Engine.AUTO;
  private int tasks;
  private ReusePlan reusePlan = (spark, input, files, k, hasSessions) -> new SegmentJob(spark, files, k).execute();

  public Characterization(SparkSession spark, TraceInput input, Options opt) {
    this.spark = spark;
    this.input = input;
    this.opt = opt;
  }

  public Characterization engine(Engine e) {
    this.engine = e;
    return this;
  }

  /** The block-reuse plan of the Spark engine (tests only: another plan to compare with). */
  Characterization reusePlan(ReusePlan p) {
    this.reusePlan = p;
    return this;
  }

  /** In-process segment tasks (0: one per core when the trace is large enough to gain from it). */
  Characterization tasks(int n) {
    this.tasks = n;
    return this;
  }

  /** Whether a master URL runs in this process. */
  public static boolean localMaster(String master) {
    return master == null || master.startsWith("local");
  }

  public Result execute() {
    CanonicalParquet files = input.files(spark);
    Engine e = engine;
    if (e == Engine.AUTO) {
      e = localMaster(spark.sparkContext().master()) || files == null || files.blockValues() <= LOCAL_MAX_BLOCK_IDS
          ? Engine.LOCAL : Engine.SPARK;
    }
    if (e == Engine.SPARK && files == null) e = Engine.LOCAL; // rows that are not plain files: streamed below
    if (e == Engine.LOCAL) {
      if (files != null) {
        try {
          return inProcess(files.batches(BATCH_ROWS), files, input.location(), input.ingestSummary(), opt, tasks);
        } catch (Characterization.UnsortedInput ex) {
          // not in (arrival_s, seq) order: sorted by Spark and streamed (below)
        }
      }
      return sortedInProcess();
    }
    List<Dataset<Row>> persisted = new ArrayList<>();
    try {
      return CharacterizationJson.assemble(sparkParts(files, persisted), opt, input.location(), input.ingestSummary(), persisted);
    } catch (Characterization.UnsortedInput ex) {
      for (Dataset<Row> d : persisted) d.unpersist(false);
      return sortedInProcess();
    } catch (RuntimeException ex) {
      for (Dataset<Row> d : persisted) d.unpersist(false);
      throw ex;
    }
  }

  /**
   * Input that is not plain Parquet files in (arrival_s, seq) order (rows built in memory, a
   * dataset written by another tool): Spark sorts it and this process reads it partition by
   * partition. The segment work then runs here; ingest's output never needs this.
   */
  private Result sortedInProcess() {
    return inProcess(sortedBatches(input.trace()), null, input.location(), input.ingestSummary(), opt, 1);
  }

  /**
   * The in-process characterization of a canonical Parquet folder, without any Spark session: the
   * engine of {@code analyze} on local masters and small traces.
   *
   * @throws Characterization.UnsortedInput when the files are not in (arrival_s, seq) order (the caller
   *     sorts them with Spark and calls {@link #execute})
   */
  public static Result inProcess(TraceFiles in, Options opt) {
    return inProcess(in.parquet().batches(BATCH_ROWS), in.parquet(), in.location(), in.ingestSummary(), opt, 0);
  }

  static final int BATCH_ROWS = 1024;

  /** Traces below this many block ids run on one thread (thread hand-offs cost more than they save). */
  static final long ONE_THREAD_MAX_BLOCK_IDS = 4_000_000L;

  /** @param tasks segment tasks (threads); 0: one per core for traces above {@link #ONE_THREAD_MAX_BLOCK_IDS} */
  private static Result inProcess(Iterator<TraceBatch> batches, CanonicalParquet files, String location,
      JsonNode ingestSummary, Options opt, int tasks) {
    int n = tasks > 0 ? tasks
        : files == null || files.blockValues() <= ONE_THREAD_MAX_BLOCK_IDS ? 1 : Runtime.getRuntime().availableProcessors();
    Routing routing = files == null || n < 2
        ? Routing.single() : Routing.fromSample(files.sample(ROUTING_SAMPLE_GROUPS, ROUTING_SAMPLE_ROWS), n);
    Phases.mark("routing");
    LocalStats stats = new LocalStats(true);
    ReuseSums sums = SegmentReuse.local(batches, routing, opt.templateMinSessions(), location, stats);
    Phases.mark("segment tasks");
    Parts p = new Parts();
    p.rt = stats.totals;
    if (p.rt.requests == 0) throw new BadInputException(location, "trace has no requests");
    boolean hasSessions = p.rt.withSession > 0;
    long thrUs = Math.round(opt.intervalThresholdS() * 1e6);
    if (!p.rt.blockSizes.isEmpty()) {
      p.reuseRan = true;
      p.bt = BlockTotals.of(sums, thrUs);
      p.plan = planCounters(sums, routing, "in-process");
    }
    Map<String, LocalStats.Group> groups = stats.groups(p.reuseRan ? sums : null);
    if (!hasSessions) groups.keySet().removeIf(g -> !g.startsWith("interval:"));
    Phases.mark("request statistics");
    p.st = LocalStats.orderStats(groups, Q, lorenzPoints(), 0.25, Set.of("turns"));
    Phases.mark("order statistics");
    if (hasSessions) {
      p.sessions = Table.of(List.of(new Table.Col(Cols.SESSION_ID, Table.Kind.STRING, true),
          new Table.Col(Cols.REQUESTS, Table.Kind.LONG, false), new Table.Col(Cols.FIRST_ARRIVAL_S, Table.Kind.DOUBLE, true),
          new Table.Col(Cols.TOKENS, Table.Kind.LONG, true), new Table.Col(Cols.DURATION_S, Table.Kind.DOUBLE, true)),
          stats.sessionRows());
    }
    return CharacterizationJson.assemble(p, opt, location, ingestSummary, new ArrayList<>());
  }

  static final int ROUTING_SAMPLE_GROUPS = 8;
  static final int ROUTING_SAMPLE_ROWS = 256;

  static ObjectNode planCounters(ReuseSums s, Routing r, String engine) {
    ObjectNode o = Json.object();
    o.put("plan", "prefix segments (docs/characterization.md)");
    o.put("engine", engine);
    o.put("tasks", r.parts);
    o.put("heavy_prefix_blocks", r.heavyBlocks);
    o.put("distinct_blocks", s.distinctBlocks);
    o.put("template_blocks", s.templateBlocks);
    o.put("segments", s.segments);
    o.put("regions", s.regionRequests);
    o.put("hit_runs", s.hitRuns);
    return o;
  }

  static double[] lorenzPoints() {
    double[] p = new double[101];
    for (int i = 0; i <= 100; i++) p[i] = i / 100.0;
    return p;
  }

  /** The trace sorted by (arrival_s, seq) with Spark and streamed to this process, partition by partition. */
  static Iterator<TraceBatch> sortedBatches(Dataset<Row> trace) {
    Dataset<Row> sorted = trace.select(col(Canonical.REQUEST_ID), col(Canonical.SESSION_ID), col(Canonical.PARENT_ID),
        col(Canonical.TURN), col(Canonical.TRIGGER), col(Canonical.ARRIVAL_S), col(Canonical.INPUT_TOKENS),
        col(Canonical.OUTPUT_TOKENS), col(Canonical.BLOCK_SIZE), col(Canonical.BLOCKS), col(Canonical.SEQ))
        .sort(col(Canonical.ARRIVAL_S), col(Canonical.SEQ));
    Iterator<Row> rows = sorted.toLocalIterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public TraceBatch next() {
        List<Row> buf = new ArrayList<>();
        while (rows.hasNext() && buf.size() < BATCH_ROWS) buf.add(rows.next());
        TraceBatch b = new TraceBatch(buf.size());
        for (int i = 0; i < b.n; i++) {
          Row r = buf.get(i);
          b.requestId[i] = r.getString(0);
          b.sessionId[i] = r.isNullAt(1) ? null : r.getString(1);
          b.parentId[i] = r.isNullAt(2) ? null : r.getString(2);
          b.turn[i] = r.isNullAt(3) ? TraceBatch.NULL_INT : r.getInt(3);
          b.trigger[i] = r.getString(4);
          b.arrival[i] = r.getDouble(5);
          b.input[i] = r.getInt(6);
          b.output[i] = r.getInt(7);
          b.blockSize[i] = r.isNullAt(8) ? TraceBatch.NULL_INT : r.getInt(8);
          if (r.isNullAt(9)) {
            b.idLen[i] = -1;
          } else {
            List<Long> l = r.getList(9);
            long[] a = new long[l.size()];
            for (int k = 0; k < a.length; k++) a[k] = l.get(k);
            b.ids[i] = a;
            b.idLen[i] = a.length;
          }
          b.seq[i] = r.getLong(10);
        }
        return b;
      }
    };
  }

  /** Request-level projection: scalar columns only. */
  static Dataset<Row> requests(Dataset<Row> trace) {
    return trace.select(col(Canonical.REQUEST_ID), col(Canonical.SESSION_ID), col(Canonical.PARENT_ID),
            col(Canonical.TURN), col(Canonical.TRIGGER), col(Canonical.ARRIVAL_S), col(Canonical.INPUT_TOKENS),
            col(Canonical.OUTPUT_TOKENS), col(Canonical.BLOCK_SIZE))
        .withColumn(Cols.MINUTE, floor(col(Canonical.ARRIVAL_S).divide(60)).cast("long"));
  }

  /** What either engine computes; {@link CharacterizationJson} turns it into characterization.json and the tables. */
  static final class Parts {
    RequestTotals rt;
    boolean reuseRan;
    BlockTotals bt = new BlockTotals();
    ObjectNode plan;
    Map<String, SortedStats.Stats> st = Map.of();
    Table sessions;
  }

  /**
   * The distributed engines: every job on the cluster, O(minutes + turns + partitions) on the
   * driver. The plan, in job order: request-level totals, block reuse (the segment plan, unless a
   * test put another {@link ReusePlan}) and its totals, then one sorted pass for every distribution (reuse
   * intervals, per-session turns, durations and tokens, think times).
   */
  private Parts sparkParts(CanonicalParquet files, List<Dataset<Row>> persisted) {
    Parts p = new Parts();
    p.rt = requestTotals();
    boolean hasSessions = p.rt.withSession > 0;
    Dataset<Row> intervalRows = p.rt.blockSizes.isEmpty() ? null : blockReuse(files, hasSessions, p, persisted);
    List<Dataset<Row>> statInputs = new ArrayList<>();
    if (intervalRows != null) intervalStatInputs(intervalRows, statInputs);
    if (hasSessions) p.sessions = sessionStatInputs(statInputs, persisted);
    if (!statInputs.isEmpty()) p.st = orderStatistics(statInputs, p);
    return p;
  }

  /** One job for every request-level total (no shuffle); see RequestTotals. */
  private RequestTotals requestTotals() {
    spark.sparkContext().setJobGroup(JOB_GROUP, "characterization: request-level totals", false);
    RequestTotals rt = RequestTotals.compute(input.trace());
    if (rt.requests == 0) throw new BadInputException(input.location(), "trace has no requests");
    return rt;
  }

  /**
   * Block reuse: the reuse aggregates (persisted) from the {@link ReusePlan}, their plan counters
   * and totals. Returns the interval rows for the order statistics (null when
   * no request has blocks).
   */
  private Dataset<Row> blockReuse(CanonicalParquet files, boolean hasSessions, Parts p,
      List<Dataset<Row>> persisted) {
    SegmentJob.Result reuse = reusePlan.run(spark, input, files, opt.templateMinSessions(), hasSessions);
    Dataset<Row> aggregates = reuse.aggregates();
    p.plan = reuse.counters();
    persisted.add(aggregates);
    p.reuseRan = true;
    spark.sparkContext().setJobGroup(JOB_GROUP, "characterization: assembling", false);
    p.bt = BlockTotals.compute(aggregates, Math.round(opt.intervalThresholdS() * 1e6));
    if (p.bt.quality[ReuseAggregates.Q_WITH_BLOCKS] == 0) return null;
    return aggregates.filter(col(ReuseAggregates.KIND).equalTo(ReuseAggregates.KIND_INTERVAL));
  }

  /** The reuse intervals as order-statistics inputs: per source, and over all sources. */
  private static void intervalStatInputs(Dataset<Row> intervalRows, List<Dataset<Row>> statInputs) {
    Column g = when(col(ReuseAggregates.SRC).equalTo(0), lit("interval:" + Source.INTRA_SESSION.label))
        .when(col(ReuseAggregates.SRC).equalTo(1), lit("interval:" + Source.SYSTEM_PROMPT.label))
        .otherwise(lit("interval:" + Source.INTER_SESSION.label));
    statInputs.add(intervalRows.select(g.as(SortedStats.G), col(ReuseAggregates.KEY).as(SortedStats.V),
        col(ReuseAggregates.BLOCKS).as(SortedStats.N), col(ReuseAggregates.TOKENS).as(SortedStats.W)));
    statInputs.add(intervalRows.select(lit("interval:" + Source.ALL).as(SortedStats.G), col(ReuseAggregates.KEY).as(SortedStats.V),
        col(ReuseAggregates.BLOCKS).as(SortedStats.N), col(ReuseAggregates.TOKENS).as(SortedStats.W)));
  }

  /**
   * The sessions table (persisted: it feeds three distributions and the table) and the session
   * distributions as order-statistics inputs: turns, duration and tokens per session, and think
   * times (a follow-up's arrival after its parent's, for follow-ups whose parent is in the trace).
   */
  private Table sessionStatInputs(List<Dataset<Row>> statInputs, List<Dataset<Row>> persisted) {
    Dataset<Row> sess = requests(input.trace()).filter(col(Canonical.SESSION_ID).isNotNull()).groupBy(Canonical.SESSION_ID)
        .agg(count(lit(1)).as(Cols.REQUESTS), min(Canonical.ARRIVAL_S).as(Cols.FIRST_ARRIVAL_S),
            max(Canonical.ARRIVAL_S).as("last"),
            sum(col(Canonical.INPUT_TOKENS).plus(col(Canonical.OUTPUT_TOKENS))).as(Cols.TOKENS))
        .withColumn(Cols.DURATION_S, col("last").minus(col(Cols.FIRST_ARRIVAL_S))).drop("last")
        .persist(StorageLevel.MEMORY_AND_DISK());
    persisted.add(sess);
    Table sessions = Table.of(sess.coalesce(1).sortWithinPartitions(Cols.SESSION_ID));
    statInputs.add(sess.select(lit("turns").as(SortedStats.G), col(Cols.REQUESTS).as(SortedStats.V),
        lit(1L).as(SortedStats.N), lit(1L).as(SortedStats.W)));
    statInputs.add(sess.select(lit("duration_us").as(SortedStats.G),
        round(col(Cols.DURATION_S).multiply(1e6)).cast("long").as(SortedStats.V), lit(1L).as(SortedStats.N),
        lit(1L).as(SortedStats.W)));
    statInputs.add(sess.select(lit("tokens").as(SortedStats.G), col(Cols.TOKENS).as(SortedStats.V),
        lit(1L).as(SortedStats.N), col(Cols.TOKENS).as(SortedStats.W)));
    Dataset<Row> req = requests(input.trace());
    Dataset<Row> fu = req.filter(col(Canonical.TURN).gt(0));
    Dataset<Row> parents = req.select(col(Canonical.REQUEST_ID).as("p_id"), col(Canonical.ARRIVAL_S).as("p_arrival"));
    Dataset<Row> think = fu.join(parents, fu.col(Canonical.PARENT_ID).equalTo(parents.col("p_id")), "inner")
        .select(lit("think_us").as(SortedStats.G),
            round(col(Canonical.ARRIVAL_S).minus(col("p_arrival")).multiply(1e6)).cast("long").as(SortedStats.V),
            lit(1L).as(SortedStats.N), lit(1L).as(SortedStats.W));
    statInputs.add(think);
    return sessions;
  }

  /** Every distribution in one sorted pass ({@link SortedStats}), partitions from the input size. */
  private Map<String, SortedStats.Stats> orderStatistics(List<Dataset<Row>> statInputs, Parts p) {
    Dataset<Row> all = statInputs.get(0);
    for (int i = 1; i < statInputs.size(); i++) all = all.unionByName(statInputs.get(i));
    // sorted partitions from the input size: one (no range sampling job) up to ~1M values each
    long est = p.bt.intervalRows + 3 * p.rt.withSession + p.rt.followUps();
    int maxParts = Math.max(1, Integer.parseInt(spark.conf().get("spark.sql.shuffle.partitions", "8")));
    int parts = (int) Math.max(1, Math.min(maxParts, (est + STAT_ROWS_PER_PARTITION - 1) / STAT_ROWS_PER_PARTITION));
    return SortedStats.compute(spark, all, Q, lorenzPoints(), 0.25, parts, Set.of("turns"));
  }

  private static final long STAT_ROWS_PER_PARTITION = 1L << 20;

  /** Log bucket of an interval: 20 per decade of microseconds; -1 for a zero interval (same arithmetic as SQL's log10/ceil). */
  static int bucket(long us) {
    if (us <= 0) return -1;
    return (int) (long) Math.ceil(StrictMath.log10((double) us) * 20 - 1e-9);
  }

  /**
   * Everything the assembly needs from the reuse aggregates: hits by minute and turn, quality
   * counters, hit tokens within the threshold per source, and the CDF's bucket sums.
   * O(minutes + turns + sources x log buckets): no interval values (those go to the order statistics).
   */
  static final class BlockTotals implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final TreeMap<Long, long[]> hitByMinute = new TreeMap<>(); // minute -> hit tokens[3], hit blocks[3], all blocks
    final TreeMap<Long, long[]> hitByTurn = new TreeMap<>();
    final long[] hitTok = new long[3], hitBlk = new long[3];
    final long[] quality = new long[3];
    long usedBlocks;
    long intervalRows;
    /** Hit tokens with interval <= threshold per source (null: no interval row of that source). */
    final Long[] withinBySrc = new Long[3];
    /** source label (and "all") -> bucket -> tokens. */
    final TreeMap<String, TreeMap<Integer, Long>> cdfBuckets = new TreeMap<>();

    /** From the aggregate table, one job (each task folds its rows; the driver merges). */
    static BlockTotals compute(Dataset<Row> aggregates, long thrUs) {
      return aggregates.javaRDD()
          .mapPartitions(it -> {
            BlockTotals t = new BlockTotals();
            while (it.hasNext()) {
              Row r = it.next();
              t.add(r.getInt(0), r.getInt(1), r.getLong(2), r.getLong(3), r.getLong(4), thrUs);
            }
            return List.of(t).iterator();
          })
          .fold(new BlockTotals(), BlockTotals::merge);
    }

    /** From in-process sums (interval buckets summed in arrays: one row per distinct interval). */
    static BlockTotals of(ReuseSums sums, long thrUs) {
      BlockTotals t = new BlockTotals();
      long[][] buckets = new long[3][];
      sums.forEach((kind, src, key, tokens, blocks) -> {
        if (kind != ReuseAggregates.KIND_INTERVAL) {
          t.add(kind, src, key, tokens, blocks, thrUs);
          return;
        }
        t.intervalRows++;
        if (key <= thrUs) t.withinBySrc[src] = (t.withinBySrc[src] == null ? 0 : t.withinBySrc[src]) + tokens;
        int b = bucket(key) + 1;
        if (buckets[src] == null) buckets[src] = new long[Math.max(64, b + 1)];
        if (b >= buckets[src].length) buckets[src] = java.util.Arrays.copyOf(buckets[src], b * 2);
        buckets[src][b] += tokens;
      });
      for (int s = 0; s < 3; s++) {
        if (buckets[s] == null) continue;
        for (int b = 0; b < buckets[s].length; b++) {
          if (buckets[s][b] == 0) continue;
          t.cdfBuckets.computeIfAbsent(Source.ALL, k -> new TreeMap<>()).merge(b - 1, buckets[s][b], Long::sum);
          t.cdfBuckets.computeIfAbsent(Source.values()[s].label, k -> new TreeMap<>()).merge(b - 1, buckets[s][b], Long::sum);
        }
      }
      return t;
    }

    private void add(int kind, int src, long key, long tok, long blk, long thrUs) {
      if (kind == ReuseAggregates.KIND_QUALITY) {
        quality[(int) key] += tok;
        return;
      }
      if (kind == ReuseAggregates.KIND_INTERVAL) {
        intervalRows++;
        if (key <= thrUs) withinBySrc[src] = (withinBySrc[src] == null ? 0 : withinBySrc[src]) + tok;
        int b = bucket(key);
        cdfBuckets.computeIfAbsent(Source.ALL, k -> new TreeMap<>()).merge(b, tok, Long::sum);
        cdfBuckets.computeIfAbsent(Source.values()[src].label, k -> new TreeMap<>()).merge(b, tok, Long::sum);
        return;
      }
      Map<Long, long[]> m = kind == ReuseAggregates.KIND_MINUTE ? hitByMinute : hitByTurn;
      long[] v = m.computeIfAbsent(key, k -> new long[7]);
      if (src == ReuseAggregates.SRC_ALL_BLOCKS) {
        v[6] += blk;
        if (kind == ReuseAggregates.KIND_MINUTE) usedBlocks += blk;
        return;
      }
      v[src] += tok;
      v[3 + src] += blk;
      if (kind == ReuseAggregates.KIND_MINUTE) {
        hitTok[src] += tok;
        hitBlk[src] += blk;
      }
    }

    static BlockTotals merge(BlockTotals x, BlockTotals y) {
      for (var e : y.hitByMinute.entrySet()) addAll(x.hitByMinute.computeIfAbsent(e.getKey(), k -> new long[7]), e.getValue());
      for (var e : y.hitByTurn.entrySet()) addAll(x.hitByTurn.computeIfAbsent(e.getKey(), k -> new long[7]), e.getValue());
      addAll(x.hitTok, y.hitTok);
      addAll(x.hitBlk, y.hitBlk);
      addAll(x.quality, y.quality);
      x.usedBlocks += y.usedBlocks;
      x.intervalRows += y.intervalRows;
      for (int i = 0; i < 3; i++) {
        if (y.withinBySrc[i] != null) x.withinBySrc[i] = (x.withinBySrc[i] == null ? 0 : x.withinBySrc[i]) + y.withinBySrc[i];
      }
      for (var e : y.cdfBuckets.entrySet()) {
        TreeMap<Integer, Long> m = x.cdfBuckets.computeIfAbsent(e.getKey(), k -> new TreeMap<>());
        for (var b : e.getValue().entrySet()) m.merge(b.getKey(), b.getValue(), Long::sum);
      }
      return x;
    }

    private static void addAll(long[] x, long[] y) {
      for (int i = 0; i < x.length; i++) x[i] += y[i];
    }
  }
}
