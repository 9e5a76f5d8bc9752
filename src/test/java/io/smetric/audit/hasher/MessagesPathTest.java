package io.smetric.audit.hasher;

import static io.smetric.audit.hasher.FileHasherTest.KEY;
import static io.smetric.audit.hasher.FileHasherTest.blocks;
import static io.smetric.audit.hasher.FileHasherTest.f;
import static io.smetric.audit.hasher.FileHasherTest.kind;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records that keep an OpenAI-style message list under a key of their own (issue 28 item 7):
 * tau-bench's published results ({@code traj}), nested paths, detection with and without
 * {@code --messages-path}, and the errors that name where the lists are. Expected requests are
 * counted from the JSON here (assistant messages), and each request's prompt is checked against
 * the same messages hashed by the OpenAI request reader as one record whose list is the messages
 * before it: an independent reading path for "prompt of turn k = every message before it".
 */
class MessagesPathTest {
  static final Path TAU = FileHasherTest.REPO.resolve("src/test/resources/hasher/tau-bench/tool-calling-retail-sample.json");

  @TempDir Path dir;

  static HashSettings settings(LogFormat f, String messagesPath) {
    return new HashSettings(TokenizerSpec.parse("o200k", new Configuration()), KEY, 16, f, 10, 5, 1, 1, 256, messagesPath);
  }

  static List<Row> run(Path file, LogFormat f, String messagesPath) {
    List<Row> out = new ArrayList<>();
    try (FileHasher h = new FileHasher(settings(f, messagesPath), 0, file.toString(), new Configuration())) {
      h.forEachRemaining(out::add);
    }
    return out;
  }

  static JsonNode counters(List<Row> rows) throws Exception {
    Row r = kind(rows, StagingRows.KIND_FILE).get(0);
    return Messages.MAPPER.readTree(r.getString(r.fieldIndex(StagingRows.DETAIL)));
  }

  /** The blocks and tokens of {@code messages} hashed as one OpenAI request record (prompt = the whole list). */
  Row openAiPrompt(List<JsonNode> messages, JsonNode tools) throws Exception {
    ObjectNode rec = Messages.MAPPER.createObjectNode();
    ArrayNode arr = rec.putArray("messages");
    messages.forEach(arr::add);
    if (tools != null) rec.set("tools", tools);
    Path p = Files.createTempFile(dir, "prefix", ".jsonl");
    Files.writeString(p, Messages.MAPPER.writeValueAsString(rec) + "\n");
    List<Row> req = kind(FileHasherTest.run(p, LogFormat.OPENAI), StagingRows.KIND_REQUEST);
    assertEquals(1, req.size());
    return req.get(0);
  }

  static List<JsonNode> list(JsonNode arr) {
    List<JsonNode> out = new ArrayList<>();
    arr.forEach(out::add);
    return out;
  }

  // ------------------------------------------------------------------ the tau-bench-shaped sample

  @Test
  void tauSample_withoutOption_detectsTrajAndGivesOneRequestPerAssistantMessage() throws Exception {
    JsonNode all = Messages.MAPPER.readTree(TAU.toFile());
    List<Row> rows = run(TAU, LogFormat.AUTO, null);
    List<Row> req = kind(rows, StagingRows.KIND_REQUEST);
    int k = 0;
    for (int rec = 0; rec < all.size(); rec++) {
      JsonNode traj = all.get(rec).get("traj");
      String session = "s" + LogFields.hex(KEY.id("task_id=" + all.get(rec).get("task_id").asText() + "/trial="
          + all.get(rec).get("trial").asText()));
      int j = 0;
      for (int i = 0; i < traj.size(); i++) {
        if (!traj.get(i).get("role").asText().equals("assistant")) continue;
        Row r = req.get(k++);
        assertEquals(session, f(r, StagingRows.SESSION_ID));
        assertEquals(j, f(r, StagingRows.TURN));
        // no times in the record: conversation rec starts at rec * gap (placed by HashJob), request j at j * 5 s
        assertEquals(5.0 * j, (double) f(r, StagingRows.TIME_S), 1e-9);
        assertEquals((long) rec, f(r, StagingRows.SYNTH_INDEX));
        assertEquals(true, f(r, StagingRows.SYNTHETIC));
        String before = traj.get(i - 1).get("role").asText();
        assertEquals(before.equals("tool") ? "tool" : "user", f(r, StagingRows.TRIGGER));
        j++;
      }
    }
    assertEquals(14, k); // 6 + 3 + 5 assistant messages, PROVENANCE.md
    assertEquals(k, req.size());
    JsonNode c = counters(rows);
    assertEquals("messages", c.get("format").asText());
    assertEquals("traj", c.get("messages_path").asText());
    assertEquals("detected", c.get("messages_path_source").asText());
    assertEquals(3, c.get("records").asInt());
    assertEquals(0, c.get("skipped").asInt());
    assertEquals(14, c.path("synthesised").path("arrival").path("count").asInt());
    assertEquals(3, c.path("synthesised").path("session:task_id + trial").path("count").asInt());
    assertEquals(3, c.path("synthesised").path("trailing").path("count").asInt()); // each ends with ###STOP###
    assertEquals(3, c.path("synthesised").path("tool_schemas").path("count").asInt());
  }

