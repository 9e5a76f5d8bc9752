package io.smetric.audit.replay.trace;

import it.unimi.dsi.fastutil.ints.IntArrays;
import java.util.SplittableRandom;

/**
 * A bootstrap replicate of a trace: its session trees ({@link ReplayTrace#sessionTrees()}: a root
 * session with its sub-agent forks; a session-less request is a tree) resampled with replacement,
 * on the trace's own arrival process. The trace's K tree starts s_0 <= ... <= s_{K-1} stay where
 * they are; slot k gets a tree drawn uniformly from all K, whose requests keep their offsets from
 * their own tree's start: a request r of the drawn tree j arrives at s_k + (arrival(r) - s_j).
 * So each replicate has the same number of trees, starting at the same times, with content
 * resampled, which is what varies between two traces of the same workload.
 *
 * <p>A trace is a window: its trees near the end were cut short by it (on the shipped sample,
 * sessions starting in the last fifth have 1.5 requests against 3.7 in the first), and those
 * near the start were caught in progress. A whole tree placed at a late start runs past the
 * window, so a replicate moved load out of it (issue 26: 20% of the in-window prompt tokens,
 * replicates replayed at 14% less raw TPS with 93-98% of requests within SLO where the original
 * had 66-79%). A request placed past the window's end (the trace's last arrival) therefore wraps
 * to its start (x - window length, as often as needed): a circular window, so every drawn
 * request stays inside it. The wrapped part of a tree is sessions of their own, as the trace's
 * sessions caught in progress are: its first request has no previous request, no turn-0 request
 * and no history estimate, and it gets fresh copies of the tree's own segments (it runs before
 * the part it continues, whose KV it must not find).
 *
 * <p>A tree drawn twice must not find its own KV from its other copy: every copy after the first
 * gets fresh copies of the segments only that tree uses (its history, its tool outputs), while
 * segments other trees use too (shared system prompts, templates) stay shared, as they would in
 * another trace of the same workload. Each copy is new sessions (new ids, new session hashes).
 * Deterministic in the seed. Traces built with block ids (the reference KV model) are refused.
 */
public final class TraceResample {
  private TraceResample() {}

  /** The seed of bootstrap replicate {@code k} (k >= 1) of a run seeded with {@code seed}. */
  public static long replicateSeed(long seed, int k) {
    return seed * 0x9E3779B97F4A7C15L + k * 0xBF58476D1CE4E5B9L;
  }

