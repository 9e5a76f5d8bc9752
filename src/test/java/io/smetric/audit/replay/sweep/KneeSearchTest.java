package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeMap;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/** The adaptive rate grid on hand-made and synthetic throughput curves. */
class KneeSearchTest {
  private static TreeMap<Double, Double> curve(double... rateTps) {
    TreeMap<Double, Double> c = new TreeMap<>();
    for (int i = 0; i < rateTps.length; i += 2) c.put(rateTps[i], rateTps[i + 1]);
    return c;
  }

  @Test
  void firstRound_fourRatesAFactorTwoApart() {
    assertEquals(List.of(0.075, 0.15, 0.3, 0.6), KneeSearch.next(new TreeMap<>(), 0.6));
  }

  @Test
  void interiorMaximum_geometricMidpointsTowardsBothNeighbours() {
    // max 20 at 0.25: sqrt(0.125 x 0.25) = 0.17678 -> 0.1768, sqrt(0.25 x 0.5) = 0.35355 -> 0.3536
    assertEquals(List.of(0.1768, 0.3536), KneeSearch.next(curve(0.125, 10, 0.25, 20, 0.5, 15, 1, 5), 1));
    // neighbours within 1.2 on both sides (0.2286 / 0.21 = 1.089, 0.25 / 0.2286 = 1.094): the knee is found
    assertEquals(List.of(), KneeSearch.next(curve(0.21, 18, 0.2286, 21, 0.25, 20), 1));
    // one side resolved, the other not: only the far side is refined (sqrt(0.25 x 0.5) = 0.3536)
    assertEquals(List.of(0.3536), KneeSearch.next(curve(0.2286, 19, 0.25, 20, 0.5, 15), 1));
  }

  @Test
  void maximumAtAnEdge_extendsByAFactorTwo_withinTheBounds() {
    assertEquals(List.of(0.7071, 2.0), KneeSearch.next(curve(0.5, 1, 1, 5), 1)); // left: sqrt(0.5 x 1); up: 2
    assertEquals(List.of(0.0625, 0.1768), KneeSearch.next(curve(0.125, 9, 0.25, 5), 1));
    // at the cap (8 x reference) and at the floor (reference / 64) it stops
    assertEquals(List.of(), KneeSearch.next(curve(6.727, 4, 8, 5), 1));
    assertEquals(List.of(), KneeSearch.next(curve(0.01563, 5, 0.01757, 4), 1));
    // nothing within SLO anywhere: only lower rates can help
    assertEquals(List.of(0.0625), KneeSearch.next(curve(0.125, 0, 0.25, 0), 1));
  }

  /** Runs the search to its end on f; returns the sampled curve. */
  private static TreeMap<Double, Double> search(DoubleUnaryOperator f, double ref) {
    TreeMap<Double, Double> c = new TreeMap<>();
    for (int round = 0; round < 30; round++) {
      List<Double> next = KneeSearch.next(c, ref);
      if (next.isEmpty()) return c;
      for (double x : next) {
        assertFalse(c.containsKey(x), "rate sampled twice: " + x);
        c.put(x, f.applyAsDouble(x));
      }
    }
    throw new AssertionError("no convergence: " + c);
  }

  /** A unimodal throughput curve peaking at p: x e^(1 - x / p) (value p at x = p). */
  private static DoubleUnaryOperator peakAt(double p) {
    return x -> x * Math.exp(1 - x / p);
  }