  @Test
  void tauSample_promptOfEachRequest_isEveryMessageBeforeIt() throws Exception {
    JsonNode all = Messages.MAPPER.readTree(TAU.toFile());
    List<Row> req = kind(run(TAU, LogFormat.AUTO, null), StagingRows.KIND_REQUEST);
    int k = 0;
    for (JsonNode rec : all) {
      List<JsonNode> traj = list(rec.get("traj"));
      for (int i = 0; i < traj.size(); i++) {
        if (!traj.get(i).get("role").asText().equals("assistant")) continue;
        Row r = req.get(k++);
        Row expected = openAiPrompt(traj.subList(0, i), null);
        assertArrayEquals(blocks(expected), blocks(r), "request " + (k - 1));
        assertEquals(f(expected, StagingRows.INPUT_TOKENS), f(r, StagingRows.INPUT_TOKENS));
      }
    }
    assertEquals(14, k);
  }

  @Test
  void tauSample_withOption_givesTheSameRequestsAndSaysTheUserNamedThePath() throws Exception {
    List<Row> detected = kind(run(TAU, LogFormat.AUTO, null), StagingRows.KIND_REQUEST);
    List<Row> rows = run(TAU, LogFormat.AUTO, "traj");
    List<Row> named = kind(rows, StagingRows.KIND_REQUEST);
    assertEquals(detected.size(), named.size());
    for (int i = 0; i < named.size(); i++) assertArrayEquals(blocks(detected.get(i)), blocks(named.get(i)));
    assertEquals("--messages-path", counters(rows).get("messages_path_source").asText());
  }

  @Test
  void tauSample_wrongPath_skipsEachRecordNamingFileLineRecordAndThePathFound() throws Exception {
    List<Row> rows = run(TAU, LogFormat.AUTO, "messages");
    assertEquals(0, kind(rows, StagingRows.KIND_REQUEST).size());
    List<Row> skips = kind(rows, StagingRows.KIND_SKIP);
    assertEquals(3, skips.size());
    String first = (String) f(skips.get(0), StagingRows.DETAIL);
    // the array's first record starts on line 2 of the file
    assertTrue(first.contains("tool-calling-retail-sample.json:2: field 'messages': record 1: missing"), first);
    assertTrue(first.contains("is at traj (--messages-path traj)"), first);
    assertTrue(((String) f(skips.get(2), StagingRows.DETAIL)).contains("record 3: missing"));
    String through = (String) f(kind(run(TAU, LogFormat.AUTO, "traj.messages"), StagingRows.KIND_SKIP).get(0), StagingRows.DETAIL);
    assertTrue(through.contains("field 'traj.messages': record 1: missing: 'traj' is a list, it has no keys"), through);
  }

  // ------------------------------------------------------------------ other shapes

  /** system, user (content as parts), assistant (tool call), tool, assistant, user. */
  static final String MESSAGES = "[{\"role\": \"system\", \"content\": \"Be brief.\"},"
      + " {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"Weather in \"}, {\"type\": \"text\", \"text\": \"Paris?\"}]},"
      + " {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\","
      + " \"function\": {\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}}]},"
      + " {\"role\": \"tool\", \"tool_call_id\": \"c1\", \"content\": \"{\\\"temp\\\": 21}\"},"
      + " {\"role\": \"assistant\", \"content\": \"21 degrees.\"},"
      + " {\"role\": \"user\", \"content\": \"Thanks\"}]";
  static final String TOOLS = "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}}]";

