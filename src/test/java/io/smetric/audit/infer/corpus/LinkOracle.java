package io.smetric.audit.infer.corpus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Classifies every request of a trace by the cause of its true link, from the truth's parent
 * links, sessions and turns and the written blocks alone (block ids, lengths, timestamps). It
 * shares nothing with the inference rule: no template set, no framing allowance, no window, no
 * echo test. docs/session-inference.md ("Scoring on every link") states the definition.
 *
 * <p>A class is {@code structure/evidence}. Structure, for a request c with true parent p
 * ({@code full(q)} = floor(in_q / B) blocks, "c extends q" = q arrived strictly before c, c is
 * longer, and c holds all of q's full blocks, full(q) &gt;= 1):
 *
 * <ul>
 *   <li>{@code root}: no parent, turn 0 of a root session. {@code missing_parent}: no parent in the
 *       trace but turn &gt; 0 or a sub-agent (its session or its spawner began before the trace).
 *   <li>{@code continuation}: c extends p, same session. {@code fork_extends}: c extends p, c is
 *       turn 0 of a new session (a sub-agent that inherited p's whole prompt).
 *   <li>{@code fork_branch}: c shares a block prefix with p but does not extend it, new session (a
 *       sub-agent given a cut of p's history). {@code rewritten}: the same in p's own session (the
 *       history was rewritten: compaction keeping a prefix, a sliding window, edited tool output).
 *   <li>{@code unrelated}: c shares no block with p, or p has no full block (a fresh sub-agent, a
 *       compaction that kept nothing, a parent under one block).
 * </ul>
 *
 * Evidence: what the blocks say about p against every other earlier request q. The ancestors of p
 * are not competitors (they are older states of p's conversation: what c shares with them it also
 * shares with p at least as far).
 *
 * <ul>
 *   <li>For an extension at depth D = full(p): {@code outranked} if c extends some q deeper; else
 *       {@code ambiguous} if c shares strictly more than D blocks with some request (a sibling that
 *       saw the same spawning call, a sub-agent the session spawned: content offers a deeper
 *       branch as well as the whole-prompt extension); else {@code unique} if no q at depth D is
 *       extended too, {@code identical_latest} / {@code identical} if one such q has p's exact prompt
 *       (identical first turns, retries) and p is / is not the latest of them, {@code tie_latest} /
 *       {@code tie} otherwise (same full blocks, e.g. template + a short first message).
 *   <li>For a branch at depth m = lcp(c, p): {@code outranked} if some request shares more; else,
 *       over the holders of block m-1 that arrived before c, {@code unique} if p is the only one,
 *       {@code tie_latest} if p is the latest, {@code tie} otherwise; a unique or latest branch is
 *       {@code ambiguous} when c also extends whole a request whose extension is itself unique at
 *       its depth (content offers both readings).
 * </ul>
 *
 * <b>Revealable</b> = evidence {@code unique}: the blocks point at p and at nothing else.
 */
public final class LinkOracle {
  public static final String UNIQUE = "unique";

  private LinkOracle() {}

  /** True when the class's evidence is unique (content points at the true parent and only at it). */
  public static boolean revealable(String cls) {
    return cls.endsWith("/" + UNIQUE);
  }

  /** The class of every request, indexed by line; requests must be in line (= arrival) order. */
  public static String[] classify(List<CorpusRequest> reqs, int blockSize) {
    int n = reqs.size();
    Map<Integer, List<Integer>> holders = new HashMap<>();
    Map<Integer, List<Integer>> ends = new HashMap<>();
    for (CorpusRequest r : reqs) {
      for (int id : r.hashIds) holders.computeIfAbsent(id, k -> new ArrayList<>()).add(r.line);
      int f = full(r, blockSize);
      if (f >= 1) ends.computeIfAbsent(r.hashIds[f - 1], k -> new ArrayList<>()).add(r.line);
    }
    String[] cls = new String[n];
    for (CorpusRequest c : reqs) {
      if (c.parentLine < 0) {
        cls[c.line] = c.turn > 0 || c.fork ? "missing_parent/none" : "root/none";
        continue;
      }
      CorpusRequest p = reqs.get(c.parentLine);
      Set<Integer> anc = new HashSet<>();
      for (int a = p.parentLine; a >= 0; a = reqs.get(a).parentLine) anc.add(a);
      int fp = full(p, blockSize);
      int mp = lcp(c.hashIds, p.hashIds);
      boolean newSession = !c.session.equals(p.session);
      int m = deepestShared(c, reqs, holders);
      if (fp >= 1 && extendsWhole(c, p, blockSize)) {
        String s = newSession ? "fork_extends" : "continuation";
        cls[c.line] = s + "/" + extensionEvidence(c, p, fp, m, anc, reqs, ends, blockSize);
      } else if (mp >= 1 && fp >= 1) {
        String s = newSession ? "fork_branch" : "rewritten";
        cls[c.line] = s + "/" + branchEvidence(c, p, mp, m, anc, reqs, holders, ends, blockSize);
      } else {
        cls[c.line] = "unrelated/none";
      }
    }
    return cls;
  }

  private static String extensionEvidence(CorpusRequest c, CorpusRequest p, int d, int m, Set<Integer> anc,
      List<CorpusRequest> reqs, Map<Integer, List<Integer>> ends, int b) {
    for (int k = full(c, b); k > d; k--) {
      for (int q : ends.getOrDefault(c.hashIds[k - 1], List.of())) {
        CorpusRequest x = reqs.get(q);
        if (x.timestampMs < c.timestampMs && x != p && !anc.contains(q) && extendsWhole(c, x, b)) return "outranked";
      }
    }
    if (m > d) return "ambiguous";
    boolean identical = false, tie = false, later = false;
    for (int q : ends.getOrDefault(c.hashIds[d - 1], List.of())) {
      CorpusRequest x = reqs.get(q);
      if (x == p || anc.contains(q) || x.timestampMs >= c.timestampMs || !extendsWhole(c, x, b)) continue;
      tie = true;
      if (x.inputTokens == p.inputTokens && Arrays.equals(x.hashIds, p.hashIds)) identical = true;
      if (x.timestampMs >= p.timestampMs) later = true;
    }
    if (!tie) return UNIQUE;
    return (identical ? "identical" : "tie") + (later ? "" : "_latest");
  }

  private static String branchEvidence(CorpusRequest c, CorpusRequest p, int mp, int m, Set<Integer> anc,
      List<CorpusRequest> reqs, Map<Integer, List<Integer>> holders, Map<Integer, List<Integer>> ends, int b) {
    if (mp < m) return "outranked";
    boolean tie = false, later = false;
    for (int q : holders.get(c.hashIds[mp - 1])) {
      CorpusRequest x = reqs.get(q);
      if (x == p || anc.contains(q) || x.timestampMs >= c.timestampMs) continue;
      tie = true;
      if (x.timestampMs >= p.timestampMs) later = true;
    }
    if (tie && later) return "tie";
    // a whole-prompt extension that content would pick uniquely is a competing reading
    for (int k = Math.min(mp, full(c, b)); k >= 1; k--) {
      List<CorpusRequest> at = new ArrayList<>();
      for (int q : ends.getOrDefault(c.hashIds[k - 1], List.of())) {
        CorpusRequest x = reqs.get(q);
        if (x.timestampMs < c.timestampMs && full(x, b) == k && extendsWhole(c, x, b)) at.add(x);
      }
      if (at.size() == 1 && at.get(0) != p) return "ambiguous";
      if (!at.isEmpty()) break;
    }
    return tie ? "tie_latest" : UNIQUE;
  }

  /** The most blocks c shares with any request that arrived strictly before it. */
  private static int deepestShared(CorpusRequest c, List<CorpusRequest> reqs, Map<Integer, List<Integer>> holders) {
    int m = 0;
    for (int i = 0; i < c.hashIds.length; i++) {
      // holder lists are in line (arrival) order: the first is the earliest
      if (reqs.get(holders.get(c.hashIds[i]).get(0)).timestampMs >= c.timestampMs) break;
      m = i + 1;
    }
    return m;
  }

  static int full(CorpusRequest r, int b) {
    return Math.min(r.hashIds.length, r.inputTokens / b);
  }

  /** c extends q's whole prompt: q arrived first, c is longer and holds all of q's full blocks. */
  static boolean extendsWhole(CorpusRequest c, CorpusRequest q, int b) {
    int f = full(q, b);
    return q.timestampMs < c.timestampMs && c.inputTokens > q.inputTokens && f >= 1 && lcp(c.hashIds, q.hashIds) >= f;
  }

  static int lcp(int[] a, int[] b) {
    int k = Math.min(a.length, b.length);
    int i = 0;
    while (i < k && a[i] == b[i]) i++;
    return i;
  }
}
