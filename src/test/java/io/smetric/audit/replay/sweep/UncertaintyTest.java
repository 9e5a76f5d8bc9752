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

  /**
   * Checked against commons-math's standard deviation and normal quantile (an independent
   * implementation), on the log of the TPS ratio and back.
   */
  @Test
  void interval_logRatioBootstrapInterval_independentCheck() {
    double[] gains = {0.02, 0.08, 0.05, 0.01, 0.09};
    double[] u = new double[gains.length];
    for (int i = 0; i < u.length; i++) u[i] = Math.log(1 + gains[i]);
    double uMean = (u[0] + u[1] + u[2] + u[3] + u[4]) / 5;
    double u0 = Math.log(1.05);
    double seU = new StandardDeviation(true).evaluate(u); // sample (n - 1) standard deviation
    double z = new NormalDistribution().inverseCumulativeProbability(0.975);
    double half = z * Math.sqrt(seU * seU + (uMean - u0) * (uMean - u0));
    JsonNode iv = Uncertainty.interval(0.05, gains);
    assertEquals(Math.exp(u0 - half) - 1, iv.get("low").asDouble(), 1e-12);
    assertEquals(Math.exp(u0 + half) - 1, iv.get("high").asDouble(), 1e-12);
    assertEquals(seU, iv.get("log_ratio_standard_error").asDouble(), 1e-15);
    assertEquals(5, iv.get("replicates").asInt());
    assertEquals(0.05, iv.get("replicate_mean").asDouble(), 1e-15);
    // the gain's own scale, for reading: deviations -0.03, 0.03, 0, -0.04, 0.04 -> sum of squares
    // 0.005, / 4 = 0.00125, sqrt = 0.035355
    assertEquals(0.0353553, iv.get("standard_error").asDouble(), 1e-6);
    assertEquals(0.0, iv.get("bias").asDouble(), 1e-15);
    assertNull(Uncertainty.interval(0.05, new double[] {0.05}), "one replicate has no spread");
    assertNull(Uncertainty.interval(-1, gains), "a gain of -100% has no log ratio");
  }

  /**
   * A collapsing gain with biased replicates (issue 26's 200k trace at 0x: "-75% [-218%, +68%]"):
   * the interval stays above -100%. By hand: gain -0.75, u0 = ln 0.25 = -1.386294; replicates
   * -0.5, -0.6, -0.4: u = -0.693147, -0.916291, -0.510826, mean -0.706755, SE 0.203075, bias
   * +0.679540; half-width 1.96 x sqrt(0.203075^2 + 0.679540^2) = 1.390074; low = exp(-2.776369)
   * - 1 = -0.937736, high = exp(0.003780) - 1 = +0.003787. On the gain itself (the method before)
   * the low end was -0.75 - 1.96 x sqrt(0.1^2 + 0.25^2) = -1.2777: below -100%.
   */
  @Test
  void interval_collapsingGain_staysAboveMinus100Percent() {
    JsonNode iv = Uncertainty.interval(-0.75, new double[] {-0.5, -0.6, -0.4});
    assertEquals(0.203075, iv.get("log_ratio_standard_error").asDouble(), 1e-6);
    assertEquals(0.679540, iv.get("log_ratio_bias").asDouble(), 1e-6);
    assertEquals(-0.937736, iv.get("low").asDouble(), 1e-6);
    assertEquals(0.003787, iv.get("high").asDouble(), 1e-6);
    assertTrue(iv.get("low").asDouble() > -1);
    assertEquals(0.25, iv.get("bias").asDouble(), 1e-12);
    assertTrue(iv.get("note").asText().contains("+25.0 points"), iv.get("note").asText());
  }

  /** Replicates far below -100% cannot be (a TPS ratio is positive): an interval of any width stays above it. */
  @Test
  void interval_anyWidth_boundedBelowByMinus100Percent() {
    JsonNode iv = Uncertainty.interval(-0.99, new double[] {0.5, -0.98, 2.0, -0.999});
    assertTrue(iv.get("low").asDouble() > -1, iv.toString());
    assertTrue(iv.get("high").asDouble() > iv.get("low").asDouble());
  }
}
