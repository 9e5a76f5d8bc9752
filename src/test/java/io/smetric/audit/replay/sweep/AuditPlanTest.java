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
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.profile = io.smetric.audit.testing.Profiles.estimate();
      sb.instances = 4;
    });
    // per instance: 8192 / (0.015 + 1.1e-4 x 8192) = 8192 / 0.91612 = 8942.06 tokens/s
    // trace: 80 tokens / 10 s = 8 tokens/s -> x_ref = 4 x 8942.06 / 8 = 4471.03
    assertEquals(4 * 8192 / (0.015 + 1.1e-4 * 8192) / 8.0, AuditPlan.rateReference(trace(), s), 1e-9);
  }

  @Test
  void fixedGrid_oneRoundOfFiveRatesPerCurve() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.profile = io.smetric.audit.testing.Profiles.estimate();
      sb.instances = 4;
    });
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

  private static AuditPlan adaptive() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.profile = io.smetric.audit.testing.Profiles.estimate();
      sb.instances = 4;
    });
    return AuditPlan.of(trace(), s, AuditPlan.RateGrid.ADAPTIVE);
  }

  private static RunResult result(SimSpec x, double tps) {
    return new RunResult(x, java.util.Map.of("tps_within_slo", tps), java.util.Map.of(), new double[0], new double[0],
        new double[0], new double[0][], 1, 1);
  }

  @Test
  void adaptiveGrid_withoutSmetric_everyCurveCold_roundZeroFourRates_thenOnlyUnresolvedCurves() {
    // SMetric not runnable: no curve has an anchor, so every curve starts cold in round 0 (the
    // search before issue 29's warm start); SMetric's variants and sensitivity curves and
    // session-hash never run
    AuditPlan p = adaptive();
    java.util.Set<String> runnable = new java.util.HashSet<>(all());
    runnable.remove("session-hash");
    runnable.remove("smetric");
    for (AuditPlan.Curve c : p.curves()) assertEquals(null, p.anchorOf(c, runnable), c.toString());
    List<SimSpec> r0 = p.nextRound(List.of(), runnable);
    // 67 curves less session-hash's 5, SMetric's 5 and its 7 sensitivity curves = 50, x 4 initial
    // rates (4471.03 x 0.125, 0.25, 0.5, 1)
    assertEquals(50 * 4, r0.size());
    assertTrue(r0.stream().noneMatch(x -> x.policy().equals("session-hash") || x.policy().equals("smetric")));
    assertEquals(List.of(558.9, 1118.0, 2236.0, 4471.0), r0.stream().filter(x -> x.policy().equals("lmetric") && x.globalRatio() == 0)
        .map(SimSpec::rateScale).toList());
    // every curve peaks at 1118 except lmetric at g = 0, which rises to the highest rate: only that curve
    // extends (to 8942) and the others refine both sides of 1118 (sqrt(558.9 x 1118) = 790.5, sqrt(1118 x 2236) = 1581)
    List<RunResult> res = new ArrayList<>();
    for (SimSpec x : r0) {
      boolean rising = x.policy().equals("lmetric") && x.globalRatio() == 0;
      res.add(result(x, rising ? x.rateScale() : x.rateScale() == 1118.0 ? 10 : 5));
    }
    List<SimSpec> r1 = p.nextRound(res, runnable);
    assertEquals(List.of(3162.0, 8942.0), r1.stream().filter(x -> x.policy().equals("lmetric") && x.globalRatio() == 0)
        .map(SimSpec::rateScale).toList());
    assertEquals(List.of(790.5, 1581.0), r1.stream().filter(x -> x.policy().equals("smetric-basic") && x.globalRatio() == 0.4)
        .map(SimSpec::rateScale).toList());
    assertEquals(2 + 49 * 2, r1.size());
  }

  @Test
  void adaptiveGrid_smetricAnchorsFirst_thenEveryOtherCurveWarmFromItsAnchorsKnee() {
    AuditPlan p = adaptive();
    java.util.Set<String> runnable = new java.util.HashSet<>(all());
    runnable.remove("session-hash");
    // round 0: only the 5 anchors (SMetric at the default OVERLOAD 1.5 and HIT_RATIO 0.5 at each
    // global ratio), cold, 4 rates each; the 57 other curves wait for them
    List<SimSpec> r0 = p.nextRound(List.of(), runnable);
    assertEquals(5 * 4, r0.size());
    assertTrue(r0.stream().allMatch(x -> x.policy().equals("smetric") && x.overload() == 1.5 && x.hitRatio() == 0.5));
    // each anchor peaks at 1118 (10, else 5): it refines both sides (790.5 and 1581, then 940.1
    // and 1330) until its neighbours are within 1.2; only anchors run until then
    List<RunResult> res = new ArrayList<>();
    List<SimSpec> r = r0;
    int anchorRounds = 0;
    while (r.stream().allMatch(x -> x.policy().equals("smetric") && x.overload() == 1.5 && x.hitRatio() == 0.5)) {
      for (SimSpec x : r) res.add(result(x, x.rateScale() == 1118.0 ? 10 : 5));
      r = p.nextRound(res, runnable);
      anchorRounds++;
    }
    assertEquals(3, anchorRounds);
    assertEquals(5 * 8, res.size());
    // the anchors are done: the warm curves start from 1118 x {2^-0.25, 1, 2^0.25} = 940.1, 1118, 1330
    // (1118 / 1.18921 = 940.12, 1118 x 1.18921 = 1329.5, four digits)
    List<SimSpec> r2 = r;
    assertEquals(57 * 3, r2.size());
    assertEquals(List.of(940.1, 1118.0, 1330.0), r2.stream().filter(x -> x.policy().equals("lmetric") && x.globalRatio() == 0.4)
        .map(SimSpec::rateScale).toList());
    // a sensitivity curve (SMetric at OVERLOAD 1, global ratio 1.6) is warm from SMetric's knee at 1.6
    AuditPlan.Curve sens = new AuditPlan.Curve("smetric", 1.6, 1.0, 0.5);
    assertEquals(new AuditPlan.Curve("smetric", 1.6, 1.5, 0.5), p.anchorOf(sens, runnable));
    assertEquals(3, r2.stream().filter(x -> AuditPlan.Curve.of(x).equals(sens)).count());
  }

  @Test
  void warmCurve_anchorWithNothingWithinSlo_startsCold() {
    AuditPlan p = adaptive();
    java.util.Set<String> runnable = all();
    AuditPlan.Curve anchor = new AuditPlan.Curve("smetric", 0.8, 1.5, 0.5);
    AuditPlan.Curve rr = new AuditPlan.Curve("round-robin", 0.8, 1.5, 0.5);
    List<RunResult> res = new ArrayList<>();
    for (SimSpec x : p.next(anchor, List.of())) res.add(result(x, 0));
    assertEquals(anchor, p.anchorOf(rr, runnable));
    assertTrue(Double.isNaN(p.hint(rr, res, runnable)));
    assertEquals(List.of(558.9, 1118.0, 2236.0, 4471.0),
        p.next(rr, res, p.hint(rr, res, runnable)).stream().map(SimSpec::rateScale).toList());
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
