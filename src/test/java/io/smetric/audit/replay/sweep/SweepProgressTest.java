package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.ReplaySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The progress estimate of a sweep (issue 29 item 6), by hand on small plans: the expected count of
 * a knee search from its rules, the estimate at every step of a curve that needs more rounds than
 * expected, and the time left.
 */
class SweepProgressTest {
  /** A result of {@code cpu} CPU-seconds (only the count and the CPU time matter here). */
  private static RunResult result(double cpu) {
    return new RunResult(new SimSpec(0, "smetric", 0, 1, 1.5, 0.5), Map.of(), Map.of(), new double[0], new double[0],
        new double[0], new double[0][], cpu, cpu);
  }

  private static List<RunResult> results(int n, double cpu) {
    List<RunResult> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(result(cpu));
    return out;
  }

  @Test
  void modelPoints_peakOnARound0Rate_takesTwoRefinementRounds() {
    // knee 0.25: round 0 {0.125, 0.25, 0.5, 1}, max at 0.25 inside; + sqrt(0.125 x 0.25) = 0.1768 and
    // sqrt(0.25 x 0.5) = 0.3536 (factor 1.414 each side > 1.2); + 0.2102 and 0.2973 (factor 1.189
    // <= 1.2 on both sides): done, 4 + 2 + 2
    assertEquals(8, SweepProgress.modelPoints(List.of(), 1, 0.25));
  }

  @Test
  void modelPoints_peakAboveRound0_extendsThenRefines() {
    // knee 4: max at the top each round: + {0.7071, 2}, + {1.414, 4}, + {2.828, 8}; then 4 is the
    // max inside: + {3.364, 5.657}, + {4.757}; 4 + 2 + 2 + 2 + 2 + 1 = 13
    assertEquals(13, SweepProgress.modelPoints(List.of(), 1, 4));
  }

  @Test
  void modelPoints_peakOnRound0sTopRate_oneExtensionThenRefines() {
    // knee 1: max at the top: + {0.7071, 2}; 1 still the max, inside: + {0.8409, 1.414}; the left
    // side is resolved (1.189), the right not (1.414): + {1.189}; 4 + 2 + 2 + 1
    assertEquals(9, SweepProgress.modelPoints(List.of(), 1, 1));
  }

  @Test
  void modelPoints_conditionsPointWhoseKneeStays_takesItsThreeStartRates() {
    // start at the knee and its neighbours 1.189 apart: the knee is bracketed at once
    assertEquals(3, SweepProgress.modelPoints(List.of(0.8409, 1.0, 1.189), 1, 1));
  }

  @Test
  void expectedPoints_adaptive_isBetweenTheBestCaseAndTheWorst_fixedIsItsGrid() {
    AuditPlan.Curve c = new AuditPlan.Curve("smetric", 0, 1.5, 0.5);
    double e = adaptive(1).expectedPoints(c);
    // knees inside round 0's range take 8 (a knee on a round-0 rate, above), those at its ends 9
    // (the knee-at-1 case): the mean lies strictly between
    assertTrue(e > 8 && e < 9, "expected " + e);
    // relative to the reference: the same for any x_ref
    assertEquals(e, adaptive(0.37).expectedPoints(c), 1e-9);
  }

  @Test
  void expectedPoints_warmCurve_theWarmRulesOnModelPeaksWithinAFactorTwo_theAnchorStaysCold() {
    AuditPlan.Curve sm = new AuditPlan.Curve("smetric", 0.4, 1.5, 0.5);
    AuditPlan.Curve ll = new AuditPlan.Curve("least-load", 0.4, 1.5, 0.5);
    AuditPlan plan = AuditPlan.of(List.of(sm, ll), 1, AuditPlan.RateGrid.ADAPTIVE);
    java.util.Set<String> both = java.util.Set.of("smetric", "least-load");
    assertEquals(plan.expectedPoints(sm), plan.expectedPoints(sm, both), 1e-9);
    double w = plan.expectedPoints(ll, both);
    // the knee on the hint takes the first batch alone (3); within a factor 2 at most 9 (a knee a
    // factor 2 away: 3 + 3 extensions + 3 midpoints, KneeSearchTest)
    assertEquals(3, SweepProgress.warmModelPoints(1, 0.35, 0.35));
    assertEquals(9, SweepProgress.warmModelPoints(1, 0.35, 0.7));
    assertTrue(w > 3 && w < 9, "expected " + w);
    // the 33 model knees' counts add up to 192 (the table in docs/replay.md)
    assertEquals(192.0 / 33, w, 1e-9);
    // without SMetric among the runnable policies the same curve is cold
    assertEquals(plan.expectedPoints(ll), plan.expectedPoints(ll, java.util.Set.of("least-load")), 1e-9);
  }

