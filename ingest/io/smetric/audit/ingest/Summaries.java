package io.smetric.audit.ingest;

import static org.apache.spark.sql.functions.ceil;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.IngestSummary;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Builds ingest-summary.json: per-file accounting plus one aggregate pass over the final trace. */
final class Summaries {
  private Summaries() {}

  /**
   * @param sessionsFromIds when the staged parts became the output unchanged: the distinct
   *     session ids counted with the duplicate check. Every other dataset number is then exact in
   *     the tasks' own counts, so the trace is not scanned again. Null: aggregate {@code fin}.
   */
  static IngestSummary build(Dataset<Row> fin, List<FileStats> stats, Fixups fx, long originUs, IngestJob.Options o,
      Long sessionsFromIds) {
    IngestSummary.Parameters params = new IngestSummary.Parameters(o.format() == null ? "auto" : o.format().id(),
        o.blockSize(), (long) o.maxLineBytes());

    List<IngestSummary.FileEntry> files = new ArrayList<>();
    long read = 0, acc = 0, blank = 0, ooo = 0;
    Map<String, Long> byReason = new TreeMap<>();
    TreeSet<String> modes = new TreeSet<>();
    List<String> findings = new ArrayList<>();
    for (FileStats s : stats) {
      TraceFormat fmt = formatOf(s.format);
      String mode = null;
      if (fmt != null) {
        // a CSV is canonical (sessions given) or Azure (none): judge by what was read
        mode = fmt == TraceFormat.CSV && s.withSession == 0 ? "absent" : fmt.sessions();
        if (s.accepted > 0) modes.add(mode);
      }
      files.add(new IngestSummary.FileEntry(s.path, s.format, mode, s.read, s.accepted, s.quarantinedTotal(),
          new TreeMap<>(s.quarantined), s.blankLines, fmt == TraceFormat.PARQUET ? null : s.outOfOrder,
          s.blockCountMismatch, List.copyOf(s.blockSizes), s.accepted > 0 ? s.minArrival : null,
          s.accepted > 0 ? s.maxArrival : null, List.copyOf(s.findings)));
      for (String x : s.findings) findings.add(s.path + ": " + x);
      read += s.read;
      acc += s.accepted;
      blank += s.blankLines;
      ooo += s.outOfOrder;
      s.quarantined.forEach((k, v) -> byReason.merge(k, v, Long::sum));
    }
    long quar = byReason.values().stream().mapToLong(Long::longValue).sum();
    IngestSummary.Totals tot = new IngestSummary.Totals(stats.size(), read, acc, quar, byReason, blank, ooo,
        fx.filesOverlapping, true);

    Agg a = sessionsFromIds != null ? Agg.fromTasks(stats, sessionsFromIds) : Agg.fromData(fin);
    IngestSummary.TimeOrigin origin = originUs == 0 ? null : new IngestSummary.TimeOrigin(
        Instant.ofEpochSecond(originUs / 1_000_000L).toString(),
        "wall-clock timestamps are re-based to the start of the minute of the earliest first record");
    IngestSummary.DatasetPart ds = new IngestSummary.DatasetPart(a.requests,
        modes.size() == 1 ? modes.first() : modes.isEmpty() ? "absent" : "mixed", a.withSession == 0 ? null : a.sessions,
        a.withSession, a.withTurn, a.turnZero, a.withBlocks, a.blocks, a.mismatch, a.inputTokens, a.outputTokens,
        a.first, a.last, a.last - a.first, List.copyOf(a.blockSizes), origin);
    IngestSummary.BailianSessions bailian = null;
    if (fx.hasBailian()) {
      bailian = new IngestSummary.BailianSessions(
          "session = root of the parent chain; a link counts only if the parent is in the trace and arrived earlier",
          fx.orphanParents, fx.parentNotEarlier, fx.turnShift, fx.chainRounds);
      if (fx.orphanParents > 0) findings.add(fx.orphanParents + " requests name a parent that is not in the trace; each starts its own session");
      if (fx.parentNotEarlier > 0) findings.add(fx.parentNotEarlier + " requests name a parent that did not arrive earlier (a cycle or a clock problem); each starts its own session");
    }
    if (ooo > 0) findings.add(ooo + " records arrive earlier than a record before them in the same file; the output is sorted");
    if (fx.filesOverlapping > 0) findings.add(fx.filesOverlapping + " files overlap an earlier file in time; the output is sorted");
    long mismatch = a.mismatch;
    if (mismatch > 0) findings.add(mismatch + " records have a block count other than ceil(input_tokens / block_size); analyses use the first min(count, ceil) blocks");
    if (a.withBlocks == 0) findings.add("no block hashes: block-level analyses are not applicable");
    if (a.withSession == 0) findings.add("no session ids: session metrics need session inference");
    return new IngestSummary("smetric-audit", BuildInfo.version(), "trace-model v1.2", params, files, tot, ds, bailian,
        List.copyOf(findings), new IngestSummary.Outputs(AuditLayout.TRACE_DIR + "/", AuditLayout.QUARANTINE_DIR + "/"),
        null);
  }

