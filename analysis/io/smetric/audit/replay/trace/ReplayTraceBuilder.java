package io.smetric.audit.replay.trace;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Folds canonical records, given in replay order (arrival_s, then seq), into a {@link
 * ReplayTrace}. Each prompt is inserted into a radix tree keyed by chained block ids: a chained id
 * names its whole prefix, so the first block id of a segment identifies it globally and one hash
 * map of segment heads is the whole index. A request that diverges inside a segment, or ends
 * inside one, splits it; the lower part keeps its id so earlier requests' end nodes stay valid.
 */
public final class ReplayTraceBuilder {
  private final String source;
  private final boolean keepBlocks;

  private final List<String> ids = new ArrayList<>();
  private final DoubleArrayList arrival = new DoubleArrayList();
  private final IntArrayList input = new IntArrayList();
  private final IntArrayList output = new IntArrayList();
  private final IntArrayList turn = new IntArrayList();
  private final IntArrayList session = new IntArrayList();
  private final IntArrayList blocks = new IntArrayList();
  private final IntArrayList endNode = new IntArrayList();
  private final Map<String, Integer> sessionIndex = new HashMap<>();
  private final LongArrayList sessionHash = new LongArrayList();
  /** Turn-0 requests naming a parent (forks), and the parent ids they name, resolved in build(). */
  private final IntArrayList forkReq = new IntArrayList();
  private final List<String> forkParentId = new ArrayList<>();
  private int blockSize = 0;
  private boolean anyBlocks;
  private boolean anySession;
  private boolean anyTurn;
  private int mismatches;
  private double lastArrival = Double.NEGATIVE_INFINITY;
  private long lastSeq = Long.MIN_VALUE;

  // radix tree under construction
  private final IntArrayList segParent = new IntArrayList();
  private final IntArrayList segOff = new IntArrayList();
  private final IntArrayList segLen = new IntArrayList();
  private final LongArrayList flat = new LongArrayList();
  private final Long2IntOpenHashMap childByHead = new Long2IntOpenHashMap();

  public ReplayTraceBuilder(String source, boolean keepBlocks) {
    this.source = source;
    this.keepBlocks = keepBlocks;
    childByHead.defaultReturnValue(-1);
  }

  /** Builds from records in any order (sorted here by arrival, then seq). For tests and small inputs. */
  public static ReplayTrace fromRecords(List<TraceRecord> records, boolean keepBlocks) {
    List<TraceRecord> sorted = new ArrayList<>(records);
    sorted.sort(Comparator.comparingDouble(TraceRecord::arrivalS).thenComparingLong(TraceRecord::seq));
    ReplayTraceBuilder b = new ReplayTraceBuilder("records", keepBlocks);
    for (TraceRecord r : sorted) b.add(r);
    return b.build();
  }

  public void add(TraceRecord r) {
    add(r.requestId(), r.sessionId(), r.parentId(), r.turn(), r.arrivalS(), r.inputTokens(), r.outputTokens(),
        r.blockSize(), r.blocks(), r.blocks() == null ? 0 : r.blocks().length, r.seq());
  }

  /** Adds one record without a parent id; {@code blockIds[0..blockCount)} are chained ids (may be null). */
  public void add(String requestId, String sessionId, Integer turnOrNull, double arrivalS,
      int inputTokens, int outputTokens, Integer blockSizeOrNull, long[] blockIds, int blockCount,
      long seq) {
    add(requestId, sessionId, null, turnOrNull, arrivalS, inputTokens, outputTokens, blockSizeOrNull, blockIds,
        blockCount, seq);
  }

  /**
   * Adds one record; {@code blockIds[0..blockCount)} are chained ids (may be null). A turn-0 record
   * naming a parent is a fork (trace-model section 1); its parent is resolved when the trace is
   * built (it must come earlier in replay order, else it is ignored).
   */
  public void add(String requestId, String sessionId, String parentId, Integer turnOrNull, double arrivalS,
      int inputTokens, int outputTokens, Integer blockSizeOrNull, long[] blockIds, int blockCount,
      long seq) {
    add(requestId, sessionId, parentId, turnOrNull, arrivalS, inputTokens, outputTokens, blockSizeOrNull, blockIds, 0,
        blockCount, seq);
  }

