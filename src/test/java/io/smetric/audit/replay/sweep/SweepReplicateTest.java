package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import io.smetric.audit.replay.trace.TraceResample;
import io.smetric.audit.testing.Traces;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A bootstrap replicate runs at equal load (issue 26): the sweep replays replicate k at the spec's
 * rate divided by the replicate's offered-token factor, and the same replicate at the spec's own
 * rate (the previous behaviour) is a different run.
 */
class SweepReplicateTest {
  @Test
  void replicate_runsAtTheSpecsRateOverItsOfferedTokenFactor() {
    Traces.Builder b = Traces.builder().blockSize(16);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
    long id = 1000;
    for (int s = 0; s < 12; s++) {
      int turns = 1 + rnd.nextInt(4);
      long[] hist = {1};
      for (int k = 0; k < turns; k++) {
        long[] next = Arrays.copyOf(hist, hist.length + 1);
        next[hist.length] = id++;
        b.req("s" + s + "-" + k, "S" + s, k == 0 ? null : "s" + s + "-" + (k - 1), k, k == 0 ? "user" : "tool",
            s * 5.0 + 2 * k, 16 * next.length, 8 + s, next);
        hist = next;
      }
    }
    ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), false);
    ReplaySettings base = ReplaySettings.defaults().with(sb -> {
      sb.instances = 2;
      sb.localBlocks = -1L;
      sb.rateScaling = ReplaySettings.RateScaling.SESSIONS;
    });
    double x = 1.5;
    SimSpec spec = new SimSpec(-1, Policies.LEAST_LOAD.cliName(), 0.0, x, Double.NaN, Double.NaN, 1, null, null);
    RunResult run = Sweep.runLocal(t, base, List.of(spec)).get(0);

    ReplayTrace r = TraceResample.of(t, TraceResample.replicateSeed(base.seed, 1));
    double f = TraceResample.offeredTokenFactor(t, r);
    assertTrue(Math.abs(f - 1) > 0.01, "the replicate's tokens differ from the trace's: " + f);
    assertEquals(f, run.metrics().get("replicate_offered_token_factor"), 0.0);
    ReplaySettings at = spec.apply(base).with(sb -> sb.rateScale = x / f);
    SimOutcome o = new Simulator(r, at, Policies.LEAST_LOAD.create(at)).run();
    assertEquals(((Number) o.metrics.get("raw_tps")).doubleValue(), run.metrics().get("raw_tps"), 0.0);
    ReplaySettings old = spec.apply(base);
    SimOutcome o2 = new Simulator(r, old, Policies.LEAST_LOAD.create(old)).run();
    assertNotEquals(((Number) o2.metrics.get("raw_tps")).doubleValue(), run.metrics().get("raw_tps"));
  }
}
