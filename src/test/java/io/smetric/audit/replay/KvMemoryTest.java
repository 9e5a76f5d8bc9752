package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Profiles;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * KV memory as vLLM V1 manages it, worked by hand: admission needs room for the prompt only,
 * decode blocks are allocated as the KV crosses block boundaries, and when none is free or
 * evictable the most recently admitted running request is preempted and later recomputed.
 *
 * <p>One instance, blocks of 16 tokens, room for 10 blocks, every step 0.01 s (a = 0.01, all
 * other costs 0). A (blocks 1-2) and B (blocks 11-12), 32 input and 60 output tokens each, both
 * at t = 0. Step 0 [0, 0.01] prefills A (it arrived first and started the instance); step 1
 * prefills B while A decodes. A sequence that finished its prefill in step s0 - 1 stores KV token
 * 32 + j - 1 in step s0 - 1 + j, a new block when 31 + j is a multiple of 16: A takes blocks in
 * steps 1, 17, 33, 49, B in steps 2, 18, 34, 50. After step 34 all 10 blocks are taken (4 prompt
 * + 6 decode), so in step 49 B, admitted last, is preempted: its 3 decode blocks are freed, its
 * prompt stays cached (evictable), it had made 1 + 47 = 48 tokens. A runs alone to its 60th
 * token: finish at the end of step 59, 0.60. B waits at the head of the queue: it needs
 * ceil((32 + 48) / 16) = 5 blocks, 2 of them its cached prompt, while only 4 are free or
 * evictable until A finishes. In step 60 [0.60, 0.61] B recomputes its 48 generated tokens (the
 * prompt hits), then 11 decode steps: finish 0.72. Its first token stays at 0.02: preemption
 * shows up as a longer TPOT, not a longer TTFT. With 12 blocks nobody is preempted: B ends 0.61.
 */
class KvMemoryTest {
  private static ReplayTrace trace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("A", "a", null, 0, "user", 0.0, 32, 60, 1, 2)
        .req("B", "b", null, 0, "user", 0.0, 32, 60, 11, 12);
    return ReplayFixtures.trace(b, false);
  }

  private static ReplaySettings settings(long blocks) {
    ReplaySettings s = ReplayFixtures.settings(1, blocks).with(sb -> sb.profile = Profiles.linear(0.01, 0, 0, 0, 0));
    return s;
  }

  @Test
  void decodeGrowth_pastMemory_preemptsTheLastAdmitted_andRecomputesIt() {
    SimOutcome o = ReplayFixtures.run(trace(), settings(10), Policies.ROUND_ROBIN);
    assertEquals(1L, o.metrics.get("preemptions"));
    assertEquals(0.01, o.firstToken[0], 1e-9);
    assertEquals(0.02, o.firstToken[1], 1e-9);
    assertEquals(0.60, o.finish[0], 1e-9);
    assertEquals(0.72, o.finish[1], 1e-9);
    assertEquals((0.72 - 0.02) / 59, o.tpot(1), 1e-9);
  }

  @Test
  void enoughMemory_noPreemption_bothFinishTogether() {
    SimOutcome o = ReplayFixtures.run(trace(), settings(12), Policies.ROUND_ROBIN);
    assertEquals(0L, o.metrics.get("preemptions"));
    assertEquals(0.60, o.finish[0], 1e-9);
    assertEquals(0.61, o.finish[1], 1e-9);
  }

  @Test
  void stepByStep_sameAsFastForward_underPreemption() {
    ReplaySettings s = settings(10).with(sb -> sb.decodeFastForward = false);
    SimOutcome o = ReplayFixtures.run(trace(), s, Policies.ROUND_ROBIN);
    assertEquals(1L, o.metrics.get("preemptions"));
    assertEquals(0.72, o.finish[1], 1e-9);
  }
}
