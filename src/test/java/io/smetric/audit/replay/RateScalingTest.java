package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * How an offered-rate multiplier x moves arrivals. Hand-made trace (t0 = 0):
 *
 * <pre>
 *   index  request  session  arrival
 *   0      a0       A        0        root session A starts at 0
 *   1      a1       A        10
 *   2      f        F        12       fork of a1: joins A's tree (start 0)
 *   3      b0       B        20       root session B starts at 20
 *   4      b1       B        30
 *   5      z        (none)   40       its own tree
 * </pre>
 *
 * UNIFORM divides every offset from t0 by x. SESSIONS divides only each tree's start and keeps the
 * offsets inside the tree, so think times between turns do not change with the offered rate.
 */
class RateScalingTest {
  private static ReplayTrace trace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 10, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 10, 64, 10, 1, 2, 3, 4)
        .req("f", "F", "a1", 0, "subagent", 12, 80, 10, 1, 2, 3, 4, 9)
        .req("b0", "B", null, 0, "user", 20, 32, 10, 11, 12)
        .req("b1", "B", "b0", 1, "tool", 30, 48, 10, 11, 12, 13)
        .req("z", null, null, null, "user", 40, 32, 10, 21, 22);
    return ReplayFixtures.trace(b, false);
  }

  /** The scaled arrivals of the last {@link #scaled} call (JUnit makes a new instance per test). */
  private double[] at;

  private int[] scaled(ReplaySettings.RateScaling mode, double x) {
    ReplaySettings s = ReplayFixtures.settings(2, 1000).with(sb -> {
      sb.rateScaling = mode;
      sb.rateScale = x;
    });
    at = new double[6];
    return Simulator.scaledArrivals(trace(), s, 0.0, at);
  }

  @Test
  void uniform_dividesEveryOffset() {
    // x = 2: 0/2, 10/2, 12/2, 20/2, 30/2, 40/2; the order is the trace's.
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, scaled(ReplaySettings.RateScaling.UNIFORM, 2));
    assertArrayEquals(new double[] {0, 5, 6, 10, 15, 20}, at, 1e-12);
  }

  @Test
  void sessions_halfRate_movesTreeStartsOnly() {
    // x = 0.5: tree A (a0, a1, f) starts at 0 -> 0, offsets 0, 10, 12 kept; tree B starts at
    // 20 -> 40, offsets 0 and 10 -> 40, 50; z starts at 40 -> 80.
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, scaled(ReplaySettings.RateScaling.SESSIONS, 0.5));
    assertArrayEquals(new double[] {0, 10, 12, 40, 50, 80}, at, 1e-12);
  }

  @Test
  void sessions_doubleRate_reordersArrivals_tiesKeepTraceOrder() {
    // x = 2: A keeps 0, 10, 12; B starts at 20 / 2 = 10 -> b0 10, b1 20; z at 40 / 2 = 20.
    // Arrival order: a0 (0), a1 (10), b0 (10, after a1 by trace order), f (12), b1 (20), z (20).
    assertArrayEquals(new int[] {0, 1, 3, 2, 4, 5}, scaled(ReplaySettings.RateScaling.SESSIONS, 2));
    assertArrayEquals(new double[] {0, 10, 12, 10, 20, 20}, at, 1e-12);
  }

  @Test
  void sessions_randomAgentTraces_keepEveryOffsetInsideASession_andArriveInTimeOrder() {
    // (forks joining their parent's tree: the hand-made trace above)
    for (long seed = 1; seed <= 5; seed++) {
      ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(seed, 40, 12, 0.7), false);
      for (double x : new double[] {0.2, 3}) {
        ReplaySettings s = ReplayFixtures.settings(2, 1000).with(sb -> {
          sb.rateScale = x;
          sb.rateScaling = ReplaySettings.RateScaling.SESSIONS;
        });
        double[] a = new double[t.n];
        int[] order = Simulator.scaledArrivals(t, s, t.arrival[0], a);
        boolean[] seen = new boolean[t.n];
        for (int k = 0; k < t.n; k++) {
          seen[order[k]] = true;
          if (k > 0) org.junit.jupiter.api.Assertions.assertTrue(a[order[k - 1]] <= a[order[k]], "not in time order");
        }
        for (boolean v : seen) org.junit.jupiter.api.Assertions.assertTrue(v, "order is not a permutation");
        int followUps = 0;
        for (int r = 0; r < t.n; r++) {
          int p = t.prevInSession[r] >= 0 ? t.prevInSession[r] : t.forkParent[r];
          if (p >= 0) {
            followUps++;
            org.junit.jupiter.api.Assertions.assertEquals(t.arrival[r] - t.arrival[p], a[r] - a[p], 1e-9);
          }
        }
        org.junit.jupiter.api.Assertions.assertTrue(followUps > t.n / 2, "too few follow-ups: " + followUps);
      }
    }
  }

  /**
   * Closed loop. a0 (t = 0) has a 400-token response, so it is still decoding at t = 1 when its
   * follow-up a1 and the sub-agent f (spawned from a0) are scheduled: both are sent the instant
   * a0's response is complete, in the order they were scheduled. b0, unrelated, is sent on time.
   */
  @Test
  void closedLoop_followUpAndSubAgentWaitForTheResponse() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 400, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 1, 64, 10, 1, 2, 3, 4)
        .req("f", "F", "a0", 0, "subagent", 1, 48, 10, 1, 2, 9)
        .req("b0", "B", null, 0, "user", 1, 32, 10, 11, 12);
    ReplayTrace t = ReplayFixtures.trace(b, false);
    ReplaySettings s = ReplayFixtures.settings(2, 1000).with(sb -> sb.followUpsWaitForPrevious = true);
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    org.junit.jupiter.api.Assertions.assertTrue(o.finish[0] > 1, "a0 must still run at t = 1: " + o.finish[0]);
    org.junit.jupiter.api.Assertions.assertEquals(o.finish[0], o.arrival[1], 0.0);
    org.junit.jupiter.api.Assertions.assertEquals(o.finish[0], o.arrival[2], 0.0);
    org.junit.jupiter.api.Assertions.assertEquals(1.0, o.arrival[3], 0.0);
    org.junit.jupiter.api.Assertions.assertTrue(o.firstToken[1] >= o.finish[0] && o.firstToken[2] >= o.finish[0]);
    // open loop (the default): everything at its scheduled time
    s = s.with(sb -> sb.followUpsWaitForPrevious = false);
    SimOutcome open = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    assertArrayEquals(new double[] {0, 1, 1, 1}, open.arrival, 0.0);
  }

  @Test
  void simulation_usesTheScaledArrivals() {
    ReplaySettings s = ReplayFixtures.settings(2, 1000).with(sb -> {
      sb.rateScaling = ReplaySettings.RateScaling.SESSIONS;
      sb.rateScale = 2;
    });
    SimOutcome o = ReplayFixtures.run(trace(), s, Policies.LEAST_LOAD);
    assertArrayEquals(new double[] {0, 10, 12, 10, 20, 20}, o.arrival, 1e-12);
  }
}
