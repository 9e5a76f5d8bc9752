package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sweep.SameSimulations;
import io.smetric.audit.replay.sweep.SimSpec;
import io.smetric.audit.replay.trace.ReplayTrace;
import org.junit.jupiter.api.Test;

/**
 * What lets a sweep run SMetric's guard settings once ({@link SameSimulations}): SMetric at
 * OVERLOAD infinity routes exactly as smetric-eviction-only, at HIT_RATIO 0 exactly as
 * smetric-overload-only, at both as smetric-basic; every request's instance and times equal, on
 * random agent-like traces where the guards do fire (the default thresholds route differently).
 */
class GuardEquivalenceTest {
  private static final double INF = Double.POSITIVE_INFINITY;

  @Test
  void smetricAtOverloadInfinityOrHitRatioZero_routesAsTheVariantWithoutThatGuard() {
    int differs = 0;
    for (long seed = 31; seed <= 36; seed++) {
      ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(seed, 50, 10, 0.01), false);
      for (double g : new double[] {0, 1.6}) {
        ReplaySettings base = ReplayFixtures.settings(4, 30 + seed % 3 * 10).with(sb -> sb.globalRatio = g);
        String ctx = "seed " + seed + " global " + g;
        SimOutcome evictionOnly = run(t, base, Policies.SMETRIC_EVICTION_ONLY, Double.NaN, 0.5);
        SimOutcome overloadOnly = run(t, base, Policies.SMETRIC_OVERLOAD_ONLY, 1.5, Double.NaN);
        SimOutcome basic = run(t, base, Policies.SMETRIC_BASIC, Double.NaN, Double.NaN);
        same(evictionOnly, run(t, base, Policies.SMETRIC, INF, 0.5), "O=inf " + ctx);
        same(overloadOnly, run(t, base, Policies.SMETRIC, 1.5, 0.0), "H=0 " + ctx);
        same(basic, run(t, base, Policies.SMETRIC, INF, 0.0), "O=inf H=0 " + ctx);
        same(basic, run(t, base, Policies.SMETRIC_OVERLOAD_ONLY, INF, Double.NaN), "overload-only O=inf " + ctx);
        same(basic, run(t, base, Policies.SMETRIC_EVICTION_ONLY, Double.NaN, 0.0), "eviction-only H=0 " + ctx);
        // and the sweep's key says so
        assertEquals(SameSimulations.key(spec(Policies.SMETRIC_EVICTION_ONLY, Double.NaN, 0.5), base),
            SameSimulations.key(spec(Policies.SMETRIC, INF, 0.5), base));
        assertEquals(SameSimulations.key(spec(Policies.SMETRIC_OVERLOAD_ONLY, 1.5, Double.NaN), base),
            SameSimulations.key(spec(Policies.SMETRIC, 1.5, 0.0), base));
        // the guards matter on these traces: at the default thresholds SMetric routes otherwise
        SimOutcome both = run(t, base, Policies.SMETRIC, 1.5, 0.5);
        if (!java.util.Arrays.equals(both.instance, evictionOnly.instance)) differs++;
        if (!java.util.Arrays.equals(both.instance, overloadOnly.instance)) differs++;
      }
    }
    assertTrue(differs >= 12, "the guards changed routing in only " + differs + " of 24 comparisons");
  }

  @Test
  void keys_tellApartWhatChangesTheSimulation() {
    ReplaySettings base = ReplayFixtures.settings(4, 40);
    var k = SameSimulations.key(spec(Policies.SMETRIC, 1.5, 0.5), base);
    assertEquals(k, SameSimulations.key(spec(Policies.SMETRIC, Double.NaN, Double.NaN), base), "NaN = the base's 1.5 and 0.5");
    assertNotEquals(k, SameSimulations.key(spec(Policies.SMETRIC, 2.0, 0.5), base));
    assertNotEquals(k, SameSimulations.key(spec(Policies.SMETRIC, 1.5, 0.25), base));
    assertNotEquals(k, SameSimulations.key(new SimSpec(0, "smetric", 1.6, 0.5, 1.5, 0.5, 1, null, null), base), "replicate");
    assertNotEquals(k, SameSimulations.key(new SimSpec(0, "smetric", 1.6, 0.6, 1.5, 0.5), base), "rate");
    assertNotEquals(k, SameSimulations.key(new SimSpec(0, "smetric", 0.8, 0.5, 1.5, 0.5), base), "global ratio");
    var ov = new java.util.TreeMap<String, Double>(java.util.Map.of("profile.globalReadGBps", 6.8));
    assertNotEquals(k, SameSimulations.key(new SimSpec(0, "smetric", 1.6, 0.5, 1.5, 0.5, 0, "param:x", ov), base), "override");
    assertEquals(k, SameSimulations.key(new SimSpec(7, "smetric", 1.6, 0.5, 1.5, 0.5, 0, "param:overload", null), base),
        "the run id and the variant label do not change a simulation");
    // policies that read neither threshold: the thresholds are not part of their simulation
    assertEquals(SameSimulations.key(new SimSpec(0, "lmetric", 1.6, 0.5, Double.NaN, Double.NaN), base),
        SameSimulations.key(new SimSpec(1, "lmetric", 1.6, 0.5, 3.0, 0.0), base));
    assertNotEquals(SameSimulations.key(new SimSpec(0, "lmetric", 1.6, 0.5, Double.NaN, Double.NaN), base),
        SameSimulations.key(new SimSpec(0, "least-load", 1.6, 0.5, Double.NaN, Double.NaN), base));
  }

  private static SimSpec spec(Policies p, double o, double h) {
    return new SimSpec(0, p.cliName(), 1.6, 0.5, o, h);
  }

  private static SimOutcome run(ReplayTrace t, ReplaySettings base, Policies p, double o, double h) {
    ReplaySettings s = spec(p, o, h).apply(base).with(sb -> {
      sb.globalRatio = base.globalRatio;
      sb.rateScale = base.rateScale;
    });
    return ReplayFixtures.run(t, s, p);
  }

  private static void same(SimOutcome a, SimOutcome b, String ctx) {
    assertArrayEquals(a.instance, b.instance, ctx);
    assertArrayEquals(a.firstToken, b.firstToken, 0.0, ctx);
    assertArrayEquals(a.finish, b.finish, 0.0, ctx);
    assertEquals(a.metrics, b.metrics, ctx);
  }
}
