package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.TraceBatch;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.ints.IntRBTreeSet;
import it.unimi.dsi.fastutil.ints.IntSortedSet;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.Arrays;

/**
 * Ideal prefix reuse, its sources and its intervals (trace-model.md sections 2-4) for one set of
 * prefix regions, computed per <em>segment</em> of the prompt tree, not per block occurrence.
 *
 * <p>Chained ids make every prompt a path in one tree (equal id at depth i = equal prefix up to
 * i). Phase 1 folds the regions, in trace order, into a radix tree whose nodes (segments) split
 * wherever a later prompt diverges or ends, so that all blocks of a segment are held by exactly
 * the same requests: same first request, same latest earlier holder, same sessions, same template
 * count. A prompt costs a hash lookup per segment of its path plus a binary search inside the
 * segment it leaves (equal last ids mean equal segments, so a whole segment is checked with one
 * comparison); only its new blocks are copied. Phase 2 walks each request's path of segments in
 * trace order: its hit is the prefix of segments that an earlier request created; a hit segment's
 * interval is the gap to that segment's latest holder, its source intra-session when the
 * request's session held it before (the latest holder's session, else a range query on the
 * session's earlier end segments in depth-first order), else system prompt when at least K root
 * sessions' turn-0 requests hold it, else inter-session.
 *
 * <p>A <em>region</em> is blocks [from, to) of one request; the regions of one task must be
 * closed under prefixes within the task (every earlier holder of a block of a region is also a
 * region of this task), which {@link Routing} guarantees. Memory: the distinct block ids of the
 * task's regions (8 bytes each) plus about 50 bytes per segment and per region.
 */
final class SegmentTask {
  // ---- phase 1: the segment tree ----
  private final LongArrayList flat = new LongArrayList();
  private final Long2IntOpenHashMap byHead = new Long2IntOpenHashMap();
  private int nodes;
  private int[] parent = new int[1024];
  private int[] off = new int[1024];
  private int[] len = new int[1024];
  private int[] start = new int[1024];
  private int[] created = new int[1024];

  // ---- regions, in trace order ----
  private int nReq;
  private int[] end = new int[1024];
  private double[] arrival = new double[1024];
  private int[] turn = new int[1024];
  private long[] sess = new long[1024];
  private int[] input = new int[1024];
  private int[] bsize = new int[1024];
  private boolean[] root = new boolean[1024];

  SegmentTask() {
    byHead.defaultReturnValue(-1);
  }

  /** Adds blocks [from, to) of row {@code i} of {@code b} (0 <= from < to <= used blocks). */
  void add(TraceBatch b, int i, int from, int to, long sessionKey) {
    if (nReq == end.length) growRequests();
    int r = nReq++;
    end[r] = insert(b.ids[i], b.idOff[i], from, to, r);
    arrival[r] = b.arrival[i];
    turn[r] = b.turn[i];
    sess[r] = sessionKey;
    input[r] = b.input[i];
    bsize[r] = b.blockSize[i];
    root[r] = SegmentReuse.rootTurn0(b, i);
  }

  private int insert(long[] a, int base, int from, int to, int req) {
    int d = from;
    int p = -1;
    int last = -1;
    while (d < to) {
      int w = byHead.get(a[base + d]);
      if (w < 0) return newNode(p, a, base, d, to, req);
      int l = len[w];
      int o = off[w];
      int m = Math.min(l, to - d);
      int j = match(flat.elements(), o, a, base + d, m);
      if (j < l) w = split(w, j);
      p = w;
      last = w;
      d += j;
    }
    return last;
  }

