package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.OutputExistsException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.StageRuns;
import io.smetric.audit.testing.TestSpark;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HashJobTest {
  static final Path REPO = FileHasherTest.REPO;
  static final String SALT = "unit-test salt, not a secret";
  static final HashKey KEY = HashKey.fromSalt(SALT.getBytes(StandardCharsets.UTF_8));

  @TempDir static Path dir;
  static Path out;
  static List<JsonNode> jsonl;
  static Map<String, JsonNode> byId;
  static JsonNode summary;

  static HashJob.Options options(List<String> inputs, boolean dense) {
    return new HashJob.Options(inputs, TokenizerSpec.parse("o200k", new Configuration()), KEY, 16, LogFormat.AUTO,
        10, 5, 1, 256, dense, true);
  }

  static List<JsonNode> readJsonl(Path p) throws Exception {
    List<JsonNode> l = new ArrayList<>();
    for (String line : Files.readAllLines(p)) l.add(Messages.MAPPER.readTree(line));
    return l;
  }

  @BeforeAll
  static void hashSamples() throws Exception {
    out = dir.resolve("hashed");
    StageRuns.hash(options(List.of(REPO.resolve("sample-traces/raw-logs/glaive-sharegpt").toString(),
        REPO.resolve("sample-traces/raw-logs/swe-agent").toString(), FileHasherTest.OPENAI.toString()), false), out.toString());
    jsonl = readJsonl(out.resolve(HashJob.JSONL_FILE));
    byId = new HashMap<>();
    for (JsonNode n : jsonl) byId.put(n.get("request_id").asText(), n);
    summary = Messages.MAPPER.readTree(out.resolve(AuditLayout.HASH_SUMMARY_FILE).toFile());
  }

  static String rid(String logId) {
    return FileHasherTest.rid(logId);
  }

  @Test
  void folderInput_takesOnlyLogFilesSorted() {
    // 3 .traj + 1 .json under raw-logs (LICENSE, PROVENANCE.md left out) + the OpenAI fixture
    assertEquals(5, summary.get("files").asInt());
    assertTrue(summary.get("per_file").get(0).get("file").asText().endsWith("glaive_toolcall_en_demo_first50.json"));
  }

  @Test
  void requests_areAllAssistantTurnsPlusTheOpenAiRecords() {
    // 167 glaive + 5 + 11 + 5 SWE-agent assistant turns + 7 usable OpenAI records
    assertEquals(167 + 5 + 11 + 5 + 7, summary.get("requests").asInt());
    assertEquals(jsonl.size(), summary.get("requests").asInt());
    assertEquals(2, summary.get("skipped").get("count").asInt());
  }

  @Test
  void parquet_hasTheCanonicalSchemaAndBlocksChainTheJsonlSourceIds() {
    SparkSession spark = TestSpark.get();
    var ds = spark.read().parquet(out.resolve(AuditLayout.TRACE_DIR).toString());
    assertEquals(Canonical.SCHEMA.simpleString(), ds.schema().simpleString());
    List<Row> rows = ds.collectAsList(); // a test-sized trace
    assertEquals(jsonl.size(), rows.size());
    for (Row r : rows) {
      TraceRecord t = TraceRecord.fromRow(r);
      JsonNode j = byId.get(t.requestId());
      long[] src = new long[j.get("hash_ids").size()];
      for (int i = 0; i < src.length; i++) src[i] = j.get("hash_ids").get(i).asLong();
      assertArrayEquals(BlockChain.chain(src), t.blocks(), t.requestId());
      assertEquals(Canonical.expectedBlocks(t.inputTokens(), 16), t.blocks().length);
      assertEquals(j.get("arrival_s").asDouble(), t.arrivalS());
    }
  }

  @Test
  void jsonl_isInArrivalThenSeqOrder() {
    for (int i = 1; i < jsonl.size(); i++) {
      assertTrue(jsonl.get(i - 1).get("arrival_s").asDouble() <= jsonl.get(i).get("arrival_s").asDouble());
    }
  }

  @Test
  void openai_arrivalsAreRebasedToTheFirstLoggedTimestamp() {
    assertEquals(0.0, byId.get(rid("req-alpha-1")).get("arrival_s").asDouble());
    assertEquals(10.0, byId.get(rid("req-alpha-3")).get("arrival_s").asDouble());
    assertEquals(5.0, byId.get(rid("req-beta-1")).get("arrival_s").asDouble()); // 1767225605 - 1767225600
  }

  @Test
  void syntheticArrivals_numberConversationsFileByFile() {
    // files in sorted order: 0 glaive (50 conversations), 1 function_calling_simple, 2 marshmallow,
    // 3 test-repo gpt4, 4 the OpenAI fixture; gap 10 s, think time 5 s
    assertEquals(7 * 10 + 1 * 5, byId.get("f0-c7-t1").get("arrival_s").asDouble()); // conversation 7
    assertEquals(50 * 10 + 2 * 5, byId.get("f1-c0-t2").get("arrival_s").asDouble()); // conversation 50
    assertEquals(52 * 10, byId.get("f3-c0-t0").get("arrival_s").asDouble()); // conversation 52
  }

  @Test
  void parents_arePreviousRequestOfTheSessionOrTheLoggedSpawner() {
    assertTrue(byId.get(rid("req-alpha-1")).get("parent_id").isNull());
    assertEquals(rid("req-alpha-1"), byId.get(rid("req-alpha-2")).get("parent_id").asText());
    // alpha-3 (t=10) follows alpha-2 (t=3) although the log lists it before beta-2
    assertEquals(rid("req-alpha-2"), byId.get(rid("req-alpha-3")).get("parent_id").asText());
    assertEquals(rid("req-beta-1"), byId.get(rid("req-beta-2")).get("parent_id").asText());
    assertEquals(rid("req-alpha-2"), byId.get(rid("req-gamma-1")).get("parent_id").asText());
    JsonNode noSession = jsonl.stream().filter(n -> n.get("session_id").isNull()).findFirst().orElseThrow();
    assertTrue(noSession.get("parent_id").isNull());
  }

  @Test
  void trajectory_parentsChainTheTurns() {
    List<JsonNode> conv = jsonl.stream().filter(n -> n.get("request_id").asText().matches("f1-c0-t\\d+")).toList();
    assertEquals(5, conv.size()); // function_calling_simple.traj has 5 assistant turns
    for (JsonNode n : conv) {
      int t = n.get("turn").asInt();
      if (t == 0) assertTrue(n.get("parent_id").isNull());
      else assertEquals("f1-c0-t" + (t - 1), n.get("parent_id").asText());
    }
  }

  @Test
  void summary_namesTokenizerTemplateAndBlockSize_andNeverTheSalt() throws Exception {
    assertEquals("o200k_base", summary.get("tokenizer").asText());
    assertEquals("chatml-tools", summary.get("template").get("name").asText());
    assertEquals(1, summary.get("template").get("version").asInt());
    assertEquals(16, summary.get("block_size").asInt());
    assertFalse(summary.get("dense_ids").asBoolean());
    assertFalse(Files.readString(out.resolve(AuditLayout.HASH_SUMMARY_FILE)).contains(SALT));
  }

  /**
   * No text leaves: every string value of every input (message text, tool names and schemas, log
   * ids) is cut into 12-character windows, and no window may occur in any output byte (Parquet,
   * JSONL, summary, checksums). Windows of digits and punctuation only are left out: they are
   * numbers the output legitimately holds.
   */
  @Test
  void outputs_containNoFragmentOfAnyInputText() throws Exception {
    Set<String> fragments = new HashSet<>();
    List<Path> inputs = new ArrayList<>();
    for (String folder : List.of("glaive-sharegpt", "swe-agent")) {
      try (Stream<Path> s = Files.walk(REPO.resolve("sample-traces/raw-logs").resolve(folder))) {
        s.filter(p -> p.toString().endsWith(".traj") || p.toString().endsWith(".json")).forEach(inputs::add);
      }
    }
    for (Path p : inputs) collect(Messages.MAPPER.readTree(p.toFile()), fragments);
    for (String line : Files.readAllLines(FileHasherTest.OPENAI)) {
      try {
        collect(Messages.MAPPER.readTree(line), fragments);
      } catch (Exception e) {
        windows(line, fragments); // the broken line, as raw text
      }
    }
    windows(SALT, fragments);
    assertTrue(fragments.size() > 10_000, "fragments: " + fragments.size());
    List<String> found = new ArrayList<>();
    try (Stream<Path> s = Files.walk(out)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (name.equals(AuditLayout.HASH_SUMMARY_FILE) || name.equals("." + AuditLayout.HASH_SUMMARY_FILE + ".crc")) continue;
        byte[] b = Files.readAllBytes(f);
        for (String text : List.of(new String(b, StandardCharsets.ISO_8859_1), new String(b, StandardCharsets.UTF_8))) {
          scan(out.relativize(f).toString(), text, fragments, found);
        }
      }
    }
    // the summary: every string value, with the input paths it names on purpose (so that a skip
    // reason can be found) blanked; the two fixed explanatory sentences are the tool's own text
    List<String> paths = new ArrayList<>();
    summary.get("per_file").forEach(n -> paths.add(n.get("file").asText()));
    summaryStrings(summary, "", paths, fragments, found);
    assertEquals(List.of(), found);
  }

  static final int W = 12;

  static void scan(String where, String text, Set<String> fragments, List<String> found) {
    for (int i = 0; i + W <= text.length(); i++) {
      String w = text.substring(i, i + W);
      if (fragments.contains(w)) found.add(where + ": " + w);
    }
  }

  static void summaryStrings(JsonNode n, String key, List<String> paths, Set<String> fragments, List<String> found) {
    if (n.isTextual()) {
      if (key.equals("rule") || key.equals("hash") || key.equals("what")) return; // the tool's own sentences
      String v = n.asText();
      for (String p : paths) v = v.replace(p, "#");
      scan("hash-summary.json " + key, v, fragments, found);
    } else if (n.isObject()) {
      n.fields().forEachRemaining(e -> summaryStrings(e.getValue(), e.getKey(), paths, fragments, found));
    } else if (n.isArray()) {
      for (JsonNode c : n) summaryStrings(c, key, paths, fragments, found);
    }
  }

  static void collect(JsonNode n, Set<String> out) {
    if (n.isTextual()) windows(n.asText(), out);
    else if (n.isContainerNode()) {
      n.fields().forEachRemaining(e -> {
        windows(e.getKey(), out);
        collect(e.getValue(), out);
      });
      if (n.isArray()) for (JsonNode c : n) collect(c, out);
    }
  }

  static void windows(String s, Set<String> out) {
    for (int i = 0; i + W <= s.length(); i++) {
      String w = s.substring(i, i + W);
      int letters = 0;
      for (int k = 0; k < W; k++) if (Character.isLetter(w.charAt(k))) letters++;
      if (letters >= 4) out.add(w);
    }
  }

  @Test
  void denseIds_areFirstAppearanceOrderAndABijectionOfTheKeyedHashes() throws Exception {
    Path d = dir.resolve("dense");
    StageRuns.hash(options(List.of(FileHasherTest.OPENAI.toString()), true), d.toString());
    Path k1 = dir.resolve("keyed-openai-only");
    StageRuns.hash(options(List.of(FileHasherTest.OPENAI.toString()), false), k1.toString());
    List<JsonNode> dense = readJsonl(d.resolve(HashJob.JSONL_FILE));
    Map<String, JsonNode> keyed = new HashMap<>();
    for (JsonNode n : readJsonl(k1.resolve(HashJob.JSONL_FILE))) keyed.put(n.get("request_id").asText(), n);
    assertEquals(keyed.size(), dense.size());
    Long2LongOpenHashMap map = new Long2LongOpenHashMap();
    long next = 0;
    for (JsonNode n : dense) { // trace order = first-appearance order
      JsonNode k = keyed.get(n.get("request_id").asText());
      for (int i = 0; i < n.get("hash_ids").size(); i++) {
        long h = k.get("hash_ids").get(i).asLong();
        long id = n.get("hash_ids").get(i).asLong();
        if (!map.containsKey(h)) {
          assertEquals(next++, id, "a new hash gets the next dense id");
          map.put(h, id);
        } else {
          assertEquals(map.get(h), id, "the same hash keeps its id");
        }
      }
    }
    assertTrue(Messages.MAPPER.readTree(d.resolve(AuditLayout.HASH_SUMMARY_FILE).toFile()).get("dense_ids").asBoolean());
  }

  @Test
  void ingestingTheJsonl_givesTheSameDatasetAsTheParquet() {
    // the project rule: ingest chains the JSONL's source ids; only seq (input order) differs
    var r = StageRuns.ingest(new io.smetric.audit.ingest.IngestJob.Options(
        List.of(out.resolve(HashJob.JSONL_FILE).toString()), io.smetric.audit.ingest.TraceFormat.parse("smetric"), null,
        io.smetric.audit.ingest.IngestJob.DEFAULT_MAX_LINE_BYTES), dir.resolve("ingested").toString());
    assertEquals(0, r.quarantined());
    Map<String, TraceRecord> mine = new HashMap<>();
    for (Row x : TestSpark.get().read().parquet(out.resolve(AuditLayout.TRACE_DIR).toString()).collectAsList()) {
      TraceRecord t = TraceRecord.fromRow(x);
      mine.put(t.requestId(), t);
    }
    List<Row> theirs = TestSpark.get().read().parquet(r.out() + "/trace").collectAsList();
    assertEquals(mine.size(), theirs.size());
    for (Row x : theirs) {
      TraceRecord b = TraceRecord.fromRow(x);
      TraceRecord a = mine.get(b.requestId());
      assertEquals(a.sessionId(), b.sessionId(), a.requestId());
      assertEquals(a.parentId(), b.parentId(), a.requestId());
      assertEquals(a.turn(), b.turn(), a.requestId());
      assertEquals(a.trigger(), b.trigger(), a.requestId());
      assertEquals(a.arrivalS(), b.arrivalS(), a.requestId());
      assertEquals(a.inputTokens(), b.inputTokens(), a.requestId());
      assertEquals(a.outputTokens(), b.outputTokens(), a.requestId());
      assertEquals(a.blockSize(), b.blockSize(), a.requestId());
      assertArrayEquals(a.blocks(), b.blocks(), a.requestId());
    }
  }

  /**
   * The stage-job shape (docs/architecture.md, "Stage jobs"): run(out) writes the entries
   * AuditLayout and HashJob name into the caller's folder and nothing else, commits nothing, runs
   * every Spark job under its group, and returns the counts its summary file holds.
   */
  @Test
  void run_writesTheStageOutputIntoTheCallersFolderUnderItsGroup_andCommitsNothing() throws Exception {
    HashJob job = new HashJob(TestSpark.get(), options(List.of(FileHasherTest.OPENAI.toString()), false));
    StageRuns.assertShape(Files.createDirectory(dir.resolve("owned-parent")), HashJob.JOB_GROUP,
        Set.of(AuditLayout.TRACE_DIR, AuditLayout.HASH_SUMMARY_FILE, HashJob.JSONL_FILE), job::run, (r, written) -> {
          // the OpenAI fixture: 7 requests, 2 records skipped (HashCommandTest)
          assertEquals(7, r.requests());
          assertEquals(2, r.skipped());
          StageJobs.assertWritten(r.summary().toJson(), written.resolve(AuditLayout.HASH_SUMMARY_FILE));
          assertEquals(r.requests(), r.summary().requests());
          assertEquals(r.skipped(), r.summary().skipped().count());
          assertEquals(r.requests(), TestSpark.get().read().parquet(written.resolve(AuditLayout.TRACE_DIR).toString()).count());
          assertEquals(r.requests(), Files.readAllLines(written.resolve(HashJob.JSONL_FILE)).size());
        });
  }

  @Test
  void existingOutput_withoutOverwrite_isRefused() {
    assertThrows(OutputExistsException.class,
        () -> StageRuns.hash(options(List.of(FileHasherTest.OPENAI.toString()), false), out.toString()));
  }

  @Test
  void undetectableFile_isBadInputRaisedOnTheDriver_notATaskFailure() throws Exception {
    // a good log and one whose records fit no format: the run fails as bad input naming the bad file and
    // its first line, thrown by the driver itself (before, it was a failed Spark task: a SparkException
    // wrapping it, with the executor's stack traces logged before the CLI's one-line message)
    Path bad = dir.resolve("undetectable.jsonl");
    Files.writeString(bad, "{\"foo\": 1, \"bar\": \"x\"}\n");
    io.smetric.audit.common.BadInputException e = assertThrows(io.smetric.audit.common.BadInputException.class,
        () -> StageRuns.hash(options(List.of(FileHasherTest.OPENAI.toString(), bad.toString()), false),
            dir.resolve("undetectable-out").toString()));
    assertTrue(e.file().endsWith("undetectable.jsonl"), e.file());
    assertEquals(1, e.line());
    assertTrue(e.getMessage().startsWith("cannot detect the log format: the first record's keys [bar, foo]"), e.getMessage());
  }

  @Test
  void untilBadInput_endsTheFileWithOneErrorRow() {
    Row a = StagingRows.skip(1, 0, "x");
    java.util.Iterator<Row> failing = new java.util.Iterator<>() {
      int n;

      @Override
      public boolean hasNext() {
        if (n == 1) throw new io.smetric.audit.common.BadInputException("f.jsonl", 7, "messages", "broken");
        return true;
      }

      @Override
      public Row next() {
        n++;
        return a;
      }
    };
    List<Row> rows = new ArrayList<>();
    StagingRows.untilBadInput(3, () -> failing).forEachRemaining(rows::add);
    assertEquals(2, rows.size());
    assertEquals(StagingRows.KIND_ERROR, rows.get(1).getString(0));
    assertEquals(3, rows.get(1).getInt(rows.get(1).fieldIndex(StagingRows.FILE_INDEX)));
    io.smetric.audit.common.BadInputException back =
        StagingRows.badInput(rows.get(1).getString(rows.get(1).fieldIndex(StagingRows.DETAIL)));
    assertEquals("f.jsonl:7: field 'messages': broken", back.oneLine());
    List<Row> atOpen = new ArrayList<>();
    StagingRows.untilBadInput(0, () -> {
      throw new io.smetric.audit.common.BadInputException("g.jsonl", "file not found");
    }).forEachRemaining(atOpen::add);
    assertEquals(1, atOpen.size());
    assertEquals("g.jsonl: file not found", StagingRows.badInput(atOpen.get(0).getString(15)).oneLine());
  }

  @Test
  void noSessionRecord_keepsNullSessionInParquet() {
    List<Row> r = TestSpark.get().read().parquet(out.resolve(AuditLayout.TRACE_DIR).toString())
        .filter("request_id = 'f4-l9'").collectAsList();
    assertEquals(1, r.size());
    assertNull(r.get(0).get(r.get(0).fieldIndex(Canonical.SESSION_ID)));
  }
}
