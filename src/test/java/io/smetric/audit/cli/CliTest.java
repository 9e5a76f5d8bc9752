package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.testing.TestSpark;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
  @TempDir Path tmp;

  @BeforeAll
  static void shareSession() {
    TestSpark.get(); // the commands then reuse the one test session
  }

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void unknownOption_isUsageError() {
    Run r = run("ingest", "--no-such-flag", "x", "--out", tmp.resolve("o").toString());
    assertEquals(ExitCodes.USAGE, r.code());
    assertTrue(r.err().contains("--no-such-flag"), r.err());
  }

  @Test
  void unknownFormatValue_isUsageError() throws IOException {
    Path f = tmp.resolve("a.jsonl");
    Files.writeString(f, "{}\n");
    Run r = run("ingest", f.toString(), "--format", "xml", "--out", tmp.resolve("o").toString());
    assertEquals(ExitCodes.USAGE, r.code());
    assertTrue(r.err().contains("unknown --format 'xml'"), r.err());
  }

  @Test
  void badData_isExit3_withOneLineNamingFileAndLine() throws IOException {
    Path f = tmp.resolve("garbage.jsonl");
    Files.writeString(f, "this is not a trace\n");
    Run r = run("ingest", f.toString(), "--out", tmp.resolve("o").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code());
    assertTrue(r.err().contains("garbage.jsonl:1:"), r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace without --debug: " + r.err());
  }

  @Test
  void missingInput_isExit3() {
    Run r = run("ingest", tmp.resolve("nope.jsonl").toString(), "--out", tmp.resolve("o").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code());
    assertTrue(r.err().contains("nope.jsonl: no such file"), r.err());
  }

  @Test
  void existingOutput_isExit4_thenOverwriteWorks() throws IOException {
    Path f = tmp.resolve("a.jsonl");
    Files.writeString(f, "{\"request_id\":\"a\",\"arrival_s\":1,\"input_tokens\":3,\"output_tokens\":1}\n");
    Path out = tmp.resolve("o");
    assertEquals(ExitCodes.OK, run("ingest", f.toString(), "--out", out.toString()).code());
    Run again = run("ingest", f.toString(), "--out", out.toString());
    assertEquals(ExitCodes.OUTPUT_EXISTS, again.code());
    assertTrue(again.err().contains("--overwrite"), again.err());
    Run over = run("ingest", f.toString(), "--out", out.toString(), "--overwrite");
    assertEquals(ExitCodes.OK, over.code());
    assertTrue(over.out().contains("1 records read, 1 accepted, 0 quarantined"), over.out());
  }
}
