package io.smetric.audit.ingest;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.smetric.audit.contract.Canonical;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;

/**
 * The second ingest pass, only where the data needs it: duplicate request ids (the first
 * occurrence in input order is kept, the others quarantined), Bailian sessions from parent
 * chains, Bailian's 1-based turns, and the global sort when arrivals are out of order.
 */
final class Fixups {
  private final SparkSession spark;
  private final List<FileStats> stats;
  private final List<Integer> bailianFiles = new ArrayList<>();
  private final boolean needsSort;
  final long filesOverlapping;
  final boolean turnShift;
  long orphanParents;
  long parentNotEarlier;
  int chainRounds;

  Fixups(SparkSession spark, List<FileStats> stats, TraceFormat[] formats, String stTrace) {
    this.spark = spark;
    this.stats = stats;
    for (int i = 0; i < formats.length; i++) if (formats[i] == TraceFormat.BAILIAN) bailianFiles.add(i);
    long ooo = 0;
    long overlap = 0;
    double prefixMax = Double.NEGATIVE_INFINITY;
    for (FileStats s : stats) {
      ooo += s.outOfOrder;
      if (s.accepted == 0) continue;
      if (s.minArrival < prefixMax) overlap++;
      prefixMax = Math.max(prefixMax, s.maxArrival);
    }
    this.filesOverlapping = overlap;
    this.needsSort = ooo > 0 || overlap > 0;
    // Bailian: shift turns by -1 when no record has turn 0 and the roots start at 1 (contract)
    long turnZero = 0;
    int minRoot = Integer.MAX_VALUE;
    for (FileStats s : stats) {
      if (!bailianFiles.contains(s.fileIndex)) continue;
      turnZero += s.turnZero;
      minRoot = Math.min(minRoot, s.minRootTurn);
    }
    this.turnShift = !bailianFiles.isEmpty() && turnZero == 0 && minRoot == 1;
  }

  boolean hasBailian() {
    return !bailianFiles.isEmpty();
  }

  boolean needsSort() {
    return needsSort;
  }

  /** A range of a file whose records start below {@code before}, the largest arrival of the earlier ranges. */
  record Crossing(int file, int range, double before) {}

  /**
   * Records out of order only against earlier ranges of their file, per file: a record of range
   * k is out of order in the file iff its arrival is below max(before_k, the largest earlier
   * arrival within the range); the range's task counted the second case, so this counts records
   * at or above the running maximum within the range but below {@code before_k}. Reads only the
   * seq and arrival columns of the crossing ranges' staged parts (one window per part).
   */
  static java.util.Map<Integer, Long> outOfOrderAcrossRanges(SparkSession spark, String stTrace, List<Crossing> xs) {
    List<Row> bounds = new ArrayList<>();
    String[] paths = new String[xs.size()];
    for (int i = 0; i < xs.size(); i++) {
      Crossing x = xs.get(i);
      String part = FileScanner.partName(x.file(), x.range());
      paths[i] = new Path(stTrace, part).toString();
      bounds.add(org.apache.spark.sql.RowFactory.create(part, x.before()));
    }
    Dataset<Row> b = spark.createDataFrame(bounds, new org.apache.spark.sql.types.StructType()
        .add("_part", org.apache.spark.sql.types.DataTypes.StringType, false)
        .add("_before", org.apache.spark.sql.types.DataTypes.DoubleType, false));
    Dataset<Row> d = spark.read().schema(Canonical.SCHEMA).parquet(paths)
        .select(col("_metadata.file_name").as("_part"), col(Canonical.SEQ), col(Canonical.ARRIVAL_S));
    Column prev = org.apache.spark.sql.functions.max(Canonical.ARRIVAL_S)
        .over(Window.partitionBy("_part").orderBy(Canonical.SEQ).rowsBetween(Window.unboundedPreceding(), -1));
    java.util.Map<Integer, Long> out = new java.util.TreeMap<>();
    for (Row r : d.withColumn("_prev", prev).join(org.apache.spark.sql.functions.broadcast(b), "_part")
        .filter(col(Canonical.ARRIVAL_S).lt(col("_before"))
            .and(col("_prev").isNull().or(col(Canonical.ARRIVAL_S).geq(col("_prev")))))
        .groupBy(IngestJob.fileOf(col(Canonical.SEQ)).as("_f")).count().collectAsList()) {
      out.put(r.getInt(0), r.getLong(1));
    }
    return out;
  }

  /**
   * One pass over the staged ids: {@code [request ids that occur more than once, distinct
   * session ids]}. The second number is the summary's session count when the staged parts become
   * the output unchanged, so the common case reads the ids once instead of twice.
   */
  static long[] idCounts(Dataset<Row> staged) {
    Column k = col("_k");
    Row r = staged
        .select(org.apache.spark.sql.functions.explode(org.apache.spark.sql.functions.array(
            struct(lit(0).as("_k"), col(Canonical.REQUEST_ID).as("_v")),
            struct(lit(1).as("_k"), col(Canonical.SESSION_ID).as("_v")))).as("_x"))
        .select(col("_x._k").as("_k"), col("_x._v").as("_v"))
        .filter(col("_v").isNotNull())
        .groupBy("_k", "_v").count()
        .agg(org.apache.spark.sql.functions.sum(when(k.equalTo(0).and(col("count").gt(1)), lit(1L)).otherwise(lit(0L))),
            org.apache.spark.sql.functions.sum(when(k.equalTo(1), lit(1L)).otherwise(lit(0L))))
        .first();
    return new long[] {r.isNullAt(0) ? 0 : r.getLong(0), r.isNullAt(1) ? 0 : r.getLong(1)};
  }

