package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import org.junit.jupiter.api.Test;

/**
 * The capacity search's pass/fail runs (Simulator.decide) stop as soon as the answer is known and
 * must give the same pass/fail as the full run's slo_attainment >= target.
 */
class EarlyDecisionTest {
  /** n = 10: 90% needs 9; 0.7 needs 7 (7 / 10 = 0.7 exactly); 1.0 needs all; 0.75 of 4 needs 3. */
  @Test
  void needed_isTheFewestWhoseShareReachesTheTarget() {
    assertEquals(9, Simulator.needed(10, 0.9));
    assertEquals(7, Simulator.needed(10, 0.7));
    assertEquals(10, Simulator.needed(10, 1.0));
    assertEquals(3, Simulator.needed(4, 0.75));
    assertEquals(1, Simulator.needed(3, 0.3));
  }

  /**
   * An agent trace on 1-6 instances, three routers, open and closed loop, four targets and the
   * two edges of each run's own share (exactly it, and one request more), without and with a client
   * request timeout: every early decision equals the full run's; both outcomes occur, and runs stop early
   * on a pass and on a fail (the test would pass vacuously otherwise).
   */
  @Test
  void earlyDecision_equalsFullRun() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(7, 60, 8, 0.05), false);
    int passes = 0;
    int fails = 0;
    int earlyPass = 0;
    int earlyFail = 0;
    long abortedRuns = 0;
    for (Double timeout : new Double[] {null, 0.2}) {
    for (boolean closed : new boolean[] {false, true}) {
      for (int inst = 1; inst <= 6; inst++) {
        for (Policies p : new Policies[] {Policies.SMETRIC, Policies.LEAST_LOAD, Policies.CACHE_AFFINITY}) {
          ReplaySettings s = ReplayFixtures.settings(inst, 400).with(sb -> {
            sb.followUpsWaitForPrevious = closed;
            sb.ttftBaseS = 0.05;
            sb.ttftPerTokenS = 1e-5;
            sb.requestTimeoutS = timeout; // a timed-out request is a miss, decided when it aborts
          });
          SimOutcome full = ReplayFixtures.run(t, s, p);
          if (((Number) full.metrics.getOrDefault("aborted_requests", 0L)).longValue() > 0) abortedRuns++;
          double att = (double) full.metrics.get("slo_attainment");
          long met = Math.round(att * t.n);
          // the edges: exactly the run's own share (passes), one request more (fails)
          for (double target : new double[] {0.5, 0.8, 0.9, 0.97, (double) met / t.n, (double) Math.min(met + 1, t.n) / t.n}) {
            if (target <= 0) continue;
            ReplaySettings d = s;
            Simulator.Decision dec = new Simulator(t, d, p.create(d)).decide(target);
            String what = p + " on " + inst + (closed ? " closed" : " open") + " at " + target + ": attainment " + att;
            assertEquals(att >= target, dec.pass(), what);
            if (!dec.stoppedEarly()) {
              assertEquals(Math.round(att * t.n), dec.met(), what);
              assertEquals(t.n, dec.decided(), what);
            }
            if (dec.pass()) passes++;
            else fails++;
            if (dec.stoppedEarly() && dec.pass()) earlyPass++;
            if (dec.stoppedEarly() && !dec.pass()) earlyFail++;
          }
        }
      }
    }
    }
    assertTrue(abortedRuns > 0, "no run had a request time out: the timeout case tests nothing");
    assertTrue(passes > 10 && fails > 10, "passes " + passes + ", fails " + fails);
    assertTrue(earlyPass > 0 && earlyFail > 0, "stopped early: " + earlyPass + " passes, " + earlyFail + " fails");
  }
}
