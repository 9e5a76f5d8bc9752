package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Profiles;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * The step-cost model (ModelProfile) on one request alone, against the formula written out here:
 * step = a + max(R + W x f(T), b x T) + e x pairs + c x D + d x context (+ save), with an MoE of
 * 128 experts, 8 per token: f(T) = 1 - (120/128)^T.
 */
class StepCostModelTest {
  private static final double A = 0.005;
  private static final double B = 1e-4;
  private static final double C = 2e-4;
  private static final double D = 2e-8;
  private static final double E = 1e-9;

  private static ModelProfile moe() {
    return Profiles.linear(A, B, E, C, D).with(q -> {
      q.experts = 128;
      q.expertsPerToken = 8;
      q.denseWeightGB = 2.43;
      q.expertWeightGB = 57.98;
      q.hbmGBps = 4000;
      q.hbmEfficiency = 0.8;
    });
  }

  private static double share(long tokens) {
    return 1 - Math.pow(120.0 / 128.0, tokens);
  }

  private static double weights(long tokens) {
    return 2.43 / 3200 + 57.98 / 3200 * share(tokens);
  }

  private static SimOutcome runOne(ModelProfile p, int input, int output, double globalRatio) {
    Traces.Builder b = Traces.builder().blockSize(16);
    long[] blocks = new long[(input + 15) / 16];
    for (int k = 0; k < blocks.length; k++) blocks[k] = k + 1;
    b.req("r", "s", null, 0, "user", 0.0, input, output, blocks);
    ReplayTrace t = ReplayFixtures.trace(b, false);
    ReplaySettings s = ReplayFixtures.settings(1, -1).with(sb -> {
      sb.profile = p;
      sb.globalRatio = globalRatio;
      if (globalRatio > 0) sb.localBlocks = 1000L;
    });
    return ReplayFixtures.run(t, s, Policies.ROUND_ROBIN);
  }

  @Test
  void moe_decodeReadsOnlyActivatedExperts_prefillIsComputeBound() {
    // prefill of 16 tokens: memory-bound (weights 19.1 ms > 1.6 ms of compute); pairs = 16 x 8
    double prefill = A + Math.max(weights(16), B * 16) + E * 16 * 8;
    // decode steps at contexts 17 and 18: one token, 8 of 128 experts
    double perCtx = D;
    double d17 = A + Math.max(weights(1), B) + C + perCtx * 17;
    double d18 = A + Math.max(weights(1), B) + C + perCtx * 18;
    SimOutcome o = runOne(moe(), 16, 3, 0);
    assertEquals(prefill, o.firstToken[0], 1e-12);
    assertEquals(prefill + d17 + d18, o.finish[0], 1e-12);
    // the batch-1 decode step reads 2.43 + 57.98 / 16 GB at 3.2 TB/s: 1.89 ms
    assertEquals(2.43 / 3200 + 57.98 / 16 / 3200, weights(1), 1e-12);
  }

  @Test
  void longPrefillChunk_computeBound_branchOfTheRoofline() {
    // 8192 tokens in one chunk (token budget 8192): compute 0.8192 s > weights ~19.9 ms
    ModelProfile p = moe();
    double expected = A + B * 8192 + E * 8192 * 4096.0;
    SimOutcome o = runOne(p, 8192, 1, 0);
    assertEquals(expected, o.firstToken[0], 1e-9);
    assertEquals(expected, p.prefillStepS(8192) + E * 8192 * 4096.0, 1e-12);
  }

  @Test
  void saveBlockingTheStep_addsBytesOverTheWriteRate_onlyWithAGlobalTier() {
    ModelProfile p = Profiles.linear(0.01, 0, 0, 0, 0).with(q -> {
      q.globalSaveBlocksStep = true;
      q.globalSaveGBps = 1.0; // 32 tokens x 98,304 B = 3,145,728 B at 1 GB/s = 3.145728 ms
    });
    assertEquals(0.01 + 32 * (double) p.kvBytesPerToken / 1e9, runOne(p, 32, 1, 0.4).firstToken[0], 1e-12);
    assertEquals(0.01, runOne(p, 32, 1, 0).firstToken[0], 1e-12);
  }
}
