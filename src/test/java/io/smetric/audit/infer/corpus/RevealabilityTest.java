package io.smetric.audit.infer.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The content classes on a hand-built trace (block size 16, every response 10 tokens). Block ids
 * are prefix ids: an id stands for the whole prefix up to its block, so requests share ids only
 * by copying a prefix. Families: f0 (everything but b0) and f1 (b0). Blocks 0 and 1 are held by
 * both families, so the template depth of every f0 request is 2. The echo allowance is
 * in(q) + out(q) + 32 tokens.
 */
class RevealabilityTest {
  static final int B = 16;
  static List<CorpusRequest> reqs = new ArrayList<>();

  static int[] a1Blocks = IntStream.concat(IntStream.of(0, 1), IntStream.range(100, 110)).toArray(); // 12 full

  static int[] concat(int[] a, int n, int... tail) {
    int[] out = new int[n + tail.length];
    System.arraycopy(a, 0, out, 0, n);
    System.arraycopy(tail, 0, out, n, tail.length);
    return out;
  }

  static CorpusRequest r(long tMs, int in, int[] ids, int parent, String family) {
    CorpusRequest c = new CorpusRequest();
    c.line = reqs.size();
    c.timestampMs = tMs;
    c.inputTokens = in;
    c.outputTokens = 10;
    c.hashIds = ids;
    c.parentLine = parent;
    c.family = family;
    reqs.add(c);
    return c;
  }

  static CorpusRequest a0, b0, a1, a2, a3, a4, x0, x1, x2, x3, a6, f1, f2, z;

  @BeforeAll
  static void build() {
    a0 = r(0, 40, new int[] {0, 1, 10}, -1, "f0"); // full (0,1): template only
    b0 = r(1, 40, new int[] {0, 1, 20}, -1, "f1");
    // a1 extends a0 whole, but a0's full blocks are all template: nothing to go by
    a1 = r(2, 200, concat(a1Blocks, 12, 111), 0, "f0"); // 12 full + partial
    // a2 extends a1 whole (12 full blocks): the only candidate at depth 12 that it extends whole
    a2 = r(3, 320, concat(a1Blocks, 12, 40, 41, 42, 43, 44, 45, 46, 47), 2, "f0"); // 20 full
    // a3 cuts inside a2 at 17 blocks (272 tokens > a1's 200 + 10 + 32): only a2 holds block 16
    a3 = r(4, 300, concat(a2.hashIds, 17, 50, 51), 3, "f0");
    // a4 cuts at the same depth later: a2 and a3 hold block 16, neither extended whole, a3 is later
    a4 = r(5, 300, concat(a2.hashIds, 17, 52, 53), 3, "f0");
    // x0 extends a2; x1 has x0's full prefix (its 4 extra tokens stay in the partial block)
    int[] x0Blocks = concat(a2.hashIds, 20, 60, 61, 62);
    x0 = r(6, 360, x0Blocks, 3, "f0"); // 22 full + partial 62
    x1 = r(7, 364, concat(x0Blocks, 22, 63), 6, "f0");
    // x2 extends both x0 and x1 whole at depth 22: x1 is the latest of the two
    x2 = r(8, 400, concat(x0Blocks, 22, 64, 65, 66), 7, "f0");
    // x3 extends both as well, but its true parent x0 is not the latest
    x3 = r(9, 400, concat(x0Blocks, 22, 67, 68, 69), 6, "f0");
    // a6's parent is a1, but it shares 17 blocks with a2, a3 and a4: content points elsewhere
    a6 = r(10, 300, concat(a2.hashIds, 17, 70, 71), 2, "f0");
    // sub-agents of a1 that see its call (blocks 80, 81): f2 shares 14 blocks with f1 (224
    // tokens, within a1's 200 + 10 + 32): a1's child repeating a1's response, or a cut of f1
    f1 = r(11, 248, concat(a1Blocks, 12, 80, 81, 82, 83), 2, "f0"); // 15 full
    f2 = r(12, 264, concat(a1Blocks, 12, 80, 81, 84, 85, 86), 2, "f0");
    // seen without its parent (sent before the trace), but it shares a2's history
    z = r(13, 232, concat(a2.hashIds, 13, 90, 91), -1, "f0");
    Revealability.classify(reqs, B);
  }

  @Test
  void firstRequests_haveNoCandidate_rootClean() {
    assertEquals(Revealability.ROOT_CLEAN, a0.contentClass);
    assertEquals(Revealability.ROOT_CLEAN, b0.contentClass); // shares blocks 0, 1: template
  }

  @Test
  void parentWhoseFullBlocksAreTemplate_noEvidence() {
    assertEquals(Revealability.NO_EVIDENCE, a1.contentClass);
  }

  @Test
  void onlyCandidate_unique() {
    assertEquals(Revealability.UNIQUE, a2.contentClass);
    assertEquals(Revealability.UNIQUE, a3.contentClass);
  }

  @Test
  void equalEvidence_parentNotLatest_tied() {
    assertEquals(Revealability.TIED, a4.contentClass);
    assertEquals(Revealability.TIED, x3.contentClass);
  }

  @Test
  void equalEvidence_parentLatest_latestOfTies() {
    assertEquals(Revealability.LATEST_OF_TIES, x2.contentClass);
  }

  @Test
  void strongerEvidenceElsewhere_misleading() {
    assertEquals(Revealability.MISLEADING, a6.contentClass);
  }

  @Test
  void sharingWithinTheParentsResponse_echoAmbiguous() {
    assertEquals(Revealability.UNIQUE, f1.contentClass); // extends a1 whole, nobody holds more
    assertEquals(Revealability.ECHO_AMBIGUOUS, f2.contentClass);
  }

  @Test
  void noParentInTrace_butSharedHistory_rootWithEvidence() {
    assertEquals(Revealability.ROOT_WITH_EVIDENCE, z.contentClass);
  }
}
