package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.TestSpark;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HashCommandTest {
  static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));
  static final String OPENAI = REPO.resolve("src/test/resources/hasher/openai-requests.jsonl").toString();

  @TempDir Path dir;

  @BeforeAll
  static void shareTheTestSession() {
    TestSpark.get(); // the command's getOrCreate then reuses the one test session
  }

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = Main.run(args, new PrintWriter(o, true), new PrintWriter(e, true));
    return new Run(code, o.toString(), e.toString());
  }

  Path salt(String s) throws Exception {
    Path p = dir.resolve("salt");
    Files.writeString(p, s);
    return p;
  }

  @Test
  void hash_openAiFixture_writesTraceSummaryAndJsonl() throws Exception {
    Path out = dir.resolve("out");
    Run r = run("hash", OPENAI, "--log-format", "openai", "--salt-file", salt("0123456789abcdef0123\n").toString(),
        "--out", out.toString(), "--jsonl");
    assertEquals(ExitCodes.OK, r.code(), r.err());
    assertTrue(r.out().contains("hashed 7 requests"), r.out());
    assertTrue(r.out().contains("2 record(s) skipped"), r.out());
    assertTrue(Files.isDirectory(out.resolve("trace")));
    assertEquals(7, Files.readAllLines(out.resolve("trace.jsonl")).size());
  }

  @Test
  void hash_hfTokenizerFile_isUsedAndNamedInTheSummary() throws Exception {
    Path out = dir.resolve("out-hf");
    Run r = run("hash", OPENAI, "--tokenizer", "hf:" + REPO.resolve("src/test/resources/hasher/wordlevel-tokenizer.json"),
        "--salt-file", salt("0123456789abcdef0123").toString(), "--out", out.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    JsonNode s = Json.MAPPER.readTree(out.resolve("hash-summary.json").toFile());
    assertEquals("hf:wordlevel-tokenizer.json", s.get("tokenizer").asText());
  }

  @Test
  void hash_noSaltGiven_isAUsageErrorNamingTheVariable() {
    Run r = run("hash", OPENAI, "--salt-env", "SMETRIC_TEST_SALT_THAT_IS_NOT_SET", "--out", dir.resolve("o").toString());
    assertEquals(ExitCodes.USAGE, r.code());
    assertTrue(r.err().contains("SMETRIC_TEST_SALT_THAT_IS_NOT_SET"), r.err());
    assertFalse(Files.exists(dir.resolve("o")));
  }

  @Test
  void hash_shortSalt_isAUsageError() throws Exception {
    Run r = run("hash", OPENAI, "--salt-file", salt("short").toString(), "--out", dir.resolve("o").toString());
    assertEquals(ExitCodes.USAGE, r.code());
    assertTrue(r.err().contains("at least 16"), r.err());
  }

  @Test
  void hash_saltOnTheCommandLine_isNotAnOption() {
    Run r = run("hash", OPENAI, "--salt", "0123456789abcdef0123", "--out", dir.resolve("o").toString());
    assertEquals(ExitCodes.USAGE, r.code());
  }

  @Test
  void hash_unknownTokenizer_isAUsageError() throws Exception {
    Run r = run("hash", OPENAI, "--tokenizer", "gpt2", "--salt-file", salt("0123456789abcdef0123").toString(),
        "--out", dir.resolve("o").toString());
    assertEquals(ExitCodes.USAGE, r.code());
  }

  @Test
  void hash_missingInput_isBadInput() throws Exception {
    Run r = run("hash", dir.resolve("nope.jsonl").toString(), "--salt-file", salt("0123456789abcdef0123").toString(),
        "--out", dir.resolve("o").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code(), r.err());
    assertTrue(r.err().contains("nope.jsonl"), r.err());
  }

  /**
   * ShareGPT and SWE-agent logs hashed together: both formats note synthesised arrivals under the
   * same key ("arrival") with their own sentence, and each format's line carries its own (it once
   * printed the last format's sentence under every format).
   */
  @Test
  void hash_twoFormats_eachFormatsNoteCarriesItsOwnText() throws Exception {
    Path out = dir.resolve("two-formats");
    Run r = run("hash", REPO.resolve("sample-traces/raw-logs/glaive-sharegpt").toString(),
        REPO.resolve("sample-traces/raw-logs/swe-agent").toString(), "--salt-file", salt("0123456789abcdef0123").toString(),
        "--out", out.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    java.util.Map<String, java.util.List<String>> notes = new java.util.TreeMap<>();
    String format = null;
    for (String line : r.out().split("\\R")) {
      if (line.startsWith("  ") && !line.startsWith("   ")) {
        format = line.substring(2, line.indexOf(':'));
        notes.put(format, new java.util.ArrayList<>());
      } else if (line.startsWith("    synthesised or missing")) {
        notes.get(format).add(line.trim());
      }
    }
    // the 50 conversations of the ShareGPT sample; the 21 requests of the 3 SWE-agent trajectories
    assertEquals(java.util.Map.of(
        "sharegpt", java.util.List.of("synthesised or missing, in 1 file(s), 50 time(s): ShareGPT has no timestamps: arrivals"
            + " synthesised (conversation i at i * session gap, its j-th request j * think time later)"),
        "swe-agent", java.util.List.of("synthesised or missing, in 3 file(s), 21 time(s): SWE-agent trajectories have no"
            + " timestamps: arrivals synthesised (trajectory i at i * session gap, its j-th request j * think time later)")),
        notes, r.out());
  }

  static final String TAU = REPO.resolve("src/test/resources/hasher/tau-bench/tool-calling-retail-sample.json").toString();

  /**
   * tau-bench-shaped results (issue 28 item 7) without any option: the one message list (traj) is
   * found and named on the console with what was synthesised; each record is a session whose
   * requests arrive at record * 10 s + j * 5 s (the defaults), counted by hand from PROVENANCE.md:
   * 6, 3 and 5 assistant messages.
   */
  @Test
  void hash_tauSample_withoutOption_readsTrajAndSaysSo() throws Exception {
    Path out = dir.resolve("tau");
    Run r = run("hash", TAU, "--salt-file", salt("0123456789abcdef0123").toString(), "--out", out.toString(), "--jsonl");
    assertEquals(ExitCodes.OK, r.code(), r.err());
    assertTrue(r.out().contains("hashed 14 requests"), r.out());
    assertTrue(r.out().contains("  messages: 1 file(s), 14 request(s)"), r.out());
    assertTrue(r.out().contains("    messages read from traj (detected) in 1 file(s)"), r.out());
    assertTrue(r.out().contains("14 time(s): no timestamps in the record: arrivals synthesised"), r.out());
    assertTrue(r.out().contains("3 time(s): session id = the record's task_id + trial (hashed)"), r.out());
    java.util.Map<String, java.util.List<Double>> bySession = new java.util.LinkedHashMap<>();
    for (String line : Files.readAllLines(out.resolve("trace.jsonl"))) {
      JsonNode n = Json.MAPPER.readTree(line);
      bySession.computeIfAbsent(n.get("session_id").asText(), k -> new java.util.ArrayList<>()).add(n.get("arrival_s").asDouble());
    }
    java.util.List<java.util.List<Double>> arrivals = new java.util.ArrayList<>(bySession.values());
    arrivals.sort(java.util.Comparator.comparing(l -> l.get(0)));
    assertEquals(java.util.List.of(java.util.List.of(0.0, 5.0, 10.0, 15.0, 20.0, 25.0), java.util.List.of(10.0, 15.0, 20.0),
        java.util.List.of(20.0, 25.0, 30.0, 35.0, 40.0)), arrivals);
    assertEquals("traj", Json.MAPPER.readTree(out.resolve("hash-summary.json").toFile()).path("per_file").get(0)
        .path("messages_path").asText());

    // no 12-character window of any text of the sample in any output (RealLogsTest's check)
    java.util.Set<String> fragments = new java.util.HashSet<>();
    RealLogsTest.collect(Json.MAPPER.readTree(new java.io.File(TAU)), fragments);
    assertTrue(fragments.size() > 1000, "fragments: " + fragments.size()); // 1,575: the check has text to look for
    java.util.List<String> found = new java.util.ArrayList<>();
    try (java.util.stream.Stream<Path> s = Files.walk(out)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".crc") || name.startsWith("_")) continue;
        if (name.endsWith(".parquet")) {
          for (org.apache.spark.sql.Row row : TestSpark.get().read().parquet(f.toString()).collectAsList()) {
            RealLogsTest.scan(name, row.toString(), fragments, found);
          }
        } else {
          String text = Files.readString(f);
          for (String line : name.endsWith(".jsonl") ? text.split("\n") : new String[] {text}) {
            RealLogsTest.values(Json.MAPPER.readTree(line), "", out, fragments, found, name);
          }
        }
      }
    }
    assertEquals(java.util.List.of(), found);
  }

  @Test
  void hash_messagesPathWithAFormatOfItsOwnKeys_isAUsageError() throws Exception {
    Run r = run("hash", TAU, "--messages-path", "traj", "--log-format", "sharegpt", "--salt-file",
        salt("0123456789abcdef0123").toString(), "--out", dir.resolve("x").toString());
    assertEquals(ExitCodes.USAGE, r.code(), r.err());
    assertTrue(r.err().contains("--messages-path works with --log-format auto, messages or openai"), r.err());
  }

  @Test
  void hash_recordsWithTwoMessageLists_exit3_namingFileLineAndBothPaths() throws Exception {
    Path p = dir.resolve("two.jsonl");
    String msgs = "[{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": \"yo\"}]";
    Files.writeString(p, "{\"traj\": " + msgs + ", \"judge\": {\"messages\": " + msgs + "}}\n");
    Run r = run("hash", p.toString(), "--salt-file", salt("0123456789abcdef0123").toString(), "--out", dir.resolve("x").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code(), r.err());
    assertTrue(r.err().contains("two.jsonl:1: cannot detect the log format: the records hold several lists of {role, content}"
        + " messages (record 1 (line 1): traj, judge.messages); name the one to read with --messages-path"), r.err());
    Run named = run("hash", p.toString(), "--messages-path", "judge.messages", "--salt-file", salt("0123456789abcdef0123").toString(),
        "--out", dir.resolve("y").toString());
    assertEquals(ExitCodes.OK, named.code(), named.err());
    assertTrue(named.out().contains("messages read from judge.messages (--messages-path)"), named.out());
  }
}
