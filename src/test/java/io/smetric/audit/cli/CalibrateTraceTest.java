package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28 items 3 and 4, calibrate TRACE and audit --profile from-trace, on a round trip with an
 * independent ground truth: replay --record-trace writes a trace whose routing and latencies come
 * from the default profile P; calibrating on it from a base whose step costs are P's perturbed
 * (x1.5, the weight-read efficiency /1.5) must bring the identified costs back near P's, and the
 * held-out slice's error must be small, where the perturbed base is far off.
 */
class CalibrateTraceTest {
  @TempDir static Path tmp;
  private static final SparkSession spark = TestSpark.get();
  private static Path rec;
  private static ModelProfile truth;

  /** The perturbed coefficients and their factors (decodePerSeqS: not identified by this trace, left as P's). */
  private static final Map<String, Double> PERTURB = Map.of("stepBaseS", 1.5, "prefillPerTokenS", 1.5,
      "decodePerContextTokenS", 1.5, "hbmEfficiency", 1 / 1.5);

  @BeforeAll
  static void record() {
    Path gen = tmp.resolve("agent.jsonl");
    CliTest.Run g = CliTest.run("generate", "--preset", "agent", "--requests", "600", "--seed", "11", "--out", gen.toString());
    assertEquals(ExitCodes.OK, g.code(), g.err());
    CliTest.Run i = CliTest.run("ingest", gen.toString(), "--out", tmp.resolve("ing").toString());
    assertEquals(ExitCodes.OK, i.code(), i.err());
    rec = tmp.resolve("rec");
    CliTest.Run r = CliTest.run("replay", tmp.resolve("ing").toString(), "--instances", "8", "--policies", "lmetric",
        "--rate-scale", "1", "--closed-loop", "--executor", "local", "--out", tmp.resolve("rp").toString(),
        "--record-trace", rec.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    truth = ModelProfile.resolve(ModelProfile.DEFAULT_NAME);
  }

  private static Path perturbedBase() throws Exception {
    ModelProfile.Builder p = truth.toBuilder();
    p.name = "perturbed";
    for (var e : PERTURB.entrySet()) {
      switch (e.getKey()) {
        case "stepBaseS" -> p.stepBaseS *= e.getValue();
        case "prefillPerTokenS" -> p.prefillPerTokenS *= e.getValue();
        case "decodePerContextTokenS" -> p.decodePerContextTokenS *= e.getValue();
        case "hbmEfficiency" -> p.hbmEfficiency *= e.getValue();
        default -> throw new IllegalStateException(e.getKey());
      }
    }
    Path f = tmp.resolve("perturbed.yaml");
    Files.writeString(f, p.build().toYaml());
    return f;
  }

  @Test
  void calibrateTrace_fromPerturbedBase_recoversTheRecordingProfilesCosts_andKeepsFitAndHeldOutApart() throws Exception {
    Path out = tmp.resolve("fitted.yaml");
    CliTest.Run c = CliTest.run("calibrate", rec.toString(), "--base", perturbedBase().toString(), "--out", out.toString(),
        "--fit", String.join(",", PERTURB.keySet().stream().sorted().toList()));
    assertEquals(ExitCodes.OK, c.code(), c.out() + c.err());
    assertTrue(c.out().contains("held out: the last 20%"), c.out());
    ModelProfile fitted = ModelProfile.resolve(out.toString());
    // what the trace identifies comes back: the prefill cost per token within 2%, and the cost of a
    // decode step at this trace's operating point (16 sequences of 20,000 context tokens) within 5%;
    // the step's fixed cost, the weight-read efficiency and the per-context cost trade off along
    // that step (each alone is off by up to 24% in this round trip, docs/validation.md)
    assertEquals(1.0, fitted.prefillPerTokenS / truth.prefillPerTokenS, 0.02, c.out());
    double stepTruth = truth.stepS(0, 0, 16, 16 * 20_000L, 0);
    assertEquals(1.0, fitted.stepS(0, 0, 16, 16 * 20_000L, 0) / stepTruth, 0.05, c.out());
    ModelProfile base = ModelProfile.resolve(tmp.resolve("perturbed.yaml").toString());
    assertTrue(Math.abs(base.stepS(0, 0, 16, 16 * 20_000L, 0) / stepTruth - 1) > 0.3, "the base starts far off");
    ModelProfile.Validation v = fitted.validation;
    ModelProfile.Check fit = v.check(ModelProfile.Check.FIT);
    ModelProfile.Check held = v.check(ModelProfile.Check.HELD_OUT);
    assertNotNull(fit);
    assertNotNull(held);
    assertTrue(held.meaning.contains("never seen by the fit"), held.meaning);
    assertTrue(fit.meaning.startsWith("in-sample"), fit.meaning);
    assertEquals(600, fit.measurements + held.measurements);
    // the held-out slice: median |error| within 5% (TTFT) and 20% (end-to-end) with the fit (0.4% and
    // 2.2% measured, docs/validation.md), over 100% with the perturbed base
    assertTrue(held.ttftMedianAbsError < 0.05 && held.e2eMedianAbsError < 0.2, v.summary);
    assertTrue(c.out().contains("held-out slice with perturbed unfitted"), c.out());
    assertEquals("fitted", fitted.sources.get("prefillPerTokenS").kind);
  }

  @Test
  void calibrateTrace_withoutLatencies_orWithoutInstances_isRefusedNamingTheFileAndWhatIsMissing() {
    String noLatency = tmp.resolve("no-latency").toString();
    spark.read().parquet(rec.resolve("trace").toString())
        .withColumn(Canonical.TTFT_S, functions.lit(null).cast("double"))
        .withColumn(Canonical.E2E_S, functions.lit(null).cast("double")).coalesce(1).write().parquet(noLatency);
    CliTest.Run a = CliTest.run("calibrate", noLatency, "--out", tmp.resolve("x.yaml").toString());
    assertEquals(ExitCodes.USAGE, a.code(), a.out() + a.err());
    assertTrue(a.err().contains(noLatency) && a.err().contains("measured latencies (ttft_s and e2e_s: no request has either)"), a.err());

    String noInstance = tmp.resolve("no-instance").toString();
    spark.read().parquet(rec.resolve("trace").toString())
        .withColumn(Canonical.SERVED_INSTANCE, functions.lit(null).cast("string")).coalesce(1).write().parquet(noInstance);
    CliTest.Run b = CliTest.run("calibrate", noInstance, "--out", tmp.resolve("y.yaml").toString());
    assertEquals(ExitCodes.USAGE, b.code(), b.out() + b.err());
    assertTrue(b.err().contains(noInstance) && b.err().contains("served_instance: 0 of 600 requests have it"), b.err());
    assertTrue(!Files.exists(tmp.resolve("x.yaml")) && !Files.exists(tmp.resolve("y.yaml")));

    // the audit refuses before characterizing: no audit folder, no step past ingest
    CliTest.Run au = CliTest.run("audit", noLatency, "--out", tmp.resolve("audit-x").toString(), "--profile", "from-trace",
        "--bootstrap", "0", "--no-conditions");
    assertEquals(ExitCodes.USAGE, au.code(), au.out() + au.err());
    assertTrue(au.err().contains("--profile from-trace needs a trace with recorded routing and measured latencies"), au.err());
    assertTrue(!au.err().contains("characterize"), au.err());
    assertTrue(!Files.exists(tmp.resolve("audit-x")));
  }

  @Test
  void audit_profileFromTrace_replaysWithTheFittedProfile_andSaysSoWithTheHeldOutError() throws Exception {
    Path audit = tmp.resolve("audit");
    CliTest.Run a = CliTest.run("audit", rec.resolve("trace").toString(), "--out", audit.toString(), "--profile", "from-trace",
        "--bootstrap", "0", "--no-conditions", "--policies", "smetric,least-load,as-recorded", "--global-ratio", "0");
    assertEquals(ExitCodes.OK, a.code(), a.err());
    assertTrue(a.err().contains("profile from the trace: fitted on"), a.err());
    JsonNode j = Json.MAPPER.readTree(audit.resolve("audit.json").toFile());
    JsonNode p = j.path("replay_profile");
    assertEquals("from-trace:" + ModelProfile.DEFAULT_NAME, p.path("name").asText(), p.toString());
    List<String> kinds = new java.util.ArrayList<>();
    p.path("validation").path("checks").forEach(x -> kinds.add(x.path("kind").asText()));
    assertEquals(List.of("fit", "held-out"), kinds, p.toString());
    assertTrue(p.path("validation").path("checks").get(1).path("ttftP90AbsError").isNumber(), p.toString());
    assertTrue(j.path("own_traffic_validation").path("profile_fitted_on_this_trace").asText().contains("partly in-sample"),
        j.path("own_traffic_validation").toString());
    String html = Files.readString(audit.resolve("index.html"));
    assertTrue(html.contains("held-out"), "report names the held-out check");
  }
}
