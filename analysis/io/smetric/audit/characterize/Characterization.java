package io.smetric.audit.characterize;

import static io.smetric.audit.contract.CharacterizationTables.T_INTERVAL_CDF;
import static io.smetric.audit.contract.CharacterizationTables.T_LORENZ;
import static io.smetric.audit.contract.CharacterizationTables.T_RATIO;
import static io.smetric.audit.contract.CharacterizationTables.T_REUSE_MINUTE;
import static io.smetric.audit.contract.CharacterizationTables.T_REUSE_TURN;
import static io.smetric.audit.contract.CharacterizationTables.T_SESSIONS;
import static io.smetric.audit.contract.CharacterizationTables.T_TRIGGERS;
import static io.smetric.audit.contract.CharacterizationTables.T_TURNS;
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
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.Source;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
 * {@link Engine#LEGACY} runs the previous block-pass plan ({@link ReuseJob}) for comparison.
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
    SPARK,
    /** The previous plan: block passes with shuffles ({@link ReuseJob}); kept to check the new one against. */
    LEGACY
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

  public Characterization(SparkSession spark, TraceInput input, Options opt) {
    this.spark = spark;
    this.input = input;
    this.opt = opt;
  }

  public Characterization engine(Engine e) {
    this.engine = e;
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
      return assemble(spark, sparkParts(e, files, persisted), opt, input.location(), input.ingestSummary(), persisted);
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
    return assemble(null, p, opt, location, ingestSummary, new ArrayList<>());
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

  /** What either engine computes; {@link #assemble} turns it into characterization.json and the tables. */
  static final class Parts {
    RequestTotals rt;
    boolean reuseRan;
    BlockTotals bt = new BlockTotals();
    ObjectNode plan;
    Map<String, SortedStats.Stats> st = Map.of();
    Table sessions;
  }

  /** The distributed engines: every job on the cluster, O(minutes + turns + partitions) on the driver. */
  private Parts sparkParts(Engine e, CanonicalParquet files, List<Dataset<Row>> persisted) {
    Parts p = new Parts();
    // One job for every request-level total (no shuffle); see RequestTotals.
    spark.sparkContext().setJobGroup(JOB_GROUP, "characterization: request-level totals", false);
    RequestTotals rt = RequestTotals.compute(input.trace());
    p.rt = rt;
    if (rt.requests == 0) throw new BadInputException(input.location(), "trace has no requests");
    boolean hasSessions = rt.withSession > 0;
    long thrUs = Math.round(opt.intervalThresholdS() * 1e6);

    Dataset<Row> intervalRows = null;
    if (!rt.blockSizes.isEmpty()) {
      Dataset<Row> aggregates;
      if (e == Engine.LEGACY) {
        ReuseJob.Result reuse = new ReuseJob(spark, input.trace()).templateMinSessions(opt.templateMinSessions())
            .sessionShuffle(hasSessions).execute();
        aggregates = reuse.aggregates();
        p.plan = legacyCounters(reuse);
      } else {
        SegmentJob.Result seg = new SegmentJob(spark, files, opt.templateMinSessions()).execute();
        aggregates = seg.aggregates();
        p.plan = seg.counters();
      }
      persisted.add(aggregates);
      p.reuseRan = true;
      spark.sparkContext().setJobGroup(JOB_GROUP, "characterization: assembling", false);
      p.bt = BlockTotals.compute(aggregates, thrUs);
      intervalRows = aggregates.filter(col(ReuseJob.KIND).equalTo(ReuseJob.KIND_INTERVAL));
      if (p.bt.quality[ReuseJob.Q_WITH_BLOCKS] == 0) intervalRows = null;
    }

    // ---- order statistics, one pass for every distribution ----
    List<Dataset<Row>> statInputs = new ArrayList<>();
    if (intervalRows != null) {
      Column g = when(col(ReuseJob.SRC).equalTo(0), lit("interval:" + Source.INTRA_SESSION.label))
          .when(col(ReuseJob.SRC).equalTo(1), lit("interval:" + Source.SYSTEM_PROMPT.label))
          .otherwise(lit("interval:" + Source.INTER_SESSION.label));
      statInputs.add(intervalRows.select(g.as(SortedStats.G), col(ReuseJob.KEY).as(SortedStats.V),
          col(ReuseJob.BLOCKS).as(SortedStats.N), col(ReuseJob.TOKENS).as(SortedStats.W)));
      statInputs.add(intervalRows.select(lit("interval:" + Source.ALL).as(SortedStats.G), col(ReuseJob.KEY).as(SortedStats.V),
          col(ReuseJob.BLOCKS).as(SortedStats.N), col(ReuseJob.TOKENS).as(SortedStats.W)));
    }
    if (hasSessions) {
      Dataset<Row> sess = requests(input.trace()).filter(col(Canonical.SESSION_ID).isNotNull()).groupBy(Canonical.SESSION_ID)
          .agg(count(lit(1)).as(Cols.REQUESTS), min(Canonical.ARRIVAL_S).as(Cols.FIRST_ARRIVAL_S),
              max(Canonical.ARRIVAL_S).as("last"),
              sum(col(Canonical.INPUT_TOKENS).plus(col(Canonical.OUTPUT_TOKENS))).as(Cols.TOKENS))
          .withColumn(Cols.DURATION_S, col("last").minus(col(Cols.FIRST_ARRIVAL_S))).drop("last")
          .persist(StorageLevel.MEMORY_AND_DISK());
      persisted.add(sess);
      p.sessions = Table.of(sess.coalesce(1).sortWithinPartitions(Cols.SESSION_ID));
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
    }
    if (!statInputs.isEmpty()) {
      Dataset<Row> all = statInputs.get(0);
      for (int i = 1; i < statInputs.size(); i++) all = all.unionByName(statInputs.get(i));
      // sorted partitions from the input size: one (no range sampling job) up to ~1M values each
      long est = p.bt.intervalRows + 3 * rt.withSession + rt.followUps();
      int maxParts = Math.max(1, Integer.parseInt(spark.conf().get("spark.sql.shuffle.partitions", "8")));
      int parts = (int) Math.max(1, Math.min(maxParts, (est + STAT_ROWS_PER_PARTITION - 1) / STAT_ROWS_PER_PARTITION));
      p.st = SortedStats.compute(spark, all, Q, lorenzPoints(), 0.25, parts, Set.of("turns"));
    }
    return p;
  }

  private static ObjectNode legacyCounters(ReuseJob.Result reuse) {
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

  /** characterization.json and the tables from either engine's parts. */
  static Result assemble(SparkSession spark, Parts p, Options opt, String location, JsonNode ingestSummary,
      List<Dataset<Row>> persisted) {
    RequestTotals rt = p.rt;
    long nReq = rt.requests;
    double first = rt.firstArrival, last = rt.lastArrival;
    long withSession = rt.withSession;
    long prefill = rt.prefillTokens, withTurn = rt.withTurn, turn0 = rt.turn0;
    boolean hasSessions = withSession > 0;
    BlockTotals bt = p.bt;
    Map<Long, long[]> hitByMinute = bt.hitByMinute, hitByTurn = bt.hitByTurn;
    long[] hitTok = bt.hitTok, hitBlk = bt.hitBlk, quality = bt.quality;
    long usedBlocks = bt.usedBlocks;
    long withBlocks = quality[ReuseJob.Q_WITH_BLOCKS];
    long mismatch = quality[ReuseJob.Q_MISMATCH], mismatchLonger = quality[ReuseJob.Q_LONGER];
    boolean hasBlocks = withBlocks > 0;
    boolean intervals = p.reuseRan && hasBlocks;
    Map<String, SortedStats.Stats> st = p.st;

    ObjectNode json = Json.object();
    json.put("format", FORMAT);
    ObjectNode params = json.putObject("parameters");
    params.put("input", location);
    params.put("instances", opt.instances());
    params.put("template_min_sessions", opt.templateMinSessions());
    params.put("interval_threshold_s", opt.intervalThresholdS());
    params.put("interval_rounding_us", 1);
    params.put("minute_clock", "arrival_s as given: minute m = [60m, 60m + 60)");
    params.put("percentiles", "weighted: smallest v whose cumulative weight reaches q; unweighted: nearest rank");

    ObjectNode tr = json.putObject("trace");
    tr.put("requests", nReq);
    tr.put("first_arrival_s", first);
    tr.put("last_arrival_s", last);
    tr.put("has_sessions", hasSessions);
    tr.put("has_blocks", hasBlocks);
    // distinct non-null session ids = the items of the "turns" distribution
    if (st.containsKey("turns")) tr.put("sessions", st.get("turns").items());
    else tr.putNull("sessions");
    ArrayNode bs = tr.putArray("block_sizes");
    for (Integer b : rt.blockSizes) bs.add(b);
    tr.put("prefill_tokens", prefill);
    tr.put("output_tokens", rt.outputTokens);
    tr.put("blocks", usedBlocks);

    ObjectNode dq = json.putObject("data_quality");
    if (ingestSummary != null) dq.set("ingest", ingestSummary);
    else dq.put("ingest", "no " + AuditLayout.INGEST_SUMMARY_FILE + " next to the trace");
    ObjectNode findings = dq.putObject("analysis");
    findings.put("block_count_mismatch_requests", mismatch);
    findings.put("block_count_mismatch_longer", mismatchLonger);
    findings.put("block_count_mismatch_shorter", mismatch - mismatchLonger);
    findings.put("block_count_mismatch_rule", "analyses use the first min(count, ceil(input_tokens / block_size)) blocks");
    findings.put("requests_without_blocks", nReq - withBlocks);
    findings.put("requests_without_session", nReq - withSession);
    findings.put("requests_without_turn", nReq - withTurn);

    Map<String, Table> tables = new LinkedHashMap<>();
    if (p.reuseRan) json.set("plan_counters", p.plan);

    long followUps = hasSessions ? rt.followUps() : 0;
    long followUpsWithParent = st.containsKey("think_us") ? st.get("think_us").items() : 0;

    // ---- section 2: ideal reuse ----
    long hitTokens = hitTok[0] + hitTok[1] + hitTok[2];
    long hitBlocks = hitBlk[0] + hitBlk[1] + hitBlk[2];
    ObjectNode reuseJ = json.putObject("reuse");
    if (hasBlocks) {
      reuseJ.set("token_weighted", Metric.ratio(hitTokens, prefill, "hit tokens",
          "prefill tokens (sum of input_tokens)", "trace has no prefill tokens").toJson());
      reuseJ.set("block_weighted", Metric.ratio(hitBlocks, usedBlocks, "hit blocks",
          "blocks (first min(count, ceil(input_tokens / block_size)) per request)", "trace has no blocks").toJson());
      reuseJ.put("hit_tokens", hitTokens);
      reuseJ.put("hit_blocks", hitBlocks);
    } else {
      reuseJ.set("token_weighted", Metric.na(NO_BLOCKS).toJson());
      reuseJ.set("block_weighted", Metric.na(NO_BLOCKS).toJson());
    }
    reuseJ.put("per_minute_table", T_REUSE_MINUTE);
    reuseJ.put("per_turn_table", T_REUSE_TURN);
    tables.put(T_REUSE_MINUTE, minuteTable(rt, hitByMinute, first, last, hasBlocks));
    if (withTurn > 0) tables.put(T_REUSE_TURN, turnTable(rt, hitByTurn, hasBlocks));

    // ---- section 3: sources ----
    ObjectNode src = json.putObject("reuse_by_source");
    src.put("template_min_sessions", opt.templateMinSessions());
    for (Source so : Source.values()) {
      ObjectNode o = src.putObject(so.label);
      if (!hasBlocks) {
        o.set("share_of_hit_tokens", Metric.na(NO_BLOCKS).toJson());
        o.set("share_of_prefill_tokens", Metric.na(NO_BLOCKS).toJson());
      } else if (!hasSessions) {
        o.set("share_of_hit_tokens", Metric.na(NO_SESSIONS).toJson());
        o.set("share_of_prefill_tokens", Metric.na(NO_SESSIONS).toJson());
      } else {
        o.set("share_of_hit_tokens", Metric.ratio(hitTok[so.ordinal()], hitTokens, so.label + " hit tokens",
            "hit tokens", NO_HITS).toJson());
        o.set("share_of_prefill_tokens", Metric.ratio(hitTok[so.ordinal()], prefill, so.label + " hit tokens",
            "prefill tokens", "trace has no prefill tokens").toJson());
        o.put("hit_tokens", hitTok[so.ordinal()]);
      }
    }

    // ---- section 4: intervals ----
    ObjectNode iv = json.putObject("reuse_interval");
    iv.put("threshold_s", opt.intervalThresholdS());
    iv.put("cdf_table", T_INTERVAL_CDF);
    Map<String, Long> within = new TreeMap<>();
    if (intervals) {
      for (int so = 0; so < 3; so++) {
        if (bt.withinBySrc[so] != null) within.put(Source.values()[so].label, bt.withinBySrc[so]);
      }
      within.put(Source.ALL, within.values().stream().mapToLong(Long::longValue).sum());
      tables.put(T_INTERVAL_CDF, intervalCdf(bt.cdfBuckets));
    }
    List<String> ivGroups = new ArrayList<>(List.of(Source.ALL));
    for (Source so : Source.values()) ivGroups.add(so.label);
    for (String gname : ivGroups) {
      ObjectNode o = iv.putObject(gname);
      String reason = !hasBlocks ? NO_BLOCKS : (!hasSessions && !gname.equals(Source.ALL)) ? NO_SESSIONS : null;
      SortedStats.Stats x = st.get("interval:" + gname);
      if (reason == null && x == null) reason = gname.equals(Source.ALL) ? NO_HITS : "no hit tokens from this source";
      for (int i = 0; i < Q.length; i++) {
        o.set(QN[i] + "_s", reason != null ? Metric.na(reason).toJson() : Metric.of(x.quantiles()[i] / 1e6, "s").toJson());
      }
      o.set("share_within_threshold", reason != null ? Metric.na(reason).toJson()
          : Metric.ratio(within.getOrDefault(gname, 0L), x.weight(), "hit tokens with interval <= threshold",
              "hit tokens", NO_HITS).toJson());
      if (reason == null) o.put("hit_tokens", x.weight());
    }

    // ---- section 5: sessions ----
    ObjectNode se = json.putObject("sessions");
    sessionSection(se, rt, st, hasSessions, nReq, turn0, followUps, followUpsWithParent, tables, p.sessions);

    // ---- section 7: request / instance ratio ----
    ratioSection(json.putObject("request_instance_ratio"), rt, first, last, tables, opt.instances());

    ObjectNode tj = json.putObject("tables");
    for (String t : tables.keySet()) tj.put(t, t + "/");
    return new Result(json, tables, persisted);
  }

  private static void sessionSection(ObjectNode se, RequestTotals rt, Map<String, SortedStats.Stats> st,
      boolean hasSessions, long nReq, long turn0, long followUps, long followUpsWithParent, Map<String, Table> tables,
      Table sessions) {
    if (!hasSessions) {
      se.set("first_turn_fraction", Metric.na(NO_SESSIONS).toJson());
      se.set("trigger_mix", Metric.na(NO_SESSIONS).toJson());
      se.set("turns_per_session", Metric.na(NO_SESSIONS).toJson());
      se.set("duration_s", Metric.na(NO_SESSIONS).toJson());
      se.set("think_time_s", Metric.na(NO_SESSIONS).toJson());
      se.set("token_skew", Metric.na(NO_SESSIONS).toJson());
      return;
    }
    se.set("first_turn_fraction", Metric.ratio(turn0, nReq, "requests with turn 0", "requests", "no requests").toJson());
    // trigger mix (sorted by trigger: a TreeMap)
    ObjectNode mix = se.putObject("trigger_mix");
    ObjectNode allM = mix.putObject("all_requests");
    ObjectNode fuM = mix.putObject("follow_ups");
    List<Object[]> trigRows = new ArrayList<>();
    for (var e : rt.byTrigger.entrySet()) {
      String t = e.getKey();
      long n = e.getValue()[0], f = e.getValue()[1];
      allM.set(t, Metric.ratio(n, nReq, "requests with trigger " + t, "requests", "no requests").toJson());
      fuM.set(t, Metric.ratio(f, followUps, "follow-ups with trigger " + t, "follow-ups (turn > 0)",
          "trace has no follow-up requests").toJson());
      trigRows.add(new Object[] {"all_requests", t, n, (double) n / nReq});
      trigRows.add(new Object[] {"follow_ups", t, f, followUps == 0 ? null : (double) f / followUps});
    }
    tables.put(T_TRIGGERS, Table.of(Table.cols(Cols.SCOPE, Table.Kind.STRING, Cols.TRIGGER, Table.Kind.STRING,
        Cols.REQUESTS, Table.Kind.LONG, Cols.SHARE, Table.Kind.DOUBLE), trigRows));
    se.put("follow_ups", followUps);

    SortedStats.Stats turns = st.get("turns");
    ObjectNode tp = se.putObject("turns_per_session");
    tp.set("mean", Metric.of(turns.mean()).toJson());
    for (int i = 0; i < Q.length; i++) tp.set(QN[i], Metric.of(turns.quantiles()[i]).toJson());
    tp.set("max", Metric.of(turns.max()).toJson());
    tp.put("table", T_TURNS);
    // the turns distribution's (value, items) rows are the histogram: no further job
    List<Object[]> hist = new ArrayList<>();
    for (long[] h : turns.histogram()) hist.add(new Object[] {h[0], h[1]});
    tables.put(T_TURNS, Table.of(Table.cols(Cols.REQUESTS, Table.Kind.LONG, Cols.SESSIONS, Table.Kind.LONG), hist));

    SortedStats.Stats dur = st.get("duration_us");
    ObjectNode du = se.putObject("duration_s");
    du.set("mean", Metric.of(dur.mean() / 1e6, "s").toJson());
    for (int i = 0; i < Q.length; i++) du.set(QN[i], Metric.of(dur.quantiles()[i] / 1e6, "s").toJson());
    du.set("max", Metric.of(dur.max() / 1e6, "s").toJson());

    SortedStats.Stats th = st.get("think_us");
    ObjectNode tt = se.putObject("think_time_s");
    tt.put("follow_ups_with_parent_in_trace", followUpsWithParent);
    tt.put("follow_ups_without_parent_in_trace", followUps - followUpsWithParent);
    if (th == null) {
      for (String k : new String[] {"mean", "p50", "p90", "p99", "max"}) tt.set(k, Metric.na(NO_FOLLOW_UP_PARENTS).toJson());
    } else {
      tt.set("mean", Metric.of(th.mean() / 1e6, "s").toJson());
      for (int i = 0; i < Q.length; i++) tt.set(QN[i], Metric.of(th.quantiles()[i] / 1e6, "s").toJson());
      tt.set("max", Metric.of(th.max() / 1e6, "s").toJson());
    }

    SortedStats.Stats tok = st.get("tokens");
    ObjectNode sk = se.putObject("token_skew");
    sk.put("session_tokens", "input_tokens + output_tokens over the session's requests");
    sk.put("top_sessions", (long) Math.ceil(0.25 * tok.items()));
    String reason = tok.weight() == 0 ? "sessions hold no tokens" : null;
    sk.set("top_25pct_share", reason != null ? Metric.na(reason).toJson() : Metric.of(tok.topShare()).toJson());
    sk.set("gini", reason != null ? Metric.na(reason).toJson() : Metric.of(tok.gini()).toJson());
    sk.put("lorenz_table", T_LORENZ);
    List<Object[]> lz = new ArrayList<>();
    for (int i = 0; i < tok.lorenzPopulation().length; i++) lz.add(new Object[] {tok.lorenzPopulation()[i], tok.lorenzShare()[i]});
    tables.put(T_LORENZ, Table.of(Table.cols(Cols.POPULATION_SHARE, Table.Kind.DOUBLE, Cols.TOKEN_SHARE, Table.Kind.DOUBLE), lz));
    tables.put(T_SESSIONS, sessions);
  }

  private static void ratioSection(ObjectNode o, RequestTotals rt, double first, double last, Map<String, Table> tables,
      int instances) {
    o.put("instances", instances);
    long mFirst = (long) Math.ceil(first / 60.0);
    long mLast = (long) Math.floor(last / 60.0) - 1; // [60m, 60m + 60) must end by the last arrival
    List<Object[]> rows = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    for (long m = mFirst; m <= mLast; m++) {
      long[] v = rt.byMinute.get(m);
      long a = v == null ? 0L : v[0];
      double ratio = (double) a / instances;
      ratios.add(ratio);
      rows.add(new Object[] {m, 60.0 * m, a, ratio});
    }
    o.put("whole_minutes", ratios.size());
    o.put("table", T_RATIO);
    tables.put(T_RATIO, Table.of(Table.cols(Cols.MINUTE, Table.Kind.LONG, Cols.MINUTE_START_S, Table.Kind.DOUBLE,
        Cols.ARRIVALS, Table.Kind.LONG, Cols.RATIO, Table.Kind.DOUBLE), rows));
    if (ratios.isEmpty()) {
      for (String k : new String[] {"mean", "min", "p5", "p50"}) o.set(k, Metric.na(NO_WHOLE_MINUTE).toJson());
      return;
    }
    double sumR = 0;
    for (double r : ratios) sumR += r;
    List<Double> sorted = new ArrayList<>(ratios);
    sorted.sort(Double::compare);
    o.set("mean", Metric.of(sumR / ratios.size()).toJson());
    o.set("min", Metric.of(sorted.get(0)).toJson());
    o.set("p5", Metric.of(nearestRank(sorted, 0.05)).toJson());
    o.set("p50", Metric.of(nearestRank(sorted, 0.5)).toJson());
  }

  /** Unweighted nearest rank: sorted[ceil(q n) - 1]. */
  static double nearestRank(List<Double> sorted, double q) {
    int idx = (int) Math.ceil(new java.math.BigDecimal(Double.toString(q))
        .multiply(java.math.BigDecimal.valueOf(sorted.size())).doubleValue()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, idx)));
  }

  private static List<Table.Col> seriesCols(String key, Table.Kind keyKind, boolean minuteStart) {
    List<Table.Col> c = new ArrayList<>();
    c.add(new Table.Col(key, keyKind, true));
    if (minuteStart) c.add(new Table.Col(Cols.MINUTE_START_S, Table.Kind.DOUBLE, true));
    c.addAll(Table.cols(Cols.REQUESTS, Table.Kind.LONG, Cols.PREFILL_TOKENS, Table.Kind.LONG, Cols.BLOCKS, Table.Kind.LONG,
        Cols.HIT_TOKENS, Table.Kind.LONG, Cols.HIT_BLOCKS, Table.Kind.LONG, Cols.hitTokens(Source.INTRA_SESSION),
        Table.Kind.LONG, Cols.hitTokens(Source.SYSTEM_PROMPT), Table.Kind.LONG, Cols.hitTokens(Source.INTER_SESSION),
        Table.Kind.LONG, Cols.REUSE_TOKEN, Table.Kind.DOUBLE, Cols.REUSE_BLOCK, Table.Kind.DOUBLE));
    return c;
  }

  private static Object[] seriesValues(long n, long prefill, long[] hit, boolean hasBlocks) {
    if (n == 0) return new Object[] {0L, null, null, null, null, null, null, null, null, null};
    if (!hasBlocks) return new Object[] {n, prefill, null, null, null, null, null, null, null, null};
    long[] h = hit == null ? new long[7] : hit;
    long blocks = h[6];
    long ht = h[0] + h[1] + h[2], hb = h[3] + h[4] + h[5];
    return new Object[] {n, prefill, blocks, ht, hb, h[0], h[1], h[2],
        prefill == 0 ? null : (double) ht / prefill, blocks == 0 ? null : (double) hb / blocks};
  }

  private static Table minuteTable(RequestTotals rt, Map<Long, long[]> hit, double first, double last, boolean hasBlocks) {
    List<Object[]> out = new ArrayList<>();
    for (long m = (long) Math.floor(first / 60.0); m <= (long) Math.floor(last / 60.0); m++) {
      long[] r = rt.byMinute.get(m);
      Object[] v = r == null ? seriesValues(0, 0, null, hasBlocks) : seriesValues(r[0], r[1], hit.get(m), hasBlocks);
      Object[] row = new Object[v.length + 2];
      row[0] = m;
      row[1] = 60.0 * m;
      System.arraycopy(v, 0, row, 2, v.length);
      out.add(row);
    }
    return Table.of(seriesCols(Cols.MINUTE, Table.Kind.LONG, true), out);
  }

  private static Table turnTable(RequestTotals rt, Map<Long, long[]> hit, boolean hasBlocks) {
    List<Object[]> out = new ArrayList<>();
    for (var e : rt.byTurn.long2ObjectEntrySet()) {
      int t = (int) e.getLongKey();
      Object[] v = seriesValues(e.getValue()[0], e.getValue()[1], hit.get((long) t), hasBlocks);
      Object[] row = new Object[v.length + 1];
      row[0] = t;
      System.arraycopy(v, 0, row, 1, v.length);
      out.add(row);
    }
    return Table.of(seriesCols(Cols.TURN, Table.Kind.INT, false), out);
  }

  /** Sorted statistics: values per sorted partition (the range sampling job only pays off above this). */
  private static final long STAT_ROWS_PER_PARTITION = 1L << 20;

  /** Log bucket of an interval: 20 per decade of microseconds; -1 for a zero interval (same arithmetic as SQL's log10/ceil). */
  static int bucket(long us) {
    if (us <= 0) return -1;
    return (int) (long) Math.ceil(StrictMath.log10((double) us) * 20 - 1e-9);
  }

  /** Token-weighted CDF on log buckets (20 per decade of microseconds), per source and overall, from the bucket sums. */
  private static Table intervalCdf(Map<String, TreeMap<Integer, Long>> buckets) {
    List<Object[]> out = new ArrayList<>();
    for (var e : new TreeMap<>(buckets).entrySet()) {
      long total = 0;
      for (long t : e.getValue().values()) total += t;
      long cum = 0;
      for (var b : e.getValue().entrySet()) {
        cum += b.getValue();
        int k = b.getKey();
        double le = k < 0 ? 0.0 : StrictMath.pow(10.0, k / 20.0) / 1e6;
        out.add(new Object[] {e.getKey(), le, b.getValue(), (double) cum / total});
      }
    }
    return Table.of(Table.cols(Cols.SOURCE, Table.Kind.STRING, Cols.INTERVAL_LE_S, Table.Kind.DOUBLE, Cols.TOKENS,
        Table.Kind.LONG, Cols.CUM_SHARE, Table.Kind.DOUBLE), out);
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
        if (kind != ReuseJob.KIND_INTERVAL) {
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
      if (kind == ReuseJob.KIND_QUALITY) {
        quality[(int) key] += tok;
        return;
      }
      if (kind == ReuseJob.KIND_INTERVAL) {
        intervalRows++;
        if (key <= thrUs) withinBySrc[src] = (withinBySrc[src] == null ? 0 : withinBySrc[src]) + tok;
        int b = bucket(key);
        cdfBuckets.computeIfAbsent(Source.ALL, k -> new TreeMap<>()).merge(b, tok, Long::sum);
        cdfBuckets.computeIfAbsent(Source.values()[src].label, k -> new TreeMap<>()).merge(b, tok, Long::sum);
        return;
      }
      Map<Long, long[]> m = kind == ReuseJob.KIND_MINUTE ? hitByMinute : hitByTurn;
      long[] v = m.computeIfAbsent(key, k -> new long[7]);
      if (src == ReuseJob.SRC_ALL_BLOCKS) {
        v[6] += blk;
        if (kind == ReuseJob.KIND_MINUTE) usedBlocks += blk;
        return;
      }
      v[src] += tok;
      v[3 + src] += blk;
      if (kind == ReuseJob.KIND_MINUTE) {
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