  /**
   * How many of the m ids at {@code f[o..)} and {@code a[x..)} are equal, given that the first
   * are. Chained ids: equal at position i means equal up to i, so one comparison settles a whole
   * stretch and a binary search finds where two stretches part.
   */
  static int match(long[] f, int o, long[] a, int x, int m) {
    if (f[o + m - 1] == a[x + m - 1]) return m;
    int lo = 1;
    int hi = m - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (f[o + mid - 1] == a[x + mid - 1]) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // ---- the tree, read by Routing when it is built from a sample ----
  int nodes() {
    return nodes;
  }

  int requests() {
    return nReq;
  }

  int endOf(int r) {
    return end[r];
  }

  int parentOf(int x) {
    return parent[x];
  }

  int lengthOf(int x) {
    return len[x];
  }

  /** The ids of segment x, copied. */
  long[] idsOf(int x) {
    return Arrays.copyOfRange(flat.elements(), off[x], off[x] + len[x]);
  }

  /** Splits w after its first j blocks: a new upper node takes them, w keeps the rest (and its children). */
  private int split(int w, int j) {
    if (nodes == parent.length) growNodes();
    int u = nodes++;
    parent[u] = parent[w];
    off[u] = off[w];
    len[u] = j;
    start[u] = start[w];
    created[u] = created[w];
    parent[w] = u;
    off[w] += j;
    len[w] -= j;
    start[w] += j;
    long[] f = flat.elements();
    byHead.put(f[off[u]], u);
    byHead.put(f[off[w]], w);
    return u;
  }

  private int newNode(int p, long[] a, int base, int from, int to, int req) {
    if (nodes == parent.length) growNodes();
    int x = nodes++;
    parent[x] = p;
    off[x] = flat.size();
    len[x] = to - from;
    start[x] = from;
    created[x] = req;
    flat.addElements(flat.size(), a, base + from, to - from);
    byHead.put(a[base + from], x);
    return x;
  }

  private void growNodes() {
    int n = parent.length * 2;
    parent = Arrays.copyOf(parent, n);
    off = Arrays.copyOf(off, n);
    len = Arrays.copyOf(len, n);
    start = Arrays.copyOf(start, n);
    created = Arrays.copyOf(created, n);
  }

  private void growRequests() {
    int n = end.length * 2;
    end = Arrays.copyOf(end, n);
    arrival = Arrays.copyOf(arrival, n);
    turn = Arrays.copyOf(turn, n);
    sess = Arrays.copyOf(sess, n);
    input = Arrays.copyOf(input, n);
    bsize = Arrays.copyOf(bsize, n);
    root = Arrays.copyOf(root, n);
  }

  /** Tokens of blocks [from, to) of a request: min(to B, input) - from B. */
  static long tokens(int from, int to, int b, int input) {
    if (to <= from) return 0;
    return Math.min((long) to * b, input) - (long) from * b;
  }

  static long intervalUs(double now, double prev) {
    return Math.round((now - prev) * 1e6);
  }

  /** Phase 2: hits, sources and intervals of every region into {@code out}; frees the tree. */
  void finish(int templateMinSessions, ReuseSums out) {
    int n = nodes;
    // children lists (CSR), roots last
    int[] firstChild = new int[n + 1];
    int nRoots = 0;
    for (int x = 0; x < n; x++) {
      if (parent[x] >= 0) firstChild[parent[x]]++;
      else nRoots++;
    }
    int acc = 0;
    for (int x = 0; x < n; x++) {
      int c = firstChild[x];
      firstChild[x] = acc;
      acc += c;
    }
    firstChild[n] = acc;
    int[] child = new int[acc];
    int[] fill = Arrays.copyOf(firstChild, n);
    int[] roots = new int[nRoots];
    int ri = 0;
    for (int x = 0; x < n; x++) {
      if (parent[x] >= 0) child[fill[parent[x]]++] = x;
      else roots[ri++] = x;
    }
    // depth-first order: pre[x], subtree end post[x] (exclusive), depth in nodes
    int[] pre = new int[n];
    int[] post = new int[n];
    int[] level = new int[n];
    int[] order = new int[n];
    int[] stack = new int[Math.max(1, n)];
    int counter = 0;
    for (int rt : roots) {
      int sp = 0;
      stack[sp++] = rt;
      level[rt] = 0;
      while (sp > 0) {
        int x = stack[--sp];
        pre[x] = counter;
        order[counter++] = x;
        for (int c = firstChild[x]; c < firstChild[x + 1]; c++) {
          level[child[c]] = level[x] + 1;
          stack[sp++] = child[c];
        }
      }
    }
    int[] size = new int[n];
    for (int q = n - 1; q >= 0; q--) {
      int x = order[q];
      size[x]++;
      if (parent[x] >= 0) size[parent[x]] += size[x];
    }
    for (int x = 0; x < n; x++) post[x] = pre[x] + size[x];
    size = null;
    order = null;
    stack = null;
    child = null;
    firstChild = null;

    int[] rootCount = templateCounts(pre, post, level);
    for (int x = 0; x < n; x++) if (rootCount[x] >= templateMinSessions) out.templateBlocks += len[x];
    out.distinctBlocks += flat.size();
    out.segments += n;
    out.regionRequests += nReq;

    int[] lastUse = new int[n];
    Arrays.fill(lastUse, -1);
    long[] lastSess = new long[n];
    Long2ObjectOpenHashMap<EndSet> held = new Long2ObjectOpenHashMap<>();
    int[] path = new int[64];
    long runs = 0;
    for (int r = 0; r < nReq; r++) {
      int e = end[r];
      if (e < 0) continue;
      int depth = 0;
      for (int x = e; x >= 0; x = parent[x]) {
        if (depth == path.length) path = Arrays.copyOf(path, depth * 2);
        path[depth++] = x;
      }
      long s = sess[r];
      double a = arrival[r];
      long minute = (long) Math.floor(a / 60.0);
      int b = bsize[r];
      int in = input[r];
      EndSet mine = held.get(s);
      boolean intra = true;
      // pending run: consecutive hit segments with the same source and latest holder
      int runSrc = -1;
      int runHolder = -1;
      int runFrom = 0;
      int runTo = 0;
      for (int k = depth - 1; k >= 0; k--) {
        int x = path[k];
        if (created[x] >= r) break; // first segment this request brought: the hit ends
        if (intra && lastSess[x] != s) {
          // held before by this session iff one of its earlier end segments lies in x's subtree
          intra = mine != null && mine.anyIn(pre[x], post[x]);
        }
        int src = intra ? 0 : rootCount[x] >= templateMinSessions ? 1 : 2;
        int holder = lastUse[x];
        if (src != runSrc || holder != runHolder) {
          if (runSrc >= 0) {
            out.hit(runSrc, minute, turn[r], intervalUs(a, arrival[runHolder]), tokens(runFrom, runTo, b, in),
                runTo - runFrom);
            runs++;
          }
          runSrc = src;
          runHolder = holder;
          runFrom = start[x];
        }
        runTo = start[x] + len[x];
      }
      if (runSrc >= 0) {
        out.hit(runSrc, minute, turn[r], intervalUs(a, arrival[runHolder]), tokens(runFrom, runTo, b, in),
            runTo - runFrom);
        runs++;
      }
      for (int k = 0; k < depth; k++) {
        lastUse[path[k]] = r;
        lastSess[path[k]] = s;
      }
      if (mine == null) {
        mine = new EndSet();
        held.put(s, mine);
      }
      mine.add(pre[e]);
    }
    out.hitRuns += runs;
  }

  /**
   * The depth-first positions of one session's end segments so far: a sorted array (sessions
   * mostly have a few requests), a tree set once it grows large.
   */
  static final class EndSet {
    private int[] a = new int[2];
    private int n;
    private IntSortedSet big;

    void add(int v) {
      if (big != null) {
        big.add(v);
        return;
      }
      int i = Arrays.binarySearch(a, 0, n, v);
      if (i >= 0) return;
      i = -i - 1;
      if (n == BIG) {
        big = new IntRBTreeSet(a, 0, n);
        big.add(v);
        a = null;
        return;
      }
      if (n == a.length) a = Arrays.copyOf(a, n * 2);
      System.arraycopy(a, i, a, i + 1, n - i);
      a[i] = v;
      n++;
    }

    /** Whether some element lies in [from, to). */
    boolean anyIn(int from, int to) {
      if (big != null) {
        IntSortedSet tail = big.tailSet(from);
        return !tail.isEmpty() && tail.firstInt() < to;
      }
      int i = Arrays.binarySearch(a, 0, n, from);
      if (i < 0) i = -i - 1;
      return i < n && a[i] < to;
    }

    private static final int BIG = 1024;
  }

  /**
   * For every segment, the number of distinct root sessions whose turn-0 requests hold it: each
   * session's turn-0 end segments sorted in depth-first order count +1 at each and -1 at the
   * lowest common ancestor of neighbours, so a subtree sum counts each session once.
   */
  private int[] templateCounts(int[] pre, int[] post, int[] level) {
    int n = nodes;
    int m = 0;
    for (int r = 0; r < nReq; r++) if (root[r] && end[r] >= 0) m++;
    int[] idx = new int[m];
    m = 0;
    for (int r = 0; r < nReq; r++) if (root[r] && end[r] >= 0) idx[m++] = r;
    IntArrays.quickSort(idx, (x, y) -> {
      int c = Long.compare(sess[x], sess[y]);
      return c != 0 ? c : Integer.compare(pre[end[x]], pre[end[y]]);
    });
    long[] mark = new long[n + 1];
    for (int q = 0; q < m; q++) {
      int x = end[idx[q]];
      boolean sameSession = q > 0 && sess[idx[q - 1]] == sess[idx[q]];
      if (sameSession) {
        int y = end[idx[q - 1]];
        if (y == x) continue;
        int c = lca(x, y, level);
        if (c >= 0) mark[pre[c]]--;
      }
      mark[pre[x]]++;
    }
    long[] cum = new long[n + 1];
    for (int p = 0; p < n; p++) cum[p + 1] = cum[p] + mark[p];
    int[] count = new int[n];
    for (int x = 0; x < n; x++) count[x] = (int) (cum[post[x]] - cum[pre[x]]);
    return count;
  }

  /** Lowest common ancestor, or -1 when x and y lie in different region trees. */
  private int lca(int x, int y, int[] level) {
    while (level[x] > level[y]) x = parent[x];
    while (level[y] > level[x]) y = parent[y];
    while (x != y) {
      if (parent[x] < 0) return -1;
      x = parent[x];
      y = parent[y];
    }
    return x;
  }
}
