package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.replay.ReplayJob;
import io.smetric.audit.testing.TestSpark;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditCommandTest {
  @TempDir Path tmp;

  @BeforeAll
  static void spark() {
    TestSpark.get(); // the command's getOrCreate then reuses the shared test session
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter so = new StringWriter();
    StringWriter se = new StringWriter();
    int code = Main.run(args, new PrintWriter(so, true), new PrintWriter(se, true));
    return new Run(code, so.toString(), se.toString());
  }

  /**
   * Two sessions of three turns, 16-token blocks, each follow-up extending the previous prompt:
   * A = [1,2], [1,2,3], [1,2,3,4]; B = [5,6], [5,6,7], [5,6,7,8]. Ideal reuse by hand: per
   * session 0 + 2 + 3 = 5 hit blocks of 2 + 3 + 4 = 9, so 10 / 18 = 0.5556 (all blocks full,
   * token- and block-weighted agree); first-turn fraction 2 / 6.
   */
  private Path twoSessions() throws Exception {
    List<String> lines = new ArrayList<>();
    String[][] ids = {{"1,2", "1,2,3", "1,2,3,4"}, {"5,6", "5,6,7", "5,6,7,8"}};
    for (int t = 0; t < 3; t++) {
      for (int s = 0; s < 2; s++) {
        int n = ids[s][t].split(",").length;
        lines.add(String.format(java.util.Locale.ROOT,
            "{\"request_id\":\"%s%d\",\"session_id\":\"%s\",\"turn\":%d,\"trigger\":\"%s\",\"arrival_s\":%.1f,"
                + "\"input_tokens\":%d,\"output_tokens\":10,\"block_size\":16,\"hash_ids\":[%s]}",
            s == 0 ? "a" : "b", t, s == 0 ? "A" : "B", t, t == 0 ? "user" : "tool", t * 2.0 + s * 0.5, 16 * n, ids[s][t]));
      }
    }
    Path f = tmp.resolve("two.jsonl");
    Files.write(f, lines);
    return f;
  }

  private static final String[] SMALL_SWEEP = {"--policies", "smetric,least-load", "--global-ratio", "0,0.4", "--rate-scale", "1"};

  private static String[] args(String[] head, String... tail) {
    List<String> a = new ArrayList<>(List.of(head));
    a.addAll(List.of(tail));
    return a.toArray(new String[0]);
  }

  @Test
  void audit_smallTrace_writesEveryStageVerdictAndProvenance() throws Exception {
    Path in = twoSessions();
    Path out = tmp.resolve("audit");
    // two sessions: the bound of 30 (sample_sessions) is lowered so that the hand-computed values are judged
    Run r = run(args(new String[] {"audit", in.toString(), "--instances", "2", "--criterion", "sample_sessions=2",
        "--out", out.toString()}, SMALL_SWEEP));
    assertEquals(0, r.code(), r.err());
    for (String sub : List.of("ingest/trace", "ingest/ingest-summary.json", "characterization/characterization.json",
        "replay/replay.json", "replay/runs", "provenance.json", "audit.json")) {
      assertTrue(Files.exists(out.resolve(sub)), sub + " missing");
    }
    assertFalse(Files.exists(out.resolve("inferred")), "sessions were given: nothing to infer");
    JsonNode audit = Json.MAPPER.readTree(out.resolve("audit.json").toFile());
    assertTrue(List.of("fits", "fits-with-conditions", "does-not-fit", "inconclusive").contains(audit.get("verdict").asText()));
    JsonNode reuse = criterion(audit, "ideal_reuse");
    assertEquals(10.0 / 18, reuse.get("value").asDouble(), 1e-9);
    assertEquals(2.0 / 6, criterion(audit, "first_turn_fraction").get("value").asDouble(), 1e-3);
    assertTrue(r.out().startsWith("verdict: " + audit.get("verdict").asText()), r.out());
    // the replay's cost model is named with its validation, in audit.json and in the report
    JsonNode profile = audit.get("replay_profile");
    assertEquals("qwen3-30b-a3b-h20", profile.get("name").asText());
    assertTrue(profile.get("validation").get("summary").asText().contains("E2E"), profile.toString());
    // ... labelled as what it is (the default profile was fitted to its six rows: no held-out runs) ...
    assertEquals("fit", profile.get("validation").get("checks").get(0).get("kind").asText(), profile.toString());
    assertTrue(profile.get("validation").get("summary").asText().contains("held-out runs: none"), profile.toString());
    // ... and the operating point set against the regime it was checked in: the trace reuses 10 of
    // its 18 prompt blocks, the profile's runs were single requests with no prefix-cache hits
    assertTrue(profile.get("operating_point").get("run_ids").size() > 0, profile.toString());
    assertTrue(profile.get("outside_validated_regime").toString().contains(
        "a prefix-cache hit share of 56%, where the validated single requests had none"), profile.toString());
    assertTrue(Files.readString(out.resolve("index.html")).contains("Simulated instance"));
    // the verdict's conditions stay a list of sentences; the replay's conditions sweep sits beside it, verbatim
    assertTrue(audit.get("conditions").isArray(), audit.get("conditions").toString());
    JsonNode sweep = Json.MAPPER.readTree(out.resolve("replay/replay.json").toFile()).get("conditions");
    assertTrue(sweep != null && sweep.isObject(), "the default audit runs the conditions sweep");
    assertEquals(sweep, audit.get("conditions_sweep"));

    JsonNode prov = Json.MAPPER.readTree(out.resolve("provenance.json").toFile());
    JsonNode file = prov.get("inputs").get(0);
    assertEquals(Files.size(in), file.get("bytes").asLong());
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(in)));
    assertEquals(sha, file.get("sha256").asText());
    assertEquals("given", prov.get("sessions").asText());
    assertEquals(2, prov.get("parameters").get("instances").asInt());

    // progress names every step with its number
    for (String step : List.of("[1/5 inputs]", "[2/5 ingest]", "[3/5 characterize]", "[4/5 replay]", "[5/5 report]")) {
      assertTrue(r.err().contains(step), step + " not in: " + r.err());
    }
    // the replay counts simulations of its expected total from the start, not the sweep's tasks so far
    assertTrue(r.err().contains("[4/5 replay] simulations 0 of ~"), r.err());
    assertFalse(r.err().contains(ReplayJob.SWEEP_GROUP), r.err());
  }

  private static JsonNode criterion(JsonNode audit, String id) {
    for (JsonNode c : audit.get("criteria")) if (c.get("id").asText().equals(id)) return c;
    throw new AssertionError("no criterion " + id);
  }

  @Test
  void audit_failOnMatchingVerdict_exitsFiveAndStillWritesTheAudit() throws Exception {
    Path in = twoSessions();
    Path out = tmp.resolve("gate");
    // 55.6% ideal reuse fails a raised threshold of 90%: a CRITICAL failure, so does-not-fit
    Run r = run("audit", in.toString(), "--instances", "2", "--no-replay", "--criterion", "ideal_reuse=0.9",
        "--criterion", "sample_sessions=2", "--fail-on", "does-not-fit,inconclusive", "--out", out.toString());
    assertEquals(ExitCodes.VERDICT_FAILED, r.code(), r.err());
    JsonNode audit = Json.MAPPER.readTree(out.resolve("audit.json").toFile());
    assertEquals("does-not-fit", audit.get("verdict").asText());
    assertEquals("fail", criterion(audit, "ideal_reuse").get("status").asText());
    assertTrue(r.err().contains("--fail-on"), r.err());
    assertFalse(Files.exists(out.resolve("replay")), "--no-replay writes no replay folder");
  }

  @Test
  void audit_sessionlessTrace_infersSessionsFirst() throws Exception {
    // Mooncake-style lines: no session ids; the second and third prompt extend the first
    Path in = tmp.resolve("mc.jsonl");
    Files.write(in, List.of(
        "{\"timestamp\":0,\"input_length\":1024,\"output_length\":5,\"hash_ids\":[1,2]}",
        "{\"timestamp\":3000,\"input_length\":1536,\"output_length\":5,\"hash_ids\":[1,2,3]}",
        "{\"timestamp\":6000,\"input_length\":2048,\"output_length\":5,\"hash_ids\":[1,2,3,4]}"));
    Path out = tmp.resolve("mc-audit");
    Run r = run("audit", in.toString(), "--instances", "1", "--no-replay", "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.exists(out.resolve("inferred/trace")));
    JsonNode prov = Json.MAPPER.readTree(out.resolve("provenance.json").toFile());
    assertEquals("inferred", prov.get("sessions").asText());
    // one inferred session of three turns: first-turn fraction 1/3
    JsonNode audit0 = Json.MAPPER.readTree(out.resolve("audit.json").toFile());
    assertEquals(1.0 / 3, criterion(audit0, "first_turn_fraction").get("value").asDouble(), 1e-3);
    // one session is too little data to judge the workload on: the verdict says so instead of deciding
    JsonNode audit = Json.MAPPER.readTree(out.resolve("audit.json").toFile());
    assertEquals("inconclusive", audit.get("verdict").asText());
    JsonNode ft = criterion(audit, "first_turn_fraction");
    assertEquals("not-applicable", ft.get("status").asText());
    assertTrue(ft.get("reason").asText().contains("too little data (sessions in the trace: 1, needs >= 30): the measured 33.3%"),
        ft.toString());
    assertEquals("fail", criterion(audit, "sample_sessions").get("status").asText());
  }

  @Test
  void audit_tokenCountOnlyTrace_skipsInferenceAndJudgesWhatItCan() throws Exception {
    // Azure's CSV: no session ids and no block ids, so there is no prompt content to infer sessions from.
    // Three requests a minute apart on one instance: 1 request per instance-minute at every minute.
    Path in = tmp.resolve("azure.csv");
    Files.write(in, List.of("TIMESTAMP,ContextTokens,GeneratedTokens",
        "2023-11-16 18:15:00.0000000,374,44", "2023-11-16 18:16:00.0000000,396,109", "2023-11-16 18:17:00.0000000,400,10"));
    Path out = tmp.resolve("azure-audit");
    Run r = run("audit", in.toString(), "--instances", "1", "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("no session ids and no block ids: sessions cannot be inferred"), r.err());
    assertFalse(Files.exists(out.resolve("inferred")), "nothing to infer from");
    assertEquals("absent", Json.MAPPER.readTree(out.resolve("provenance.json").toFile()).get("sessions").asText());
    JsonNode audit = Json.MAPPER.readTree(out.resolve("audit.json").toFile());
    assertEquals("inconclusive", audit.get("verdict").asText());
    for (String id : List.of("ideal_reuse", "first_turn_fraction", "replay_gain_with_global")) {
      assertEquals("not-applicable", criterion(audit, id).get("status").asText(), id);
    }

    // asked for explicitly, the inference refuses with a one-line reason and exit 3
    Run always = run("audit", in.toString(), "--instances", "1", "--infer-sessions", "always", "--no-replay",
        "--out", tmp.resolve("azure-always").toString());
    assertEquals(ExitCodes.BAD_INPUT, always.code(), always.err());
    assertTrue(always.err().contains("field 'blocks': 3 of 3 requests have no block ids"), always.err());
  }

  @Test
  void audit_rawAgentLogs_areHashedFirst() throws Exception {
    Path salt = tmp.resolve("salt");
    Files.writeString(salt, "a-test-salt-of-32-bytes-length!!\n");
    Path logs = Path.of("sample-traces/raw-logs/swe-agent").toAbsolutePath();
    Path out = tmp.resolve("logs-audit");
    Run r = run("audit", logs.toString(), "--salt-file", salt.toString(), "--instances", "1", "--no-replay",
        "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.exists(out.resolve("hashed/trace")));
    assertFalse(Files.exists(out.resolve("ingest")));
    JsonNode prov = Json.MAPPER.readTree(out.resolve("provenance.json").toFile());
    assertEquals("logs", prov.get("input_kind").asText());
    assertEquals(3, prov.get("inputs").size(), "three .traj files, each checksummed");
  }

  @Test
  void audit_folderOfLogFolders_isHashedAsTheHashCommandWould() throws Exception {
    // raw logs kept one folder per tool: the top folder holds folders only
    Path salt = tmp.resolve("salt");
    Files.writeString(salt, "a-test-salt-of-32-bytes-length!!\n");
    Path top = tmp.resolve("logs");
    Path swe = Files.createDirectories(top.resolve("swe-agent"));
    try (var files = Files.list(Path.of("sample-traces/raw-logs/swe-agent"))) {
      for (Path f : files.toList()) Files.copy(f, swe.resolve(f.getFileName().toString()));
    }
    Path out = tmp.resolve("nested-audit");
    Run r = run("audit", top.toString(), "--salt-file", salt.toString(), "--instances", "1", "--no-replay",
        "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.exists(out.resolve("hashed/trace")));
    JsonNode prov = Json.MAPPER.readTree(out.resolve("provenance.json").toFile());
    assertEquals("logs", prov.get("input_kind").asText());
    assertEquals(3, prov.get("inputs").size(), "the three .traj files, not the LICENSE or PROVENANCE.md beside them");
    // read as a trace, the same folder is still an error naming it
    Run t = run("audit", top.toString(), "--input-kind", "trace", "--instances", "1", "--no-replay",
        "--out", tmp.resolve("nested-trace").toString());
    assertEquals(ExitCodes.BAD_INPUT, t.code(), t.err());
    assertTrue(t.err().contains(top + ": folder holds no data files"), t.err());
  }

  @Test
  void audit_usageErrors_exitTwoBeforeAnyWork() throws Exception {
    Path in = twoSessions();
    Path out = tmp.resolve("never");
    assertEquals(ExitCodes.USAGE, run("audit", in.toString(), "--policies", "least-load", "--out", out.toString()).code());
    assertEquals(ExitCodes.USAGE, run("audit", in.toString(), "--fail-on", "maybe", "--out", out.toString()).code());
    assertEquals(ExitCodes.USAGE, run("audit", in.toString(), "--criterion", "nope=1", "--out", out.toString()).code());
    assertEquals(ExitCodes.USAGE, run("audit", in.toString(), "--input-kind", "csv", "--out", out.toString()).code());
    assertFalse(Files.exists(out));
  }
}
