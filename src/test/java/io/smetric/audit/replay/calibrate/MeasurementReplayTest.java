package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.ModelProfile;
import org.junit.jupiter.api.Test;

/**
 * MeasurementReplay against latencies worked out by hand from the step-cost formula (ModelProfile's
 * class comment), independently of the simulator: CalibratorTest fits tables the replay itself
 * made, so a wrong replay would cancel out there. A dense profile with R = 0 makes every step
 * a + b x T + e x pairs + c x decoding sequences + d x their context tokens.
 */
class MeasurementReplayTest {
  private static final double A = 0.01;
  private static final double B = 1e-4;
  private static final double E = 1e-8;
  private static final double C = 2e-3;
  private static final double D = 1e-6;
  private static final double F = 0.005;

  private static ModelProfile handProfile(double frontend) {
    ModelProfile p = ModelProfile.defaultProfile().with(q -> {
      q.stepBaseS = A;
      q.prefillPerTokenS = B;
      q.prefillAttentionPerPairS = E;
      q.decodePerSeqS = C;
      q.decodePerContextTokenS = D;
      q.denseWeightGB = 0; // R = 0, W = 0: no roofline term
      q.expertWeightGB = 0;
      q.experts = 0;
      q.expertsPerToken = 0;
      q.frontendLatencyS = frontend;
    });
    p.validate();
    return p;
  }

  private static Measurement of(WorkloadSpec w) {
    return new Measurement("hand", "hand", "g", Kind.SINGLE_REQUEST, EngineConfig.UNKNOWN, w, Metrics.NONE, null);
  }

  @Test
  void oneRequest_ttftIsThePrefillStep_andEachDecodeStepReadsTheGrowingContext() {
    // 1,000 prompt tokens, 4 output tokens, one chunk (budget 8,192):
    // prefill step: a + b x 1000 + e x 1000 x (0 + 1000 / 2) = 0.01 + 0.1 + 0.005 = 0.115 s (first token)
    // decode step k = 1..3 (context 1000 + k): a + b x 1 + c + d x (1000 + k) = 0.0131 + 1e-6 k
    //   sum = 3 x 0.0131 + 6e-6 = 0.039306 s
    Metrics m = MeasurementReplay.replay(of(new SingleRequestWorkload(1000, 4, 16)), handProfile(0),
        MeasurementReplay.Options.DEFAULT).metrics();
    assertEquals(0.115, m.ttft().mean(), 1e-9);
    assertEquals(0.115 + 0.039306, m.e2e().mean(), 1e-9);
    assertEquals(0.039306 / 3, m.tpot().mean(), 1e-9);
  }

  @Test
  void twoRequestsAtOnce_theSecondJoinsTheFirstDecodeStep() {
    // both sent at 0, at the engine after the frontend latency F = 0.005 s; an idle engine starts a
    // step for the first arrival at once, so the second waits for the next step:
    // step 1 prefills request 0 alone: 0.01 + 0.1 + 1e-8 x 1000 x 500 = 0.115 s -> its first token at 0.12 s
    // step 2 prefills request 1 (500 tokens, pairs 500 x 250) and decodes request 0 (context 1001), T = 501:
    //   0.01 + 0.0501 + 0.00125 + 0.002 + 0.001001 = 0.064351 s -> request 1's first token at 0.184351 s
    // step 3 decodes both (contexts 1002 + 501): 0.01 + 2e-4 + 4e-3 + 1.503e-3 = 0.015703 s; request 1 (2 tokens) done
    // step 4 decodes request 0 alone (context 1003): 0.0121 + 0.001003 = 0.013103 s; request 0 (4 tokens) done
    SampledWorkload w = new SampledWorkload(new int[] {1000, 500}, new int[] {4, 2}, 0,
        SampledWorkload.Arrival.ALL_AT_ONCE, Double.NaN, 1, null, 0, 16);
    Metrics m = MeasurementReplay.replay(of(w), handProfile(F), MeasurementReplay.Options.DEFAULT).metrics();
    double ttft0 = F + 0.115;
    double ttft1 = ttft0 + 0.064351;
    double e2e0 = ttft1 + 0.015703 + 0.013103;
    double e2e1 = ttft1 + 0.015703;
    assertEquals((ttft0 + ttft1) / 2, m.ttft().mean(), 1e-9);
    assertEquals((e2e0 + e2e1) / 2, m.e2e().mean(), 1e-9);
    assertEquals(((e2e0 - ttft0) / 3 + (e2e1 - ttft1) / 1) / 2, m.tpot().mean(), 1e-9);
    assertEquals(e2e0, m.e2e().p90(), 1e-9); // nearest rank of two: the slower
    assertEquals(2, m.completed());
  }

  /**
   * The same two requests under a 0.205 s client timeout: request 1 completes at e2e1 = 0.200054 s
   * (above) and stays; request 0 would complete at 0.213157 s, so the client aborts it at 0.205 s.
   * The summary is the completed request's alone, and the aborted one counts as failed.
   */
  @Test
  void clientTimeout_abortsTheLateRequest_andTheSummaryKeepsTheCompletedOne() {
    SampledWorkload w = new SampledWorkload(new int[] {1000, 500}, new int[] {4, 2}, 0,
        SampledWorkload.Arrival.ALL_AT_ONCE, Double.NaN, 1, null, 0, 16);
    Measurement m = new Measurement("hand", "hand", "g", Kind.LOAD_STAGE, EngineConfig.UNKNOWN, w, Metrics.NONE, null,
        null, null, java.util.List.of(), 0.205);
    Metrics got = MeasurementReplay.replay(m, handProfile(F), MeasurementReplay.Options.DEFAULT).metrics();
    double ttft1 = F + 0.115 + 0.064351;
    double e2e1 = ttft1 + 0.015703;
    assertEquals(1, got.completed());
    assertEquals(1, got.failed());
    assertEquals(ttft1, got.ttft().mean(), 1e-9);
    assertEquals(e2e1, got.e2e().mean(), 1e-9);
    // without the timeout (the replay before): both complete
    Metrics off = MeasurementReplay.replay(m, handProfile(F), new MeasurementReplay.Options(42, Double.POSITIVE_INFINITY, false)).metrics();
    assertEquals(2, off.completed());
    assertEquals(0, off.failed());
  }
}
