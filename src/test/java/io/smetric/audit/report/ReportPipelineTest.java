package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.cli.Main;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report on the real outputs of {@code analyze} and {@code replay} (not hand-made tables):
 * guards against drift between the stages' table layouts and what the report reads.
 */
class ReportPipelineTest {
  @TempDir Path tmp;

  static void cli(String... args) {
    StringWriter err = new StringWriter();
    int code = Main.run(args, new PrintWriter(new StringWriter()), new PrintWriter(err));
    assertEquals(0, code, String.join(" ", args) + ": " + err);
  }

  @Test
  void report_onAnalyzeAndReplayOutputs_drawsEveryChartTheirDataSupports() throws Exception {
    // 3 sessions x 4 turns over 200 s, all starting with the shared block 100 (a system prompt);
    // each turn extends its session's previous prompt by one block
    Traces.Builder b = Traces.builder();
    String[] s = {"A", "B", "C"};
    for (int turn = 0; turn < 4; turn++) {
      for (int k = 0; k < 3; k++) {
        long[] blocks = new long[2 + turn];
        blocks[0] = 100;
        for (int i = 1; i < blocks.length; i++) blocks[i] = 1000L * (k + 1) + i;
        b.simple(s[k] + turn, s[k], turn, turn * 60.0 + k * 5.0, blocks);
      }
    }
    String canon = tmp.resolve("canon").toString();
    b.toDataset(TestSpark.get()).write().parquet(canon);
    Path audit = tmp.resolve("audit");
    Files.createDirectories(audit);
    cli("analyze", canon, "--instances", "2", "--out", audit.resolve("characterization").toString());
    cli("replay", canon, "--instances", "2", "--local-blocks", "unbounded", "--policies", "smetric,smetric-basic,least-load",
        "--global-ratio", "0,0.4", "--rate-scale", "1,2", "--executor", "local", "--out", audit.resolve("replay").toString());

    ReportJob.Result r = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(audit.toString());
    Set<String> drawn = r.charts().stream().filter(ReportCharts.Entry::drawn).map(ReportCharts.Entry::file)
        .collect(Collectors.toSet());
    for (String f : List.of("reuse_over_time.png", "reuse_interval_cdf.png", "session_lorenz.png", "request_instance_ratio.png",
        "hit_ratio_by_capacity.png", "tps_by_capacity.png", "tps_by_rate_g0.png", "tps_by_rate_g0_4.png", "stickiness.png",
        "ttft_cdf.png", "tpot_cdf.png", "ablation.png", "imbalance_01_smetric.png")) {
      assertTrue(drawn.contains(f), f + " not drawn; entries: " + r.charts());
    }
    // the evidence carries characterization.json's own numbers
    JsonNode ch = Json.MAPPER.readTree(audit.resolve("characterization/characterization.json").toFile());
    JsonNode a = Json.MAPPER.readTree(audit.resolve("audit.json").toFile());
    assertEquals(ch.at("/reuse/token_weighted/value").asDouble(), a.path("criteria").get(0).path("value").asDouble(), 0);
    assertEquals(ch.at("/reuse/token_weighted/value").asDouble(), a.path("headline").path("ideal_reuse").asDouble(), 0);
    JsonNode replay = Json.MAPPER.readTree(audit.resolve("replay/replay.json").toFile());
    // the verdict's gain, recomputed from the runs (issue 26 item 8): SMetric's TPS within SLO over the judged
    // router's (least-load, the only paper baseline replayed) at the same offered rate, the decision load
    JsonNode judged = replay.path("judged").path("smetric_gain_with_global_tier");
    assertEquals(0.4, judged.path("global_ratio").asDouble(), "the declared 1.6x is not swept: the largest capacity below it");
    assertEquals("least-load", judged.path("judged_router").asText());
    double x = judged.path("rate_scale").asDouble();
    Double sm = null;
    Double ll = null;
    for (JsonNode run : replay.path("runs")) {
      if (run.has("replicate") || run.path("global_ratio").asDouble() != 0.4 || run.path("rate_scale").asDouble() != x) continue;
      if (run.path("policy").asText().equals("smetric")) sm = run.path("metrics").path("tps_within_slo").asDouble();
      if (run.path("policy").asText().equals("least-load")) ll = run.path("metrics").path("tps_within_slo").asDouble();
    }
    assertTrue(sm != null && ll != null && ll > 0, "both routers ran at the decision rate x" + x);
    assertEquals(sm / ll - 1, judged.path("value").asDouble(), 1e-12);
    assertEquals(sm / ll - 1, a.path("headline").path("smetric_gain_with_global_tier").asDouble(), 1e-12);
    // the decision rate is 1.5x the highest grid rate where least-load keeps 90% of its requests within SLO
    JsonNode anchor = replay.path("equal_load").path("by_global_ratio").get(1);
    assertEquals(0.4, anchor.path("global_ratio").asDouble());
    assertEquals(io.smetric.audit.replay.sweep.KneeSearch.round(1.5 * anchor.path("reference_rate_scale").asDouble()), x, 0.0);
    // three sessions: the replay criteria are set aside for the sample size, saying so
    JsonNode gain = a.path("criteria").get(6);
    assertEquals("replay_gain_with_global", gain.path("id").asText());
    assertEquals("not-applicable", gain.path("status").asText());
    assertTrue(gain.path("reason").asText().contains("session trees replayed"), gain.path("reason").asText());
  }
}