  private static AuditPlan adaptive(double reference) {
    return AuditPlan.of(List.of(), reference, AuditPlan.RateGrid.ADAPTIVE);
  }

  @Test
  void expectedPoints_fixedGrid_isItsRates() {
    assertEquals(AuditPlan.RATE_MULTIPLIERS.length,
        AuditPlan.of(List.of(), 1, AuditPlan.RateGrid.FIXED).expectedPoints(new AuditPlan.Curve("smetric", 0, 1.5, 0.5)));
  }

  @Test
  void curveNeedingMoreRoundsThanExpected_estimateRevisedUp_neverAbove100_doneMonotone() {
    // the knee-at-4 curve above (13 simulations in batches 4, 2, 2, 2, 2, 1) against an expectation of 8
    SweepProgress p = new SweepProgress(2, null, () -> 0L);
    p.expect("curve", 8);
    int[] batches = {4, 2, 2, 2, 2, 1};
    long[][] expect = {{4, 8, 50}, {6, 8, 75}, {8, 8, 99}, {10, 10, 99}, {12, 12, 99}, {13, 13, 99}};
    long lastDone = 0;
    for (int k = 0; k < batches.length; k++) {
      p.batch("curve", batches[k]);
      p.back(results(batches[k], 1));
      SweepProgress.Snapshot s = p.snapshot();
      assertEquals(expect[k][0], s.done(), "round " + k);
      assertEquals(expect[k][1], s.total(), "round " + k);
      assertEquals(expect[k][2], s.percent(), "round " + k);
      assertFalse(s.exact());
      assertTrue(s.done() >= lastDone && s.done() <= s.total());
      lastDone = s.done();
    }
    p.batch("curve", 0); // the search says the knee is bracketed
    SweepProgress.Snapshot end = p.snapshot();
    assertTrue(end.exact());
    assertEquals(13, end.total());
    assertEquals(100, end.percent());
    // the clock never moved: no wall time, so no busy cores and no time left to say
    assertEquals("simulations 13 of 13 (100%)", end.line());
  }

  @Test
  void curveDoneEarly_estimateRevisedDown() {
    SweepProgress p = new SweepProgress(1, null, () -> 0L);
    p.expect("a", 8.4);
    p.expect("b", 8.4);
    p.batch("a", 4);
    p.batch("b", 4);
    assertEquals(17, p.snapshot().total()); // 8.4 + 8.4 rounded
    p.back(results(4, 1));
    p.batch("a", 0); // a's knee bracketed after its 4 first rates
    assertEquals(12, p.snapshot().total()); // 4 + 8.4
    assertEquals(4, p.snapshot().done());
  }

  @Test
  void placeholder_replacedByTheExactCountOnceThePhaseIsPlanned() {
    SweepProgress p = new SweepProgress(1, null, () -> 0L);
    p.expect("curve", 4);
    p.expect("replicates", 150);
    assertEquals("simulations 0 of ~154 (0%)", p.snapshot().line());
    p.batch("curve", 4);
    p.back(results(4, 1));
    p.batch("curve", 0);
    p.expectExactly("replicates", 90);
    assertEquals(94, p.snapshot().total());
    assertFalse(p.snapshot().exact()); // the replicates are planned but not yet submitted
    p.batch("replicates", 90);
    assertTrue(p.snapshot().exact());
    assertTrue(p.snapshot().line().startsWith("simulations 4 of 94 (4%)"), p.snapshot().line());
    p.drop("replicates");
    assertEquals(4, p.snapshot().total());
  }

