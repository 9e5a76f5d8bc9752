package io.smetric.audit.infer.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The corpus simulator writes what it claims: prefix ids, a consistent truth, and in each member
 * the property the member is named for (no Spark; members cut to a few hundred requests).
 */
class CorpusGeneratorTest {
  static List<CorpusRequest> gen(String member, int n) {
    return CorpusTool.generate(CorpusMembers.get(member).withRequests(n));
  }

  @Test
  void sameSeed_givesTheSameTrace() {
    List<CorpusRequest> a = gen("fork-zoo-b16", 400), b = gen("fork-zoo-b16", 400);
    assertEquals(a.size(), b.size());
    for (int i = 0; i < a.size(); i++) {
      assertEquals(CorpusWriter.truthLine(a.get(i)), CorpusWriter.truthLine(b.get(i)));
      assertTrue(Arrays.equals(a.get(i).hashIds, b.get(i).hashIds));
      assertEquals(a.get(i).timestampMs, b.get(i).timestampMs);
    }
  }

  @Test
  void everyMember_hasPrefixIds_oneIdPerBlock_andAConsistentTruth() {
    for (Map.Entry<String, CorpusSpec> m : CorpusMembers.all().entrySet()) {
      int bs = m.getValue().blockSize;
      List<CorpusRequest> reqs = gen(m.getKey(), 600);
      assertEquals(600, reqs.size(), m.getKey());
      Map<Integer, Long> seenAt = new HashMap<>(); // id -> (position, previous id)
      for (CorpusRequest r : reqs) {
        assertEquals((r.inputTokens + bs - 1) / bs, r.hashIds.length, m.getKey());
        for (int i = 0; i < r.hashIds.length; i++) {
          long where = ((long) i << 32) | (i == 0 ? 0xffffffffL : r.hashIds[i - 1]);
          Long before = seenAt.putIfAbsent(r.hashIds[i], where);
          assertTrue(before == null || before == where, m.getKey() + ": id " + r.hashIds[i] + " after two prefixes");
        }
        if (r.line > 0) assertTrue(r.timestampMs >= reqs.get(r.line - 1).timestampMs, "arrival order");
        if (r.parentLine >= 0) {
          CorpusRequest p = reqs.get(r.parentLine);
          assertTrue(p.timestampMs < r.timestampMs, m.getKey() + " line " + r.line + ": parent not earlier");
          assertEquals(p.family, r.family);
          if (r.fork) assertEquals(0, r.turn);
          else assertEquals(p.turn + 1, r.turn, m.getKey() + " line " + r.line);
          assertEquals(r.fork, r.linkClass.startsWith("fork"), m.getKey() + " line " + r.line);
        } else {
          assertTrue(r.linkClass.equals(LinkClass.ROOT) || r.linkClass.equals(LinkClass.MID_TRACE_START));
        }
        assertTrue(r.contentClass != null);
      }
    }
  }

  @Test
  void midTraceStartMember_seesSessionsMidWay() {
    long mid = gen("mid-trace-start", 600).stream().filter(r -> r.linkClass.equals(LinkClass.MID_TRACE_START)
        && r.turn > 0).count();
    assertTrue(mid >= 20, "requests whose parent was sent before the trace: " + mid);
  }

  @Test
  void forkZoo_hasNestedForks_andForksFromLaterTurns_ofEveryKind() {
    List<CorpusRequest> reqs = gen("fork-zoo", 1500);
    Set<String> sessionsThatAreForks = new HashSet<>();
    int nested = 0, fromLaterTurns = 0;
    Set<String> kinds = new HashSet<>();
    for (CorpusRequest r : reqs) {
      if (!r.fork || r.parentLine < 0) continue;
      sessionsThatAreForks.add(r.session);
      kinds.add(r.linkClass);
      CorpusRequest p = reqs.get(r.parentLine);
      if (sessionsThatAreForks.contains(p.session)) nested++;
      if (p.turn > 0) fromLaterTurns++;
    }
    assertTrue(nested > 10, "forks of forks: " + nested);
    assertTrue(fromLaterTurns > 10, "forks spawned after turn 0: " + fromLaterTurns);
    assertEquals(Set.of(LinkClass.FORK_CUT, LinkClass.FORK_FRESH, LinkClass.FORK_FULL, LinkClass.FORK_WITH_CALL), kinds);
  }

