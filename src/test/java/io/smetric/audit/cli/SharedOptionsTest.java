package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The option groups audit, replay and hash share (ReplayOptions, HashOptions, CharacterizationOptions):
 * every option name the commands had before the groups were shared still parses, help texts print
 * the defaults the code uses (not a typed copy that drifted, as replay's "default 25" GB/s did while
 * the shipped profile reads 1.1), and the shared group applies its options to the replay's settings.
 */
class SharedOptionsTest {
  /** The long option names of each command before issue 18 (taken from main at 5710616); none may go. */
  private static final Map<String, List<String>> BEFORE = Map.of(
      "audit", List.of("--master", "--spark-ui", "--debug", "--out", "--overwrite", "--instances", "--input-kind", "--format",
          "--block-size", "--log-format", "--tokenizer", "--salt-file", "--salt-env", "--infer-sessions",
          "--template-min-sessions", "--interval-threshold", "--no-replay", "--policies", "--current-router", "--bootstrap",
          "--no-conditions", "--global-ratio", "--rate-scale", "--rate-scaling", "--closed-loop", "--open-loop", "--rate-grid",
          "--global-load", "--replay-config", "--profile", "--criterion", "--fail-on", "--help", "--version"),
      "replay", List.of("--master", "--spark-ui", "--debug", "--out", "--overwrite", "--config", "--profile", "--instances",
          "--local-blocks", "--global-ratio", "--policies", "--rate-scale", "--rate-scaling", "--closed-loop", "--open-loop",
          "--rate-grid", "--global-load", "--overload", "--hit-ratio", "--global-read-gbps", "--global-aggregate-gbps",
          "--instances-per-node", "--node-nic-gbps", "--seed", "--architecture", "--decode-instances", "--kv-model", "--sweep",
          "--current-router", "--bootstrap", "--no-conditions", "--executor", "--help", "--version"),
      "hash", List.of("--master", "--spark-ui", "--debug", "--log-format", "--tokenizer", "--block-size", "--salt-file",
          "--salt-env", "--out", "--overwrite", "--jsonl", "--dense-ids", "--session-gap-s", "--think-time-s",
          "--timestamp-unit", "--session-cache", "--help", "--version"),
      "analyze", List.of("--out", "--instances", "--template-min-sessions", "--interval-threshold", "--overwrite", "--engine",
          "--master", "--spark-ui", "--debug", "--help", "--version"));