  /**
   * As above, with the chained ids at {@code blockIds[blockOff .. blockOff + blockCount)}: a slice
   * of a decoded Parquet page shared by many rows, read without a copy per request.
   */
  public void add(String requestId, String sessionId, String parentId, Integer turnOrNull, double arrivalS,
      int inputTokens, int outputTokens, Integer blockSizeOrNull, long[] blockIds, int blockOff, int blockCount,
      long seq) {
    long line = ids.size();
    if (parentId != null && turnOrNull != null && turnOrNull == 0) {
      forkReq.add((int) line);
      forkParentId.add(parentId);
    }
    if (arrivalS < lastArrival || (arrivalS == lastArrival && seq < lastSeq)) {
      throw new IllegalArgumentException("records must arrive sorted by (arrival_s, seq); request " + requestId);
    }
    lastArrival = arrivalS;
    lastSeq = seq;
    if (!Double.isFinite(arrivalS)) throw new BadInputException(source, line, Canonical.ARRIVAL_S, "not finite: " + arrivalS);
    if (inputTokens < 0) throw new BadInputException(source, line, Canonical.INPUT_TOKENS, "negative: " + inputTokens);
    if (outputTokens < 0) throw new BadInputException(source, line, Canonical.OUTPUT_TOKENS, "negative: " + outputTokens);
    ids.add(requestId);
    arrival.add(arrivalS);
    input.add(inputTokens);
    output.add(outputTokens);
    turn.add(turnOrNull == null ? -1 : turnOrNull);
    anyTurn |= turnOrNull != null;
    if (sessionId != null) {
      anySession = true;
      Integer s = sessionIndex.get(sessionId);
      if (s == null) {
        s = sessionIndex.size();
        sessionIndex.put(sessionId, s);
        sessionHash.add(stringHash(sessionId));
      }
      session.add(s.intValue());
    } else {
      session.add(-1);
    }
    int k = 0;
    if (blockIds != null && blockSizeOrNull != null) {
      int b = blockSizeOrNull;
      if (b <= 0) throw new BadInputException(source, line, Canonical.BLOCK_SIZE, "must be > 0: " + b);
      if (blockSize == 0) blockSize = b;
      else if (blockSize != b) {
        throw new BadInputException(source, line, Canonical.BLOCK_SIZE,
            "the replay needs one block size per trace; saw " + blockSize + " and " + b);
      }
      anyBlocks = true;
      int expected = Canonical.expectedBlocks(inputTokens, b);
      if (expected != blockCount) mismatches++;
      k = Math.min(blockCount, expected);
    }
    blocks.add(k);
    endNode.add(k == 0 ? -1 : insert(blockIds, blockOff, k));
  }

  /** Inserts the chain {@code c[o .. o + k)} into the segment tree; returns its end node. */
  private int insert(long[] c, int o, int k) {
    int d = 0;
    int parent = -1;
    int end = -1;
    while (d < k) {
      int w = childByHead.get(c[o + d]);
      if (w < 0) {
        end = newNode(parent, c, o + d, o + k);
        break;
      }
      int len = segLen.getInt(w);
      int off = segOff.getInt(w);
      int j = 1;
      while (j < len && d + j < k && flat.getLong(off + j) == c[o + d + j]) j++;
      if (j == len) {
        parent = w;
        d += len;
        end = w;
        continue;
      }
      // split w at j: a new upper node takes the first j blocks; w keeps the rest and its id
      int u = segParent.size();
      segParent.add(segParent.getInt(w));
      segOff.add(off);
      segLen.add(j);
      childByHead.put(flat.getLong(off), u);
      segParent.set(w, u);
      segOff.set(w, off + j);
      segLen.set(w, len - j);
      childByHead.put(flat.getLong(off + j), w);
      parent = u;
      d += j;
      end = u;
    }
    return end;
  }

  private int newNode(int parent, long[] c, int from, int to) {
    int x = segParent.size();
    segParent.add(parent);
    segOff.add(flat.size());
    segLen.add(to - from);
    for (int i = from; i < to; i++) flat.add(c[i]);
    childByHead.put(c[from], x);
    return x;
  }

