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
    int extraSegs = 0;
    for (int k = 0; k < nTrees; k++) {
      int j = drawn[k];
      copy[k] = times[j]++;
      total += size[j];
      if (copy[k] > 0) extraSegs += ownCount[j];
    }
    if (total > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("replicate too large");
    int m = (int) total;
    // generated order: slot by slot, members in trace order
    int[] genStart = new int[nTrees];
    int[] segBase = new int[nTrees]; // first duplicated segment of slot k (copies > 0 only)
    double[] genArrival = new double[m];
    int[] genOrig = new int[m];
    int g = 0;
    int nextSeg = t.segments;
    for (int k = 0; k < nTrees; k++) {
      int j = drawn[k];
      genStart[k] = g;
      if (copy[k] > 0) {
        segBase[k] = nextSeg;
        nextSeg += ownCount[j];
      }
      for (int p = memberOff[j]; p < memberOff[j + 1]; p++) {
        int r = members[p];
        genArrival[g] = start[k] + (t.arrival[r] - start[j]);
        genOrig[g++] = r;
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
    int[] sessBase = new int[nTrees + 1];
    for (int k = 0; k < nTrees; k++) sessBase[k + 1] = sessBase[k] + sessCount[drawn[k]];

    String[] ids = new String[m];
    double[] arrival = new double[m];
    int[] input = new int[m];
    int[] output = new int[m];
    int[] turn = new int[m];
    int[] session = new int[m];
    long[] sessionHash = new long[sessBase[nTrees]];
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
      ids[i] = t.requestIds[r];
      arrival[i] = genArrival[gi];
      input[i] = t.input[r];
      output[i] = t.output[r];
      turn[i] = t.turn[r];
      int s = t.session[r];
      if (s >= 0) {
        int ns = sessBase[k] + sessLocal[s];
        session[i] = ns;
        sessionHash[ns] = mix(t.sessionHash[s] ^ replicateSeed(k + 1L, copy[k] + 1));
      } else {
        session[i] = -1;
      }
      blocks[i] = t.blocks[r];
      est[i] = t.estHitBlocks[r];
      prev[i] = remap(t.prevInSession[r], genStart[k], pos, newOf);
      first[i] = remap(t.sessionFirst[r], genStart[k], pos, newOf);
      fork[i] = remap(t.forkParent[r], genStart[k], pos, newOf);
      pathOff[i] = pn;
      for (int q = t.pathOff[r]; q < t.pathOff[r + 1]; q++) {
        int sg = t.pathNodes[q];
        pathNodes[pn++] = copy[k] > 0 && owner[sg] == j ? segBase[k] + ownLocal[sg] : sg;
      }
    }
    pathOff[m] = pn;
    int segs = nextSeg;
    int[] segParent = java.util.Arrays.copyOf(t.segParent, segs);
    int[] segStart = java.util.Arrays.copyOf(t.segStart, segs);
    int[] segLen = java.util.Arrays.copyOf(t.segLen, segs);
    for (int k = 0; k < nTrees; k++) {
      if (copy[k] == 0) continue;
      int j = drawn[k];
      for (int sg : ownList[j]) {
        int d = segBase[k] + ownLocal[sg];
        int p = t.segParent[sg];
        segParent[d] = p >= 0 && owner[p] == j ? segBase[k] + ownLocal[p] : p;
        segStart[d] = t.segStart[sg];
        segLen[d] = t.segLen[sg];
      }
    }
    assert segs - t.segments == extraSegs;
    return new ReplayTrace(m, t.blockSize, t.hasBlocks, t.hasSessions, t.hasTurns, ids, arrival, input, output, turn,
        session, sessionHash, sessBase[nTrees], blocks, t.blockCountMismatches, est, prev, first, fork, segs, segParent,
        segStart, segLen, pathOff, pathNodes, null, null);
  }

  /** An index of the same tree (the caller's slot): its new index, or -1. */
  private static int remap(int orig, int genStart, int[] pos, int[] newOf) {
    return orig < 0 ? -1 : newOf[genStart + pos[orig]];
  }

  /** SplitMix64's finaliser. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