  @Test
  void syntheticCurves_theKneeIsBracketedWithinTheResolution() {
    for (double p : new double[] {0.3, 0.07, 0.9, 3.0, 0.02}) { // inside, between points, above and below round 0
      TreeMap<Double, Double> c = search(peakAt(p), 1.0);
      double at = c.entrySet().stream().max((a, b) -> Double.compare(a.getValue(), b.getValue())).get().getKey();
      Double left = c.lowerKey(at);
      Double right = c.higherKey(at);
      assertTrue(left != null && right != null, "bracketed on both sides: " + c);
      assertTrue(c.get(left) <= c.get(at) && c.get(right) <= c.get(at));
      assertTrue(at / left <= KneeSearch.RESOLUTION && right / at <= KneeSearch.RESOLUTION, c.toString());
      // for a unimodal curve the true peak lies between the neighbours
      assertTrue(left <= p && p <= right, p + " not in [" + left + ", " + right + "]: " + c);
      assertTrue(c.size() <= 14, "too many simulations for one curve: " + c.size() + " " + c);
    }
  }

  /** Runs the search warm from {@code hint} (NaN: cold) to its end on the model peak min(x, k^2 / x). */
  private static TreeMap<Double, Double> modelSearch(double ref, double hint, double k) {
    TreeMap<Double, Double> c = new TreeMap<>();
    for (int round = 0; round < 40; round++) {
      List<Double> next = KneeSearch.next(c, ref, hint);
      if (next.isEmpty()) return c;
      for (double x : next) {
        assertFalse(c.containsKey(x), "rate sampled twice: " + x);
        c.put(x, Math.min(x, k * k / x));
      }
    }
    throw new AssertionError("no convergence: " + c);
  }

  /** The sampled maximum's rate and its two neighbours, asserted bracketed within the resolution around k. */
  private static double[] bracket(TreeMap<Double, Double> c, double k) {
    double at = c.entrySet().stream().max((a, b) -> Double.compare(a.getValue(), b.getValue())).get().getKey();
    Double left = c.lowerKey(at);
    Double right = c.higherKey(at);
    assertTrue(left != null && right != null, "bracketed on both sides: " + c);
    assertTrue(at / left <= KneeSearch.RESOLUTION && right / at <= KneeSearch.RESOLUTION, c.toString());
    assertTrue(left <= k && k <= right, k + " not in [" + left + ", " + right + "]: " + c);
    return new double[] {left, at, right};
  }

  @Test
  void warmStart_firstBatchIsTheHintAndAQuarterOctaveEachSide() {
    // 0.5 / 2^0.25 = 0.42045, 0.5 x 2^0.25 = 0.59460: four digits
    assertEquals(List.of(0.4204, 0.5, 0.5946), KneeSearch.next(new TreeMap<>(), 1, 0.5));
    // clamped to the search's bounds (x_ref / 64, x_ref x 8)
    assertEquals(List.of(6.727, 8.0), KneeSearch.next(new TreeMap<>(), 1, 8));
  }

  @Test
  void warmStart_extensionStepsGallopFromTheHint_notAFactorTwoAtOnce() {
    // maximum at the top end 0.5946 (2^0.25 from the hint 0.5): step 2^0.25, not 2 -> 0.7071
    assertEquals(List.of(0.7071), KneeSearch.next(curve(0.4204, 1, 0.5, 2, 0.5946, 3), 1, 0.5));
    // at 0.7071 (2^0.5 from the hint): step 2^0.5 -> 1.0; the left neighbour 0.5946 is within 1.2
    assertEquals(List.of(1.0), KneeSearch.next(curve(0.4204, 1, 0.5, 2, 0.5946, 3, 0.7071, 4), 1, 0.5));
    // at 1.0 (2 from the hint): step 2 -> 2.0, and the midpoint sqrt(0.7071 x 1) = 0.8409 on the left
    assertEquals(List.of(0.8409, 2.0), KneeSearch.next(curve(0.4204, 1, 0.5, 2, 0.5946, 3, 0.7071, 4, 1.0, 5), 1, 0.5));
    // at 2.0 (4 from the hint): the step stays 2, the cold search's
    assertEquals(List.of(1.414, 4.0), KneeSearch.next(curve(0.5, 2, 0.5946, 3, 0.7071, 4, 1.0, 5, 2.0, 6), 1, 0.5));
    // downwards alike: the bottom end 0.4204 -> / 2^0.25 = 0.35351
    assertEquals(List.of(0.3535), KneeSearch.next(curve(0.4204, 3, 0.5, 2, 0.5946, 1), 1, 0.5));
    // nothing within SLO: below the lowest rate by the same step
    assertEquals(List.of(0.3535), KneeSearch.next(curve(0.4204, 0, 0.5, 0, 0.5946, 0), 1, 0.5));
    // the cold search from the same points extends by 2 (unchanged)
    assertEquals(List.of(1.189), KneeSearch.next(curve(0.4204, 1, 0.5, 2, 0.5946, 3), 1));
  }

