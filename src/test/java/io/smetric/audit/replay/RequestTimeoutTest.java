package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Profiles;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * The request timeout (ReplaySettings.requestTimeoutS), worked by hand. One instance, 16-token
 * blocks, every step 0.01 s (a = 0.01, all other costs 0). A request that is not complete S after
 * it was sent is aborted: queued ones leave at once, running ones are freed at the next step
 * boundary, and the request counts as failed.
 */
class RequestTimeoutTest {
  private static ReplaySettings settings(long blocks, int maxBatch, Double timeout) {
    ReplaySettings s = ReplayFixtures.settings(1, blocks).with(sb -> {
      sb.profile = Profiles.linear(0.01, 0, 0, 0, 0).with(p -> p.maxBatch = maxBatch);
      sb.requestTimeoutS = timeout;
    });
    return s;
  }

  /**
   * Batch of one. A (t = 0, 32 in, 60 out) is prefilled in step 0 [0, 0.01] and decodes one token a
   * step; B (t = 0, 60 out) and C (t = 0.2, 48 in sharing A's two prompt blocks, 10 out) queue. S =
   * 0.305: at 0.305 B is aborted in the queue and A, in step 30 [0.30, 0.31], is freed at 0.31.
   * C (deadline 0.505) is admitted in step 31 [0.31, 0.32] (first token 0.32), hits A's two cached
   * prompt blocks (a freed request's computed blocks stay in the prefix cache) and decodes 9 more
   * steps: finish 0.41. Without the timeout: A ends at 0.60, B runs [0.60, 1.20], C [1.20, 1.30].
   */
  @Test
  void queuedAndDecodingRequestsAbort_theFreedSlotStartsTheNext() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("A", "a", null, 0, "user", 0.0, 32, 60, 1, 2)
        .req("B", "b", null, 0, "user", 0.0, 32, 60, 11, 12)
        .req("C", "c", null, 0, "user", 0.2, 48, 10, 1, 2, 3);
    ReplayTrace t = ReplayFixtures.trace(b, false);

    SimOutcome off = ReplayFixtures.run(t, settings(1000, 1, null), Policies.ROUND_ROBIN);
    assertEquals(0.60, off.finish[0], 1e-9);
    assertEquals(1.20, off.finish[1], 1e-9);
    assertEquals(1.30, off.finish[2], 1e-9);