  public static ReplayTrace of(ReplayTrace t, long seed) {
    int nTrees = t.sessionTreeCount();
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] drawn = new int[nTrees];
    for (int k = 0; k < nTrees; k++) drawn[k] = rnd.nextInt(nTrees);
    return ofDraw(t, drawn);
  }

  /** The replicate whose slot k (the trace's k-th tree start) holds tree {@code drawn[k]}. */
  public static ReplayTrace ofDraw(ReplayTrace t, int[] drawn) {
    if (t.keepsBlocks()) throw new IllegalArgumentException("bootstrap replicates need the segment KV model (no block ids)");
    int n = t.n;
    int[] tree = t.sessionTrees();
    int nTrees = 0;
    for (int x : tree) nTrees = Math.max(nTrees, x + 1);
    if (drawn.length != nTrees) throw new IllegalArgumentException("one draw per session tree: " + drawn.length + " != " + nTrees);
    // members of each tree, in trace order; position of every request within its tree
    int[] size = new int[nTrees];
    for (int x : tree) size[x]++;
    int[] memberOff = new int[nTrees + 1];
    for (int j = 0; j < nTrees; j++) memberOff[j + 1] = memberOff[j] + size[j];
    int[] members = new int[n];
    int[] pos = new int[n];
    int[] fill = new int[nTrees];
    for (int r = 0; r < n; r++) {
      int j = tree[r];
      pos[r] = fill[j];
      members[memberOff[j] + fill[j]++] = r;
    }
    double[] start = new double[nTrees];
    for (int j = 0; j < nTrees; j++) start[j] = t.arrival[members[memberOff[j]]];
    // sessions of each tree, numbered within the tree
    int[] sessLocal = new int[Math.max(0, t.sessions)];
    java.util.Arrays.fill(sessLocal, -1);
    int[] sessCount = new int[nTrees];
    for (int r = 0; r < n; r++) {
      int s = t.session[r];
      if (s >= 0 && sessLocal[s] < 0) sessLocal[s] = sessCount[tree[r]]++;
    }
    // segments used by exactly one tree are that tree's own; -2 = shared by several
    int[] owner = new int[t.segments];
    java.util.Arrays.fill(owner, -1);
    for (int r = 0; r < n; r++) {
      for (int q = t.pathOff[r]; q < t.pathOff[r + 1]; q++) {
        int sg = t.pathNodes[q];
        if (owner[sg] == -1) owner[sg] = tree[r];
        else if (owner[sg] != tree[r]) owner[sg] = -2;
      }
    }
    int[] ownCount = new int[nTrees];
    int[] ownLocal = new int[t.segments];
    for (int sg = 0; sg < t.segments; sg++) if (owner[sg] >= 0) ownLocal[sg] = ownCount[owner[sg]]++;
    int[][] ownList = new int[nTrees][];
    for (int j = 0; j < nTrees; j++) ownList[j] = new int[ownCount[j]];
    for (int sg = 0; sg < t.segments; sg++) if (owner[sg] >= 0) ownList[owner[sg]][ownLocal[sg]] = sg;

    // slot k holds tree drawn[k], its copy number copy[k]
    int[] copy = new int[nTrees];
    int[] times = new int[nTrees];
    long total = 0;
    for (int k = 0; k < nTrees; k++) {
      int j = drawn[k];
      copy[k] = times[j]++;
      total += size[j];
    }
    if (total > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("replicate too large");
    int m = (int) total;
    // the observation window [tStart, tEnd] the trace's own trees were cut to: a request placed
    // past its end wraps to its start (issue 26: without this, trees the trace cut short at its end
    // were replaced by whole trees that ran past it, and ~20% of the prompt tokens left the window)
    double tStart = Double.POSITIVE_INFINITY;
    double tEnd = Double.NEGATIVE_INFINITY;
    for (int r = 0; r < n; r++) {
      tStart = Math.min(tStart, t.arrival[r]);
      tEnd = Math.max(tEnd, t.arrival[r]);
    }
    double window = tEnd - tStart;
    // generated order: slot by slot, members in trace order; wraps[g] = how often entry g wrapped
    double[] genArrival = new double[m];
    int[] genOrig = new int[m];
    int[] genWraps = new int[m];
    int[] genStart = new int[nTrees];
    int[] parts = new int[nTrees]; // pieces of slot k: 1 + the most wraps of its members
    int g = 0;
    for (int k = 0; k < nTrees; k++) {
      int j = drawn[k];
      genStart[k] = g;
      parts[k] = 1;
      for (int p = memberOff[j]; p < memberOff[j + 1]; p++) {
        int r = members[p];
        double x = start[k] + (t.arrival[r] - start[j]);
        int w = 0;
        if (x > tEnd && window > 0) {
          w = (int) Math.floor((x - tStart) / window);
          x -= w * window;
          if (x < tStart) x = tStart; // rounding
          if (x > tEnd) { // rounding at the boundary: one more wrap
            x -= window;
            w++;
          }
        }
        genArrival[g] = x;
        genWraps[g] = w;
        parts[k] = Math.max(parts[k], w + 1);
        genOrig[g++] = r;
      }
    }
    // pieces: (slot k, wraps w) at pieceBase[k] + w; each is sessions of its own, and every piece but
    // a tree's first use (copy 0, unwrapped) gets fresh copies of the tree's own segments, so a
    // wrapped piece (in the window before the piece it continues) never finds that piece's KV
    int[] pieceBase = new int[nTrees + 1];
    for (int k = 0; k < nTrees; k++) pieceBase[k + 1] = pieceBase[k] + parts[k];
    int pieces = pieceBase[nTrees];
    int[] pieceSlot = new int[pieces];
    for (int k = 0; k < nTrees; k++) for (int w = 0; w < parts[k]; w++) pieceSlot[pieceBase[k] + w] = k;
    int[] segBase = new int[pieces];
    int[] sessBase = new int[pieces + 1];
    int nextSeg = t.segments;
    for (int k = 0; k < nTrees; k++) {
      int j = drawn[k];
      for (int w = 0; w < parts[k]; w++) {
        int pc = pieceBase[k] + w;
        if (copy[k] > 0 || w > 0) {
          segBase[pc] = nextSeg;
          nextSeg += ownCount[j];
        } else {
          segBase[pc] = -1;
        }
        sessBase[pc + 1] = sessBase[pc] + sessCount[j];
      }
    }
    // replay order: by arrival, ties in generated order (slot, then trace order)
    int[] order = new int[m];
    for (int i = 0; i < m; i++) order[i] = i;
    IntArrays.stableSort(order, (a, b) -> Double.compare(genArrival[a], genArrival[b]));
    int[] newOf = new int[m];
    for (int i = 0; i < m; i++) newOf[order[i]] = i;
    int[] slotOf = new int[m];
    for (int k = 0; k < nTrees; k++) for (int p = 0; p < size[drawn[k]]; p++) slotOf[genStart[k] + p] = k;

    String[] ids = new String[m];
    double[] arrival = new double[m];
    int[] input = new int[m];
    int[] output = new int[m];
    int[] turn = new int[m];
    int[] session = new int[m];
    long[] sessionHash = new long[sessBase[pieces]];
    int[] blocks = new int[m];
    int[] est = new int[m];
    int[] prev = new int[m];
    int[] first = new int[m];
    int[] fork = new int[m];
    int[] pathOff = new int[m + 1];
    long pathLen = 0;
    for (int i = 0; i < m; i++) {
      int r = genOrig[order[i]];
      pathLen += t.pathOff[r + 1] - t.pathOff[r];
    }
    int[] pathNodes = new int[(int) pathLen];
    int pn = 0;
    for (int i = 0; i < m; i++) {
      int gi = order[i];
      int r = genOrig[gi];
      int k = slotOf[gi];
      int j = drawn[k];
      int w = genWraps[gi];
      int pc = pieceBase[k] + w;
      ids[i] = t.requestIds[r];
      arrival[i] = genArrival[gi];
      input[i] = t.input[r];
      output[i] = t.output[r];
      turn[i] = t.turn[r];
      int s = t.session[r];
      if (s >= 0) {
        int ns = sessBase[pc] + sessLocal[s];
        session[i] = ns;
        sessionHash[ns] = mix(t.sessionHash[s] ^ replicateSeed(k + 1L, copy[k] + 1) ^ mix(w));
      } else {
        session[i] = -1;
      }
      blocks[i] = t.blocks[r];
      // links into another piece are cut, as the trace cuts them at its window's start: a wrapped
      // piece's first request has no previous request and no history estimate, like a session the
      // trace caught in progress
      prev[i] = remap(t.prevInSession[r], genStart[k], pos, newOf, genWraps, w);
      est[i] = prev[i] < 0 && t.prevInSession[r] >= 0 ? 0 : t.estHitBlocks[r];
      first[i] = remap(t.sessionFirst[r], genStart[k], pos, newOf, genWraps, w);
      fork[i] = remap(t.forkParent[r], genStart[k], pos, newOf, genWraps, w);
      pathOff[i] = pn;
      for (int q = t.pathOff[r]; q < t.pathOff[r + 1]; q++) {
        int sg = t.pathNodes[q];
        pathNodes[pn++] = segBase[pc] >= 0 && owner[sg] == j ? segBase[pc] + ownLocal[sg] : sg;
      }
    }
    pathOff[m] = pn;
    int segs = nextSeg;
    int[] segParent = java.util.Arrays.copyOf(t.segParent, segs);
    int[] segStart = java.util.Arrays.copyOf(t.segStart, segs);
    int[] segLen = java.util.Arrays.copyOf(t.segLen, segs);
    for (int pc = 0; pc < pieces; pc++) {
      if (segBase[pc] < 0) continue;
      int j = drawn[pieceSlot[pc]];
      for (int sg : ownList[j]) {
        int d = segBase[pc] + ownLocal[sg];
        int p = t.segParent[sg];
        segParent[d] = p >= 0 && owner[p] == j ? segBase[pc] + ownLocal[p] : p;
        segStart[d] = t.segStart[sg];
        segLen[d] = t.segLen[sg];
      }
    }
    return new ReplayTrace(m, t.blockSize, t.hasBlocks, t.hasSessions, t.hasTurns, ids, arrival, input, output, turn,
        session, sessionHash, sessBase[pieces], blocks, t.blockCountMismatches, est, prev, first, fork, segs, segParent,
        segStart, segLen, pathOff, pathNodes, null, null);
  }

  /**
   * How many times the original's offered prompt+output tokens the replicate carries: the
   * replicate's input+output tokens over the original's. A replicate lies in the original's window
   * ({@link #ofDraw} wraps what would run past it), so over that window this is the ratio of their
   * offered token rates; the replicate run at rate x / factor (either rate scaling stretches the
   * window by the inverse of the rate) offers the original's token rate at x: equal load (issue 26).
   * 1 for a trace without tokens.
   */
  public static double offeredTokenFactor(ReplayTrace original, ReplayTrace replicate) {
    long o = offeredTokens(original);
    return o > 0 ? (double) offeredTokens(replicate) / o : 1.0;
  }

  /** Input (prompt, cached part included) plus output tokens of every request. */
  static long offeredTokens(ReplayTrace t) {
    long sum = 0;
    for (int r = 0; r < t.n; r++) sum += (long) t.input[r] + t.output[r];
    return sum;
  }

  /** An index of the same tree and piece (the caller's slot and wraps): its new index, or -1. */
  private static int remap(int orig, int genStart, int[] pos, int[] newOf, int[] genWraps, int wraps) {
    if (orig < 0) return -1;
    int g = genStart + pos[orig];
    return genWraps[g] == wraps ? newOf[g] : -1;
  }

  /** SplitMix64's finaliser. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