  /**
   * A warm curve on the model peak at displacement d from the hint 0.35 (x_ref 1): the same
   * bracket of the knee the cold search finds, in the counted simulations. By hand, d = 1.5 (knee
   * 0.525): 0.2943, 0.35, 0.4162 (top end) -> 0.4949 (top end, value 0.4949) -> 0.7 (value
   * 0.394): maximum 0.4949, its right neighbour 2^0.5 away -> midpoint 0.5886 (value 0.468): both
   * neighbours within 1.2, 6 points; the cold search takes 8 (4 + 2 + 2).
   */
  @Test
  void warmStart_modelPeaksAtDisplacements_sameBracketAsCold_fewerPointsNearTheHint() {
    double h = 0.35;
    double[] d = {1, 1.2, 1.5, 3, 10, 1 / 1.5};
    int[] warm = {3, 4, 6, 11, 15, 6};
    int[] cold = {8, 8, 8, 9, 12, 8};
    for (int i = 0; i < d.length; i++) {
      double k = h * d[i];
      TreeMap<Double, Double> w = modelSearch(1, h, k);
      TreeMap<Double, Double> c = modelSearch(1, Double.NaN, k);
      double[] bw = bracket(w, k);
      double[] bc = bracket(c, k);
      // both brackets hold the knee, so their maxima are within the resolution of each other
      assertTrue(Math.max(bw[1], bc[1]) / Math.min(bw[1], bc[1]) <= KneeSearch.RESOLUTION * KneeSearch.RESOLUTION);
      assertEquals(warm[i], w.size(), "warm at d = " + d[i] + ": " + w);
      assertEquals(cold[i], c.size(), "cold at d = " + d[i] + ": " + c);
    }
    // d = 1: the hint itself is the maximum, bracketed by the first batch
    assertEquals(0.35, bracket(modelSearch(1, h, h), h)[1]);
  }

  @Test
  void warmStart_worstCaseOverDisplacement_atMost19Points_atMostSixMoreThanCold() {
    // the hint at x_ref / 8 (the cold round 0's lowest rate), knees from hint / 64 to hint x 64 (beyond
    // both bounds, x_ref / 64 and x_ref x 8): the warm search stops, brackets every knee that lies
    // within the bounds, and costs at most 19 points, at most 6 more than the cold search at the
    // same knee (worst: a knee far above, which the cold round 0 starts next to)
    int worst = 0;
    int worstExtra = Integer.MIN_VALUE;
    for (int i = 0; i <= 400; i++) {
      double k = Math.pow(64, (i - 200) / 200.0);
      TreeMap<Double, Double> w = modelSearch(8, 1, k);
      TreeMap<Double, Double> c = modelSearch(8, Double.NaN, k);
      if (k > 8 / 64.0 * 1.2 && k < 64 / 1.2) bracket(w, k);
      worst = Math.max(worst, w.size());
      worstExtra = Math.max(worstExtra, w.size() - c.size());
    }
    assertEquals(19, worst);
    assertEquals(6, worstExtra);
  }

