package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.knuddels.jtokkit.api.EncodingType;
import io.smetric.audit.common.BadInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileHasherTest {
  static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));
  static final Path OPENAI = REPO.resolve("src/test/resources/hasher/openai-requests.jsonl");
  static final Path SWE = REPO.resolve("sample-traces/raw-logs/swe-agent");
  static final Path GLAIVE = REPO.resolve("sample-traces/raw-logs/glaive-sharegpt/glaive_toolcall_en_demo_first50.json");
  static final HashKey KEY = HashKey.fromSalt("unit-test salt, not a secret".getBytes(StandardCharsets.UTF_8));
  static final double T0 = 1767225600; // 2026-01-01T00:00:00Z

  static HashSettings settings(LogFormat f) {
    return new HashSettings(TokenizerSpec.parse("o200k", new Configuration()), KEY, 16, f, 10, 5, 1, 1, 256);
  }

  static List<Row> run(Path file, LogFormat f) {
    List<Row> out = new ArrayList<>();
    try (FileHasher h = new FileHasher(settings(f), 0, file.toString(), new Configuration())) {
      h.forEachRemaining(out::add);
    }
    return out;
  }

  static List<Row> kind(List<Row> rows, String kind) {
    return rows.stream().filter(r -> r.getString(0).equals(kind)).toList();
  }

  static Map<String, Row> byId(List<Row> rows) {
    Map<String, Row> m = new HashMap<>();
    for (Row r : kind(rows, StagingRows.KIND_REQUEST)) m.put(r.getString(r.fieldIndex(StagingRows.REQUEST_ID)), r);
    return m;
  }

  static String rid(String logId) {
    return "r" + LogFields.hex(KEY.id(logId));
  }

  static long[] blocks(Row r) {
    return (long[]) r.get(r.fieldIndex(StagingRows.HASH_IDS)); // a staging row holds the long[] itself
  }

  static Object f(Row r, String field) {
    return r.get(r.fieldIndex(field));
  }

  // ------------------------------------------------------------------ OpenAI request logs

  @Test
  void openai_fixture_derivesTurnTriggerAndTimeFromEachRecord() {
    Map<String, Row> m = byId(run(OPENAI, LogFormat.OPENAI));
    // alpha-1: [system, user] -> turn 0 (no assistant message), last message user
    Row a1 = m.get(rid("req-alpha-1"));
    assertEquals(0, f(a1, StagingRows.TURN));
    assertEquals("user", f(a1, StagingRows.TRIGGER));
    assertEquals(T0, (double) f(a1, StagingRows.TIME_S));
    assertEquals(12, f(a1, StagingRows.OUTPUT_TOKENS));
    // alpha-2: [system, user, assistant(call), tool] -> turn 1, trigger tool, 3 s later
    Row a2 = m.get(rid("req-alpha-2"));
    assertEquals(1, f(a2, StagingRows.TURN));
    assertEquals("tool", f(a2, StagingRows.TRIGGER));
    assertEquals(T0 + 3, (double) f(a2, StagingRows.TIME_S));
    // alpha-3: two assistant messages in its history, ends with a user message; usage under response
    Row a3 = m.get(rid("req-alpha-3"));
    assertEquals(2, f(a3, StagingRows.TURN));
    assertEquals("user", f(a3, StagingRows.TRIGGER));
    assertEquals(17, f(a3, StagingRows.OUTPUT_TOKENS));
    assertEquals(false, f(a3, StagingRows.SYNTHETIC));
  }

  @Test
  void openai_subagentMark_givesTriggerSubagentAndTheHashedSpawningRequestAsParent() {
    Row g = byId(run(OPENAI, LogFormat.OPENAI)).get(rid("req-gamma-1"));
    assertEquals("subagent", f(g, StagingRows.TRIGGER));
    assertEquals(rid("req-alpha-2"), f(g, StagingRows.EXPLICIT_PARENT));
    assertEquals(0, f(g, StagingRows.TURN));
  }

  @Test
  void openai_outputTokensWithoutUsage_areCountedFromTheResponseMessage() {
    Row b1 = byId(run(OPENAI, LogFormat.OPENAI)).get(rid("req-beta-1"));
    // completion = "Submarina pervincae." + <|im_end|>
    int expected = new TiktokenTokenizer(EncodingType.O200K_BASE).encoding().countTokensOrdinary("Submarina pervincae.") + 1;
    assertEquals(expected, f(b1, StagingRows.OUTPUT_TOKENS));
  }

  @Test
  void openai_sessionIds_areKeyedHashesOfTheLogIds() {
    Map<String, Row> m = byId(run(OPENAI, LogFormat.OPENAI));
    assertEquals("s" + LogFields.hex(KEY.id("conv-alpha-secret")), f(m.get(rid("req-alpha-1")), StagingRows.SESSION_ID));
    assertEquals(f(m.get(rid("req-beta-1")), StagingRows.SESSION_ID), f(m.get(rid("req-beta-2")), StagingRows.SESSION_ID));
  }

  @Test
  void openai_recordWithoutSession_hasNoSessionButCountsItsTurn() {
    Row n = byId(run(OPENAI, LogFormat.OPENAI)).get("f0-l9");
    assertNull(f(n, StagingRows.SESSION_ID));
    assertEquals(1, f(n, StagingRows.TURN));
  }

  @Test
  void openai_badLines_becomeSkipRowsNamingFileLineAndField_withoutQuotingText() {
    List<Row> skips = kind(run(OPENAI, LogFormat.OPENAI), StagingRows.KIND_SKIP);
    assertEquals(2, skips.size());
    String r0 = (String) f(skips.get(0), StagingRows.DETAIL);
    String r1 = (String) f(skips.get(1), StagingRows.DETAIL);
    assertTrue(r0.contains("openai-requests.jsonl:6: malformed JSON"), r0);
    assertTrue(r1.contains("openai-requests.jsonl:8: field 'messages': missing"), r1);
    assertFalse(r0.contains("broken") || r1.contains("legacy"));
  }

  @Test
  void openai_promptExtendedFromTheSessionCache_equalsTheSamePromptHashedAlone(@TempDir Path dir) throws Exception {
    List<String> lines = Files.readAllLines(OPENAI);
    Path alone = dir.resolve("alone.jsonl");
    Files.writeString(alone, lines.get(4) + "\n"); // line 5 = req-alpha-3
    long[] viaCache = blocks(byId(run(OPENAI, LogFormat.OPENAI)).get(rid("req-alpha-3")));
    long[] fresh = blocks(byId(run(alone, LogFormat.OPENAI)).get(rid("req-alpha-3")));
    assertArrayEquals(fresh, viaCache);
  }

  @Test
  void openai_fileRow_countsRequestsAndSkips() throws Exception {
    Row fr = kind(run(OPENAI, LogFormat.OPENAI), StagingRows.KIND_FILE).get(0);
    JsonNode c = Messages.MAPPER.readTree((String) f(fr, StagingRows.DETAIL));
    assertEquals(7, c.get("requests").asInt());
    assertEquals(2, c.get("skipped").asInt());
    assertEquals(7, c.get("log_timestamps").asInt());
    assertEquals(1, c.get("requests_without_session").asInt());
  }

  @Test
  void openai_gzippedFile_givesTheSameRowsAsThePlainFile(@TempDir Path dir) throws Exception {
    Path gz = dir.resolve("openai-requests.jsonl.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(OPENAI));
    }
    Map<String, Row> plain = byId(run(OPENAI, LogFormat.OPENAI));
    Map<String, Row> zipped = byId(run(gz, LogFormat.AUTO));
    assertEquals(plain.keySet(), zipped.keySet());
    for (String id : plain.keySet()) assertArrayEquals(blocks(plain.get(id)), blocks(zipped.get(id)), id);
  }

  @Test
  void openai_jsonArrayOfRecords_isReadElementByElement(@TempDir Path dir) throws Exception {
    List<String> lines = Files.readAllLines(OPENAI);
    Path arr = dir.resolve("requests.json");
    Files.writeString(arr, "[\n" + lines.get(0) + ",\n" + lines.get(1) + "\n]\n");
    Map<String, Row> m = byId(run(arr, LogFormat.AUTO));
    assertEquals(java.util.Set.of(rid("req-alpha-1"), rid("req-alpha-2")), m.keySet());
    assertArrayEquals(blocks(byId(run(OPENAI, LogFormat.OPENAI)).get(rid("req-alpha-2"))), blocks(m.get(rid("req-alpha-2"))));
  }

  // ------------------------------------------------------------------ SWE-agent trajectories

  static int assistants(Path traj) throws Exception {
    int n = 0;
    for (JsonNode m : Messages.MAPPER.readTree(traj.toFile()).get("history")) if (m.get("role").asText().equals("assistant")) n++;
    return n;
  }

  @Test
  void sweAgent_trajectory_oneRequestPerAssistantMessageWithSyntheticArrivals() throws Exception {
    Path p = SWE.resolve("marshmallow-1867__function_calling.traj");
    List<Row> req = kind(run(p, LogFormat.SWE_AGENT), StagingRows.KIND_REQUEST);
    assertEquals(assistants(p), req.size());
    for (int j = 0; j < req.size(); j++) {
      Row r = req.get(j);
      assertEquals(j, f(r, StagingRows.TURN));
      // file 0 of 1, conversation 0: arrival = j * think time (5 s)
      assertEquals(5.0 * j, (double) f(r, StagingRows.TIME_S), 1e-9);
      assertEquals(j == 0 ? "user" : "tool", f(r, StagingRows.TRIGGER));
      assertEquals("f0-c0", f(r, StagingRows.SESSION_ID));
    }
  }

  @Test
  void sweAgent_consecutivePrompts_shareAllFullBlocksOfTheEarlierHistory() {
    List<Row> req = kind(run(SWE.resolve("marshmallow-1867__function_calling.traj"), LogFormat.SWE_AGENT), StagingRows.KIND_REQUEST);
    for (int j = 0; j + 1 < req.size(); j++) {
      long[] a = blocks(req.get(j));
      long[] b = blocks(req.get(j + 1));
      int shared = PromptBuilderTest.commonPrefix(a, b);
      // the next prompt repeats this one except the generation prompt's last 2-3 tokens
      int full = ((int) f(req.get(j), StagingRows.INPUT_TOKENS) - 3) / 16;
      assertTrue(b.length > a.length);
      assertTrue(shared >= full, "request " + j + ": shared " + shared + " < " + full);
      int tokens = (int) f(req.get(j), StagingRows.INPUT_TOKENS);
      if (tokens % 16 != 0) assertTrue(shared < a.length, "a partial last block is never shared");
    }
  }

  @Test
  void sweAgent_plainTextAgent_userObservationsAfterTheFirstActionAreToolTriggered() throws Exception {
    Path p = SWE.resolve("swe-agent__test-repo-i1__gpt4.traj");
    List<Row> req = kind(run(p, LogFormat.SWE_AGENT), StagingRows.KIND_REQUEST);
    assertEquals(assistants(p), req.size());
    assertEquals("user", f(req.get(0), StagingRows.TRIGGER));
    for (int j = 1; j < req.size(); j++) assertEquals("tool", f(req.get(j), StagingRows.TRIGGER));
  }

  @Test
  void sweAgent_toolCallsAsPythonReprString_areHashedNotSkipped() throws Exception {
    Path p = SWE.resolve("function_calling_simple.traj");
    List<Row> rows = run(p, LogFormat.SWE_AGENT);
    assertEquals(assistants(p), kind(rows, StagingRows.KIND_REQUEST).size());
    assertEquals(0, kind(rows, StagingRows.KIND_SKIP).size());
  }

  @Test
  void sweAgent_badMessageMidHistory_keepsEarlierRequestsAndSkipsTheRestWithAReason(@TempDir Path dir) throws Exception {
    Path p = dir.resolve("bad.traj");
    Files.writeString(p, "{\"environment\": \"x\", \"history\": ["
        + "{\"role\": \"system\", \"content\": \"s\"}, {\"role\": \"user\", \"content\": \"u\"},\n"
        + "{\"role\": \"assistant\", \"content\": \"a\"}, {\"content\": \"no role\"},\n"
        + "{\"role\": \"assistant\", \"content\": \"b\"}]}");
    List<Row> rows = run(p, LogFormat.SWE_AGENT);
    assertEquals(1, kind(rows, StagingRows.KIND_REQUEST).size());
    String reason = (String) f(kind(rows, StagingRows.KIND_SKIP).get(0), StagingRows.DETAIL);
    assertTrue(reason.contains("bad.traj:2: field 'history[3].role'"), reason);
  }

  @Test
  void sweAgent_hugeFieldBeforeHistory_isSkippedWithoutReadingItAsText(@TempDir Path dir) throws Exception {
    // a 20 MB "trajectory" field before "history": streamed past token by token
    Path p = dir.resolve("big.traj");
    try (var w = Files.newBufferedWriter(p)) {
      w.write("{\"trajectory\": [");
      for (int i = 0; i < 20_000; i++) w.write((i > 0 ? "," : "") + "{\"observation\": \"" + "x".repeat(1000) + "\"}");
      w.write("], \"history\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": \"yo\"}]}");
    }
    assertEquals(1, kind(run(p, LogFormat.AUTO), StagingRows.KIND_REQUEST).size());
  }

  // ------------------------------------------------------------------ ShareGPT

  @Test
  void sharegpt_glaiveSlice_oneRequestPerGptOrFunctionCallTurn() throws Exception {
    JsonNode all = Messages.MAPPER.readTree(GLAIVE.toFile());
    int assistantTurns = 0, afterObservation = 0;
    for (JsonNode c : all) {
      String prev = null;
      for (JsonNode t : c.get("conversations")) {
        String from = t.get("from").asText();
        if (from.equals("gpt") || from.equals("function_call")) {
          assistantTurns++;
          if ("observation".equals(prev)) afterObservation++;
        }
        prev = from;
      }
    }
    List<Row> req = kind(run(GLAIVE, LogFormat.SHAREGPT), StagingRows.KIND_REQUEST);
    assertEquals(assistantTurns, req.size()); // 131 gpt + 36 function_call = 167
    assertEquals(afterObservation, req.stream().filter(r -> "tool".equals(f(r, StagingRows.TRIGGER))).count());
    assertEquals(50, req.stream().map(r -> f(r, StagingRows.SESSION_ID)).distinct().count());
  }

  @Test
  void sharegpt_brokenArrayElement_failsWithItsLineAfterTheEarlierRows(@TempDir Path dir) throws Exception {
    Path p = dir.resolve("broken.json");
    Files.writeString(p, "[{\"conversations\": [{\"from\": \"human\", \"value\": \"hi\"}, {\"from\": \"gpt\", \"value\": \"yo\"}]},\n"
        + "{\"conversations\": [ oops ]}]");
    List<Row> got = new ArrayList<>();
    BadInputException e = assertThrows(BadInputException.class, () -> {
      try (FileHasher h = new FileHasher(settings(LogFormat.SHAREGPT), 0, p.toString(), new Configuration())) {
        h.forEachRemaining(got::add);
      }
    });
    assertEquals(1, got.size());
    assertEquals(2, e.line());
  }

  // ------------------------------------------------------------------ auto-detection

  @Test
  void auto_detectsEachSampleFormat() {
    assertEquals(LogFormat.OPENAI, new FileHasher(settings(LogFormat.AUTO), 0, OPENAI.toString(), new Configuration()).format());
    assertEquals(LogFormat.SHAREGPT, new FileHasher(settings(LogFormat.AUTO), 0, GLAIVE.toString(), new Configuration()).format());
    assertEquals(LogFormat.SWE_AGENT, new FileHasher(settings(LogFormat.AUTO), 0,
        SWE.resolve("function_calling_simple.traj").toString(), new Configuration()).format());
  }

  @Test
  void auto_unknownKeys_isBadInputNamingTheFile(@TempDir Path dir) throws Exception {
    Path p = dir.resolve("odd.jsonl");
    Files.writeString(p, "{\"prompt\": \"x\"}\n");
    BadInputException e = assertThrows(BadInputException.class, () -> new FileHasher(settings(LogFormat.AUTO), 0, p.toString(), new Configuration()));
    assertTrue(e.oneLine().contains("odd.jsonl:1"), e.oneLine());
  }
}