  @Test
  void nestedPath_jsonl_readsTheListUnderDottedKeysWithTheToolsBesideIt() throws Exception {
    Path p = dir.resolve("gateway.jsonl");
    Files.writeString(p, "{\"id\": \"x1\", \"request\": {\"body\": {\"model\": \"m\", \"tools\": " + TOOLS + ", \"messages\": " + MESSAGES + "}}}\n"
        + "{\"id\": \"x2\", \"request\": {\"body\": {\"model\": \"m\", \"tools\": " + TOOLS + ", \"messages\": " + MESSAGES + "}}}\n");
    List<Row> rows = run(p, LogFormat.AUTO, "request.body.messages");
    List<Row> req = kind(rows, StagingRows.KIND_REQUEST);
    assertEquals(4, req.size()); // 2 records x 2 assistant messages
    List<JsonNode> msgs = list(Messages.MAPPER.readTree(MESSAGES));
    JsonNode tools = Messages.MAPPER.readTree(TOOLS);
    assertArrayEquals(blocks(openAiPrompt(msgs.subList(0, 2), tools)), blocks(req.get(0)));
    assertArrayEquals(blocks(openAiPrompt(msgs.subList(0, 4), tools)), blocks(req.get(1)));
    assertEquals("tool", f(req.get(1), StagingRows.TRIGGER));
    assertEquals("s" + LogFields.hex(KEY.id("id=x2")), f(req.get(2), StagingRows.SESSION_ID));
    JsonNode c = counters(rows);
    assertEquals("request.body.messages", c.get("messages_path").asText());
    assertTrue(c.path("synthesised").path("tool_schemas").isMissingNode(), "the record has its tool schemas");
  }

  @Test
  void nestedPath_withLogFormatOpenai_readsEachRecordAsOneRequestOfTheWholeList() throws Exception {
    Path p = dir.resolve("gateway.jsonl");
    Files.writeString(p, "{\"request\": {\"body\": {\"tools\": " + TOOLS + ", \"messages\": " + MESSAGES + "}}}\n");
    List<Row> req = kind(run(p, LogFormat.OPENAI, "request.body.messages"), StagingRows.KIND_REQUEST);
    assertEquals(1, req.size());
    assertArrayEquals(blocks(openAiPrompt(list(Messages.MAPPER.readTree(MESSAGES)), Messages.MAPPER.readTree(TOOLS))), blocks(req.get(0)));
  }

  @Test
  void oneObject_prettyPrinted_isOneRecordDetectedAtItsNestedList() throws Exception {
    Path p = dir.resolve("one.json");
    Files.writeString(p, "{\n  \"meta\": {\"run\": {\"transcript\": " + MESSAGES.replace("}, {", "},\n {") + "}}\n}\n");
    List<Row> rows = run(p, LogFormat.AUTO, null);
    assertEquals(2, kind(rows, StagingRows.KIND_REQUEST).size());
    JsonNode c = counters(rows);
    assertEquals("meta.run.transcript", c.get("messages_path").asText());
    assertEquals(1, c.path("synthesised").path("session_index").path("count").asInt());
    assertEquals("f0-c0", f(kind(rows, StagingRows.KIND_REQUEST).get(0), StagingRows.SESSION_ID));
  }

  @Test
  void auto_severalLists_isBadInputNamingFileRecordLineAndEveryPath_noGuess() throws Exception {
    Path p = dir.resolve("two.json");
    Files.writeString(p, "[\n{\"traj\": " + MESSAGES + ",\n \"info\": {\"judge\": {\"history\": " + MESSAGES + "}}}\n]\n");
    BadInputException e = assertThrows(BadInputException.class, () -> run(p, LogFormat.AUTO, null));
    String m = e.oneLine();
    assertTrue(m.startsWith(p.toString() + ":2: cannot detect the log format"), m);
    assertTrue(m.contains("record 1 (line 2): traj, info.judge.history"), m);
    assertTrue(m.contains("--messages-path traj"), m);
    // named, either list is read
    assertEquals(2, kind(run(p, LogFormat.AUTO, "info.judge.history"), StagingRows.KIND_REQUEST).size());
  }

