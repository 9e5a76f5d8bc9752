package io.smetric.audit.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end on one hand-made trace (block size 16) with a template block in every request, two
 * interleaved sessions, a sub-agent that cuts the history inside a prompt, two sibling sub-agents
 * that inherit a whole prompt, a compaction and unrelated roots. Raw block ids are chained by
 * {@link Traces}; a partial last block always gets a raw id never used again (its content is cut,
 * so no later prompt can repeat it). Expected parents are worked out in the comments.
 */
class SessionInferenceTest {
  /** Template fanout 4: raw block 100 is followed by 1, 11, 21, 41, 71 (5 distinct full blocks). */
  static final InferenceOptions OPTS = new InferenceOptions(3600, 4);

  static Map<String, Row> result;
  static SessionInference.Result run;

  static Traces.Builder trace() {
    Traces.Builder b = Traces.builder().blockSize(16);
    // id, arrival, input tokens, raw blocks; "full" = floor(in/16) blocks survive into follow-ups
    r(b, "A0", 0, 40, 100, 1, 2);           // full (100,1)
    r(b, "B0", 1, 40, 100, 11, 12);         // full (100,11)
    r(b, "A1", 5, 56, 100, 1, 3, 4);        // shares 2 blocks with A0 = A0's full prefix: extends A0
    r(b, "B1", 6, 56, 100, 11, 13, 14);     // extends B0
    r(b, "C0", 7, 40, 100, 21, 22);         // shares only template block 100 (L=1=T): root
    r(b, "A2", 10, 136, 100, 1, 3, 5, 6, 7, 11, 12, 13); // extends A1 (full (100,1,3)); 8 full blocks
    // F0 shares 7 blocks (112 tokens) with A2, but the deepest whole prompt it extends is A1's (3
    // blocks); the 64 tokens it shares beyond A1's 56 exceed A1's response (10) + 32 tokens of
    // framing, so they are not A1's response repeated by two of its children: F0 branched inside
    // A2's prompt: fork of A2
    r(b, "F0", 12, 120, 100, 1, 3, 5, 6, 7, 11, 31);
    r(b, "F1", 14, 152, 100, 1, 3, 5, 6, 7, 11, 31, 33, 34); // extends F0 (full 7 blocks) -> F0's session, turn 1
    r(b, "A3", 20, 168, 100, 1, 3, 5, 6, 7, 11, 12, 8, 9, 14); // extends A2 (full 8 blocks)
    r(b, "A4", 30, 40, 100, 41, 42);        // A's compacted follow-up: only the template: root
    r(b, "B2", 31, 72, 100, 11, 13, 15, 16); // extends B1
    r(b, "G0", 35, 88, 100, 11, 13, 15, 51, 52); // extends B2 (whole prompt + instruction)
    r(b, "H0", 35, 88, 100, 11, 13, 15, 61, 62); // same instant as G0: G0 is not eligible; extends B2
    r(b, "G1", 38, 104, 100, 11, 13, 15, 51, 54, 55); // extends G0
    r(b, "B3", 45, 88, 100, 11, 13, 15, 17, 18); // extends B2 after the sub-agents returned
    r(b, "D0", 50, 40, 100, 71, 72);        // root
    // a sub-agent whose instruction fits in its spawner's partial last block: K0 has the same
    // full prefix (100,81,82) as E0, so K1 and E1 extend both equally
    r(b, "E0", 60, 56, 100, 81, 82, 83);
    // K0 extends E0 adding no full block (group origin E0); its response is 100 tokens
    b.req("K0", null, null, null, Canonical.TRIGGER_UNKNOWN, 62, 60, 100, 100, 81, 82, 84);
    // K1 holds K0's prompt + response (170 >= 60 + 100): K0's follow-up, no doubt
    r(b, "K1", 64, 170, 100, 81, 82, 85, 90, 91, 92, 93, 94, 95, 96);
    // E1 (72 tokens) has no room for K0's response: it may be E0's instead (alt E0); it is the
    // only such candidate, so E0 adopts it
    r(b, "E1", 70, 72, 100, 81, 82, 87, 88);
    return b;
  }

  static void r(Traces.Builder b, String id, double t, int in, long... raw) {
    b.req(id, null, null, null, Canonical.TRIGGER_UNKNOWN, t, in, 10, raw);
  }

  @BeforeAll
  static void infer() {
    Dataset<Row> ds = trace().toDataset(TestSpark.get());
    run = new SessionInference(TestSpark.get(), OPTS).execute(ds);
    result = new HashMap<>();
    for (Row r : run.links().collectAsList()) result.put(r.getString(r.fieldIndex(Canonical.REQUEST_ID)), r);
  }

