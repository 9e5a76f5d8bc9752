package io.smetric.audit.replay.sweep;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;

/**
 * The adaptive offered-rate grid: finds the knee (the maximum TPS within SLO over offered rates)
 * of one policy's curve in a few rounds of simulations, as a load test does. Round 0 samples
 * {@link #INITIAL} x the reference rate (a factor 2 apart). Each later round looks at the
 * curve sampled so far: when its maximum is the lowest (highest) sampled rate the search extends
 * by a factor 2 downwards (upwards), within [reference / 64, reference x 8]; otherwise it
 * refines around the maximum, adding the geometric midpoint towards each neighbour that lies
 * more than {@link #RESOLUTION} away. It stops when the maximum has a lower (or equal) neighbour
 * on both sides, each within the resolution, or at a bound. Rates are rounded to four
 * significant digits so that every curve's points compare equal across runs.
 */
public final class KneeSearch {
  /** Round 0: multiples of the reference rate. */
  public static final double[] INITIAL = {0.125, 0.25, 0.5, 1.0};
  /** Neighbours of the maximum closer than this factor end the refinement (2^(1/4) = 1.19, rounded). */
  public static final double RESOLUTION = 1.2;
  /** Extension bounds as factors of the reference rate. */
  public static final double FLOOR = 1.0 / 64;
  public static final double CAP = 8;

  private KneeSearch() {}

  /**
   * The rates to simulate next for a curve sampled at {@code curve} (rate -> TPS within SLO),
   * none of them already sampled; empty when the knee is found (or the curve cannot move further).
   */
  public static List<Double> next(NavigableMap<Double, Double> curve, double reference) {
    List<Double> out = new ArrayList<>();
    if (curve.isEmpty()) {
      for (double m : INITIAL) out.add(round(m * reference));
      return out;
    }
    double best = Double.NEGATIVE_INFINITY;
    double at = Double.NaN;
    for (Map.Entry<Double, Double> e : curve.entrySet()) {
      if (e.getValue() > best) { // strict: the lowest rate wins ties
        best = e.getValue();
        at = e.getKey();
      }
    }
    double lo = round(reference * FLOOR);
    double hi = round(reference * CAP);
    TreeSet<Double> add = new TreeSet<>();
    Double left = curve.lowerKey(at);
    Double right = curve.higherKey(at);
    if (best <= 0) {
      // nothing within SLO anywhere sampled: only lower rates can help
      double x = round(curve.firstKey() / 2);
      if (curve.firstKey() > lo && !curve.containsKey(x)) add.add(x);
      out.addAll(add);
      return out;
    }
    if (left == null) {
      if (at > lo) add.add(round(Math.max(at / 2, lo)));
    } else if (at / left > RESOLUTION) {
      add.add(round(Math.sqrt(at * left)));
    }
    if (right == null) {
      if (at < hi) add.add(round(Math.min(at * 2, hi)));
    } else if (right / at > RESOLUTION) {
      add.add(round(Math.sqrt(at * right)));
    }
    for (double x : add) if (!curve.containsKey(x) && x > 0) out.add(x);
    return out;
  }

  /** Four significant digits: rates appear in tables and must compare equal across runs. */
  public static double round(double x) {
    return AuditPlan.round(x);
  }
}