  @Test
  void timeLeft_remainingTimesCpuPerSimulation_overTheCoresKeptBusy() {
    long[] now = {0};
    SweepProgress p = new SweepProgress(2, null, () -> now[0]);
    p.expect("curve", 12);
    p.batch("curve", 8);
    now[0] = 30_000_000_000L; // the first batch back after 30 s of start-up: no steady state yet, no time shown
    p.back(results(4, 5));
    assertTrue(Double.isNaN(p.snapshot().secondsLeft()));
    assertEquals("simulations 4 of ~12 (33%)", p.snapshot().line());
    now[0] = 40_000_000_000L; // 10 s later: 4 more results of 5 CPU-s each = 20 CPU-s in 10 s, 2 cores busy
    p.back(results(4, 5));
    SweepProgress.Snapshot s = p.snapshot();
    assertEquals(2.0, s.busyCores(), 1e-9);
    assertEquals(4 * 5 / 2.0, s.secondsLeft(), 1e-9); // 4 left x 5 CPU-s / 2 cores
    // a machine shared with other work: 10 CPU-s in 10 s is one core's worth, whatever the cores
    long[] t2 = {0};
    SweepProgress q = new SweepProgress(2, null, () -> t2[0]);
    q.expect("curve", 12);
    q.batch("curve", 8);
    t2[0] = 5_000_000_000L;
    q.back(results(4, 2.5));
    t2[0] = 15_000_000_000L;
    q.back(results(4, 2.5));
    assertEquals(1.0, q.snapshot().busyCores(), 1e-9);
    assertEquals(4 * 2.5 / 1.0, q.snapshot().secondsLeft(), 1e-9);
    assertEquals("simulations 8 of ~12 (66%), ~10s left (2.50 CPU-s per simulation, 1.0 of 2 cores busy)",
        q.snapshot().line());
  }

  @Test
  void replicatesBefore_routersPerRatio_timesReplicates() {
    List<AuditPlan.Curve> cs = new ArrayList<>();
    for (double g : List.of(0.0, 0.4, 0.8, 1.6, 3.2)) {
      cs.add(new AuditPlan.Curve("smetric", g, 1.5, 0.5));
      cs.add(new AuditPlan.Curve("smetric-basic", g, Double.NaN, Double.NaN)); // SMetric's own: no baseline
      cs.add(new AuditPlan.Curve("least-load", g, Double.NaN, Double.NaN));
      cs.add(new AuditPlan.Curve("cache-affinity", g, Double.NaN, Double.NaN));
    }
    // 2 capacities (the declared one and 0) x (SMetric + the judged router) x 10
    assertEquals(40, SweepProgress.replicatesBefore(10, cs, null));
    assertEquals(40, SweepProgress.replicatesBefore(10, cs, "least-load"));
    assertEquals(0, SweepProgress.replicatesBefore(10, cs.subList(0, 2), null)); // no baseline: nothing to judge
    // no capacity above 0: only the one without a global tier
    assertEquals(20, SweepProgress.replicatesBefore(10, cs.subList(0, 4), null));
  }

  @Test
  void equalLoadBefore_refinedCurvesReferenceAndLoadsPerCapacity() {
    List<AuditPlan.Curve> cs = new ArrayList<>();
    for (double g : List.of(0.0, 1.6)) {
      cs.add(new AuditPlan.Curve("smetric", g, 1.5, 0.5));
      cs.add(new AuditPlan.Curve("least-load", g, Double.NaN, Double.NaN));
      cs.add(new AuditPlan.Curve("cache-affinity", g, Double.NaN, Double.NaN));
      cs.add(new AuditPlan.Curve("dynamo-kv", g, Double.NaN, Double.NaN)); // not a paper baseline
    }
    double[] e = SweepProgress.equalLoadBefore(cs, null, true);
    // 2 capacities x (SMetric + 2 paper baselines) refined; 2 bisections; per capacity SMetric and the
    // judged router at 3 loads less the reference point, the other paper baseline at the decision load
    assertEquals(2 * 3 * SweepProgress.REFINE_POINTS, e[0], 1e-9);
    assertEquals(2 * SweepProgress.REFERENCE_POINTS, e[1], 1e-9);
    assertEquals(2 * (2 * 3 - 1 + 1), e[2], 1e-9);
    // the current router joins the compared ones (one more at the decision load); the fixed grid refines nothing
    assertEquals(2 * (2 * 3 - 1 + 2), SweepProgress.equalLoadBefore(cs, "dynamo-kv", false)[2], 1e-9);
    assertEquals(0, SweepProgress.equalLoadBefore(cs, "dynamo-kv", false)[0], 1e-9);
  }