  @Test
  void auto_recordsWithListsAtDifferentPaths_areNotGuessedBetween() throws Exception {
    Path p = dir.resolve("mixed.jsonl");
    Files.writeString(p, "{\"traj\": " + MESSAGES + "}\n{\"transcript\": " + MESSAGES + "}\n");
    BadInputException e = assertThrows(BadInputException.class, () -> run(p, LogFormat.AUTO, null));
    assertTrue(e.oneLine().contains("record 1 (line 1): traj; record 2 (line 2): transcript"), e.oneLine());
  }

  @Test
  void auto_noListWithinTheBound_saysSoAndPointsAtTheOption() throws Exception {
    Path p = dir.resolve("deep.json");
    Files.writeString(p, "{\"a\": {\"b\": {\"c\": {\"d\": {\"e\": {\"f\": {\"g\": " + MESSAGES + "}}}}}}}\n");
    BadInputException e = assertThrows(BadInputException.class, () -> run(p, LogFormat.AUTO, null));
    assertTrue(e.oneLine().contains("no record holds a list of {role, content} messages within 6 keys"), e.oneLine());
    assertEquals(2, kind(run(p, LogFormat.AUTO, "a.b.c.d.e.f.g"), StagingRows.KIND_REQUEST).size());
  }

  @Test
  void withinTheBound_sixKeysDeep_isDetected() throws Exception {
    Path p = dir.resolve("six.json");
    Files.writeString(p, "{\"a\": {\"b\": {\"c\": {\"d\": {\"e\": {\"f\": " + MESSAGES + "}}}}}}\n");
    List<Row> rows = run(p, LogFormat.AUTO, null);
    assertEquals("a.b.c.d.e.f", counters(rows).get("messages_path").asText());
  }

  @Test
  void knownFormats_areStillDetectedFirst() {
    assertEquals(LogFormat.OPENAI, new FileHasher(settings(LogFormat.AUTO, null), 0, FileHasherTest.OPENAI.toString(),
        new Configuration()).format());
    assertEquals(LogFormat.SWE_AGENT, new FileHasher(settings(LogFormat.AUTO, null), 0,
        FileHasherTest.SWE.resolve("function_calling_simple.traj").toString(), new Configuration()).format());
  }

  // ------------------------------------------------------------------ times and sessions

  @Test
  void messageTimes_requestArrivesAtTheLastTimedMessageBeforeIt() throws Exception {
    Path p = dir.resolve("timed.jsonl");
    Files.writeString(p, "{\"session_id\": \"s-1\", \"steps\": [{\"role\": \"user\", \"content\": \"a\", \"timestamp\": 100},"
        + " {\"role\": \"assistant\", \"content\": \"b\", \"timestamp\": 103},"
        + " {\"role\": \"user\", \"content\": \"c\", \"timestamp\": \"1970-01-01T00:02:00Z\"},"
        + " {\"role\": \"assistant\", \"content\": \"d\", \"timestamp\": 125}]}\n");
    List<Row> rows = run(p, LogFormat.AUTO, null);
    List<Row> req = kind(rows, StagingRows.KIND_REQUEST);
    assertEquals(100.0, (double) f(req.get(0), StagingRows.TIME_S), 1e-9);
    assertEquals(120.0, (double) f(req.get(1), StagingRows.TIME_S), 1e-9);
    assertEquals(false, f(req.get(0), StagingRows.SYNTHETIC));
    assertEquals("s" + LogFields.hex(KEY.id("session_id=s-1")), f(req.get(0), StagingRows.SESSION_ID));
    assertTrue(counters(rows).path("synthesised").path("arrival").isMissingNode());
  }

  @Test
  void recordTime_withoutMessageTimes_startsTheSessionAndSpacesRequestsByThinkTime() throws Exception {
    Path p = dir.resolve("started.jsonl");
    Files.writeString(p, "{\"start_time\": 1000, \"traj\": " + MESSAGES + "}\n");
    List<Row> rows = run(p, LogFormat.AUTO, null);
    List<Row> req = kind(rows, StagingRows.KIND_REQUEST);
    assertEquals(1000.0, (double) f(req.get(0), StagingRows.TIME_S), 1e-9);
    assertEquals(1005.0, (double) f(req.get(1), StagingRows.TIME_S), 1e-9);
    assertEquals(2, counters(rows).path("synthesised").path("arrival_record").path("count").asInt());
  }

