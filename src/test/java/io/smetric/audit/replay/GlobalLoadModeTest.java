package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.testing.Traces;
import io.smetric.audit.replay.trace.ReplayTrace;
import org.junit.jupiter.api.Test;

/**
 * How an instance waits for a global-tier fetch (ReplaySettings.globalLoad), worked by hand.
 *
 * <p>Every step takes exactly 0.01 s (a = 0.01, every other cost coefficient 0). Round robin over
 * 2 instances: a0 (A: blocks 1-8) at t=0 -> 0, written to the global tier at its prefill end;
 * c0 (C: blocks 201-202, 500 output tokens) at t=99 -> 1; d0 (D) at t=99.5 -> 0; a1 (A: blocks 1-9)
 * at t=100.005 -> 1, where A is not cached, so it fetches its 8-block prefix: 128 tokens x 1000 B
 * = 128,000 B over a 128 kB/s link = 1.0 s, plus 0.003 s latency.
 *
 * <p>Instance 1: c0's prefill step is [99, 99.01] (first token), then one decode step per 0.01 s.
 * a1 arrives mid-step and is admitted at the next boundary, 100.01; its fetch lands at 101.013.
 * <ul>
 *   <li>ASYNC: c0 keeps decoding; the step in progress at 101.013 ends at 101.02, and the next,
 *       [101.02, 101.03], prefills a1's last 16 tokens: first token 101.03. c0 never waits:
 *       finish = 99.01 + 499 x 0.01 = 104.00.
 *   <li>IN_STEP (LMCache's default connector): a1 is scheduled in the step starting at 100.01,
 *       whose forward pass waits for the fetch: that step runs [101.013, 101.023], first token
 *       101.023, and c0's decoding stalls 1.003 s: finish 105.003.
 * </ul>
 */
class GlobalLoadModeTest {
  /** Request indices: trace order is arrival order a0, c0, d0, a1. */
  private static final int C0 = 1;
  private static final int A1 = 3;

  private static ReplayTrace trace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .simple("a0", "A", 0, 0.0, 1, 2, 3, 4, 5, 6, 7, 8)
        .req("c0", "C", null, 0, "user", 99.0, 32, 500, 201, 202)
        .simple("d0", "D", 0, 99.5, 301, 302)
        .simple("a1", "A", 1, 100.005, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    return ReplayFixtures.trace(b, false);
  }

  private static SimOutcome run(ReplaySettings.GlobalLoad mode) {
    ReplaySettings s = ReplayFixtures.slowGlobalTier(2).with(sb -> {
      sb.profile = sb.profile.with(p -> {
        p.globalLookupLatencyS = 0.003;
        p.stepBaseS = 0.01;
        p.prefillPerTokenS = 0;
        p.prefillAttentionPerPairS = 0;
        p.decodePerSeqS = 0;
        p.decodePerContextTokenS = 0;
      });
      sb.globalLoad = mode;
    });
    return ReplayFixtures.run(trace(), s, Policies.ROUND_ROBIN);
  }

  @Test
  void async_requestWaitsOutsideTheBatch_decodingGoesOn() {
    SimOutcome o = run(ReplaySettings.GlobalLoad.ASYNC);
    assertEquals(1, o.instance[A1]);
    assertEquals(1, o.instance[C0]);
    assertEquals(8, o.globalHitBlocks[A1]);
    assertEquals(101.03, o.firstToken[A1], 1e-9);
    assertEquals(99.01, o.firstToken[C0], 1e-9);
    assertEquals(104.00, o.finish[C0], 1e-9);
  }

  @Test
  void inStep_theStepWaitsForTheFetch_decodingStalls() {
    SimOutcome o = run(ReplaySettings.GlobalLoad.IN_STEP);
    assertEquals(8, o.globalHitBlocks[A1]);
    assertEquals(101.023, o.firstToken[A1], 1e-9);
    assertEquals(105.003, o.finish[C0], 1e-9);
  }
}