  /** The dataset section's numbers. */
  private static final class Agg {
    long requests;
    long sessions;
    long withSession;
    long withTurn;
    long turnZero;
    long withBlocks;
    long blocks;
    long mismatch;
    long inputTokens;
    long outputTokens;
    double first = Double.POSITIVE_INFINITY;
    double last = Double.NEGATIVE_INFINITY;
    final TreeSet<Integer> blockSizes = new TreeSet<>();

    static Agg fromTasks(List<FileStats> stats, long sessions) {
      Agg g = new Agg();
      g.sessions = sessions;
      for (FileStats s : stats) {
        g.requests += s.accepted;
        g.withSession += s.withSession;
        g.withTurn += s.withTurn;
        g.turnZero += s.turnZero;
        g.withBlocks += s.withBlocks;
        g.blocks += s.blocksTotal;
        g.mismatch += s.blockCountMismatch;
        g.inputTokens += s.inputTokens;
        g.outputTokens += s.outputTokens;
        if (s.accepted > 0) {
          g.first = Math.min(g.first, s.minArrival);
          g.last = Math.max(g.last, s.maxArrival);
        }
        g.blockSizes.addAll(s.blockSizes);
      }
      return g;
    }

    static Agg fromData(Dataset<Row> fin) {
      Row a =
          fin.agg(
                  count(lit(1)),
                  countDistinct(col(Canonical.SESSION_ID)),
                  count(col(Canonical.SESSION_ID)),
                  count(col(Canonical.TURN)),
                  count(col(Canonical.BLOCKS)),
                  sum(when(col(Canonical.BLOCKS).isNotNull()
                          .and(size(col(Canonical.BLOCKS)).notEqual(ceil(col(Canonical.INPUT_TOKENS).divide(col(Canonical.BLOCK_SIZE))))), lit(1L))
                      .otherwise(lit(0L))),
                  sum(col(Canonical.INPUT_TOKENS).cast("long")),
                  sum(col(Canonical.OUTPUT_TOKENS).cast("long")),
                  min(col(Canonical.ARRIVAL_S)),
                  max(col(Canonical.ARRIVAL_S)),
                  org.apache.spark.sql.functions.collect_set(col(Canonical.BLOCK_SIZE)),
                  sum(when(col(Canonical.TURN).equalTo(0), lit(1L)).otherwise(lit(0L))),
                  sum(when(col(Canonical.BLOCKS).isNotNull(), size(col(Canonical.BLOCKS)).cast("long")).otherwise(lit(0L))))
              .first();
      Agg g = new Agg();
      g.requests = a.getLong(0);
      g.sessions = a.getLong(1);
      g.withSession = a.getLong(2);
      g.withTurn = a.getLong(3);
      g.withBlocks = a.getLong(4);
      g.mismatch = a.isNullAt(5) ? 0 : a.getLong(5);
      g.inputTokens = a.getLong(6);
      g.outputTokens = a.getLong(7);
      g.first = a.getDouble(8);
      g.last = a.getDouble(9);
      g.blockSizes.addAll(a.<Integer>getList(10));
      g.turnZero = a.isNullAt(11) ? 0 : a.getLong(11);
      g.blocks = a.isNullAt(12) ? 0 : a.getLong(12);
      return g;
    }
  }

  private static TraceFormat formatOf(String id) {
    for (TraceFormat f : TraceFormat.values()) if (f.id().equals(id)) return f;
    return null;
  }
}
