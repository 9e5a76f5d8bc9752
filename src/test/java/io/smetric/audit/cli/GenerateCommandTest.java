package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generate subcommand through Main.run: exit codes, messages and files. */
class GenerateCommandTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void generate_validArgs_writesTraceAndTruth_exit0() throws IOException {
    Path f = dir.resolve("t.jsonl");
    assertEquals(ExitCodes.OK, run("generate", "--preset", "chat", "--requests", "200", "--seed", "3",
        "--out", f.toString()), err.toString());
    assertEquals(200, Files.readAllLines(f).size());
    assertEquals(200, Files.readAllLines(dir.resolve("t.jsonl.truth.jsonl")).size());
    assertTrue(out.toString().contains("200 requests"), out.toString());
    try (Stream<Path> s = Files.list(dir)) {
      assertEquals(2, s.count(), "no temporary files left behind");
    }
  }

  @Test
  void generate_existingOutput_exit4_andLeavesItUntouched() throws IOException {
    Path f = dir.resolve("t.jsonl");
    Files.writeString(f, "keep");
    assertEquals(ExitCodes.OUTPUT_EXISTS, run("generate", "--requests", "10", "--out", f.toString()));
    assertEquals("keep", Files.readString(f));
    assertTrue(err.toString().contains("--overwrite"), err.toString());
  }

  @Test
  void generate_existingOutputWithOverwrite_exit0() throws IOException {
    Path f = dir.resolve("t.jsonl");
    Files.writeString(f, "old");
    assertEquals(ExitCodes.OK, run("generate", "--preset", "single-shot", "--requests", "10", "--out", f.toString(),
        "--overwrite"), err.toString());
    assertEquals(10, Files.readAllLines(f).size());
  }

  @Test
  void generate_missingRequests_exit2() {
    assertEquals(ExitCodes.USAGE, run("generate", "--out", dir.resolve("x.jsonl").toString()));
    assertTrue(err.toString().contains("--requests"), err.toString());
  }

  @Test
  void generate_unknownSetKey_exit2_namesTheKey() {
    assertEquals(ExitCodes.USAGE, run("generate", "--requests", "10", "--out", dir.resolve("x.jsonl").toString(),
        "--set", "no_such_knob=1"));
    assertTrue(err.toString().contains("no_such_knob"), err.toString());
    assertFalse(Files.exists(dir.resolve("x.jsonl")));
  }

  @Test
  void generate_outOfRangeSetValue_exit2_printsTheRange() {
    assertEquals(ExitCodes.USAGE, run("generate", "--requests", "10", "--out", dir.resolve("x.jsonl").toString(),
        "--set", "tool_prob=1.5"));
    assertTrue(err.toString().contains("[0, 1]"), err.toString());
  }

  @Test
  void generate_rateAndInstancesHint_exit2() {
    assertEquals(ExitCodes.USAGE, run("generate", "--requests", "10", "--out", dir.resolve("x.jsonl").toString(),
        "--rate", "1", "--instances-hint", "8"));
  }

  @Test
  void generate_unknownFormat_exit2() {
    assertEquals(ExitCodes.USAGE, run("generate", "--requests", "10", "--out", dir.resolve("x.jsonl").toString(),
        "--format", "csv"));
  }

  @Test
  void generate_unknownOption_exit2() {
    assertEquals(ExitCodes.USAGE, run("generate", "--requests", "10", "--bogus"));
  }

  @Test
  void generate_help_exit0_listsOptions() {
    assertEquals(ExitCodes.OK, run("generate", "--help"));
    for (String o : new String[] {"--preset", "--requests", "--seed", "--format", "--out", "--block-size",
        "--instances-hint", "--rate", "--set", "--overwrite", "--list-params"}) {
      assertTrue(out.toString().contains(o), o);
    }
  }

  @Test
  void generate_listParams_printsEveryParameterWithItsValue() {
    assertEquals(ExitCodes.OK, run("generate", "--list-params", "--set", "tool_prob=0.5"));
    assertTrue(out.toString().contains("tool_prob"), out.toString());
    assertTrue(out.toString().lines().anyMatch(l -> l.startsWith("tool_prob") && l.contains("0.5")));
    assertTrue(out.toString().contains("fork_prob"));
  }

  @Test
  void generate_mooncakeDefaultBlockSize_is512() throws IOException {
    Path f = dir.resolve("m.jsonl");
    assertEquals(ExitCodes.OK, run("generate", "--requests", "50", "--format", "mooncake", "--out", f.toString()),
        err.toString());
    assertTrue(out.toString().contains("block size 512"), out.toString());
  }
}
