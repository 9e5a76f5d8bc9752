package io.smetric.audit.infer.corpus;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a content rule could recover of each link, decided from the written trace (block ids,
 * timestamps, lengths) plus the truth's parents and families, never from how the simulator made
 * the request. docs/session-inference.md ("Content-revealable links") states the definition; in
 * short, for a request c with true parent p:
 *
 * <ul>
 *   <li><b>template depth</b> T(c): the leading blocks of c that requests of at least two distinct
 *       families (session trees) hold somewhere in the trace. Sharing them says nothing about
 *       which conversation c belongs to.
 *   <li><b>evidence</b> of an earlier request q (timestamp strictly before c's): d = the number of
 *       leading blocks c shares with q, and w = c holds all of q's full blocks and is longer (c
 *       extends q's whole prompt). Evidence is ordered by d, then w.
 *   <li><b>candidates</b>: the earlier requests with the strongest evidence, provided d &gt; T(c).
 * </ul>
 *
 * A link is revealable iff d(p) &gt; T(c) and p is the only candidate ({@link #UNIQUE}) or the
 * strictly latest of several ({@link #LATEST_OF_TIES}: the conversation's newest state, the only
 * tie-break content offers). Not revealable: {@link #NO_EVIDENCE} (c shares nothing with p beyond
 * what other families share: compaction, a sliding window, a fresh sub-agent, a parent whose
 * full blocks are all template), {@link #MISLEADING} (another request holds stronger evidence),
 * {@link #TIED} (p is among the candidates but not the latest), {@link #ECHO_AMBIGUOUS} (the
 * strongest evidence is a branch off a request that, like c, extends an earlier request q whole
 * and shares with c no more than q's response: p is q or the branch's latest holder, and content
 * cannot say which). A request with no parent in the
 * trace is {@link #ROOT_CLEAN} if it has no candidate, else {@link #ROOT_WITH_EVIDENCE} (e.g. two
 * requests of a session that began before the trace: content links them, the truth cannot).
 */
public final class Revealability {
  public static final String UNIQUE = "unique";
  public static final String LATEST_OF_TIES = "latest_of_ties";
  public static final String TIED = "tied";
  public static final String MISLEADING = "misleading";
  public static final String NO_EVIDENCE = "no_evidence";
  public static final String ECHO_AMBIGUOUS = "echo_ambiguous";
  /**
   * Tokens of chat-template framing (role header, end marker, generation prompt) allowed around
   * an echoed response: an assumption, 3-10 in common templates; 32 leaves room for tool-call
   * wrappers (the same allowance the rule makes, see PrefixLinker.FRAMING_TOKENS).
   */
  static final int FRAMING = 32;
  public static final String ROOT_CLEAN = "root_clean";
  public static final String ROOT_WITH_EVIDENCE = "root_with_evidence";

  private static final int MULTI = -2;

  private Revealability() {}

  public static boolean revealable(String contentClass) {
    return UNIQUE.equals(contentClass) || LATEST_OF_TIES.equals(contentClass);
  }

  /** Sets {@link CorpusRequest#contentClass} on every request; requests must be in line (= arrival) order. */
  public static void classify(List<CorpusRequest> reqs, int blockSize) {
    int maxId = -1;
    for (CorpusRequest r : reqs) for (int id : r.hashIds) maxId = Math.max(maxId, id);
    int ids = maxId + 1;
    Map<String, Integer> familyIndex = new HashMap<>();
    int[] fam = new int[ids];
    long[] firstT = new long[ids];
    java.util.Arrays.fill(fam, -1);
    java.util.Arrays.fill(firstT, Long.MAX_VALUE);
    for (CorpusRequest r : reqs) {
      int f = familyIndex.computeIfAbsent(r.family, k -> familyIndex.size());
      for (int id : r.hashIds) {
        if (fam[id] == -1) fam[id] = f;
        else if (fam[id] != f) fam[id] = MULTI;
        firstT[id] = Math.min(firstT[id], r.timestampMs);
      }
    }
    // holders of non-template blocks, in line order (compressed rows)
    int[] start = new int[ids + 1];
    for (CorpusRequest r : reqs) for (int id : r.hashIds) if (fam[id] != MULTI) start[id + 1]++;
    for (int i = 0; i < ids; i++) start[i + 1] += start[i];
    int[] holders = new int[start[ids]];
    int[] fill = java.util.Arrays.copyOf(start, ids);
    for (CorpusRequest r : reqs) for (int id : r.hashIds) if (fam[id] != MULTI) holders[fill[id]++] = r.line;

    for (CorpusRequest c : reqs) {
      int[] b = c.hashIds;
      int t = 0;
      while (t < b.length && fam[b[t]] == MULTI) t++;
      int dmax = 0;
      while (dmax < b.length && firstT[b[dmax]] < c.timestampMs) dmax++;
      if (c.parentLine < 0) {
        c.contentClass = dmax > t ? ROOT_WITH_EVIDENCE : ROOT_CLEAN;
        continue;
      }
      CorpusRequest p = reqs.get(c.parentLine);
      int dp = lcp(b, p.hashIds);
      if (dp <= t) {
        c.contentClass = NO_EVIDENCE;
        continue;
      }
      int block = b[dmax - 1];
      boolean anyWhole = false;
      for (int i = start[block]; i < start[block + 1]; i++) {
        CorpusRequest q = reqs.get(holders[i]);
        if (q.timestampMs >= c.timestampMs) break;
        anyWhole |= whole(c, q, dmax, blockSize);
      }
      boolean pIn = false;
      int count = 0;
      long latestOther = Long.MIN_VALUE;
      for (int i = start[block]; i < start[block + 1]; i++) {
        CorpusRequest q = reqs.get(holders[i]);
        if (q.timestampMs >= c.timestampMs) break;
        if (whole(c, q, dmax, blockSize) != anyWhole) continue;
        count++;
        if (q == p) pIn = true;
        else latestOther = Math.max(latestOther, q.timestampMs);
      }
      boolean latest = pIn && (count == 1 || p.timestampMs > latestOther);
      // the echo alternative: when the strongest evidence is a branch (no candidate is extended
      // whole), the deepest request q that c extends whole is an equally good parent if the part
      // c shares beyond q's prompt fits in q's response: c and the deeper holder may both be
      // children of q that repeat q's response (sibling sub-agents that see the spawning call,
      // the spawner's next turn), or c may be a fork of the deeper holder whose cut ends right
      // after q's response. Content cannot tell these apart.
      CorpusRequest echo = anyWhole ? null : deepestWhole(c, reqs, start, holders, dmax, t, blockSize);
      boolean echoFits = echo != null && (long) dmax * blockSize <= (long) echo.inputTokens + echo.outputTokens + FRAMING;
      if (echoFits && (p == echo || latest)) c.contentClass = ECHO_AMBIGUOUS;
      else if (latest) c.contentClass = count == 1 ? UNIQUE : LATEST_OF_TIES;
      else c.contentClass = pIn ? TIED : MISLEADING;
    }
  }

  /**
   * The latest of the requests with the deepest full-block prefix that c extends whole (at a depth
   * above the template depth t and below dmax), or null.
   */
  private static CorpusRequest deepestWhole(CorpusRequest c, List<CorpusRequest> reqs, int[] start, int[] holders,
      int dmax, int t, int blockSize) {
    for (int d = dmax - 1; d > t; d--) {
      int block = c.hashIds[d - 1];
      CorpusRequest best = null;
      for (int i = start[block]; i < start[block + 1]; i++) {
        CorpusRequest q = reqs.get(holders[i]);
        if (q.timestampMs >= c.timestampMs) break;
        if (q.inputTokens / blockSize == d && c.inputTokens > q.inputTokens) best = q;
      }
      if (best != null) return best;
    }
    return null;
  }

  /** c extends q's whole prompt: it holds all of q's full blocks (q holds c's block d-1) and is longer. */
  private static boolean whole(CorpusRequest c, CorpusRequest q, int d, int blockSize) {
    return q.inputTokens / blockSize <= d && c.inputTokens > q.inputTokens;
  }

  static int lcp(int[] a, int[] b) {
    int n = Math.min(a.length, b.length);
    int i = 0;
    while (i < n && a[i] == b[i]) i++;
    return i;
  }
}
