package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.stat.descriptive.moment.StandardDeviation;
import org.junit.jupiter.api.Test;

/** The gains' bootstrap intervals: the replicate plan and the interval arithmetic. */
class UncertaintyTest {
  private static final double NAN = Double.NaN;
  private int id;

  private RunResult run(String policy, double g, double x, int rep, double tps) {
    double o = policy.equals("smetric") ? 1.5 : NAN;
    double h = policy.equals("smetric") ? 0.5 : NAN;
    return new RunResult(new SimSpec(id++, policy, g, x, o, h, rep, null, null), Map.of("tps_within_slo", tps), Map.of(),
        new double[0], new double[0], new double[0], new double[0][], 1, 1);
  }

  /** Checked against commons-math's standard deviation and normal quantile (an independent implementation). */
  @Test
  void interval_standardBootstrapInterval_independentCheck() {
    double[] gains = {0.02, 0.08, 0.05, 0.01, 0.09};
    JsonNode iv = Uncertainty.interval(0.05, gains);
    double se = new StandardDeviation(true).evaluate(gains); // sample (n - 1) standard deviation
    double z = new NormalDistribution().inverseCumulativeProbability(0.975);
    assertEquals(se, iv.get("standard_error").asDouble(), 1e-15);
    assertEquals(0.05 - z * se, iv.get("low").asDouble(), 1e-12);
    assertEquals(0.05 + z * se, iv.get("high").asDouble(), 1e-12);
    assertEquals(5, iv.get("replicates").asInt());
    assertEquals(0.05, iv.get("replicate_mean").asDouble(), 1e-15);
    // by hand: deviations -0.03, 0.03, 0, -0.04, 0.04 -> sum of squares 0.005, / 4 = 0.00125, sqrt = 0.035355
    assertEquals(0.0353553, iv.get("standard_error").asDouble(), 1e-6);
    assertNull(Uncertainty.interval(0.05, new double[] {0.05}), "one replicate has no spread");
    assertEquals(0.0, iv.get("bias").asDouble(), 1e-15);
    assertNull(iv.get("note"), "replicates centred on the gain: no note");
  }

  /**
   * Replicates that sit apart from the measured gain widen the interval by their bias. By hand:
   * gain -0.24, replicates -0.15, -0.17, -0.16 (mean -0.16, SE 0.01, bias +0.08): half-width 1.96
   * x sqrt(0.0001 + 0.0064) = 1.96 x 0.080623 = 0.158018.
   */
  @Test
  void interval_biasedReplicates_widenedByTheBias() {
    JsonNode iv = Uncertainty.interval(-0.24, new double[] {-0.15, -0.17, -0.16});
    assertEquals(0.01, iv.get("standard_error").asDouble(), 1e-12);
    assertEquals(0.08, iv.get("bias").asDouble(), 1e-12);
    double half = Uncertainty.Z95 * Math.sqrt(0.01 * 0.01 + 0.08 * 0.08);
    assertEquals(0.158018, half, 1e-6);
    assertEquals(-0.24 - half, iv.get("low").asDouble(), 1e-12);
    assertEquals(-0.24 + half, iv.get("high").asDouble(), 1e-12);
    assertTrue(iv.get("note").asText().contains("+8.0 points"), iv.get("note").asText());
  }

  /**
   * Main sweep at g = 1.6: smetric 100 at x = 2 (headline), cache-affinity 90 at x = 1, lmetric
   * 95 at x = 3, dynamo-kv 120 at x = 2. The judged router (no --current-router) is the best paper
   * baseline, lmetric; the best other router dynamo-kv. Two replicates each of smetric (at x = 2),
   * lmetric (x = 3) and dynamo-kv (x = 2): 6 runs; cache-affinity is not replayed again.
   */
  @Test
  void plan_eachComparedPolicyAtItsHeadlineRate() {
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 1.6, 1, 0, 80));
    r.add(run("smetric", 1.6, 2, 0, 100));
    r.add(run("cache-affinity", 1.6, 1, 0, 90));
    r.add(run("lmetric", 1.6, 3, 0, 95));
    r.add(run("dynamo-kv", 1.6, 2, 0, 120));
    List<SimSpec> p = Uncertainty.plan(new SweepSummary(r, 1.5, 0.5), null, 2);
    assertEquals(6, p.size());
    assertEquals(List.of("smetric@2.0#1", "lmetric@3.0#1", "dynamo-kv@2.0#1", "smetric@2.0#2", "lmetric@3.0#2", "dynamo-kv@2.0#2"),
        p.stream().map(s -> s.policy() + "@" + s.rateScale() + "#" + s.replicate()).toList());
    assertTrue(p.stream().allMatch(s -> s.variant() == null && s.globalRatio() == 1.6));
    // with --current-router cache-affinity it is replayed too
    assertEquals(8, Uncertainty.plan(new SweepSummary(r, 1.5, 0.5), "cache-affinity", 2).size());
  }

  /**
   * The same main sweep plus replicates: smetric 110 / 90 / 100, lmetric 100 / 100 / 80 on
   * replicates 1-3 -> replicate gains 0.1, -0.1, 0.25 (paired by replicate); the point gain is the
   * main sweep's 100 / 95 - 1. Replicate runs never change a headline.
   */
  @Test
  void comparison_intervalFromPairedReplicates() {
    List<RunResult> r = new ArrayList<>();
    r.add(run("smetric", 1.6, 2, 0, 100));
    r.add(run("lmetric", 1.6, 3, 0, 95));
    double[][] reps = {{110, 100}, {90, 100}, {100, 80}};
    for (int k = 1; k <= 3; k++) {
      r.add(run("smetric", 1.6, 2, k, reps[k - 1][0]));
      r.add(run("lmetric", 1.6, 3, k, reps[k - 1][1]));
    }
    r.add(run("lmetric", 1.6, 3, 4, 1e9)); // no smetric replicate 4: unpaired, ignored
    SweepSummary s = new SweepSummary(r, 1.5, 0.5);
    JsonNode c = s.judged(null);
    JsonNode e = c.get("by_global_ratio").get(0);
    assertEquals(100.0 / 95 - 1, e.get("gain").asDouble(), 1e-12);
    assertEquals(95.0, e.get("best_baseline_tps_within_slo").asDouble(), "a replicate never becomes the headline");
    double[] gains = {0.1, -0.1, 0.25};
    double se = new StandardDeviation(true).evaluate(gains);
    assertEquals(3, e.get("interval").get("replicates").asInt());
    double bias = (0.1 - 0.1 + 0.25) / 3 - (100.0 / 95 - 1);
    assertEquals(100.0 / 95 - 1 - Uncertainty.Z95 * Math.sqrt(se * se + bias * bias), e.get("interval").get("low").asDouble(),
        1e-12);
    JsonNode best = c.get("smetric_best_gain_with_global_tier");
    assertEquals(e.get("interval").get("high").asDouble(), best.get("interval").get("high").asDouble(), 0.0);
    JsonNode br = s.bestRouter().get("by_global_ratio").get(0);
    assertEquals(3, br.get("smetric_gain_vs_best_other_interval").get("replicates").asInt());
  }
}
