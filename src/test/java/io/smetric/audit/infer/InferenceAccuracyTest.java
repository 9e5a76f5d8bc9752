package io.smetric.audit.infer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scores a 7-request trace against a hand-written truth. Request ids are line numbers, as in the
 * generator's Mooncake output. Truth sessions: s0 = {0, 2, 4} (4 is compacted: only the template
 * survives), s1 = {1, 5}, s2 = {3}, s3 = {6}. Block 100 opens every prompt (template).
 */
class InferenceAccuracyTest {
  @TempDir static Path tmp;
  static JsonNode acc;

  static Traces.Builder trace() {
    Traces.Builder b = Traces.builder().blockSize(16);
    r(b, "0", 0, 40, 100, 1, 2);
    r(b, "1", 1, 40, 100, 11, 12);
    r(b, "2", 5, 56, 100, 1, 3, 4);   // extends 0
    r(b, "3", 7, 40, 100, 21, 22);
    r(b, "4", 10, 40, 100, 41, 42);   // compacted follow-up of 2
    r(b, "5", 11, 56, 100, 11, 13, 14); // extends 1
    r(b, "6", 12, 40, 100, 71, 72);
    return b;
  }

  static final String TRUTH = String.join("\n",
      "{\"line\":0,\"session_id\":\"s0\",\"parent_line\":null,\"turn\":0,\"trigger\":\"user\",\"fork\":false,\"compacted\":false}",
      "{\"line\":1,\"session_id\":\"s1\",\"parent_line\":null,\"turn\":0,\"trigger\":\"user\",\"fork\":false,\"compacted\":false}",
      "{\"line\":2,\"session_id\":\"s0\",\"parent_line\":0,\"turn\":1,\"trigger\":\"tool\",\"fork\":false,\"compacted\":false}",
      "{\"line\":3,\"session_id\":\"s2\",\"parent_line\":null,\"turn\":0,\"trigger\":\"user\",\"fork\":false,\"compacted\":false}",
      "{\"line\":4,\"session_id\":\"s0\",\"parent_line\":2,\"turn\":2,\"trigger\":\"tool\",\"fork\":false,\"compacted\":true}",
      "{\"line\":5,\"session_id\":\"s1\",\"parent_line\":1,\"turn\":1,\"trigger\":\"tool\",\"fork\":false,\"compacted\":false}",
      "{\"line\":6,\"session_id\":\"s3\",\"parent_line\":null,\"turn\":0,\"trigger\":\"user\",\"fork\":false,\"compacted\":false}") + "\n";

  static void r(Traces.Builder b, String id, double t, int in, long... raw) {
    b.req(id, null, null, null, Canonical.TRIGGER_UNKNOWN, t, in, 10, raw);
  }

  @BeforeAll
  static void score() throws IOException {
    Path truth = tmp.resolve("t.truth.jsonl");
    Files.writeString(truth, TRUTH);
    Dataset<Row> ds = trace().toDataset(TestSpark.get());
    SessionInference.Result res = new SessionInference(TestSpark.get(), new InferenceOptions(3600, 4)).execute(ds);
    InferenceAccuracy a = new InferenceAccuracy(TestSpark.get());
    acc = a.score(res.links(), ds, a.readTruth(truth.toString()), "t.truth.jsonl");
  }

  @Test
  void rule_findsBothRevealableLinks_andNoFalseOne() {
    // predicted 2 -> 0 and 5 -> 1, both right; true links: 2, 4, 5
    JsonNode o = acc.get("rule").get("overall");
    assertEquals(2, o.get("predicted").asLong());
    assertEquals(2, o.get("correct").asLong());
    assertEquals(3, o.get("true").asLong());
    assertEquals(1.0, o.get("precision").asDouble(), 1e-12);
    assertEquals(2.0 / 3, o.get("recall").asDouble(), 1e-12);
    assertEquals(1.0, acc.get("rule").get("revealable").get("recall").asDouble(), 1e-12);
  }

  @Test
  void compactedLink_isReportedSeparately() {
    JsonNode c = acc.get("rule").get("compacted");
    assertEquals(1, c.get("links").asLong());
    assertEquals(0.0, c.get("recall").asDouble(), 1e-12);
  }

  @Test
  void visibleClass_countsLinksWhoseParentReachesPastTheTemplate() {
    // parents 0 and 1 have 2 full blocks, 1 of them template (block 100 is in the turn-0
    // requests of 4 sessions >= 3): both links visible
    JsonNode v = acc.get("rule").get("by_true_class");
    assertEquals(2, v.get("visible").get("requests").asLong());
    assertEquals(0, v.get("template_only").get("requests").asLong());
    assertEquals(4, v.get("root").get("requests").asLong());
  }

  @Test
  void sessionsExact_countsIdenticalMemberSets() {
    // inferred {0,2} {1,5} {3} {4} {6}: s1, s2, s3 match, s0 = {0,2,4} does not
    JsonNode s = acc.get("rule").get("sessions");
    assertEquals(4, s.get("true").asLong());
    assertEquals(5, s.get("inferred").asLong());
    assertEquals(3, s.get("exact").asLong());
  }

  @Test
  void naiveBaseline_linksEveryRequestSharingTheTemplate() {
    // naive: 1->0 (x), 2->0 (ok), 3->2 (x), 4->3 (x), 5->1 (ok), 6->5 (x): 2 of 6 right
    JsonNode n = acc.get("naive_longest_prefix");
    assertEquals(6, n.get("overall").get("predicted").asLong());
    assertEquals(2, n.get("overall").get("correct").asLong());
    assertEquals(3, n.get("false_links_on_true_roots").asLong());
    assertEquals(0, n.get("sessions").get("exact").asLong()); // one tree holds all 7
  }

  @Test
  void truthThatDoesNotCoverTheTrace_isBadInput() throws IOException {
    Path truth = tmp.resolve("short.truth.jsonl");
    Files.writeString(truth, TRUTH.lines().limit(5).reduce("", (x, y) -> x + y + "\n"));
    Dataset<Row> ds = trace().toDataset(TestSpark.get());
    SessionInference.Result res = new SessionInference(TestSpark.get(), new InferenceOptions(3600, 4)).execute(ds);
    InferenceAccuracy a = new InferenceAccuracy(TestSpark.get());
    assertThrows(BadInputException.class, () -> a.score(res.links(), ds, a.readTruth(truth.toString()), "short"));
  }
}
