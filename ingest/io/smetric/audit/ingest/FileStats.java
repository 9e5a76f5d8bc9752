package io.smetric.audit.ingest;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one ingest task saw in one input file (or one byte range of it): the per-file accounting
 * of ingest-summary.json. The ranges of a file are merged with {@link #merge}.
 */
final class FileStats implements Serializable {
  private static final long serialVersionUID = 1L;

  int fileIndex;
  /** Byte range of the file this task read (0 for a whole file). */
  int range;
  /** Physical lines read (data, blank and header lines). */
  long lines;
  String path;
  String format;
  /** Data lines read (not counting blank lines and a CSV header). */
  long read;
  long blankLines;
  long headerLines;
  long accepted;
  final TreeMap<String, Long> quarantined = new TreeMap<>();
  /** Accepted records whose arrival is below the largest earlier arrival of the same file. */
  long outOfOrder;
  double minArrival = Double.POSITIVE_INFINITY;
  double maxArrival = Double.NEGATIVE_INFINITY;
  double firstArrival = Double.NaN;
  double lastArrival = Double.NaN;
  Long minAbsUs;
  final TreeSet<Integer> blockSizes = new TreeSet<>();
  long blockCountMismatch;
  long withBlocks;
  long blocksTotal;
  long withSession;
  long withTurn;
  long turnZero;
  /** Smallest turn among records without a parent (Bailian roots); Integer.MAX_VALUE if none. */
  int minRootTurn = Integer.MAX_VALUE;
  long inputTokens;
  long outputTokens;
  final List<String> findings = new ArrayList<>();

  /**
   * The accounting of a whole file from that of its ranges, given in range order. Counts add up;
   * {@code outOfOrder} is the sum of the ranges' own counts, which misses records that are only
   * out of order against an earlier range (the caller adds those, see Fixups).
   */
  static FileStats merge(List<FileStats> ranges) {
    FileStats m = new FileStats();
    FileStats first = ranges.get(0);
    m.fileIndex = first.fileIndex;
    m.path = first.path;
    m.format = first.format;
    for (FileStats r : ranges) {
      m.lines += r.lines;
      m.read += r.read;
      m.blankLines += r.blankLines;
      m.headerLines += r.headerLines;
      m.accepted += r.accepted;
      r.quarantined.forEach((k, v) -> m.quarantined.merge(k, v, Long::sum));
      m.outOfOrder += r.outOfOrder;
      m.minArrival = Math.min(m.minArrival, r.minArrival);
      m.maxArrival = Math.max(m.maxArrival, r.maxArrival);
      if (Double.isNaN(m.firstArrival)) m.firstArrival = r.firstArrival;
      if (!Double.isNaN(r.lastArrival)) m.lastArrival = r.lastArrival;
      if (r.minAbsUs != null) m.minAbsUs = m.minAbsUs == null ? r.minAbsUs : Math.min(m.minAbsUs, r.minAbsUs);
      m.blockSizes.addAll(r.blockSizes);
      m.blockCountMismatch += r.blockCountMismatch;
      m.withBlocks += r.withBlocks;
      m.blocksTotal += r.blocksTotal;
      m.withSession += r.withSession;
      m.withTurn += r.withTurn;
      m.turnZero += r.turnZero;
      m.minRootTurn = Math.min(m.minRootTurn, r.minRootTurn);
      m.inputTokens += r.inputTokens;
      m.outputTokens += r.outputTokens;
      m.findings.addAll(r.findings);
    }
    return m;
  }

  long quarantinedTotal() {
    long q = 0;
    for (long v : quarantined.values()) q += v;
    return q;
  }

  void quarantine(String reason) {
    quarantined.merge(reason, 1L, Long::sum);
  }
}
