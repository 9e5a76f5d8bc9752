package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.EqualLoadBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.stat.descriptive.moment.StandardDeviation;
import org.junit.jupiter.api.Test;

/**
 * The equal-load comparison on hand-made sweeps. Two capacities, 0 and 1.6; the paper baselines
 * lmetric and least-load (cache-affinity not replayed). Curves (rate: TPS within SLO / share within SLO):
 * <pre>
 *   g 1.6  smetric    0.1: 10 / 1.0   0.2: 19 / 0.95  0.3: 24 / 0.80  0.4: 20 / 0.5
 *          lmetric    0.1: 10 / 1.0   0.2: 18 / 0.92  0.3: 25 / 0.85  0.4: 21 / 0.6
 *          least-load 0.1: 10 / 1.0   0.2: 17 / 0.88  0.3: 22 / 0.75
 *   g 0    smetric    0.1: 9 / 0.95   0.2: 15 / 0.70
 *          least-load 0.1: 9 / 0.91   0.2: 16 / 0.80
 * </pre>
 * Judged router: at 1.6 lmetric (maximum 25 > least-load's 22), at 0 least-load (the only paper
 * baseline). Reference rates (highest rate keeping 90% within SLO below the first that misses it):
 * lmetric 0.2 (0.3 misses), least-load at 0: 0.1.
 */
class EqualLoadTest {
  private static final double NAN = Double.NaN;
  private int id;

  private RunResult run(String policy, double g, double x, int rep, double tps, double att) {
    double o = policy.equals("smetric") ? 1.5 : NAN;
    double h = policy.equals("smetric") ? 0.5 : NAN;
    return new RunResult(new SimSpec(id++, policy, g, x, o, h, rep, null, null),
        Map.of("tps_within_slo", tps, "slo_attainment", att), Map.of(), new double[0], new double[0], new double[0],
        new double[0][], 1, 1);
  }

  private List<RunResult> sweep() {
    List<RunResult> r = new ArrayList<>();
    double[][] sm = {{0.1, 10, 1.0}, {0.2, 19, 0.95}, {0.3, 24, 0.80}, {0.4, 20, 0.5}};
    double[][] lm = {{0.1, 10, 1.0}, {0.2, 18, 0.92}, {0.3, 25, 0.85}, {0.4, 21, 0.6}};
    double[][] ll = {{0.1, 10, 1.0}, {0.2, 17, 0.88}, {0.3, 22, 0.75}};
    for (double[] p : sm) r.add(run("smetric", 1.6, p[0], 0, p[1], p[2]));
    for (double[] p : lm) r.add(run("lmetric", 1.6, p[0], 0, p[1], p[2]));
    for (double[] p : ll) r.add(run("least-load", 1.6, p[0], 0, p[1], p[2]));
    r.add(run("smetric", 0, 0.1, 0, 9, 0.95));
    r.add(run("smetric", 0, 0.2, 0, 15, 0.70));
    r.add(run("least-load", 0, 0.1, 0, 9, 0.91));
    r.add(run("least-load", 0, 0.2, 0, 16, 0.80));
    return r;
  }

  @Test
  void plan_judgedRouterAndReferenceRatePerCapacity() {
    List<RunResult> r = sweep();
    EqualLoad e = EqualLoad.plan(new SweepSummary(r, 1.5, 0.5), null, r);
    assertEquals("lmetric", e.anchors().get(1.6).judged());
    assertEquals(0.2, e.anchors().get(1.6).referenceRate());
    assertEquals(0.3 / 0.2 - 1, e.anchors().get(1.6).resolution(), 1e-12, "the bracket: the lowest rate that misses");
    assertEquals("least-load", e.anchors().get(0.0).judged());
    assertEquals(0.1, e.anchors().get(0.0).referenceRate());
    assertEquals(1.6, e.declaredGlobalRatio());
    // --current-router names the judged router at every capacity
    EqualLoad c = EqualLoad.plan(new SweepSummary(r, 1.5, 0.5), "least-load", r);
    assertEquals("least-load", c.anchors().get(1.6).judged());
    assertEquals(0.1, c.anchors().get(1.6).referenceRate(), "least-load keeps 90% at 0.1 and misses it at 0.2 (88%)");
  }

  @Test
  void specs_everyComparedRouterAtEveryLoad_onlyWhatIsNotRunYet() {
    List<RunResult> r = sweep();
    EqualLoad e = EqualLoad.plan(new SweepSummary(r, 1.5, 0.5), null, r);
    List<SimSpec> s = e.specs(r);
    // g 1.6, reference 0.2 (judged: lmetric): smetric and lmetric at 0.2, 0.3, 0.4 (all run); least-load, neither
    // SMetric nor judged, only at the decision load 0.3 (run): nothing. g 0, reference 0.1 (judged: least-load):
    // 0.1 and 0.2 run for both; 0.15 for both
    assertEquals(List.of("smetric@0.0@0.15", "least-load@0.0@0.15"),
        s.stream().map(x -> x.policy() + "@" + x.globalRatio() + "@" + x.rateScale()).toList());
    assertTrue(s.stream().allMatch(x -> x.isMain() && !x.isSearch() && SimSpec.EQUAL_LOAD.equals(x.variant())));
    // an equal-load run never moves a curve's maximum: smetric 100 at 0.5 (far above its knee 24 at 0.3)
    r.add(new RunResult(new SimSpec(id++, "smetric", 1.6, 0.5, 1.5, 0.5, 0, SimSpec.EQUAL_LOAD, null),
        Map.of("tps_within_slo", 100.0, "slo_attainment", 0.2), Map.of(), new double[0], new double[0], new double[0],
        new double[0][], 1, 1));
    assertEquals(24.0, new SweepSummary(r, 1.5, 0.5).atDefaults().get("smetric").get(1.6).tps());
    assertTrue(s.get(0).overload() == 1.5 && Double.isNaN(s.get(1).overload()), "each policy's own thresholds");
  }

