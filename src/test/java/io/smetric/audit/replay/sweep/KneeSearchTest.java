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
}