  @Test
  void repeatedSessionIdInOneFile_givesDistinctSessions() throws Exception {
    Path p = dir.resolve("rep.jsonl");
    Files.writeString(p, "{\"task_id\": 3, \"traj\": " + MESSAGES + "}\n{\"task_id\": 3, \"traj\": " + MESSAGES + "}\n");
    List<Row> req = kind(run(p, LogFormat.AUTO, null), StagingRows.KIND_REQUEST);
    assertEquals(4, req.size());
    assertFalse(f(req.get(0), StagingRows.SESSION_ID).equals(f(req.get(2), StagingRows.SESSION_ID)));
  }

  @Test
  void badMessage_skipsItsRecordNamingThePathAndIndex() throws Exception {
    Path p = dir.resolve("bad.jsonl");
    Files.writeString(p, "{\"traj\": " + MESSAGES + "}\n{\"traj\": [{\"role\": \"user\", \"content\": \"x\"}, {\"content\": \"no role\"}]}\n");
    List<Row> rows = run(p, LogFormat.MESSAGES, "traj");
    assertEquals(2, kind(rows, StagingRows.KIND_REQUEST).size());
    String reason = (String) f(kind(rows, StagingRows.KIND_SKIP).get(0), StagingRows.DETAIL);
    assertTrue(reason.contains("bad.jsonl:2: field 'traj[1].role': missing or not a string"), reason);
  }

  @Test
  void noAssistantMessage_isASkipSayingSo() throws Exception {
    Path p = dir.resolve("noasst.jsonl");
    Files.writeString(p, "{\"traj\": [{\"role\": \"user\", \"content\": \"x\"}]}\n");
    List<Row> rows = run(p, LogFormat.MESSAGES, "traj");
    String reason = (String) f(kind(rows, StagingRows.KIND_SKIP).get(0), StagingRows.DETAIL);
    assertTrue(reason.contains("noasst.jsonl:1: field 'traj': record 1: no assistant message, so no request"), reason);
  }

  @Test
  void openaiRecordWithTheListDeeper_skipReasonPointsAtIt() throws Exception {
    // a gateway record: `request` makes it fit openai, whose reader looks for request.messages only
    Path p = dir.resolve("gw.jsonl");
    Files.writeString(p, "{\"request\": {\"body\": {\"messages\": " + MESSAGES + "}}}\n");
    List<Row> rows = run(p, LogFormat.AUTO, null);
    assertEquals("openai", counters(rows).get("format").asText());
    String reason = (String) f(kind(rows, StagingRows.KIND_SKIP).get(0), StagingRows.DETAIL);
    assertTrue(reason.contains("gw.jsonl:1: field 'messages': missing or not a list; the record's list of {role, content} messages"
        + " is at request.body.messages (--messages-path request.body.messages)"), reason);
  }

  @Test
  void logFormatMessages_withoutOption_readsTheOneListOrNamesTheSeveral() throws Exception {
    assertEquals(14, kind(run(TAU, LogFormat.MESSAGES, null), StagingRows.KIND_REQUEST).size());
    Path p = dir.resolve("two.jsonl");
    Files.writeString(p, "{\"a\": " + MESSAGES + ", \"b\": " + MESSAGES + "}\n");
    BadInputException e = assertThrows(BadInputException.class, () -> run(p, LogFormat.MESSAGES, null));
    assertTrue(e.oneLine().contains("two.jsonl:1: the records hold several lists of {role, content} messages (record 1 (line 1): a, b)"),
        e.oneLine());
  }

  @Test
  void messagesPath_withAnotherFormat_orAnEmptyKey_isAUsageError() {
    assertThrows(UsageException.class, () -> run(TAU, LogFormat.SHAREGPT, "traj"));
    assertThrows(UsageException.class, () -> settings(LogFormat.AUTO, "request..messages"));
    assertNull(MessagesPath.resolve(Messages.MAPPER.createObjectNode(), MessagesPath.parse("a.b")));
  }
}
