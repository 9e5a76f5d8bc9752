package io.smetric.audit.ingest;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/** What one ingest task saw in one input file: the per-file accounting of ingest-summary.json. */
final class FileStats implements Serializable {
  private static final long serialVersionUID = 1L;

  int fileIndex;
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

  long quarantinedTotal() {
    long q = 0;
    for (long v : quarantined.values()) q += v;
    return q;
  }

  void quarantine(String reason) {
    quarantined.merge(reason, 1L, Long::sum);
  }
}