  static String parent(String id) {
    Row r = result.get(id);
    return (String) r.get(r.fieldIndex(Canonical.PARENT_ID));
  }

  static String session(String id) {
    Row r = result.get(id);
    return r.getString(r.fieldIndex(Canonical.SESSION_ID));
  }

  static int turn(String id) {
    Row r = result.get(id);
    return r.getInt(r.fieldIndex(Canonical.TURN));
  }

  static String kind(String id) {
    Row r = result.get(id);
    return r.getString(r.fieldIndex(SessionInference.LINK_KIND));
  }

  @Test
  void continuation_parentIsThePromptItExtends() {
    assertEquals("A0", parent("A1"));
    assertEquals("B0", parent("B1"));
    assertEquals("A1", parent("A2"));
    assertEquals("B2", parent("B3"));
    assertEquals("F0", parent("F1"));
  }

  @Test
  void interleavedSessions_stayApart_withTurns() {
    for (String a : List.of("A0", "A1", "A2", "A3")) assertEquals("A0", session(a), a);
    for (String b : List.of("B0", "B1", "B2", "B3")) assertEquals("B0", session(b), b);
    assertEquals(List.of(0, 1, 2, 3), List.of(turn("A0"), turn("A1"), turn("A2"), turn("A3")));
    assertEquals(List.of(0, 1, 2, 3), List.of(turn("B0"), turn("B1"), turn("B2"), turn("B3")));
  }

  @Test
  void sharedTemplateBlockOnly_startsANewSession() {
    for (String id : List.of("A0", "B0", "C0", "D0")) {
      assertNull(parent(id), id);
      assertEquals(id, session(id));
    }
    // C0 shares block 100 with everything before it: 1 shared block, template depth 1
    Row c = result.get("C0");
    assertEquals(1, c.getInt(c.fieldIndex(SessionInference.L_SHARED)));
    assertEquals(1, c.getInt(c.fieldIndex(SessionInference.L_TEMPLATE)));
  }

  @Test
  void compactedFollowUp_cannotBeLinked_andStartsASession() {
    assertNull(parent("A4"));
    assertEquals("A4", session("A4"));
  }

  @Test
  void forkCuttingInsideAPrompt_namesTheSpawningRequest() {
    // F0 shares 7 blocks with A2; A1's whole prompt (3 blocks) is the deepest it extends
    assertEquals("A2", parent("F0"));
    assertEquals(SessionInference.KIND_FORK_BRANCH, kind("F0"));
    assertEquals("F0", session("F0"));
    assertEquals(0, turn("F0"));
    assertEquals("F0", session("F1"));
    assertEquals(1, turn("F1"));
  }

  @Test
  void siblingSubAgents_areForksOfTheSpawner_andTheLatestLivingChildContinues() {
    // B2 has three extending children: G0 (subtree ends at G1, t=38), H0 (t=35), B3 (t=45):
    // B3's subtree lives longest, so B3 continues B's session; G0 and H0 are forks of B2
    assertEquals("B2", parent("G0"));
    assertEquals("B2", parent("H0"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind("G0"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind("H0"));
    assertEquals("G0", session("G1"));
    assertEquals("G0", parent("G1"));
    assertEquals("H0", session("H0"));
    assertEquals(SessionInference.KIND_CONTINUATION, kind("B3"));
  }

  @Test
  void equalPrefixSubAgent_spawnerResumesWithTheLastLivingChild() {
    assertEquals("E0", parent("E1"));
    assertEquals(SessionInference.KIND_CONTINUATION, kind("E1"));
    assertEquals("E0", session("E1"));
    assertEquals(1, turn("E1"));
    assertEquals("E0", parent("K0"));
    assertEquals(SessionInference.KIND_FORK_EXTENDS, kind("K0"));
    assertEquals("K0", parent("K1"));
    assertEquals("K0", session("K1"));
    assertEquals(1, turn("K1"));
  }

  @Test
  void followUpAddingNoFullBlock_afterAnEqualPrefixSubAgent_staysInItsSession() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "Y0", 0, 40, 1, 2, 3);     // full (1,2)
    r(b, "X0", 2, 44, 1, 2, 4);     // sub-agent of Y0, full prefix still (1,2): group origin Y0
    r(b, "Y1", 5, 46, 1, 2, 5);     // Y0's next turn, also adds no full block: pass 1 sees X0
                                    // (latest end holder), alt Y0; member and candidate of Y0's group
    r(b, "Y2", 9, 56, 1, 2, 6, 7);  // extends Y1 (latest end holder), alt Y0
    // reverse pass: Y2 -> candidate of Y0; Y1 -> candidate of Y0 that dominates its child Y2;
    // X0 (member) fixes the adoption: Y1 (subtree ends at 9, X0's at 2)
    SessionInference.Result res = new SessionInference(TestSpark.get(), OPTS).execute(b.toDataset(TestSpark.get()));
    Map<String, Row> m = new HashMap<>();
    for (Row r : res.links().collectAsList()) m.put(r.getString(0), r);
    assertEquals("Y0", m.get("Y1").getAs(Canonical.PARENT_ID));
    assertEquals("Y1", m.get("Y2").getAs(Canonical.PARENT_ID));
    assertEquals("Y0", m.get("X0").getAs(Canonical.PARENT_ID));
    assertEquals("Y0", m.get("Y2").getAs(Canonical.SESSION_ID));
    assertEquals(2, (int) m.get("Y2").getAs(Canonical.TURN));
    assertEquals("X0", m.get("X0").getAs(Canonical.SESSION_ID));
  }

