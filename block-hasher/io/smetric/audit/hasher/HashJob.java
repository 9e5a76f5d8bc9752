package io.smetric.audit.hasher;

import static io.smetric.audit.contract.AuditLayout.HASH_SUMMARY_FILE;
import static io.smetric.audit.contract.AuditLayout.TRACE_DIR;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.SerializableConf;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.HashSummary;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The block-hasher as a Spark job: raw chat logs in, a canonical hashed trace out
 * (docs/block-hasher.md). One task per log file streams it through {@link FileHasher} into a
 * staging Parquet inside the output's temporary folder; the driver-side steps then read that
 * staging data only: previous-request parents per session, arrivals rebased to the first logged
 * timestamp, optional dense ids, BlockChain chaining, and the sort by (arrival_s, seq).
 *
 * <p>The stage as one job (docs/architecture.md, "Stage jobs"): {@link Options} in; the
 * constructor resolves the log files (a missing one fails before any output is opened);
 * {@link #run} writes {@code trace/}, {@code hash-summary.json} and, on request, {@code trace.jsonl}
 * into the folder it is given, under the job group {@link #JOB_GROUP}; an immutable {@link Result}
 * out. The folder is not committed: the caller owns it (the hash command commits it, the audit
 * commits its whole folder once).
 */
public final class HashJob {
  /** The Spark job group the stage's jobs run under (the Spark UI names them by it). */
  public static final String JOB_GROUP = "smetric-hash";

  public static final String JSONL_FILE = "trace.jsonl";
  private static final String STAGING = "staging";
  /** Extensions taken when an input is a folder (explicit files are always taken). */
  private static final String[] LOG_EXTENSIONS = {".jsonl", ".json", ".traj", ".ndjson"};

  /** The command's options (settings without the file count, which the job fills in). */
  public record Options(
      List<String> inputs,
      TokenizerSpec tokenizer,
      HashKey key,
      int blockSize,
      LogFormat format,
      double sessionGapS,
      double thinkTimeS,
      double timestampUnitS,
      int sessionCacheSize,
      boolean denseIds,
      boolean jsonl,
      String messagesPath) {
    /** Options without --messages-path. */
    public Options(List<String> inputs, TokenizerSpec tokenizer, HashKey key, int blockSize, LogFormat format, double sessionGapS,
        double thinkTimeS, double timestampUnitS, int sessionCacheSize, boolean denseIds, boolean jsonl) {
      this(inputs, tokenizer, key, blockSize, format, sessionGapS, thinkTimeS, timestampUnitS, sessionCacheSize, denseIds, jsonl, null);
    }
  }

  /** What the run produced; {@code summary} is the content of hash-summary.json. */
  public record Result(HashSummary summary, long requests, long skipped) {}

  private final SparkSession spark;
  private final Options o;
  private final List<String> files;
  private final HashSettings settings;

  /**
   * Resolves the log files (files, folders, globs) and the settings; a missing file or a bad
   * setting fails here, before any output is opened.
   */
  public HashJob(SparkSession spark, Options options) {
    this.spark = spark;
    this.o = options;
    this.files = expand(options.inputs(), spark.sparkContext().hadoopConfiguration());
    this.settings = new HashSettings(o.tokenizer(), o.key(), o.blockSize(), o.format(), o.sessionGapS(),
        o.thinkTimeS(), o.timestampUnitS(), files.size(), o.sessionCacheSize(), o.messagesPath());
  }

  /** Hashes the logs and writes the stage's output into {@code dir} (not committed). */
  public Result run(OutputDir dir) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    spark.sparkContext().setJobGroup(JOB_GROUP, "block-hasher: " + files.size() + " log file(s)", false);
    try {
      String staging = dir.child(STAGING);
      hashFiles(spark, files, settings, conf).write().parquet(staging);

      Dataset<Row> st = spark.read().schema(StagingRows.SCHEMA).parquet(staging);
      // a file that is bad input as a whole fails the run here, on the driver, with its one-line reason
      List<Row> errors = st.filter(col(StagingRows.KIND).equalTo(StagingRows.KIND_ERROR))
          .orderBy(StagingRows.FILE_INDEX).limit(1).select(StagingRows.DETAIL).collectAsList();
      if (!errors.isEmpty()) throw StagingRows.badInput(errors.get(0).getString(0));
      List<Row> fileRows = st.filter(col(StagingRows.KIND).equalTo(StagingRows.KIND_FILE))
          .orderBy(StagingRows.FILE_INDEX).collectAsList();
      // counters and the earliest log timestamp come from the per-file rows: no extra pass
      long skipCount = 0;
      long requestCount = 0;
      double base = Double.POSITIVE_INFINITY;
      long[] unitsBefore = new long[files.size()]; // synthetic units (conversations) in earlier files
      long units = 0;
      List<HashSummary.FileEntry> perFile = new ArrayList<>();
      for (Row f : fileRows) {
        HashSummary.FileEntry c = counters(f);
        perFile.add(c);
        unitsBefore[f.getInt(f.fieldIndex(StagingRows.FILE_INDEX))] = units;
        units += c.syntheticUnits();
        skipCount += c.skipped();
        requestCount += c.requests();
        if (c.minLogTimeS() != null) base = Math.min(base, c.minLogTimeS());
      }
      // never a silent empty run: no request at all is bad input, with what each file was read as and why
      if (requestCount == 0) throw new BadInputException(null, emptyRunMessage(perFile));
      List<Row> firstSkips = skipCount == 0 ? List.of()
          : st.filter(col(StagingRows.KIND).equalTo(StagingRows.KIND_SKIP)).orderBy(StagingRows.SEQ).limit(200)
              .select(StagingRows.DETAIL).collectAsList();

      Dataset<Row> trace = canonical(spark, st.filter(col(StagingRows.KIND).equalTo(StagingRows.KIND_REQUEST)),
              Double.isInfinite(base) ? 0.0 : base, unitsBefore, o.sessionGapS(), o.denseIds())
          .orderBy(col(Canonical.ARRIVAL_S), col(Canonical.SEQ))
          .persist(StorageLevel.MEMORY_AND_DISK());
      try {
        trace.select(canonicalColumns()).write().parquet(dir.child(TRACE_DIR));
        Row totals = trace.agg(
                functions.count(lit(1)),
                functions.sum(Canonical.INPUT_TOKENS),
                functions.sum(Canonical.OUTPUT_TOKENS),
                functions.sum(functions.size(col(Canonical.BLOCKS))),
                functions.countDistinct(col(Canonical.SESSION_ID)),
                functions.min(Canonical.ARRIVAL_S),
                functions.max(Canonical.ARRIVAL_S))
            .first();
        if (o.jsonl()) writeJsonl(dir, trace);
        HashSummary summary = summary(o, settings, files, fileRows, skipCount, firstSkips, totals);
        dir.writeString(HASH_SUMMARY_FILE, Json.MAPPER.writeValueAsString(summary.toJson()) + "\n");
        dir.fs().delete(new Path(staging), true);
        return new Result(summary, totals.getLong(0), skipCount);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        trace.unpersist();
      }
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  /** One task per file: each streams its file into staging rows. */
  static Dataset<Row> hashFiles(SparkSession spark, List<String> files, HashSettings settings, Configuration conf) {
    List<Tuple2<Integer, String>> indexed = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) indexed.add(new Tuple2<>(i, files.get(i)));
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    // broadcast: deserialised once per executor, not once per task (a Hadoop conf costs ~30-60 ms)
    Broadcast<SerializableConf> sc = jsc.broadcast(new SerializableConf(conf));
    JavaRDD<Row> rows = jsc
        .parallelize(indexed, Math.max(1, indexed.size()))
        .flatMap((FlatMapFunction<Tuple2<Integer, String>, Row>) f -> StagingRows.untilBadInput(f._1, () -> {
          FileHasher h = new FileHasher(settings, f._1, f._2, sc.value().get());
          org.apache.spark.TaskContext tc = org.apache.spark.TaskContext.get();
          if (tc != null) tc.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) ctx -> h.close());
          return h;
        }));
    return spark.createDataFrame(rows, StagingRows.SCHEMA);
  }

  /**
   * Staging request rows to canonical rows plus the source ids: arrival rebased, parent = the
   * log's explicit parent, else the previous request of the same session (by arrival, then seq),
   * ids optionally densified, and {@code blocks} = BlockChain.chain(source ids).
   */
  static Dataset<Row> canonical(SparkSession spark, Dataset<Row> req, double base, long[] unitsBefore, double gapS,
      boolean dense) {
    // synthetic: (units in earlier files + index in file) * gap + offset; logged: rebased to base
    org.apache.spark.sql.Column before = functions.array(
        java.util.Arrays.stream(unitsBefore).mapToObj(v -> lit(v)).toArray(org.apache.spark.sql.Column[]::new));
    var ordinal = functions.element_at(before, col(StagingRows.FILE_INDEX).plus(1)).plus(col(StagingRows.SYNTH_INDEX));
    Dataset<Row> r = req.withColumn(Canonical.ARRIVAL_S,
        when(col(StagingRows.SYNTHETIC), ordinal.multiply(lit(gapS)).plus(col(StagingRows.TIME_S)))
            .otherwise(col(StagingRows.TIME_S).minus(lit(base))));
    // parents by a window over sessions; session-less rows (possibly most of an OpenAI log) stay
    // out of it, so that they do not all land in the one window partition of the null key
    var w = Window.partitionBy(col(StagingRows.SESSION_ID)).orderBy(col(Canonical.ARRIVAL_S), col(StagingRows.SEQ));
    Dataset<Row> withSession = r.filter(col(StagingRows.SESSION_ID).isNotNull())
        .withColumn(Canonical.PARENT_ID, coalesce(col(StagingRows.EXPLICIT_PARENT), lag(col(StagingRows.REQUEST_ID), 1).over(w)));
    Dataset<Row> without = r.filter(col(StagingRows.SESSION_ID).isNull())
        .withColumn(Canonical.PARENT_ID, col(StagingRows.EXPLICIT_PARENT));
    r = withSession.unionByName(without);
    if (dense) r = densify(spark, r);
    StructType out = Canonical.SCHEMA.add(StagingRows.HASH_IDS, DataTypes.createArrayType(DataTypes.LongType, false), false);
    return r.map((MapFunction<Row, Row>) x -> {
      List<Long> ids = x.getList(x.fieldIndex(StagingRows.HASH_IDS));
      long[] src = new long[ids.size()];
      for (int i = 0; i < src.length; i++) src[i] = ids.get(i);
      return RowFactory.create(
          x.getString(x.fieldIndex(StagingRows.REQUEST_ID)),
          x.get(x.fieldIndex(StagingRows.SESSION_ID)),
          x.get(x.fieldIndex(Canonical.PARENT_ID)),
          x.get(x.fieldIndex(StagingRows.TURN)),
          x.getString(x.fieldIndex(StagingRows.TRIGGER)),
          x.getDouble(x.fieldIndex(Canonical.ARRIVAL_S)),
          x.getInt(x.fieldIndex(StagingRows.INPUT_TOKENS)),
          x.getInt(x.fieldIndex(StagingRows.OUTPUT_TOKENS)),
          x.get(x.fieldIndex(StagingRows.BLOCK_SIZE)),
          BlockChain.chain(src),
          null,
          x.getLong(x.fieldIndex(StagingRows.SEQ)),
          x.get(x.fieldIndex(StagingRows.PROVIDER_INPUT_TOKENS)),
          x.get(x.fieldIndex(StagingRows.PROVIDER_CACHED_TOKENS)),
          x.get(x.fieldIndex(StagingRows.PROVIDER_CACHE_WRITE_TOKENS)),
          x.get(x.fieldIndex(StagingRows.PROVIDER_CACHE)),
          x.get(x.fieldIndex(StagingRows.SERVED_INSTANCE)),
          x.get(x.fieldIndex(StagingRows.TTFT_S)),
          x.get(x.fieldIndex(StagingRows.E2E_S)),
          x.get(x.fieldIndex(StagingRows.OUTCOME)),
          src);
    }, Encoders.row(out));
  }

  /**
   * Replaces every keyed hash by a dense id 0, 1, 2... in order of first appearance (by arrival,
   * seq, then block position), as the public Bailian traces are remapped. Equal dense id iff equal
   * keyed hash, so prefix identity is kept.
   */
  static Dataset<Row> densify(SparkSession spark, Dataset<Row> r) {
    Dataset<Row> exploded = r.select(col(StagingRows.SEQ), col(Canonical.ARRIVAL_S),
        functions.posexplode(col(StagingRows.HASH_IDS)).as(new String[] {"pos", "h"}));
    Dataset<Row> firsts = exploded.groupBy("h")
        .agg(functions.min(functions.struct(col(Canonical.ARRIVAL_S), col(StagingRows.SEQ), col("pos"))).as("first"));
    JavaRDD<Row> ranked = firsts.orderBy("first").select("h").javaRDD().zipWithIndex()
        .map(t -> RowFactory.create(t._1.getLong(0), t._2));
    Dataset<Row> dict = spark.createDataFrame(ranked,
        new StructType().add("h", DataTypes.LongType, false).add("dense", DataTypes.LongType, false));
    Dataset<Row> remapped = exploded.join(dict, "h")
        .groupBy(StagingRows.SEQ)
        .agg(functions.sort_array(functions.collect_list(functions.struct(col("pos"), col("dense")))).as("l"))
        .select(col(StagingRows.SEQ), functions.expr("transform(l, x -> x.dense)").as("dense_ids"));
    return r.join(remapped, r.col(StagingRows.SEQ).equalTo(remapped.col(StagingRows.SEQ)), "left")
        .drop(remapped.col(StagingRows.SEQ))
        .withColumn(StagingRows.HASH_IDS, coalesce(col("dense_ids"), functions.array().cast("array<bigint>")))
        .drop("dense_ids");
  }

  private static org.apache.spark.sql.Column[] canonicalColumns() {
    String[] names = Canonical.SCHEMA.fieldNames();
    org.apache.spark.sql.Column[] c = new org.apache.spark.sql.Column[names.length];
    for (int i = 0; i < names.length; i++) c[i] = col(names[i]);
    return c;
  }

  /** The smetric JSONL the ingest reads, in trace order, streamed partition by partition. */
  private static void writeJsonl(OutputDir dir, Dataset<Row> trace) throws IOException {
    try (Writer w = new BufferedWriter(new OutputStreamWriter(dir.create(JSONL_FILE), StandardCharsets.UTF_8), 1 << 16)) {
      Iterator<Row> it = trace.toLocalIterator();
      while (it.hasNext()) {
        Row x = it.next();
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("request_id", x.getString(x.fieldIndex(Canonical.REQUEST_ID)));
        n.put("session_id", (String) x.get(x.fieldIndex(Canonical.SESSION_ID)));
        n.put("parent_id", (String) x.get(x.fieldIndex(Canonical.PARENT_ID)));
        n.put("turn", (Integer) x.get(x.fieldIndex(Canonical.TURN)));
        n.put("trigger", x.getString(x.fieldIndex(Canonical.TRIGGER)));
        n.put("arrival_s", x.getDouble(x.fieldIndex(Canonical.ARRIVAL_S)));
        n.put("input_tokens", x.getInt(x.fieldIndex(Canonical.INPUT_TOKENS)));
        n.put("output_tokens", x.getInt(x.fieldIndex(Canonical.OUTPUT_TOKENS)));
        n.put("block_size", (Integer) x.get(x.fieldIndex(Canonical.BLOCK_SIZE)));
        if (!x.isNullAt(x.fieldIndex(Canonical.PROVIDER_CACHE))) {
          n.put(Canonical.PROVIDER_CACHE, x.getString(x.fieldIndex(Canonical.PROVIDER_CACHE)));
          n.put(Canonical.PROVIDER_INPUT_TOKENS, (Integer) x.get(x.fieldIndex(Canonical.PROVIDER_INPUT_TOKENS)));
          n.put(Canonical.PROVIDER_CACHED_TOKENS, (Integer) x.get(x.fieldIndex(Canonical.PROVIDER_CACHED_TOKENS)));
          Object written = x.get(x.fieldIndex(Canonical.PROVIDER_CACHE_WRITE_TOKENS));
          if (written != null) n.put(Canonical.PROVIDER_CACHE_WRITE_TOKENS, (Integer) written);
        }
        // recorded routing (trace-model v1.3), each only where the log had it
        Object inst = x.get(x.fieldIndex(Canonical.SERVED_INSTANCE));
        if (inst != null) n.put(Canonical.SERVED_INSTANCE, (String) inst);
        Object ttft = x.get(x.fieldIndex(Canonical.TTFT_S));
        if (ttft != null) n.put(Canonical.TTFT_S, (Double) ttft);
        Object e2e = x.get(x.fieldIndex(Canonical.E2E_S));
        if (e2e != null) n.put(Canonical.E2E_S, (Double) e2e);
        Object outcome = x.get(x.fieldIndex(Canonical.OUTCOME));
        if (outcome != null) n.put(Canonical.OUTCOME, (String) outcome);
        ArrayNode ids = n.putArray("hash_ids");
        for (Object id : x.getList(x.fieldIndex(StagingRows.HASH_IDS))) ids.add((Long) id);
        w.write(LINE.writeValueAsString(n));
        w.write('\n');
      }
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper LINE = new com.fasterxml.jackson.databind.ObjectMapper();

  /** A file whose skipped records exceed this share of its records gets a warning (console and report). */
  public static final double SKIPPED_WARNING_SHARE = 0.5;

  /** The warnings of a run: one per file with more than half of its records skipped. */
  static List<String> warnings(List<HashSummary.FileEntry> perFile) {
    List<String> out = new ArrayList<>();
    for (HashSummary.FileEntry c : perFile) {
      long records = c.records();
      long skipped = c.skipped();
      if (skipped > 0 && skipped > SKIPPED_WARNING_SHARE * Math.max(records, 1)) {
        out.add(String.format(Locale.ROOT, "%s: %d of %d record(s) skipped (read as %s; %s)", c.file(),
            skipped, records, c.format(), topReasons(c, 3)));
      }
    }
    return out;
  }

  /** The top skip reasons of a file's counters with their counts. */
  static String topReasons(HashSummary.FileEntry c, int n) {
    List<String> r = new ArrayList<>();
    for (java.util.Map.Entry<String, Long> e : c.skipReasons().entrySet()) {
      if (r.size() == n) break;
      r.add(e.getKey() + " (" + e.getValue() + ")");
    }
    return r.isEmpty() ? "no record skipped" : "top reasons: " + String.join("; ", r);
  }

  /**
   * The error for a run that yields no request: per file the format it was read as, its records and
   * skips with the top reasons, and the other formats that fit its first records. Files with the
   * same outcome are listed once with their count (99 trajectories read the same wrong way are one line).
   */
  static String emptyRunMessage(List<HashSummary.FileEntry> perFile) {
    java.util.LinkedHashMap<String, List<HashSummary.FileEntry>> groups = new java.util.LinkedHashMap<>();
    for (HashSummary.FileEntry c : perFile) {
      List<String> fits = new ArrayList<>(c.formatsThatFit());
      fits.remove(c.format());
      String outcome = String.format(Locale.ROOT, "read as %s; %s; %s", c.format(), topReasons(c, 3),
          fits.isEmpty() ? "no other format fits its first records" : "formats that fit its first records: " + String.join(", ", fits));
      groups.computeIfAbsent(outcome, k -> new ArrayList<>()).add(c);
    }
    StringBuilder b = new StringBuilder("no request could be read from the " + perFile.size() + " input file(s):");
    int shown = 0;
    for (java.util.Map.Entry<String, List<HashSummary.FileEntry>> g : groups.entrySet()) {
      if (shown++ == 10) {
        b.append(String.format(Locale.ROOT, "%n  ... and %d more outcome(s)", groups.size() - 10));
        break;
      }
      HashSummary.FileEntry c = g.getValue().get(0);
      long records = g.getValue().stream().mapToLong(HashSummary.FileEntry::records).sum();
      long skipped = g.getValue().stream().mapToLong(HashSummary.FileEntry::skipped).sum();
      String who = g.getValue().size() == 1 ? c.file()
          : c.file() + " and " + (g.getValue().size() - 1) + " more file(s) alike";
      b.append(String.format(Locale.ROOT, "%n  %s: %d record(s), %d skipped; %s", who, records, skipped, g.getKey()));
    }
    b.append(String.format(Locale.ROOT, "%nName the format with --log-format (%s), a record's message list with --messages-path, or see docs/block-hasher.md (input formats).", LogFormat.names()));
    return b.toString();
  }

  private static HashSummary summary(Options o, HashSettings s, List<String> files, List<Row> fileRows, long skipCount,
      List<Row> firstSkips, Row totals) {
    long conversations = 0, records = 0, synth = 0, logged = 0, outMissing = 0, noSession = 0, cacheRequests = 0, recorded = 0;
    List<HashSummary.FileEntry> perFile = new ArrayList<>();
    for (Row f : fileRows) {
      HashSummary.FileEntry c = counters(f);
      perFile.add(c);
      cacheRequests += c.providerCacheRequests();
      recorded += c.recordedRequests() == null ? 0 : c.recordedRequests();
      conversations += c.conversations();
      records += c.records();
      synth += c.syntheticArrivals();
      logged += c.logTimestamps();
      outMissing += c.outputTokensMissing();
      noSession += c.requestsWithoutSession();
    }
    List<String> reasons = new ArrayList<>();
    for (Row r : firstSkips) reasons.add(r.getString(0));
    String rule = String.format(Locale.ROOT,
        "log timestamps are rebased to the earliest one; without one, conversations are numbered in input order"
            + " (file by file) and conversation i starts at i*%s s, its j-th request j*%s s later; OpenAI records"
            + " without timestamp are numbered likewise and the i-th arrives at i*%s s",
        num(s.sessionGapS()), num(s.thinkTimeS()), num(s.sessionGapS()));
    return new HashSummary(files.size(), perFile, records, conversations, totals.getLong(0), totals.getLong(4), noSession,
        totals.isNullAt(1) ? 0 : totals.getLong(1), totals.isNullAt(2) ? 0 : totals.getLong(2), outMissing,
        totals.isNullAt(3) ? 0 : totals.getLong(3), cacheRequests,
        recorded > 0 ? recorded : null, // absent when no log recorded routing (output as before v1.3)
        warnings(perFile), new HashSummary.Skipped(skipCount, reasons, firstSkips.size()), o.tokenizer().label(),
        new HashSummary.Template(HashSettings.TEMPLATE.name(), HashSettings.TEMPLATE.version()), s.blockSize(),
        "SipHash-2-4 chained: h[i] = SipHash(key, h[i-1] || tokens of block i), h[-1] = 0;"
            + " key = SHA-256(label || salt)[0..16); salt never written",
        o.denseIds(), o.format().cliName, o.messagesPath(),
        new HashSummary.Arrivals(logged, synth, rule, totals.isNullAt(5) ? null : totals.getDouble(5),
            totals.isNullAt(5) ? null : totals.getDouble(6)));
  }

  private static HashSummary.FileEntry counters(Row fileRow) {
    return HashSummary.readFile(fileRow.getString(fileRow.fieldIndex(StagingRows.DETAIL)));
  }

  private static String num(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  /** Inputs as given: files, folders (their log files, recursively, sorted) or globs. */
  public static List<String> expand(List<String> inputs, Configuration conf) {
    List<String> out = new ArrayList<>();
    try {
      for (String in : inputs) {
        Path p = new Path(in);
        FileSystem fs = p.getFileSystem(conf);
        FileStatus[] matches = fs.globStatus(p);
        if (matches == null || matches.length == 0) throw new BadInputException(in, "no such file or folder");
        java.util.Arrays.sort(matches);
        for (FileStatus st : matches) {
          if (st.isFile()) {
            out.add(st.getPath().toString());
            continue;
          }
          TreeSet<String> found = new TreeSet<>();
          RemoteIterator<LocatedFileStatus> it = fs.listFiles(st.getPath(), true);
          while (it.hasNext()) {
            Path f = it.next().getPath();
            String name = f.getName();
            if (name.startsWith(".") || name.startsWith("_")) continue;
            String base = name.replaceFirst("\\.(gz|bz2|zst|lz4|snappy|deflate)$", "");
            for (String ext : LOG_EXTENSIONS) if (base.endsWith(ext)) found.add(f.toString());
          }
          if (found.isEmpty()) throw new BadInputException(in, "the folder holds no log files (" + String.join(", ", LOG_EXTENSIONS) + ")");
          out.addAll(found);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
