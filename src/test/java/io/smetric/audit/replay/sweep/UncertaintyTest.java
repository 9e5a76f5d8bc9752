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

/** The gains' bootstrap intervals: the interval arithmetic (the paired replicate plan: EqualLoadTest). */
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
}
