package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.TestSpark;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verdict on the generator's three presets (issue 6): chat and single-shot, where
 * session-first routing should not pay, must not fit; the agent workload, built to the paper's
 * statistics, must pass every workload criterion. The shipped samples are those presets
 * (sample-traces/README.md gives their generate commands: 3000 requests, 4 instances).
 */
class PresetVerdictTest {
  @TempDir static Path tmp;

  @BeforeAll
  static void spark() {
    TestSpark.get();
  }

  private static JsonNode audit(String sample, String name, String... extra) throws Exception {
    Path out = tmp.resolve(name);
    List<String> a = new ArrayList<>(List.of("audit", "sample-traces/generated/" + sample, "--instances", "4",
        "--out", out.toString()));
    a.addAll(List.of(extra));
    StringWriter se = new StringWriter();
    int code = Main.run(a.toArray(new String[0]), new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    return Json.MAPPER.readTree(out.resolve("audit.json").toFile());
  }

  private static String status(JsonNode audit, String id) {
    for (JsonNode c : audit.get("criteria")) if (c.get("id").asText().equals(id)) return c.get("status").asText();
    throw new AssertionError("no criterion " + id);
  }

  /**
   * The agent preset passes every workload criterion; the verdict is then decided by the replay.
   * Issue 6 asked for "fits" here; the replay does not produce it (docs/verdict.md, "The
   * generator's presets"). Pinned (issue 26 item 8) on the real stage outputs: the verdict's gain is
   * SMetric's TPS within SLO over the judged router's at one offered rate, recomputed here from the
   * runs of replay.json; its interval from the paired replicate runs (mean, standard deviation and
   * bias computed here, independently of Uncertainty); and the verdict at this commit: at the
   * declared 1.6x capacity SMetric trails lmetric by about 2% at 1.5x lmetric's 90%-attainment rate,
   * and its interval reaches past +2% (since the replicates keep the trace's window they vary more),
   * so the replay criterion is too close to call and the verdict inconclusive. The replicates run
   * at equal load: each pair at the rate / its replicate's offered-token factor, so both routers
   * of a pair share one factor and every replicate offers the trace's raw token rate (at a fixed
   * rate they ranged -10% to +23% around it).
   */
  @Test
  void agentPreset_passesEveryWorkloadCriterion_andIsDecidedByTheReplay() throws Exception {
    Path out = tmp.resolve("agent");
    JsonNode a = audit("agent.smetric.b64.jsonl.gz", "agent");
    for (String id : List.of("ideal_reuse", "intra_session_share", "first_turn_fraction", "reuse_within_100s",
        "requests_per_instance", "system_prompt_reuse")) {
      assertEquals("pass", status(a, id), id);
    }
    JsonNode replay = Json.MAPPER.readTree(out.resolve("replay/replay.json").toFile());
    JsonNode gain = replay.path("judged").path("smetric_gain_with_global_tier");
    assertEquals(1.6, gain.path("global_ratio").asDouble());
    assertEquals(1.5, gain.path("load").asDouble());
    String judged = gain.path("judged_router").asText();
    double x = gain.path("rate_scale").asDouble();
    double sm = Double.NaN;
    double jr = Double.NaN;
    java.util.Map<Integer, double[]> reps = new java.util.TreeMap<>();
    java.util.Map<Integer, double[]> raw = new java.util.TreeMap<>();
    double rawOrig = Double.NaN;
    for (JsonNode r : replay.path("runs")) {
      if (r.path("global_ratio").asDouble() != 1.6 || r.path("rate_scale").asDouble() != x || r.path("overrides").size() > 0) continue;
      // the main sweep's and the equal-load runs, not the conditions sweep's (OVERLOAD / HIT_RATIO points have no overrides)
      if (r.has("variant") && !r.path("variant").asText().equals("equal-load")) continue;
      String p = r.path("policy").asText();
      if (!p.equals("smetric") && !p.equals(judged)) continue;
      // smetric at the default thresholds, not the sensitivity curves'
      if (p.equals("smetric") && (r.path("overload").asDouble() != 1.5 || r.path("hit_ratio").asDouble() != 0.5)) continue;
      double t = r.path("metrics").path("tps_within_slo").asDouble();
      int k = r.path("replicate").asInt(0);
      if (k == 0) {
        if (p.equals("smetric")) sm = t;
        else jr = t;
        rawOrig = r.path("metrics").path("raw_tps").asDouble();
      } else {
        reps.computeIfAbsent(k, q -> new double[2])[p.equals("smetric") ? 0 : 1] = t;
        double[] f = raw.computeIfAbsent(k, q -> new double[4]);
        int o = p.equals("smetric") ? 0 : 2;
        f[o] = r.path("metrics").path("replicate_offered_token_factor").asDouble();
        f[o + 1] = r.path("metrics").path("raw_tps").asDouble();
      }
    }
    double point = sm / jr - 1;
    assertEquals(point, gain.path("value").asDouble(), 1e-12);
    assertEquals(10, reps.size(), "ten paired replicates");
    // equal load: one offered-token factor per pair, and the trace's raw token rate on every replicate
    for (Map.Entry<Integer, double[]> e : raw.entrySet()) {
      double[] f = e.getValue();
      assertTrue(f[0] > 0 && f[0] == f[2], "replicate " + e.getKey() + ": one factor for both routers");
      for (int o : new int[] {1, 3}) {
        assertEquals(1.0, f[o] / rawOrig, 0.02, "replicate " + e.getKey() + " raw TPS " + f[o] + " against " + rawOrig);
      }
    }
    // the interval on the log of the TPS ratio (docs/replay.md, "Uncertainty"), recomputed here
    double u0 = Math.log(sm / jr);
    double mean = 0;
    double[] g = new double[reps.size()];
    int i = 0;
    for (double[] pr : reps.values()) mean += (g[i++] = Math.log(pr[0] / pr[1]));
    mean /= g.length;
    double ss = 0;
    for (double v : g) ss += (v - mean) * (v - mean);
    double se = Math.sqrt(ss / (g.length - 1));
    double half = 1.959963984540054 * Math.sqrt(se * se + (mean - u0) * (mean - u0));
    assertEquals(Math.exp(u0 + half) - 1, gain.path("interval").path("high").asDouble(), 1e-12);
    assertEquals(Math.exp(u0 - half) - 1, gain.path("interval").path("low").asDouble(), 1e-12);
    // the verdict at this commit (docs/verdict.md, "The generator's presets"): the interval
    // straddles the +2% threshold, so the replay criterion is too close to call
    assertEquals("lmetric", judged);
    double low = Math.exp(u0 - half) - 1;
    double high = Math.exp(u0 + half) - 1;
    assertTrue(point < 0.02 && low < 0.02 && high > 0.02, "the interval straddles +2%: " + low + ".." + high);
    assertEquals("not-applicable", status(a, "replay_gain_with_global"), reason(a, "replay_gain_with_global"));
    assertTrue(reason(a, "replay_gain_with_global").contains("too close to call"), reason(a, "replay_gain_with_global"));
    assertEquals("inconclusive", a.get("verdict").asText(), a.get("sentence").asText());
  }

  private static String reason(JsonNode audit, String id) {
    for (JsonNode c : audit.get("criteria")) if (c.get("id").asText().equals(id)) return c.get("reason").asText();
    throw new AssertionError("no criterion " + id);
  }

  @Test
  void chatPreset_doesNotFit() throws Exception {
    // a failed critical workload criterion decides alone, so the replay is skipped here (test time)
    JsonNode a = audit("chat.smetric.jsonl.gz", "chat", "--no-replay");
    assertEquals("does-not-fit", a.get("verdict").asText(), a.get("sentence").asText());
    // short conversations: most requests open a session
    assertEquals("fail", status(a, "first_turn_fraction"));
  }

  @Test
  void singleShotPreset_doesNotFit() throws Exception {
    JsonNode a = audit("single-shot.smetric.jsonl.gz", "single-shot", "--no-replay");
    assertEquals("does-not-fit", a.get("verdict").asText(), a.get("sentence").asText());
    // every request is its own session: first-turn fraction exactly 1, nothing intra-session
    assertEquals("fail", status(a, "first_turn_fraction"));
    assertEquals("fail", status(a, "ideal_reuse"));
  }
}
