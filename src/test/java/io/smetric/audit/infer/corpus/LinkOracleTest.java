package io.smetric.audit.infer.corpus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** LinkOracle and LinkScore on a hand-built trace (block size 4) whose classes are worked out below. */
class LinkOracleTest {
  private static final int B = 4;

  private static CorpusRequest req(List<CorpusRequest> l, long t, int in, int parent, String session, int turn,
      boolean fork, int... blocks) {
    CorpusRequest r = new CorpusRequest();
    r.line = l.size();
    r.timestampMs = t;
    r.inputTokens = in;
    r.outputTokens = 5;
    r.hashIds = blocks;
    r.parentLine = parent;
    r.session = session;
    r.turn = turn;
    r.fork = fork;
    l.add(r);
    return r;
  }

  static List<CorpusRequest> trace() {
    List<CorpusRequest> l = new ArrayList<>();
    // blocks 1, 2: a template every session starts with
    req(l, 0, 10, -1, "A", 0, false, 1, 2, 3); // r0: A's first prompt, full blocks [1, 2]
    req(l, 10, 16, 0, "A", 1, false, 1, 2, 4, 5); // r1 extends r0; nothing else ends at block 2 yet
    req(l, 20, 10, -1, "B", 0, false, 1, 2, 3); // r2: B's first prompt, identical to r0
    req(l, 30, 16, 2, "B", 1, false, 1, 2, 6, 7); // r3 extends r2 and r0 alike; r2 is the later one
    req(l, 40, 14, 1, "C", 0, true, 1, 2, 4, 8); // r4: sub-agent of r1 cut inside it (shares 3 of r1's 4 full blocks)
    req(l, 50, 11, 1, "A", 2, false, 1, 2, 9); // r5: A compacted: shares only the template with r1
    req(l, 60, 8, 3, "D", 0, true, 10, 11); // r6: fresh sub-agent of r3: no shared block
    req(l, 70, 20, -1, "E", 3, false, 12, 13, 14, 15, 16); // r7: turn 3 of a session begun before the trace
    return l;
  }

  @Test
  void classifiesEachLinkByCauseAndEvidence() {
    String[] cls = LinkOracle.classify(trace(), B);
    assertArrayEquals(new String[] {
        "root/none",
        "continuation/unique",
        "root/none",
        // r0 has r2's exact prompt and arrived first: recency picks r2
        "continuation/identical_latest",
        // block 4 (depth 3) is held by r1 alone; the whole-prompt extensions at depth 2 (r0, r2) are a tie, no competitor
        "fork_branch/unique",
        // the template blocks are held by r2, r3, r4 too, all later than r1
        "rewritten/tie",
        "unrelated/none",
        "missing_parent/none"}, cls);
  }

  @Test
  void scoresEveryLink() {
    List<CorpusRequest> t = trace();
    String[] cls = LinkOracle.classify(t, B);
    // right: r1 -> r0, r4 -> r1; wrong: r3 -> r0 (truth r2), r7 -> r5 (truth none); r5, r6 missed
    int[] pred = {-1, 0, -1, 0, 1, -1, -1, 5};
    LinkScore s = LinkScore.score(t, cls, pred);
    assertEquals(5, s.all.truth);
    assertEquals(4, s.all.predicted);
    assertEquals(2, s.all.correct);
    assertEquals(0.5, s.all.precision(), 1e-12);
    assertEquals(0.4, s.all.recall(), 1e-12);
    // revealable (r1, r4) + roots (r0, r2): both links right, no link on a root
    assertEquals(2, s.revealable.truth);
    assertEquals(2, s.revealable.predicted);
    assertEquals(1.0, s.revealable.precision(), 1e-12);
    assertEquals(1.0, s.revealable.recall(), 1e-12);
    assertEquals(0, s.byClass.get("continuation/identical_latest").correct);
    assertEquals(1, s.byClass.get("missing_parent/none").predicted);
    // a link invented on a root counts against revealable precision
    pred[2] = 0;
    assertEquals(2 / 3.0, LinkScore.score(t, cls, pred).revealable.precision(), 1e-12);
  }
}