  /** Rows (request_id, seq) of every occurrence of a request id after its first; null if none. */
  Dataset<Row> duplicates(Dataset<Row> staged) {
    Dataset<Row> ids = staged.select(Canonical.REQUEST_ID, Canonical.SEQ);
    Dataset<Row> repeated =
        ids.groupBy(Canonical.REQUEST_ID).count().filter(col("count").gt(1)).select(Canonical.REQUEST_ID);
    if (repeated.isEmpty()) return null;
    Dataset<Row> cand = ids.join(repeated, Canonical.REQUEST_ID);
    Dataset<Row> ranked =
        cand.withColumn("_rank", row_number().over(Window.partitionBy(Canonical.REQUEST_ID).orderBy(Canonical.SEQ)))
            .withColumn("_first", org.apache.spark.sql.functions.min(Canonical.SEQ).over(Window.partitionBy(Canonical.REQUEST_ID)));
    return ranked.filter(col("_rank").gt(1)).select(Canonical.REQUEST_ID, Canonical.SEQ, "_first").localCheckpoint();
  }

  /** Quarantine rows for the duplicates, naming the file and line of the occurrence kept. */
  Dataset<Row> quarantineDuplicates(Dataset<Row> dups, List<Path> files) {
    Column fileNames = org.apache.spark.sql.functions.array(files.stream().map(f -> lit(f.toString())).toArray(Column[]::new));
    Column file = element_at(fileNames, IngestJob.fileOf(col(Canonical.SEQ)).plus(1));
    Column firstFile = element_at(fileNames, IngestJob.fileOf(col("_first")).plus(1));
    return dups.select(
        file.as("source_file"),
        IngestJob.lineOf(col(Canonical.SEQ)).as("line"),
        lit(Reasons.DUPLICATE_REQUEST_ID).as("reason"),
        lit(Canonical.REQUEST_ID).as("field"),
        concat(lit("request_id '"), col(Canonical.REQUEST_ID), lit("' was first used at "), firstFile, lit(":"),
            IngestJob.lineOf(col("_first")).cast("string"), lit("; the first occurrence is kept")).as("detail"),
        to_json(struct(col(Canonical.REQUEST_ID))).as("raw"));
  }

  /**
   * Bailian sessions: the session of a request is the root of its parent chain. A parent link
   * counts only if the parent is in the trace and arrived strictly earlier (by arrival_s, then
   * input order); otherwise the request starts its own session and the link is counted as an
   * orphan (parent not in the trace) or as not-earlier. Since every kept link points strictly
   * backwards in time, the chains cannot contain cycles, and pointer jumping (each round
   * replaces a pointer by its target's pointer) finds every root in ceil(log2(depth)) + 1
   * rounds of joins on narrow (id, pointer) data: chains of any depth, no driver-side map.
   */
  Dataset<Row> bailianSessions(Dataset<Row> t) {
    Column isB = IngestJob.fileOf(col(Canonical.SEQ)).isin(bailianFiles.toArray());
    Dataset<Row> nodes =
        t.filter(isB).select(col(Canonical.REQUEST_ID).as("id"), col(Canonical.PARENT_ID).as("pid"),
            col(Canonical.ARRIVAL_S).as("a"), col(Canonical.SEQ).as("s"));
    Dataset<Row> par = nodes.select(col("id").as("p_id"), col("a").as("p_a"), col("s").as("p_s"));
    Dataset<Row> linked = nodes.join(par, nodes.col("pid").equalTo(par.col("p_id")), "left");
    Column earlier = col("p_a").lt(col("a")).or(col("p_a").equalTo(col("a")).and(col("p_s").lt(col("s"))));
    Dataset<Row> e =
        linked.select(col("id"),
                when(col("pid").isNotNull().and(col("p_id").isNull()), lit(1)).otherwise(lit(0)).as("orphan"),
                when(col("p_id").isNotNull().and(org.apache.spark.sql.functions.not(earlier)), lit(1)).otherwise(lit(0)).as("late"),
                when(col("p_id").isNotNull().and(earlier), col("pid")).otherwise(col("id")).as("ptr"))
            .localCheckpoint();
    Row counts = e.agg(org.apache.spark.sql.functions.sum("orphan"), org.apache.spark.sql.functions.sum("late")).first();
    orphanParents = counts.isNullAt(0) ? 0 : counts.getLong(0);
    parentNotEarlier = counts.isNullAt(1) ? 0 : counts.getLong(1);
    Dataset<Row> ptr = e.select("id", "ptr");
    for (chainRounds = 0; chainRounds < 64; chainRounds++) {
      Dataset<Row> q = ptr.select(col("id").as("q_id"), col("ptr").as("q_ptr"));
      Dataset<Row> next =
          ptr.join(q, ptr.col("ptr").equalTo(q.col("q_id")), "left")
              .select(col("id"), org.apache.spark.sql.functions.coalesce(col("q_ptr"), col("ptr")).as("ptr"),
                  col("ptr").as("old"))
              .localCheckpoint();
      long changed = next.filter(col("ptr").notEqual(col("old"))).count();
      ptr = next.select("id", "ptr");
      if (changed == 0) break;
    }
    Dataset<Row> sessions = ptr.select(col("id").as("_sid_id"), col("ptr").as("_sid"));
    Dataset<Row> joined = t.join(sessions, t.col(Canonical.REQUEST_ID).equalTo(sessions.col("_sid_id")).and(isB), "left");
    Column turn = turnShift ? when(isB, col(Canonical.TURN).minus(1)).otherwise(col(Canonical.TURN)) : col(Canonical.TURN);
    return joined
        .withColumn(Canonical.SESSION_ID, when(isB, col("_sid")).otherwise(col(Canonical.SESSION_ID)))
        .withColumn(Canonical.TURN, turn)
        .drop("_sid_id", "_sid");
  }
}