  @Test
  void naiveBaseline_linksARootToTheLatestSharerOfTheTemplate() {
    // C0 shares only block 100; the latest earlier holder of it is B1 (t=6)
    Row c = result.get("C0");
    assertEquals("B1", c.get(c.fieldIndex(SessionInference.NAIVE_PARENT_ID)));
  }

  @Test
  void summaryCounts_matchTheHandWorkedTrace() {
    // roots A0 B0 C0 A4 D0 E0; forks F0 G0 H0 K0; sessions 10; continuations: the 10 others
    assertEquals(20, run.requests());
    assertEquals(6, run.roots());
    assertEquals(4, run.forks());
    assertEquals(1, run.forksByBranch());
    assertEquals(3, run.forksByExtension());
    assertEquals(10, run.sessions());
    assertEquals(10, run.continuations());
    // roots that share the template with an earlier request: B0 C0 A4 D0 E0 (A0 is first)
    assertEquals(5, run.templateOnlyRoots());
    assertEquals(1, run.templateBranchPoints());
  }

  @Test
  void outputTrace_hasCanonicalSchema_unknownTrigger_andInferredFields() {
    List<Row> rows = run.trace().collectAsList();
    assertEquals(Canonical.SCHEMA, run.trace().schema());
    assertEquals(20, rows.size());
    Row g1 = rows.stream().filter(r -> r.getString(0).equals("G1")).findFirst().orElseThrow();
    assertEquals("G0", g1.getString(g1.fieldIndex(Canonical.SESSION_ID)));
    assertEquals("G0", g1.getString(g1.fieldIndex(Canonical.PARENT_ID)));
    assertEquals(1, g1.getInt(g1.fieldIndex(Canonical.TURN)));
    assertEquals(Canonical.TRIGGER_UNKNOWN, g1.getString(g1.fieldIndex(Canonical.TRIGGER)));
    // sorted by arrival: first A0, last E1
    assertEquals("A0", rows.get(0).getString(0));
    assertEquals("E1", rows.get(19).getString(0));
  }

  @Test
  void sameInput_givesSameLinks() {
    Dataset<Row> ds = trace().toDataset(TestSpark.get());
    SessionInference.Result again = new SessionInference(TestSpark.get(), OPTS).execute(ds);
    List<Row> a = run.links().orderBy(Canonical.SEQ).collectAsList();
    List<Row> b = again.links().orderBy(Canonical.SEQ).collectAsList();
    assertEquals(a, b);
  }

  @Test
  void parentOlderThanTheWindow_isNotLinked() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "P", 0, 40, 1, 2, 3);
    r(b, "Q", 100, 56, 1, 2, 4, 5); // extends P, but 100 s later
    SessionInference.Result res = new SessionInference(TestSpark.get(), new InferenceOptions(50, 4))
        .execute(b.toDataset(TestSpark.get()));
    Row q = res.links().where("request_id = 'Q'").first();
    assertNull(q.get(q.fieldIndex(Canonical.PARENT_ID)));
  }

  @Test
  void missingBlocks_isBadInput() {
    Traces.Builder b = Traces.builder().blockSize(16);
    b.add(new io.smetric.audit.contract.TraceRecord("x", null, null, null, "unknown", 0, 10, 1, null, null, null, 0));
    assertThrows(BadInputException.class,
        () -> new SessionInference(TestSpark.get(), OPTS).execute(b.toDataset(TestSpark.get())));
  }
}
