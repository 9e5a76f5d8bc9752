package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditPlanTest {
  /** Two requests 10 s apart with 32 + 48 = 80 prompt tokens (16-token blocks). */
  private static ReplayTrace trace() {
    List<TraceRecord> r = Traces.builder().simple("a", "A", 0, 0.0, 1, 2).simple("b", "A", 1, 10.0, 1, 2, 3).records();
    return ReplayTraceBuilder.fromRecords(r, false);
  }

  @Test
  void rateReference_cachelessPrefillSaturation_handArithmetic() {
    ReplaySettings s = new ReplaySettings();
    s.profile = io.smetric.audit.testing.Profiles.estimate();
    s.instances = 4;
    // per instance: 8192 / (0.015 + 1.1e-4 x 8192) = 8192 / 0.91612 = 8942.06 tokens/s
    // trace: 80 tokens / 10 s = 8 tokens/s -> x_ref = 4 x 8942.06 / 8 = 4471.03
    assertEquals(4 * 8192 / (0.015 + 1.1e-4 * 8192) / 8.0, AuditPlan.rateReference(trace(), s), 1e-9);
  }

  @Test
  void fixedGrid_oneRoundOfFiveRatesPerCurve() {
    ReplaySettings s = new ReplaySettings();
    s.profile = io.smetric.audit.testing.Profiles.estimate();
    s.instances = 4;
    AuditPlan p = AuditPlan.of(trace(), s, AuditPlan.RateGrid.FIXED);
    // 4471.03 x {0.125, 0.25, 0.375, 0.5, 1} rounded to 4 significant digits
    assertEquals(List.of(558.9, 1118.0, 1677.0, 2236.0, 4471.0), p.rates());
    // curves: 9 x 5 + 3 x 5 + (4 + 3) = 67; one round of 67 x 5 = 335
    assertEquals(67, p.curves().size());
    List<SimSpec> r0 = p.nextRound(List.of(), all());
    assertEquals(335, r0.size());
    long sens = r0.stream().filter(x -> x.policy().equals("smetric") && (x.overload() != 1.5 || x.hitRatio() != 0.5)).count();
    assertEquals(35, sens);
    assertEquals(List.of(), p.nextRound(results(r0), all()), "the fixed grid has one round");
  }

  @Test
  void adaptiveGrid_roundZeroFourRates_thenOnlyUnresolvedCurves_andSkippedPoliciesNever() {
    ReplaySettings s = new ReplaySettings();
    s.profile = io.smetric.audit.testing.Profiles.estimate();
    s.instances = 4;
    AuditPlan p = AuditPlan.of(trace(), s, AuditPlan.RateGrid.ADAPTIVE);
    java.util.Set<String> noHash = new java.util.HashSet<>(all());
    noHash.remove("session-hash");
    List<SimSpec> r0 = p.nextRound(List.of(), noHash);
    // 62 curves (session-hash's 5 left out) x 4 initial rates (4471.03 x 0.125, 0.25, 0.5, 1)
    assertEquals((67 - 5) * 4, r0.size());
    assertTrue(r0.stream().noneMatch(x -> x.policy().equals("session-hash")));
    assertEquals(List.of(558.9, 1118.0, 2236.0, 4471.0), r0.stream().filter(x -> x.policy().equals("lmetric") && x.globalRatio() == 0)
        .map(SimSpec::rateScale).toList());
    // every curve peaks at 1118 except lmetric at g = 0, which rises to the highest rate: only that curve
    // extends (to 8942) and the others refine both sides of 1118 (sqrt(558.9 x 1118) = 790.5, sqrt(1118 x 2236) = 1581)
    List<RunResult> res = new ArrayList<>();
    for (SimSpec x : r0) {
      boolean rising = x.policy().equals("lmetric") && x.globalRatio() == 0;
      double tps = rising ? x.rateScale() : x.rateScale() == 1118.0 ? 10 : 5;
      res.add(new RunResult(x, java.util.Map.of("tps_within_slo", tps), java.util.Map.of(), new double[0], new double[0],
          new double[0], new double[0][], 1, 1));
    }
    List<SimSpec> r1 = p.nextRound(res, noHash);
    assertEquals(List.of(3162.0, 8942.0), r1.stream().filter(x -> x.policy().equals("lmetric") && x.globalRatio() == 0)
        .map(SimSpec::rateScale).toList());
    assertEquals(List.of(790.5, 1581.0), r1.stream().filter(x -> x.policy().equals("smetric") && x.globalRatio() == 0.4)
        .map(SimSpec::rateScale).toList());
    assertEquals(2 + 61 * 2, r1.size());
  }

  private static java.util.Set<String> all() {
    java.util.Set<String> s = new java.util.HashSet<>();
    for (var p : io.smetric.audit.replay.policy.Policies.values()) s.add(p.cliName());
    return s;
  }

  private static List<RunResult> results(List<SimSpec> specs) {
    List<RunResult> out = new ArrayList<>();
    for (SimSpec x : specs) {
      out.add(new RunResult(x, java.util.Map.of("tps_within_slo", 1.0), java.util.Map.of(), new double[0], new double[0],
          new double[0], new double[0][], 1, 1));
    }
    return out;
  }
}