  @Test
  void compactionMember_hasEveryKindOfContextManagement() {
    Set<String> classes = new HashSet<>();
    for (CorpusRequest r : gen("compaction-b16", 1500)) classes.add(r.linkClass);
    assertTrue(classes.containsAll(Set.of(LinkClass.COMPACTION, LinkClass.COMPACTION_KEEP_TASK,
        LinkClass.SLIDING_WINDOW, LinkClass.HISTORY_EDIT)), classes.toString());
  }

  @Test
  void noEchoMember_hasFollowUpsShorterThanPromptPlusResponse() {
    List<CorpusRequest> reqs = gen("no-echo-b16", 600);
    long shorter = reqs.stream().filter(r -> r.linkClass.equals(LinkClass.CONTINUATION)
        && r.inputTokens < reqs.get(r.parentLine).inputTokens + reqs.get(r.parentLine).outputTokens).count();
    assertTrue(shorter > 100, "continuations with no room for their parent's whole response: " + shorter);
  }

  @Test
  void crowdedMember_startsDozensOfSessionsWithinSeconds() {
    List<CorpusRequest> roots = gen("crowded-template", 1500).stream()
        .filter(r -> r.linkClass.equals(LinkClass.ROOT)).toList();
    int best = 0;
    for (int i = 0, j = 0; i < roots.size(); i++) {
      while (roots.get(i).timestampMs - roots.get(j).timestampMs > 5000) j++;
      best = Math.max(best, i - j + 1);
    }
    assertTrue(best >= 20, "most root sessions started within 5 s: " + best);
  }

  @Test
  void thinkTimeMembers_differInTheirGaps() {
    // the heavy tail must survive into the written trace (a trace that ends before the long
    // gaps close censors them): over 1% of its parent-child gaps exceed 5 minutes, against
    // none in the lognormal baseline; the longest is above 10 minutes
    double heavyLong = shareOver(gen("heavy-tail-think", 1500), 300);
    double baseLong = shareOver(gen("baseline", 1500), 300);
    assertTrue(heavyLong > 0.01, "share of gaps over 300 s in the heavy-tail member: " + heavyLong);
    assertTrue(baseLong < 0.002, "share of gaps over 300 s in the baseline member: " + baseLong);
    assertTrue(maxGapS(gen("heavy-tail-think", 1500)) > 600);
    double zeroMedian = medianGapS(gen("near-zero-gaps-b16", 1500));
    assertTrue(zeroMedian < 1.5, "median parent-child gap in the near-zero member: " + zeroMedian);
  }

  private static double shareOver(List<CorpusRequest> reqs, double s) {
    double[] g = gaps(reqs);
    return Arrays.stream(g).filter(x -> x > s).count() / (double) g.length;
  }

  private static double[] gaps(List<CorpusRequest> reqs) {
    return reqs.stream().filter(r -> r.parentLine >= 0)
        .mapToDouble(r -> (r.timestampMs - reqs.get(r.parentLine).timestampMs) / 1000.0).toArray();
  }

  private static double maxGapS(List<CorpusRequest> reqs) {
    return Arrays.stream(gaps(reqs)).max().orElse(0);
  }

  private static double medianGapS(List<CorpusRequest> reqs) {
    double[] g = reqs.stream().filter(r -> r.parentLine >= 0)
        .mapToDouble(r -> (r.timestampMs - reqs.get(r.parentLine).timestampMs) / 1000.0).sorted().toArray();
    return g[g.length / 2];
  }
}
