package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.replay.ModelProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profile commands end to end: profiles, calibrate (a table in, a sourced profile out; refusals), validate. */
class ProfileCommandsTest {
  @TempDir Path tmp;

  @Test
  void profiles_listsEveryShippedOne_andPrintsOneWithItsSources() {
    CliTest.Run r = CliTest.run("profiles");
    assertEquals(ExitCodes.OK, r.code(), r.err());
    for (String n : ModelProfile.catalogue()) assertTrue(r.out().contains(n), r.out());
    assertTrue(r.out().contains("(default)"), r.out());
    CliTest.Run one = CliTest.run("profiles", "qwen3-30b-a3b-h20");
    assertEquals(ExitCodes.OK, one.code(), one.err());
    assertTrue(one.out().contains("kind: \"fitted\""), one.out());
    assertFalse(one.out().contains("no source given"), one.out());
    CliTest.Run bad = CliTest.run("profiles", "no-such-profile");
    assertEquals(ExitCodes.USAGE, bad.code());
    assertTrue(bad.err().contains("unknown profile 'no-such-profile'"), bad.err());
  }

  /**
   * Through writers built as {@code Main.main} builds them (a PrintWriter on a byte stream, flushing
   * only on println): every shipped profile's YAML must reach the stream. Before the fix the YAML was
   * printed without a newline-flush and nothing arrived (exit 0).
   */
  @Test
  void profilesName_throughMainsWriters_printsTheWholeProfile() {
    for (String n : ModelProfile.catalogue()) {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      java.io.ByteArrayOutputStream errBytes = new java.io.ByteArrayOutputStream();
      int code = Main.run(new String[] {"profiles", n}, new java.io.PrintWriter(bytes, true),
          new java.io.PrintWriter(errBytes, true));
      String out = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(ExitCodes.OK, code, errBytes.toString(java.nio.charset.StandardCharsets.UTF_8));
      assertTrue(out.contains("name: \"" + n + "\""), n + ": " + out);
      assertTrue(out.contains("stepBaseS:"), n + ": " + out);
      assertEquals(ModelProfile.named(n).stepBaseS, ModelProfile.load(writeTemp(n, out)).stepBaseS, n);
    }
  }

  private java.nio.file.Path writeTemp(String n, String yaml) {
    try {
      java.nio.file.Path p = tmp.resolve(n + ".yaml");
      Files.writeString(p, yaml.lines().filter(l -> !l.startsWith("# ")).collect(java.util.stream.Collectors.joining("\n")));
      return p;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void calibrate_writesAProfileWhoseFittedNumbersNameTheirSource_andItRunsAsProfile() throws Exception {
    // three requests near the default profile's own latencies (a hand estimate; the fit moves a and b)
    Path csv = tmp.resolve("mine.csv");
    Files.writeString(csv, "input_tokens,output_tokens,e2e_s\n1,512,3.75\n8192,512,5.62\n32768,512,13.9\n");
    Path out = tmp.resolve("mine.yaml");
    CliTest.Run r = CliTest.run("calibrate", csv.toString(), "--out", out.toString(), "--fit", "stepBaseS,prefillPerTokenS");
    assertEquals(ExitCodes.OK, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("fitted numbers:"), r.out());
    assertTrue(r.out().contains("stepBaseS"), r.out());
    ModelProfile p = ModelProfile.load(out);
    assertEquals("mine", p.name);
    assertEquals("fitted", p.sources.get("stepBaseS").kind);
    assertTrue(p.sources.get("stepBaseS").ref.contains("mine.csv"), p.sources.get("stepBaseS").ref);
    // the record says what was compared: the fit, in-sample; nothing held out; the runs' regime
    assertEquals(3, p.validation.check(ModelProfile.Check.FIT).measurements);
    assertEquals(null, p.validation.check(ModelProfile.Check.HELD_OUT));
    assertTrue(p.validation.summary.contains("held-out runs: none"), p.validation.summary);
    assertEquals(32768L, p.validation.regime.promptTokensMax);
    assertEquals(32768L + 512, p.validation.regime.contextTokensMax);
    assertEquals(1.0, p.validation.regime.concurrencyMax);
    assertTrue(r.out().contains("held-out: none"), r.out());
    CliTest.Run again = CliTest.run("calibrate", csv.toString(), "--out", out.toString());
    assertEquals(ExitCodes.OUTPUT_EXISTS, again.code());
    CliTest.Run v = CliTest.run("validate", "--profile", out.toString(), csv.toString());
    assertEquals(ExitCodes.OK, v.code(), v.err());
    // the same file the profile records as its fit data: its numbers are in-sample, and said so
    assertTrue(v.out().contains("fit (in-sample) median |error|: E2E"), v.out());
    assertTrue(v.out().contains("held-out runs: none"), v.out());
    assertTrue(v.out().contains("regime of these runs (fitted and held out): 3 single requests"), v.out());
  }

  @Test
  void calibrate_pointsTheModelCannotFollow_exit3WithTheTable() throws Exception {
    Path csv = tmp.resolve("bad.csv");
    Files.writeString(csv, "input_tokens,output_tokens,e2e_s\n1000,256,10\n1000,256,20\n");
    CliTest.Run r = CliTest.run("calibrate", csv.toString(), "--out", tmp.resolve("p.yaml").toString(), "--fit", "stepBaseS");
    assertEquals(ExitCodes.BAD_INPUT, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("off by more than 30%"), r.err());
    assertTrue(r.out().contains("rejected fit"), r.out());
    assertFalse(Files.exists(tmp.resolve("p.yaml")));
  }
}