  @Test
  void conditionsBefore_levelsButTheBase_perPolicy_thenTheGrid() {
    ReplaySettings base = ReplaySettings.defaults(); // TTFT slope 2.5e-4, HIT_RATIO 0.5
    List<Conditions.Param> params = List.of(
        new Conditions.Param("ttft_slo_slope", "", SweepVariable.TTFT_PER_TOKEN_S, List.of(1.25e-4, 2.5e-4, 5e-4), "", 1, "",
            false, Map.of()),
        new Conditions.Param("hit_ratio", "", SweepVariable.HIT_RATIO, List.of(0.0, 0.5, 0.75), "", 1, "", true, Map.of()));
    double per = SweepProgress.conditionPointSimulations();
    double[] c = SweepProgress.conditionsBefore(base, params);
    // one at a time: 2 non-base slopes x 2 policies + 2 non-base HIT_RATIOs x SMetric only = 6 points;
    // grid: 2 x 2 levels x 2 policies = 8 points
    assertEquals(6 * per, c[0], 1e-9);
    assertEquals(8 * per, c[1], 1e-9);
    assertEquals(1, per, 1e-9); // both routers run each point once, at the verdict's operating point
  }

  @Test
  void smallAdaptivePlan_runToTheEnd_estimateWithinBounds_exactAtTheEnd() {
    // three curves of the real knee search (knees 0.25, 0.6, 4 x ref), batch by batch as the Schedule
    // sends them, each batch's results back before the next round
    AuditPlan plan = AuditPlan.of(List.of(), 1, AuditPlan.RateGrid.ADAPTIVE);
    double[] knees = {0.25, 0.6, 4};
    SweepProgress p = new SweepProgress(1, null, () -> 0L);
    List<TreeMap<Double, Double>> curves = new ArrayList<>();
    for (int i = 0; i < knees.length; i++) {
      p.expect("c" + i, plan.expectedPoints(new AuditPlan.Curve("smetric", i, 1.5, 0.5)));
      curves.add(new TreeMap<>());
    }
    boolean[] open = {true, true, true};
    long lastDone = -1;
    int finalTotal = 0;
    for (int round = 0; round < 30 && (open[0] || open[1] || open[2]); round++) {
      for (int i = 0; i < knees.length; i++) {
        if (!open[i]) continue;
        List<Double> next = KneeSearch.next(curves.get(i), 1);
        p.batch("c" + i, next.size());
        if (next.isEmpty()) {
          open[i] = false;
          finalTotal += curves.get(i).size();
          continue;
        }
        for (double x : next) curves.get(i).put(x, Math.min(x, knees[i] * knees[i] / x));
        p.back(results(next.size(), 1));
        SweepProgress.Snapshot s = p.snapshot();
        assertTrue(s.done() > lastDone && s.done() <= s.total() && s.percent() <= 100, s.line());
        lastDone = s.done();
      }
    }
    SweepProgress.Snapshot end = p.snapshot();
    assertTrue(end.exact());
    assertEquals(finalTotal, end.total());
    assertEquals(finalTotal, end.done());
  }

  // ---------------------------------------------------------------- parts of a kind learn from the finished ones

  @Test
  void finishedPartsTookFewerThanThePrior_openPartsOfTheirKindExpectTheShrunkMean_otherKindsUntouched() {
    SweepProgress p = new SweepProgress(1, null, () -> 0L);
    p.expect("a", "warm", 6);
    p.expect("b", "warm", 6);
    p.expect("c", "warm", 6);
    p.expect("cold", "cold", 8);
    p.batch("a", 3);
    p.batch("b", 3);
    p.back(results(6, 1));
    // nothing finished yet: the priors, 6 + 6 + 6 + 8
    assertEquals(26, p.snapshot().total());
    p.batch("a", 0); // a done after 3
    // b (3 submitted) and c (none) both see a's 3: (1 x 6 + 3) / (1 + 1) = 4.5 each; the cold part keeps its 8
    assertEquals(4.5, SweepProgress.expected(6, 3, new long[] {3}), 1e-12);
    assertEquals(3 + 4.5 + 4.5 + 8, p.snapshot().total(), 0.5);
    assertEquals(20, p.snapshot().total());
    p.batch("b", 0); // b done after 3 too: c expects (6 + 3 + 3) / 3 = 4
    assertEquals(3 + 3 + 4 + 8, p.snapshot().total());
  }

