package io.smetric.audit.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each preset, generated at its defaults, lands inside the tolerances docs/generator.md promises
 * for traces of at least 20k requests. The statistics come from {@link TraceOracle}, an
 * independent sequential implementation of trace-model.md sections 2-5 over the written file.
 */
class PresetStatisticsTest {
  @TempDir Path dir;

  private static void within(String what, double value, double lo, double hi) {
    assertTrue(value >= lo && value <= hi, what + " = " + value + " outside [" + lo + ", " + hi + "]");
  }

  @Test
  void agentPreset_20kRequests_hitsDocumentedTolerances() throws IOException {
    Path f = GeneratedTraces.write(dir, "agent.jsonl", Preset.AGENT, 20260529, 20_000, OutputFormat.SMETRIC, 16);
    TraceOracle.Result r = TraceOracle.compute(f);
    within("ideal reuse", r.reuse(), 0.76, 0.85);
    within("intra-session share of hit tokens", r.intraShare(), 0.63, 0.76);
    within("system-prompt share of hit tokens", r.systemShare(), 0.12, 0.21);
    within("inter-session share of hit tokens", r.interShare(), 0.09, 0.18);
    within("share of hit tokens reused within 100 s", r.within100s(), 0.87, 0.96);
    within("top-25% sessions' token share", r.top25TokenShare, 0.70, 0.90);
    within("tool-triggered share of follow-ups", r.toolShareOfFollowUps(), 0.92, 0.96);
    within("first-turn fraction", r.firstTurnFraction(), 0.30, 0.45);
    within("mean input tokens", r.meanInput(), 15_000, 26_000);
  }

  @Test
  void chatPreset_reuseMostlyFromSystemPrompts_followUpsFarApart() throws IOException {
    Path f = GeneratedTraces.write(dir, "chat.jsonl", Preset.CHAT, 20260529, 20_000, OutputFormat.SMETRIC, 16);
    TraceOracle.Result r = TraceOracle.compute(f);
    within("ideal reuse", r.reuse(), 0.50, 0.62);
    within("intra-session share of hit tokens", r.intraShare(), 0.30, 0.48);
    within("intra-session hit tokens within 100 s",
        (double) r.within100sBySource[0] / r.intraTokens, 0.45, 0.70);
    within("first-turn fraction", r.firstTurnFraction(), 0.72, 0.82);
    assertEquals(0, r.interTokens, "chat has no forks: no inter-session reuse");
    assertEquals(0, r.toolFollowUps);
  }

  @Test
  void singleShotPreset_uniquePrompts_noReuse() throws IOException {
    Path f = GeneratedTraces.write(dir, "single.jsonl", Preset.SINGLE_SHOT, 20260529, 20_000, OutputFormat.SMETRIC, 16);
    TraceOracle.Result r = TraceOracle.compute(f);
    assertEquals(0, r.hitTokens);
    assertEquals(1.0, r.firstTurnFraction());
    assertEquals(r.requests, r.sessions);
  }
}
