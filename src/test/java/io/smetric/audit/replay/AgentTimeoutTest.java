package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * The agent timeout (ReplaySettings.agentTimeoutS) under the closed loop. Requests with a
 * 400-token response take about 400 decode steps of >= 15 ms (> 6 s) on an idle instance; the
 * timeout is 2 s, so every long response is given up on exactly 2 s after it was sent.
 */
class AgentTimeoutTest {
  private static final double T = 2.0;

  private static ReplaySettings closedLoop() {
    ReplaySettings s = ReplayFixtures.settings(2, 1000).with(sb -> {
      sb.followUpsWaitForPrevious = true;
      sb.agentTimeoutS = T;
    });
    return s;
  }

  /**
   * a0 (t = 0, long) has two waiters scheduled at t = 1: its follow-up a1 and the sub-agent f it
   * spawned. Without a timeout both are sent when a0 is complete (> 6 s); with T = 2 both are sent
   * at 0 + 2 = 2. a0 then counts as timed out (failed: not within SLO), a1 and f do not.
   */
  @Test
  void waitersAreSentAtTheTimeout_andTheLateRequestFails() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 400, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 1, 64, 10, 1, 2, 3, 4)
        .req("f", "F", "a0", 0, "subagent", 1, 48, 10, 1, 2, 9);
    ReplayTrace t = ReplayFixtures.trace(b, false);
    ReplaySettings s = closedLoop();
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    assertTrue(o.finish[0] > 6, "a0 must take > 6 s: " + o.finish[0]);
    assertEquals(T, o.arrival[1], 0.0);
    assertEquals(T, o.arrival[2], 0.0);
    assertTrue(o.timedOut(0));
    assertFalse(o.timedOut(1));
    assertFalse(o.timedOut(2));
    assertFalse(o.metSlo(0), "a timed-out request never counts within SLO");
    assertEquals(1L, o.metrics.get("timed_out_requests"));
    assertEquals(1.0 / 3, (double) o.metrics.get("timed_out_share"), 1e-12);

    s = s.with(sb -> sb.agentTimeoutS = Double.POSITIVE_INFINITY); // no timeout: they wait for the response
    SimOutcome w = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    assertEquals(w.finish[0], w.arrival[1], 0.0);
    assertEquals(w.finish[0], w.arrival[2], 0.0);
    assertEquals(0L, w.metrics.get("timed_out_requests"));
  }

  /** a1 is scheduled at t = 3, after a0's timeout (0 + 2) has passed: it is sent on time. */
  @Test
  void aWaiterScheduledAfterTheTimeout_isSentOnTime() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 400, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 3, 64, 10, 1, 2, 3, 4);
    SimOutcome o = ReplayFixtures.run(ReplayFixtures.trace(b, false), closedLoop(), Policies.LEAST_LOAD);
    assertTrue(o.finish[0] > 3);
    assertEquals(3.0, o.arrival[1], 0.0);
  }

  /**
   * A chain: a2 (scheduled t = 1.5) waits for a1, which is not sent yet (it waits for a0). a1 is
   * sent at a0's timeout, 2; it is long too, so a2 is sent at a1's timeout, 2 + 2 = 4.
   */
  @Test
  void aTimeoutCountsFromWhenThePredecessorWasSent() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 400, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 1, 64, 400, 1, 2, 3, 4)
        .req("a2", "A", "a1", 2, "tool", 1.5, 80, 10, 1, 2, 3, 4, 5);
    SimOutcome o = ReplayFixtures.run(ReplayFixtures.trace(b, false), closedLoop(), Policies.LEAST_LOAD);
    assertEquals(T, o.arrival[1], 0.0);
    assertEquals(2 * T, o.arrival[2], 0.0);
    assertTrue(o.timedOut(0) && o.timedOut(1) && !o.timedOut(2));
  }

  /** Open loop: the timeout moves no arrival; it only marks the late response as failed. */
  @Test
  void openLoop_onlyMarksFailures() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 400, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 1, 64, 10, 1, 2, 3, 4);
    ReplaySettings s = closedLoop().with(sb -> sb.followUpsWaitForPrevious = false);
    SimOutcome o = ReplayFixtures.run(ReplayFixtures.trace(b, false), s, Policies.LEAST_LOAD);
    assertEquals(1.0, o.arrival[1], 0.0);
    assertTrue(o.timedOut(0));
    assertEquals(1L, o.metrics.get("timed_out_requests"));
  }
}