  @Test
  void finishedPartsTookMoreThanThePrior_openPartsExpectMore() {
    SweepProgress p = new SweepProgress(1, null, () -> 0L);
    p.expect("a", "cold", 4);
    p.expect("b", "cold", 4);
    p.expect("c", "cold", 4);
    p.batch("a", 4);
    p.batch("b", 4);
    p.back(results(8, 1));
    p.batch("a", 6);
    p.back(results(6, 1));
    assertEquals(10 + 4 + 4, p.snapshot().total()); // a past its prior counts what it submitted
    p.batch("a", 0); // a took 10
    // b (4 submitted) and c (none): (4 + 10) / 2 = 7 each
    assertEquals(10 + 7 + 7, p.snapshot().total());
  }

  @Test
  void anOpenPartPastSomeFinishedOnes_learnsOnlyFromThoseThatTookAtLeastAsMany() {
    // finished 3 and 9; a part with 6 submitted: only the 9 says anything, (max(5, 6) + 9) / 2 = 7.5;
    // a part not started: both, (5 + 3 + 9) / 3
    assertEquals(7.5, SweepProgress.expected(5, 6, new long[] {3, 9}), 1e-12);
    assertEquals(17 / 3.0, SweepProgress.expected(5, 0, new long[] {3, 9}), 1e-12);
    // none took as many: the floor, max(prior, submitted)
    assertEquals(12, SweepProgress.expected(5, 12, new long[] {3, 9}), 1e-12);
    assertEquals(5, SweepProgress.expected(5, 2, null), 1e-12);
    // never below what it submitted, whatever the others took
    assertTrue(SweepProgress.expected(5, 4, new long[] {4, 4, 4, 4}) >= 4);
  }

  @Test
  void firstTotal_beforeAnyPartFinishes_isTheSumOfThePriors_withOrWithoutKinds() {
    SweepProgress kinds = new SweepProgress(1, null, () -> 0L);
    SweepProgress plain = new SweepProgress(1, null, () -> 0L);
    for (int i = 0; i < 5; i++) {
      kinds.expect("cold " + i, "cold", 8.12);
      plain.expect("cold " + i, 8.12);
    }
    for (int i = 0; i < 62; i++) {
      kinds.expect("warm " + i, "warm", 5.82);
      plain.expect("warm " + i, 5.82);
    }
    kinds.expect("replicates", 150);
    plain.expect("replicates", 150);
    assertEquals(Math.round(5 * 8.12 + 62 * 5.82 + 150), kinds.snapshot().total());
    assertEquals(plain.snapshot().line(), kinds.snapshot().line());
  }

  @Test
  void realKneeSearches_ofOneKind_totalNeverBelowDone_exactAtTheEnd() {
    // ten warm-like curves of the real search with knees spread over 1/4 to 4 x the reference, run round
    // by round; the estimate learns from the finished ones and must stay at or above the done count
    double[] knees = {0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8, 1, 2, 4};
    SweepProgress p = new SweepProgress(1, null, () -> 0L);
    List<TreeMap<Double, Double>> curves = new ArrayList<>();
    for (int i = 0; i < knees.length; i++) {
      p.expect("c" + i, "curve", 8.12);
      curves.add(new TreeMap<>());
    }
    boolean[] open = new boolean[knees.length];
    java.util.Arrays.fill(open, true);
    int finalTotal = 0;
    boolean any = true;
    for (int round = 0; round < 30 && any; round++) {
      any = false;
      for (int i = 0; i < knees.length; i++) {
        if (!open[i]) continue;
        List<Double> next = KneeSearch.next(curves.get(i), 1);
        p.batch("c" + i, next.size());
        if (next.isEmpty()) {
          open[i] = false;
          finalTotal += curves.get(i).size();
          SweepProgress.Snapshot s = p.snapshot();
          assertTrue(s.done() <= s.total(), s.line());
          continue;
        }
        any = true;
        for (double x : next) curves.get(i).put(x, Math.min(x, knees[i] * knees[i] / x));
        p.back(results(next.size(), 1));
        SweepProgress.Snapshot s = p.snapshot();
        assertTrue(s.done() <= s.total() && s.percent() <= 100, s.line());
      }
    }
    SweepProgress.Snapshot end = p.snapshot();
    assertTrue(end.exact());
    assertEquals(finalTotal, end.total());
    assertEquals(finalTotal, end.done());
  }
}