  @Test
  void replicates_pairedAtTheDecisionLoad_atTheTwoJudgedCapacitiesOnly() {
    List<RunResult> r = sweep();
    r.add(run("smetric", 0.8, 0.2, 0, 19, 0.95));
    r.add(run("lmetric", 0.8, 0.2, 0, 18, 0.95));
    r.add(run("lmetric", 0.8, 0.3, 0, 19, 0.5));
    EqualLoad e = EqualLoad.plan(new SweepSummary(r, 1.5, 0.5), null, r);
    assertTrue(e.anchors().containsKey(0.8));
    List<SimSpec> reps = e.replicates(2);
    // per replicate: g 0 (0.15 = 1.5 x 0.1) and g 1.6 (0.3 = 1.5 x 0.2), smetric and the judged router; not 0.8
    assertEquals(List.of("smetric@0.0@0.15#1", "least-load@0.0@0.15#1", "smetric@1.6@0.3#1", "lmetric@1.6@0.3#1",
        "smetric@0.0@0.15#2", "least-load@0.0@0.15#2", "smetric@1.6@0.3#2", "lmetric@1.6@0.3#2"),
        reps.stream().map(x -> x.policy() + "@" + x.globalRatio() + "@" + x.rateScale() + "#" + x.replicate()).toList());
  }

  @Test
  void describe_gainsAtEqualLoad_pairedIntervalAtTheDecisionLoad() {
    List<RunResult> r = sweep();
    EqualLoad e = EqualLoad.plan(new SweepSummary(r, 1.5, 0.5), null, r);
    r.add(run("least-load", 1.6, 0.4, 0, 15, 0.4));
    // replicates at g 1.6, rate 0.3: smetric 26 / 22 / 25, lmetric 24 / 24 / 25 -> gains 1/12, -1/12, 0
    double[][] reps = {{26, 24}, {22, 24}, {25, 25}};
    for (int k = 1; k <= 3; k++) {
      r.add(run("smetric", 1.6, 0.3, k, reps[k - 1][0], 0.8));
      r.add(run("lmetric", 1.6, 0.3, k, reps[k - 1][1], 0.8));
    }
    JsonNode d = e.describe(r);
    assertEquals(1.5, d.get("decision_load").asDouble());
    JsonNode g16 = d.get("by_global_ratio").get(1);
    assertEquals(1.6, g16.get("global_ratio").asDouble());
    JsonNode l15 = g16.get("points").get(1);
    assertEquals(0.3, l15.get("rate_scale").asDouble());
    assertEquals(24.0 / 25 - 1, l15.get("smetric_gain_vs").get("lmetric").asDouble(), 1e-12);
    assertEquals(24.0 / 22 - 1, l15.get("smetric_gain_vs").get("least-load").asDouble(), 1e-12);
    assertEquals(0.8, l15.get("policies").get("smetric").get("slo_attainment").asDouble());
    JsonNode j = l15.get("smetric_gain_vs_judged");
    assertEquals("lmetric", j.get("vs").asText());
    double point = 24.0 / 25 - 1;
    assertEquals(point, j.get("value").asDouble(), 1e-12);
    // the interval on the log of the TPS ratio: u = log(26/24), log(22/24), 0 against log(24/25)
    double[] u = {Math.log(26.0 / 24), Math.log(22.0 / 24), 0};
    double se = new StandardDeviation(true).evaluate(u);
    double bias = (u[0] + u[1] + u[2]) / 3 - Math.log(24.0 / 25);
    assertEquals(Math.exp(Math.log(24.0 / 25) + Uncertainty.Z95 * Math.sqrt(se * se + bias * bias)) - 1,
        j.get("interval").get("high").asDouble(), 1e-12);
    // load 2.0 (0.4): a least-load run there is shown (a search point here); no interval away from the decision load
    JsonNode l20 = g16.get("points").get(2);
    assertEquals(20.0 / 15 - 1, l20.get("smetric_gain_vs").get("least-load").asDouble(), 1e-12);
    assertFalse(l20.has("smetric_gain_vs_judged"));
    // the verdict's reading at 1.6: the decision point with its capacity, load and rate
    JsonNode dg = EqualLoad.decisionGain(e.describe(r), 1.6);
    assertEquals(point, dg.get("value").asDouble(), 1e-12);
    assertEquals(0.3, dg.get("rate_scale").asDouble());
    assertEquals("lmetric", dg.get("judged_router").asText());
    // the contract record reads what describe wrote: same keys on both sides
    EqualLoadBlock typed = EqualLoadBlock.read(d, "describe");
    assertEquals(1.5, typed.decisionLoad());
    assertEquals(List.of(0.0, 1.6), typed.capacities().stream().map(EqualLoadBlock.Row::globalRatio).toList());
    assertEquals("lmetric", typed.capacities().get(1).judgedRouter());
    EqualLoadBlock.Point tp = typed.decisionPoint(1.6);
    assertEquals(0.3, tp.rateScale());
    assertEquals(0.8, tp.metric("smetric", "slo_attainment"));
    assertEquals(24.0 / 22 - 1, tp.smetricGainVs().get("least-load"), 1e-12);
    assertEquals("lmetric", tp.smetricGainVsJudged().vs());
    assertEquals(point, tp.smetricGainVsJudged().value(), 1e-12);
    assertEquals(j.get("interval"), tp.smetricGainVsJudged().interval());
    assertEquals(List.of("smetric", "lmetric", "least-load"), List.copyOf(tp.policies().keySet()), "written order kept");
    assertNull(typed.decisionPoint(3.2), "no capacity 3.2 in the block");
  }
}
