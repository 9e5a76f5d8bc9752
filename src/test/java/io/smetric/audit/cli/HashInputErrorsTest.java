package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Never a silent empty run (issue 16): input that yields no request is bad input (exit 3) naming
 * each file, the format it was read as, the top skip reasons and the formats that would fit; a
 * file with more than half of its records skipped is a warning on the console and in the summary.
 */
class HashInputErrorsTest {
  static final Path REPO = HashCommandTest.REPO;
  static final Path MINI = REPO.resolve("sample-traces/raw-logs/mini-swe-agent");

  @TempDir Path dir;

  @BeforeAll
  static void shareTheTestSession() {
    TestSpark.get();
  }

  Path salt() throws Exception {
    Path p = dir.resolve("salt");
    Files.writeString(p, "0123456789abcdef0123");
    return p;
  }

  @Test
  void trajectoriesReadAsTheWrongFormat_exit3_namingFormatReasonsAndTheFormatThatFits() throws Exception {
    Path out = dir.resolve("out");
    HashCommandTest.Run r = HashCommandTest.run("hash", MINI.toString(), "--log-format", "sharegpt", "--salt-file", salt().toString(),
        "--out", out.toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code(), r.err());
    String e = r.err();
    assertTrue(e.contains("no request could be read from the 2 input file(s)"), e);
    assertTrue(e.contains("django__django-12453.traj.json.gz and 1 more file(s) alike"), e);
    assertTrue(e.contains("read as sharegpt"), e);
    assertTrue(e.contains("field 'conversations': missing or not a list (1)"), e);
    assertTrue(e.contains("formats that fit its first records: mini-swe-agent"), e);
    assertTrue(e.contains("--log-format"), e);
    assertFalse(Files.exists(out), "no output folder for an empty run");
  }

  @Test
  void recordsThatAllFail_exit3_withCountsPerReason(@TempDir Path in) throws Exception {
    Path f = in.resolve("requests.jsonl");
    Files.write(f, List.of("{\"messages\": []}", "{\"messages\": []}", "{not json", "{\"messages\": \"stored elsewhere\"}"));
    HashCommandTest.Run r = HashCommandTest.run("hash", f.toString(), "--salt-file", salt().toString(), "--out", dir.resolve("o").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code(), r.err());
    String e = r.err();
    assertTrue(e.contains("requests.jsonl: 4 record(s), 4 skipped; read as openai"), e);
    assertTrue(e.contains("field 'messages': empty list (2)"), e);
    assertTrue(e.contains("malformed JSON at column N (1)"), e);
    assertTrue(e.contains("field 'messages': a text, not a list (the gateway did not store the messages) (1)"), e);
    assertTrue(e.contains("no other format fits its first records") || e.contains("formats that fit"), e);
  }

  @Test
  void moreThanHalfSkipped_isAWarningOnTheConsoleAndInTheSummary(@TempDir Path in) throws Exception {
    Path f = in.resolve("mostly-broken.jsonl");
    Files.write(f, List.of("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}", "{broken", "{\"messages\": 3}"));
    Path ok = in.resolve("fine.jsonl");
    Files.write(ok, List.of("{\"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}", "{broken"));
    Path out = dir.resolve("warn");
    HashCommandTest.Run r = HashCommandTest.run("hash", f.toString(), ok.toString(), "--salt-file", salt().toString(), "--out", out.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    // 2 of 3 skipped: a warning; 1 of 2 is not more than half
    assertTrue(r.err().contains(f + ": 2 of 3 record(s) skipped (read as openai; top reasons:"), r.err());
    assertFalse(r.err().contains("fine.jsonl: 1 of 2"), r.err());
    JsonNode s = Json.MAPPER.readTree(out.resolve("hash-summary.json").toFile());
    assertEquals(1, s.get("warnings").size());
    assertTrue(s.get("warnings").get(0).asText().contains(f + ": 2 of 3"), s.toString());
    // the console says what each format's files lacked
    assertTrue(r.out().contains("openai: 2 file(s), 2 request(s), 0 with the provider's cache accounting"), r.out());
    assertTrue(r.out().contains("no timestamp in the record: arrival synthesised"), r.out());
  }
}
