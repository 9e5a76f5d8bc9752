package io.smetric.audit.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * One hand-built trace per rule added for traces we did not generate (block size 16, template
 * fanout 4, raw block ids chained by {@link Traces}). Each comment works out what the rule must
 * find and what the earlier rule found instead.
 */
class RuleCasesTest {
  static final InferenceOptions OPTS = new InferenceOptions(3600, 4);

  static void r(Traces.Builder b, String id, double t, int in, int out, long... raw) {
    b.req(id, null, null, null, Canonical.TRIGGER_UNKNOWN, t, in, out, raw);
  }

  static Map<String, Row> infer(Traces.Builder b) {
    SessionInference.Result res = new SessionInference(TestSpark.get(), OPTS).execute(b.toDataset(TestSpark.get()));
    Map<String, Row> m = new HashMap<>();
    for (Row x : res.links().collectAsList()) m.put(x.getString(x.fieldIndex(Canonical.REQUEST_ID)), x);
    return m;
  }

  static String parent(Map<String, Row> m, String id) {
    return m.get(id).getAs(Canonical.PARENT_ID);
  }

  static String kind(Map<String, Row> m, String id) {
    return m.get(id).getAs(SessionInference.LINK_KIND);
  }

  @Test
  void identicalPrompt_isNotAChildOfItsTwin_butGetsItsParent() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "R1", 0, 40, 10, 1, 2, 3);
    r(b, "R2", 1, 40, 10, 1, 2, 3); // the same 40 tokens: a rollout of the same task (or a retry)
    r(b, "C", 5, 72, 10, 1, 2, 4, 5, 6); // extends R1 and R2 (full (1,2)): the latest, R2
    r(b, "D", 6, 72, 10, 1, 2, 4, 5, 6); // identical to C: C's parent
    Map<String, Row> m = infer(b);
    // before: R2 shared all 3 blocks with R1 and was linked to it as a fork
    assertNull(parent(m, "R2"));
    assertEquals(SessionInference.KIND_ROOT, kind(m, "R2"));
    assertEquals("R2", parent(m, "C"));
    assertEquals("R2", parent(m, "D"));
  }

  @Test
  void siblingsRepeatingTheSpawningCall_areChildrenOfTheSpawner() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "P", 0, 40, 40, 1, 2, 3); // full (1,2); a 40-token response (the spawning call)
    // F1: P's 40 tokens, the call rendered with its framing (tokens 40-79), a 60-token instruction
    r(b, "F1", 10, 140, 10, 1, 2, 10, 11, 12, 20, 21, 22, 23);
    // F2 shares 5 blocks (80 tokens) with F1: beyond P's prompt only the call, within P's
    // 40 + 40 + 32 = 112 tokens: F2 repeats P's response, it did not branch inside F1
    r(b, "F2", 10.5, 140, 10, 1, 2, 10, 11, 12, 30, 31, 32, 33);
    // the spawner's next turn after its sub-agents: P + call + their results
    r(b, "J", 20, 156, 10, 1, 2, 10, 11, 12, 40, 41, 42, 43, 44);
    Map<String, Row> m = infer(b);
    // before: F2 was a fork of F1 and J a fork of F2 (the deepest sharer)
    assertEquals("P", parent(m, "F1"));
    assertEquals("P", parent(m, "F2"));
    assertEquals("P", parent(m, "J"));
    // J's line lives longest: it continues P's session; the sub-agents are forks of P
    assertEquals(SessionInference.KIND_CONTINUATION, kind(m, "J"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind(m, "F1"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind(m, "F2"));
  }

  @Test
  void followUpRewritingTheGenerationPrompt_continuesItsParent() {
    Traces.Builder b = Traces.builder().blockSize(16);
    // p: 50 tokens, 3 full blocks; its last 4 tokens (46-49) are the generation prompt, which
    // history renders differently: the follow-up diverges at token 46, inside block 2
    r(b, "p", 0, 50, 10, 1, 2, 3, 4);
    r(b, "c", 5, 100, 10, 1, 2, 5, 6, 7, 8, 9); // shares blocks 0-1 only
    Map<String, Row> m = infer(b);
    // p's core (its prompt minus the last 32 tokens: 1 block) ends inside what c shares, and
    // c's 32 shared tokens fit in p's prompt and response: c extends p. Before: the deepest
    // whole prompt c extended did not exist, so c was a fork that branched inside p
    assertEquals("p", parent(m, "c"));
    assertEquals(SessionInference.KIND_CONTINUATION, kind(m, "c"));
  }

  @Test
  void wideFanOut_isNotATemplate_whileIndependentSessionsMakeOne() {
    Traces.Builder b = Traces.builder().blockSize(16);
    // five sessions on template block 100, seconds apart: 100 branches 5 times independently
    for (int k = 0; k < 5; k++) r(b, "S" + k, k, 40, 10, 100, 30 + k, 60 + k);
    r(b, "P", 10, 56, 10, 100, 1, 3, 4); // full (100,1,3)
    // six sub-agents spawned together by P's response, each extends P's whole prompt
    for (int i = 0; i < 6; i++) r(b, "F" + i, 15, 72, 10, 100, 1, 3, 10 + i, 20 + i);
    r(b, "J", 30, 72, 10, 100, 1, 3, 50, 51); // P's next turn
    Map<String, Row> m = infer(b);
    // P's last block has 7 distinct successors, but the 6 sub-agents are explained by P (they
    // arrive before any second generation): before, with fanout 4, it became a template and
    // every sub-agent a new root
    for (int i = 0; i < 6; i++) assertEquals("P", parent(m, "F" + i), "F" + i);
    assertEquals(SessionInference.KIND_CONTINUATION, kind(m, "J"));
    // block 100 is a template: the sessions are roots, P shares only it with them
    for (int k = 0; k < 5; k++) assertNull(parent(m, "S" + k), "S" + k);
    assertNull(parent(m, "P"));
    assertEquals(1, (int) m.get("S1").getAs(SessionInference.L_TEMPLATE));
  }

  @Test
  void shortFirstPromptsEndingInTheTemplate_remainRoots() {
    Traces.Builder b = Traces.builder().blockSize(16);
    // template = blocks 100, 101; each session's first prompt adds a question shorter than a
    // block (34-39 tokens: full prefix = the template) and its next turn adds the 50-token
    // response and a message. Every first prompt extends the one before it, with no room for
    // its response: after the first session's second turn they are later sessions, not
    // sub-agents, and their successors count towards the template
    for (int k = 0; k < 6; k++) {
      r(b, "S" + k + "a", 10 * k, 34 + k, 50, 100, 101, 200 + k);
      r(b, "S" + k + "b", 10 * k + 5, 110, 50, 100, 101, 300 + 10 * k, 301 + 10 * k, 302 + 10 * k,
          303 + 10 * k, 304 + 10 * k);
    }
    Map<String, Row> m = infer(b);
    for (int k = 0; k < 6; k++) assertNull(parent(m, "S" + k + "a"), "S" + k + "a");
    assertEquals(2, (int) m.get("S3a").getAs(SessionInference.L_TEMPLATE));
  }

  @Test
  void subAgentArrivingAfterItsSpawnerWentOn_keepsTheSpawnerAsParent() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "P0", 0, 40, 10, 1, 2, 3);
    r(b, "P1", 5, 72, 10, 1, 2, 4, 5, 6); // P0's next turn, sent without waiting for the sub-agent
    r(b, "F", 6, 72, 10, 1, 2, 7, 8, 9); // sub-agent that inherited P0's whole prompt
    r(b, "P2", 10, 104, 10, 1, 2, 4, 5, 10, 11, 12);
    Map<String, Row> m = infer(b);
    // P1's line lives longer: it continues P0's session. F extends P0, whose response spawned
    // it. Before, F was moved to the latest request of P0's session before it (P1)
    assertEquals(SessionInference.KIND_CONTINUATION, kind(m, "P1"));
    assertEquals("P0", parent(m, "F"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind(m, "F"));
  }

  @Test
  void forkExtendingARequestTwoTurnsBehind_isMovedToTheSessionsLatestRequest() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "P0", 0, 40, 10, 1, 2, 3);
    r(b, "P1", 5, 72, 10, 1, 2, 4, 5, 6);
    r(b, "P2", 10, 104, 10, 1, 2, 4, 5, 7, 8, 9);
    // F holds P0's whole prompt and then its own: a sub-agent whose inherited history was cut
    // where P0's prompt ended. P0's session completed P1 and P2 before F arrived, which a
    // sub-agent of P0 (started right after P0's response) could not wait for: F was spawned by
    // the session's latest request, P2
    r(b, "F", 12, 72, 10, 1, 2, 20, 21, 22);
    r(b, "P3", 20, 136, 10, 1, 2, 4, 5, 7, 8, 10, 11, 12);
    Map<String, Row> m = infer(b);
    assertEquals("P2", parent(m, "F"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind(m, "F"));
    assertEquals("P2", parent(m, "P3"));
  }
}