  public ReplayTrace build() {
    int n = ids.size();
    int segs = segParent.size();
    int[] parent = segParent.toIntArray();
    int[] len = segLen.toIntArray();
    int[] start = new int[segs];
    java.util.Arrays.fill(start, -1);
    // paths: walk parents from each end node, then reverse into the flat path array
    int[] pathOff = new int[n + 1];
    IntArrayList path = new IntArrayList();
    IntArrayList tmp = new IntArrayList();
    for (int r = 0; r < n; r++) {
      pathOff[r] = path.size();
      tmp.clear();
      for (int s = endNode.getInt(r); s >= 0; s = parent[s]) tmp.add(s);
      int depth = 0;
      for (int i = tmp.size() - 1; i >= 0; i--) {
        int s = tmp.getInt(i);
        start[s] = depth;
        depth += len[s];
        path.add(s);
      }
      if (depth != blocks.getInt(r)) throw new IllegalStateException("segment path of " + ids.get(r) + " covers " + depth + " blocks, expected " + blocks.getInt(r));
    }
    pathOff[n] = path.size();
    int[] pathNodes = path.toIntArray();

    int[] sess = session.toIntArray();
    int[] turns = turn.toIntArray();
    int[] prev = new int[n];
    int[] first = new int[n];
    int[] estHit = new int[n];
    int[] lastOf = new int[sessionIndex.size()];
    int[] firstOf = new int[sessionIndex.size()];
    java.util.Arrays.fill(lastOf, -1);
    java.util.Arrays.fill(firstOf, -1);
    for (int r = 0; r < n; r++) {
      int s = sess[r];
      if (s < 0) {
        prev[r] = -1;
        first[r] = -1;
        continue;
      }
      prev[r] = lastOf[s];
      if (firstOf[s] < 0 && (turns[r] <= 0)) firstOf[s] = r; // turn 0, or unknown turn: the first seen
      first[r] = firstOf[s];
      lastOf[s] = r;
      if (prev[r] >= 0) estHit[r] = commonPrefix(pathOff, pathNodes, len, r, prev[r]);
    }

    // forks: the parent's index when it precedes the fork (one pass over the ids, a map of the few parent ids)
    int[] forkParent = new int[n];
    java.util.Arrays.fill(forkParent, -1);
    if (!forkReq.isEmpty()) {
      Map<String, Integer> want = new HashMap<>();
      for (String p : forkParentId) want.put(p, -1);
      for (int r = 0; r < n; r++) {
        Integer at = want.get(ids.get(r));
        if (at != null && at < 0) want.put(ids.get(r), r); // the first request with that id
      }
      for (int k = 0; k < forkReq.size(); k++) {
        int r = forkReq.getInt(k);
        int p = want.get(forkParentId.get(k));
        if (p >= 0 && p < r) forkParent[r] = p;
      }
    }

    long[] segBlocks = null;
    long[] segBlockOff = null;
    if (keepBlocks) {
      segBlocks = flat.toLongArray();
      segBlockOff = new long[segs];
      for (int s = 0; s < segs; s++) segBlockOff[s] = segOff.getInt(s);
    }
    return new ReplayTrace(n, anyBlocks ? blockSize : 0, anyBlocks, anySession, anyTurn,
        ids.toArray(new String[0]), arrival.toDoubleArray(), input.toIntArray(), output.toIntArray(),
        turns, sess, sessionHash.toLongArray(), sessionIndex.size(), blocks.toIntArray(), mismatches,
        estHit, prev, first, forkParent, segs, parent, start, len, pathOff, pathNodes, segBlocks, segBlockOff);
  }

  /** Blocks shared by the prompts of a and b: segments are split at every divergence, so whole ones. */
  static int commonPrefix(int[] pathOff, int[] pathNodes, int[] len, int a, int b) {
    int i = pathOff[a];
    int j = pathOff[b];
    int shared = 0;
    while (i < pathOff[a + 1] && j < pathOff[b + 1] && pathNodes[i] == pathNodes[j]) {
      shared += len[pathNodes[i]];
      i++;
      j++;
    }
    return shared;
  }

  /** FNV-1a over the UTF-16 units, finalised: stable across JVMs (String.hashCode is 32-bit). */
  static long stringHash(String s) {
    return io.smetric.audit.contract.BlockChain.fmix64(io.smetric.audit.contract.Fnv1a.hashUtf16(s));
  }
}