  private static String help(String command) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(ExitCodes.OK, Main.run(new String[] {command, "--help"}, new PrintWriter(out), new PrintWriter(err)), err.toString());
    return out.toString();
  }

  @Test
  void everyOptionNameOfBefore_stillExists() {
    CommandLine cl = new CommandLine(new Main());
    for (Map.Entry<String, List<String>> e : BEFORE.entrySet()) {
      Set<String> now = new TreeSet<>();
      cl.getSubcommands().get(e.getKey()).getCommandSpec().options().forEach(o -> now.addAll(List.of(o.names())));
      for (String name : e.getValue()) assertTrue(now.contains(name), e.getKey() + " lost " + name + ": " + now);
    }
  }

  @Test
  void replayHelp_printsTheProfilesReadRate_notAStaleCopy() {
    String h = help("replay").replaceAll("\\s+", " ");
    // qwen3-30b-a3b-h20.yaml: globalReadGBps: 1.1 (the shipped default profile)
    assertTrue(h.contains("Default: the profile's (qwen3-30b-a3b-h20: 1.1)"), h);
    assertFalse(h.contains("(default 25)"), h);
    // ReplaySettings' own defaults, as one would type them
    assertTrue(h.contains("Instances per server node sharing one NIC. Default: 8."), h);
    assertTrue(h.contains("Default: 21.75"), h);
    // the aggregate: the shipped default profile's globalAggregateGBpsPerNode (21.75) x the nodes (issue 26 item 5)
    assertTrue(h.contains("Infinity = none. Default: the profile's 21.75 GB/s per node x the nodes (qwen3-30b-a3b-h20)."), h);
  }

  @Test
  void everyHelpText_hasItsVariablesResolved() {
    for (String c : List.of("audit", "replay", "hash", "analyze", "ingest", "infer-sessions", "generate", "compare",
        "calibrate", "validate", "profiles")) {
      String h = help(c);
      assertFalse(h.contains("${"), c + ": " + h);
      assertFalse(h.contains("default.") && h.contains("bundle"), c + ": " + h);
    }
  }

  @Test
  void auditHelp_namesBothDefaultsWhereTheCommandsDiffer() {
    String h = help("audit").replaceAll("\\s+", " ");
    assertTrue(h.contains("Default: 10 for `audit` and `replay --sweep audit`, else 0."), h);
    assertTrue(h.contains("Default: sessions for `audit` and `replay --sweep audit`, else uniform."), h);
    assertTrue(h.contains("`audit` the audit sweep's, 0,0.4,0.8,1.6,3.2."), h);
    assertTrue(h.contains("raw logs: default 16)"), h);
  }

  @Test
  void everyCommandWritingAFolder_saysTheSameOfOutAndOverwrite() {
    // issue 30 item 4: one mixin (OutputOptions), where nine commands had four wordings
    CommandLine cl = new CommandLine(new Main());
    List<String> folderCommands = List.of("ingest", "hash", "infer-sessions", "analyze", "replay", "audit", "compare", "validate");
    for (String c : folderCommands) {
      CommandLine.Model.CommandSpec spec = cl.getSubcommands().get(c).getCommandSpec();
      assertEquals(OutputOptions.OVERWRITE, String.join(" ", spec.findOption("--overwrite").description()), c);
      String out = String.join(" ", spec.findOption("--out").description());
      assertTrue(out.endsWith(OutputOptions.OUT), c + ": " + out);
      assertEquals(!c.equals("validate"), spec.findOption("--out").required(), c);
      assertEquals("DIR", spec.findOption("--out").paramLabel(), c);
    }
  }

  @Command(name = "probe")
  static final class Probe {
    @Mixin ReplayOptions replay;
  }

  private static ReplayOptions parse(String... args) {
    Probe p = new Probe();
    new CommandLine(p).parseArgs(args);
    return p.replay;
  }

  @Test
  void apply_setsTheProfileFirst_thenItsReadRate() {
    ReplaySettings.Builder s = new ReplaySettings.Builder();
    parse("--profile", "llama-2-70b-h100-tp4", "--global-read-gbps", "3.5", "--node-nic-gbps", "Infinity",
        "--rate-scaling", "sessions", "--closed-loop", "--global-load", "in-step").apply(s);
    assertEquals("llama-2-70b-h100-tp4", s.profile.name);
    assertEquals(3.5, s.profile.globalReadGBps);
    assertEquals(Double.POSITIVE_INFINITY, s.nodeNicGBps);
    assertEquals(ReplaySettings.RateScaling.SESSIONS, s.rateScaling);
    assertTrue(s.followUpsWaitForPrevious);
    assertEquals(ReplaySettings.GlobalLoad.IN_STEP, s.globalLoad);
  }

  @Test
  void apply_withoutOptions_leavesTheSettingsAsTheyAre() {
    ReplaySettings.Builder s = new ReplaySettings.Builder();
    s.nodeNicGBps = 7; // e.g. from a --config file
    parse().apply(s);
    assertEquals(7, s.nodeNicGBps);
    assertEquals(ReplaySettings.defaults().profile.globalReadGBps, s.profile.globalReadGBps);
    assertNull(parse().rateScalingMode());
  }

  @Test
  void validate_rejectsContradictionsAndUnknownValues() {
    assertEquals("--closed-loop and --open-loop exclude each other",
        org.junit.jupiter.api.Assertions.assertThrows(UsageException.class, () -> parse("--closed-loop", "--open-loop").validate())
            .getMessage());
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(UsageException.class, () -> parse("--rate-grid", "dense").validate())
        .getMessage().startsWith("--rate-grid: unknown value 'dense' (one of: adaptive, fixed)"));
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
        () -> parse("--current-router", "smetric-basic").validate()).getMessage().contains("is SMetric or one of its variants"));
    assertEquals(10, parse().replicates(true));
    assertEquals(0, parse().replicates(false));
    assertEquals(3, parse("--bootstrap", "3").replicates(false));
  }
}
