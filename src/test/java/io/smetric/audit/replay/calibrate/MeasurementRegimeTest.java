package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.ModelProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The regime of measured runs, worked by hand. Three requests of 64, 64 and 40 prompt tokens (8
 * output each) whose first 32 tokens are shared, 16-token blocks: the first hits nothing, the
 * second and third hit the two shared blocks (32 tokens each): 64 of 168 prompt tokens, 0.381.
 */
class MeasurementRegimeTest {
  private static Measurement stage(String id, double measuredRate) {
    SampledWorkload w = new SampledWorkload(new int[] {64, 64, 40}, new int[] {8, 8, 8}, 32,
        SampledWorkload.Arrival.GAMMA, 10, 1, null, 60, 16);
    Metrics m = new Metrics(Stat.NONE, Stat.NONE, Stat.NONE, Stat.ofMean(2.0), measuredRate, Double.NaN, Double.NaN, 600, 0);
    return new Measurement(id, "hand", "g", Kind.LOAD_STAGE, EngineConfig.UNKNOWN, w, m, null);
  }

  @Test
  void loadStage_lengthsHitShareLittlesLawAndSaturation() {
    // offered 10 req/s, completed 9: below 95% of the offered rate -> saturated; in flight 9 x 2 s = 18
    MeasurementRegime.Point p = MeasurementRegime.point(stage("slow", 9.0));
    assertEquals(40, p.promptMin());
    assertEquals(64, p.promptMax());
    assertEquals(72, p.contextMax());
    assertEquals(64.0 / 168, p.hitShare(), 1e-12);
    assertEquals(18.0, p.concurrency(), 1e-12);
    assertEquals(10.0, p.rate(), 0);
    assertTrue(p.saturated());
    // completed 9.8 of 10 offered: keeps up
    assertFalse(MeasurementRegime.point(stage("ok", 9.8)).saturated());
  }

  @Test
  void envelope_ofTwoStages_andItsSentence() {
    ModelProfile.Regime g = MeasurementRegime.of(List.of(stage("slow", 9.0), stage("ok", 9.8)), "hand");
    assertEquals("load stages", g.kinds);
    assertEquals(18.0, g.concurrencyMin, 1e-12);
    assertEquals(19.6, g.concurrencyMax, 1e-12);
    assertEquals(1, g.saturatedMeasurements);
    assertEquals("2 load stages: prompts 40-64 tokens, contexts (prompt + output) up to 72, 18.0-19.6 requests in flight,"
        + " 10.0-10.0 requests/s offered, prefix-cache hit share 38.1%-38.1%, 1 saturated (throughput below 95% of the"
        + " offered rate or > 1% failed)", g.summary);
  }

  @Test
  void singleRequest_isBatchOne_notRateDriven_noHits() {
    Measurement m = new Measurement("one", "hand", "g", Kind.SINGLE_REQUEST, EngineConfig.UNKNOWN,
        new SingleRequestWorkload(1000, 100, 16), Metrics.NONE, null);
    ModelProfile.Regime g = MeasurementRegime.of(List.of(m), "hand");
    assertEquals(1.0, g.concurrencyMax, 0);
    assertNull(g.requestRateMax);
    assertEquals(0.0, g.cacheHitShareMax, 0);
    assertEquals(1100L, g.contextTokensMax);
    assertTrue(g.summary.contains("batch 1 (one request at a time), no prefix-cache hits, none saturated"), g.summary);
  }
}
