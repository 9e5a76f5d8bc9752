package io.smetric.audit.replay.trace;

import java.io.Serializable;

/**
 * A canonical trace compacted for replay: columnar arrays sorted by (arrival_s, seq), session ids
 * interned to ints, and every prompt's chained block ids folded into one radix tree of
 * <em>segments</em>. A segment (tree node) is a maximal run of consecutive blocks that first
 * appeared together in one request and that no later request diverges from or ends inside; each
 * request's prompt is the path of whole segments from the root to its end node. Block ids are no
 * longer needed after folding: two requests share their first k blocks iff their paths share
 * segments covering k blocks, which is exactly the chained-id prefix identity of the contract.
 *
 * <p>Memory follows the number of segments (about two per request), not the number of blocks.
 * When built with {@code keepBlocks}, the segment block ids are kept as well, so that the
 * block-by-block reference cache can run on the very same trace.
 */
public final class ReplayTrace implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Number of requests. */
  public final int n;
  /** Tokens per block (one value per trace; 0 when the trace has no blocks). */
  public final int blockSize;
  public final boolean hasBlocks;
  public final boolean hasSessions;
  public final boolean hasTurns;

  public final String[] requestIds;
  public final double[] arrival;
  public final int[] input;
  public final int[] output;
  /** Turn, or -1 where unknown. */
  public final int[] turn;
  /** Interned session, or -1 where the record has none. */
  public final int[] session;
  /** 64-bit hash of each interned session id (for consistent hashing). */
  public final long[] sessionHash;
  public final int sessions;
  /** Blocks used by the replay: min(count, ceil(input / B)) (contract, section 1). */
  public final int[] blocks;
  /** Records whose block count differed from ceil(input / B) (a data-quality finding). */
  public final int blockCountMismatches;
  /** est_hit(r) in blocks: common block prefix with the previous request of its session. */
  public final int[] estHitBlocks;
  /** Index of the previous request of the same session (in replay order), or -1. */
  public final int[] prevInSession;
  /** Index of the session's turn-0 request if it precedes r in the trace, else -1. */
  public final int[] sessionFirst;
  /**
   * For a fork (a turn-0 request naming a parent in another session, trace-model section 1): the
   * index of that parent if it precedes the fork in the trace; -1 for every other request.
   */
  public final int[] forkParent;

  // ---- segment tree ----
  public final int segments;
  public final int[] segParent;
  /** Depth (in blocks) at which the segment starts. */
  public final int[] segStart;
  public final int[] segLen;
  /** Path of request r: pathNodes[pathOff[r] .. pathOff[r+1]), root side first. */
  public final int[] pathOff;
  public final int[] pathNodes;
  /** Block ids of each segment (only when kept): segBlocks[segBlockOff[s] + j]. */
  public final long[] segBlocks;
  public final long[] segBlockOff;

  ReplayTrace(int n, int blockSize, boolean hasBlocks, boolean hasSessions, boolean hasTurns,
      String[] requestIds, double[] arrival, int[] input, int[] output, int[] turn, int[] session,
      long[] sessionHash, int sessions, int[] blocks, int blockCountMismatches, int[] estHitBlocks,
      int[] prevInSession, int[] sessionFirst, int[] forkParent, int segments, int[] segParent, int[] segStart,
      int[] segLen, int[] pathOff, int[] pathNodes, long[] segBlocks, long[] segBlockOff) {
    this.n = n;
    this.blockSize = blockSize;
    this.hasBlocks = hasBlocks;
    this.hasSessions = hasSessions;
    this.hasTurns = hasTurns;
    this.requestIds = requestIds;
    this.arrival = arrival;
    this.input = input;
    this.output = output;
    this.turn = turn;
    this.session = session;
    this.sessionHash = sessionHash;
    this.sessions = sessions;
    this.blocks = blocks;
    this.blockCountMismatches = blockCountMismatches;
    this.estHitBlocks = estHitBlocks;
    this.prevInSession = prevInSession;
    this.sessionFirst = sessionFirst;
    this.forkParent = forkParent;
    this.segments = segments;
    this.segParent = segParent;
    this.segStart = segStart;
    this.segLen = segLen;
    this.pathOff = pathOff;
    this.pathNodes = pathNodes;
    this.segBlocks = segBlocks;
    this.segBlockOff = segBlockOff;
  }

  public boolean keepsBlocks() {
    return segBlocks != null;
  }

  /** Tokens covered by the first k blocks of r: min(k * B, input) (the last block is partial). */
  public long tokensOf(int r, int k) {
    return Math.min((long) k * blockSize, input[r]);
  }

  /** The chained block ids of r (reference mode only). */
  public long[] blockIds(int r) {
    if (segBlocks == null) throw new IllegalStateException("trace built without block ids");
    long[] out = new long[blocks[r]];
    int k = 0;
    for (int p = pathOff[r]; p < pathOff[r + 1]; p++) {
      int s = pathNodes[p];
      long off = segBlockOff[s];
      for (int j = 0; j < segLen[s]; j++) out[k++] = segBlocks[(int) (off + j)];
    }
    return out;
  }

  /**
   * Common block prefix of the prompts of a and b (the contract's chained-id identity): walk both
   * segment paths while they pass through the same segments; at the first different segment both
   * start at the same depth (siblings), which is where they diverge.
   */
  public int commonBlocks(int a, int b) {
    int pa = pathOff[a];
    int pb = pathOff[b];
    int ea = pathOff[a + 1];
    int eb = pathOff[b + 1];
    while (pa < ea && pb < eb) {
      if (pathNodes[pa] != pathNodes[pb]) return segStart[pathNodes[pa]];
      pa++;
      pb++;
    }
    return Math.min(blocks[a], blocks[b]);
  }

  /**
   * Whether follow-up r's prompt continues its session's turn-0 prompt (every full block of it):
   * only such a follow-up can find its session's KV on the turn-0 instance. Compactions (history
   * replaced by a summary) and rewrites are not; false when the turn-0 request is not in the trace.
   */
  public boolean extendsSessionFirst(int r) {
    int f = sessionFirst[r];
    if (f < 0 || f == r) return false;
    int full = input[f] / Math.max(1, blockSize); // a partial last block is re-hashed by the next turn
    return commonBlocks(f, r) >= Math.min(full, blocks[f]);
  }

  /**
   * Whether a fork's prompt carries conversation history, i.e. at least one earlier model response:
   * it goes on, shared with its parent, past the part its parent shares with the parent session's
   * turn-0 prompt (system prompt + task, no response yet). A router that infers the turn from the
   * number of history messages (the paper's SMetric, Section 2.2; the hasher's turn = assistant
   * messages in the history, trace-model section 1) sees such a fork as a follow-up. False for a
   * non-fork, a fork of a turn-0 request, or when the parent or its session's turn-0 request is
   * not in the trace.
   */
  public boolean forkCarriesHistory(int r) {
    int p = forkParent[r];
    if (p < 0) return false;
    int f = sessionFirst[p];
    if (f < 0 || f == p) return false;
    return commonBlocks(r, p) > commonBlocks(p, f);
  }

  /**
   * Session trees (what session-tree rate scaling moves and the bootstrap resamples): a root
   * session with its sub-agent forks (a fork joins the tree of the request it names, when that
   * request is in the trace); a request without a session is a tree of its own. Returns the tree
   * of every request; trees are numbered in the order of their first request.
   */
  public int[] sessionTrees() {
    int[] tree = new int[n];
    int[] ofSession = new int[Math.max(0, sessions)];
    java.util.Arrays.fill(ofSession, -1);
    int k = 0;
    for (int r = 0; r < n; r++) {
      int s = session[r];
      if (s < 0) {
        tree[r] = k++;
        continue;
      }
      if (ofSession[s] < 0) {
        int p = forkParent[r];
        ofSession[s] = p >= 0 ? tree[p] : k++;
      }
      tree[r] = ofSession[s];
    }
    return tree;
  }

  /** The number of session trees ({@link #sessionTrees()}). */
  public int sessionTreeCount() {
    int max = -1;
    for (int x : sessionTrees()) max = Math.max(max, x);
    return max + 1;
  }

  /** Total number of block slots the requests refer to (sum of blocks[r]). */
  public long totalBlocks() {
    long t = 0;
    for (int b : blocks) t += b;
    return t;
  }

  public long totalInputTokens() {
    long t = 0;
    for (int x : input) t += x;
    return t;
  }
}