    SimOutcome o = ReplayFixtures.run(t, settings(1000, 1, 0.305), Policies.ROUND_ROBIN);
    assertTrue(o.aborted(0) && o.aborted(1) && !o.aborted(2));
    assertEquals(0.32, o.firstToken[2], 1e-9);
    assertEquals(0.41, o.finish[2], 1e-9);
    assertEquals(2, o.localHitBlocks[2], "C hits A's prompt, cached though A was aborted");
    // the client's view of the aborted: ended at the timeout; B never saw a first token
    assertEquals(0.305, o.finish[0], 1e-12);
    assertEquals(0.305, o.finish[1], 1e-12);
    assertEquals(0.01, o.firstToken[0], 1e-9);
    assertTrue(Double.isNaN(o.firstToken[1]));
    // failed, never within SLO; percentiles over the completed request only
    assertTrue(o.timedOut(0) && o.timedOut(1) && !o.timedOut(2));
    assertFalse(o.metSlo(0));
    assertEquals(2L, o.metrics.get("timed_out_requests"));
    assertEquals(2L, o.metrics.get("aborted_requests"));
    assertEquals(2.0 / 3, (double) o.metrics.get("timed_out_share"), 1e-12);
    assertEquals(0.32 - 0.2, (double) o.metrics.get("ttft_p99_s"), 1e-9);
    assertEquals((0.41 - 0.32) / 9, (double) o.metrics.get("tpot_p99_s"), 1e-9);
  }

  /**
   * Room for 7 blocks, batch of 8. A (t = 0, 32 in, 200 out) takes decode blocks in steps 1, 17,
   * 33, 49 (its KV crosses a 16-token boundary): 6 blocks from step 49. B (t = 0.5, 32 in, other
   * blocks, 5 out) needs 2 with 1 allocatable: it waits. S = 0.605: A is aborted in step 60 [0.60,
   * 0.61], its 4 decode blocks freed at 0.61 (its 2 prompt blocks stay cached, evictable), so B is
   * admitted in step 61 [0.61, 0.62] and ends 4 decode steps later, 0.66. Without the timeout B
   * waits for A's finish at 2.00 (A alone may overflow) and ends at 2.05. The same with decode
   * fast-forward off.
   */
  @Test
  void aDecodingRequestTimesOut_itsKvBlocksAdmitTheWaitingOne() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("A", "a", null, 0, "user", 0.0, 32, 200, 1, 2)
        .req("B", "b", null, 0, "user", 0.5, 32, 5, 11, 12);
    ReplayTrace t = ReplayFixtures.trace(b, false);

    SimOutcome off = ReplayFixtures.run(t, settings(7, 8, Double.POSITIVE_INFINITY), Policies.ROUND_ROBIN);
    assertEquals(2.00, off.finish[0], 1e-9);
    assertEquals(2.05, off.finish[1], 1e-9);

    for (boolean ff : new boolean[] {true, false}) {
      ReplaySettings s = settings(7, 8, 0.605).with(sb -> sb.decodeFastForward = ff);
      SimOutcome o = ReplayFixtures.run(t, s, Policies.ROUND_ROBIN);
      assertTrue(o.aborted(0) && !o.aborted(1), "fast-forward " + ff);
      assertEquals(0.62, o.firstToken[1], 1e-9, "fast-forward " + ff);
      assertEquals(0.66, o.finish[1], 1e-9, "fast-forward " + ff);
      assertEquals(0L, o.metrics.get("preemptions"));
    }
  }

  /**
   * Off is the old replay: no timeout (null), an infinite one, and one too long to fire (its abort
   * events are queued and ignored) give the same per-request results on a random agent trace under
   * KV pressure, closed loop.
   */
  @Test
  void off_orNeverFiring_sameResults() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(7, 12, 6, 0.05), false);
    SimOutcome base = null;
    for (Double timeout : new Double[] {null, Double.POSITIVE_INFINITY, 1e9}) {
      ReplaySettings s = ReplayFixtures.settings(2, 40).with(sb -> {
        sb.followUpsWaitForPrevious = true;
        sb.requestTimeoutS = timeout;
      });
      SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
      if (base == null) {
        base = o;
        continue;
      }
      assertArrayEquals(base.arrival, o.arrival, 0.0, "timeout " + timeout);
      assertArrayEquals(base.firstToken, o.firstToken, 0.0, "timeout " + timeout);
      assertArrayEquals(base.finish, o.finish, 0.0, "timeout " + timeout);
      assertArrayEquals(base.instance, o.instance, "timeout " + timeout);
      assertEquals(base.metrics.get("preemptions"), o.metrics.get("preemptions"));
      assertEquals(0L, o.metrics.get("timed_out_requests"));
    }
  }

  /**
   * Timeouts that fire on a random trace under KV pressure (preemptions, closed loop): every request
   * ends (the run throws otherwise), the step-by-step replay gives what decode fast-forward gives,
   * an aborted request ends at sent + S and a completed one within S of its sending.
   */
  @Test
  void firingTimeouts_stepByStepEqualsFastForward() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(11, 16, 8, 0.02), false);
    SimOutcome[] out = new SimOutcome[2];
    for (int k = 0; k < 2; k++) {
      boolean fastForward = k == 0;
      ReplaySettings s = ReplayFixtures.settings(2, 40).with(sb -> {
        sb.followUpsWaitForPrevious = true;
        sb.requestTimeoutS = 0.5;
        sb.decodeFastForward = fastForward;
      });
      out[k] = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    }
    long aborted = (long) out[0].metrics.get("aborted_requests");
    assertTrue(aborted > 0 && aborted < t.n, "some, not all, abort: " + aborted + " of " + t.n);
    assertArrayEquals(out[0].finish, out[1].finish, 1e-9);
    assertArrayEquals(out[0].arrival, out[1].arrival, 1e-9);
    for (int r = 0; r < t.n; r++) {
      assertEquals(out[0].aborted(r), out[1].aborted(r));
      // a completed request finished within S of its sending; an aborted one ended at send + S
      if (out[0].aborted(r)) assertEquals(out[0].arrival[r] + 0.5, out[0].finish[r], 1e-9);
      else assertTrue(out[0].finish[r] - out[0].arrival[r] <= 0.5 + 1e-12);
    }
  }
}