  @Test
  void refine_onePointInsideTheBracket_untilBothNeighboursWithinTheResolution() {
    TreeMap<Double, Double> c = curve(0.2, 10, 0.25, 20, 0.3, 15);
    List<Double> n = KneeSearch.refine(c, 1.01);
    assertEquals(1, n.size());
    assertTrue(n.get(0) > 0.2 && n.get(0) < 0.3 && !c.containsKey(n.get(0)), "inside the bracket, new: " + n);
    // both neighbours within 1%: located
    assertEquals(List.of(), KneeSearch.refine(curve(0.2476, 19, 0.25, 20, 0.2524, 19), 1.01));
    // maximum at a sampled end: nothing to refine on the open side, the other side still refined
    assertEquals(List.of(), KneeSearch.refine(curve(0.2476, 19, 0.25, 20), 1.01));
    assertEquals(1, KneeSearch.refine(curve(0.2, 19, 0.25, 20), 1.01).size());
    assertEquals(List.of(), KneeSearch.refine(curve(0.2, 0, 0.25, 0), 1.01), "nothing within SLO");
    assertEquals(0.25 / 0.2476 - 1, KneeSearch.resolution(curve(0.2476, 19, 0.25, 20, 0.2524, 19)), 1e-12);
    assertTrue(Double.isNaN(KneeSearch.resolution(curve(0.2475, 19, 0.25, 20))), "at an end: the maximum may lie beyond");
  }

  @Test
  void refine_afterTheCoarseSearch_locatesAPeakToOnePercent() {
    for (double p : new double[] {0.137, 0.31, 0.52, 0.9}) {
      DoubleUnaryOperator f = x -> x * Math.exp(1 - x / p);
      TreeMap<Double, Double> c = search(f, 1);
      int added = 0;
      for (List<Double> n = KneeSearch.refine(c, 1.01); !n.isEmpty(); n = KneeSearch.refine(c, 1.01)) {
        assertFalse(c.containsKey(n.get(0)));
        c.put(n.get(0), f.applyAsDouble(n.get(0)));
        added++;
      }
      double at = c.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).get().getKey();
      assertTrue(KneeSearch.resolution(c) <= 0.01 + 1e-9, "resolution " + KneeSearch.resolution(c));
      assertTrue(Math.abs(at / p - 1) <= 0.0101, "peak " + p + " found at " + at);
      assertTrue(added <= 10, added + " points to refine");
    }
  }

  @Test
  void bisectAttainment_highestRateMeetingTheTarget() {
    // 0.2 meets 90%, 0.4 misses: the geometric midpoint sqrt(0.08) = 0.28284 -> 0.2828
    assertEquals(List.of(0.2828), KneeSearch.bisectAttainment(curve(0.1, 1.0, 0.2, 0.95, 0.4, 0.5), 0.9, 1.01, 0.01, 8));
    assertEquals(0.2, KneeSearch.attainmentRate(curve(0.1, 1.0, 0.2, 0.95, 0.4, 0.5), 0.9));
    // bracketed within 1%: done
    assertEquals(List.of(), KneeSearch.bisectAttainment(curve(0.2, 0.95, 0.2015, 0.85), 0.9, 1.01, 0.01, 8));
    // every rate meets it: a factor 2 up, to the cap; every rate misses it: a factor 2 down, to the floor
    assertEquals(List.of(0.4), KneeSearch.bisectAttainment(curve(0.1, 1.0, 0.2, 0.95), 0.9, 1.01, 0.01, 8));
    assertEquals(List.of(), KneeSearch.bisectAttainment(curve(8, 0.95), 0.9, 1.01, 0.01, 8));
    assertEquals(List.of(0.05), KneeSearch.bisectAttainment(curve(0.1, 0.5, 0.2, 0.3), 0.9, 1.01, 0.01, 8));
    assertEquals(List.of(), KneeSearch.bisectAttainment(curve(0.01, 0.5), 0.9, 1.01, 0.01, 8));
    assertTrue(Double.isNaN(KneeSearch.attainmentRate(curve(0.1, 0.5), 0.9)));
    // not monotone: the first miss bounds it, the meeting rate above it does not count
    assertEquals(0.1, KneeSearch.attainmentRate(curve(0.1, 0.95, 0.2, 0.85, 0.3, 0.92), 0.9));
  }
}
