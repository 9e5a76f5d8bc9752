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
 * significant digits so that every curve's points compare equal across runs. A curve whose knee
 * is expected near another curve's (the audit's baselines near SMetric's at the same global
 * ratio) may start warm from that knee instead ({@link #next(NavigableMap, double, double)}).
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
    return next(curve, reference, Double.NaN);
  }

  /**
   * The warm start's spacing (issue 29): 2^(1/4), the factor {@link #RESOLUTION} rounds. Its
   * exact value, not 1.2, so that a first batch rounded to four digits is still bracketed within
   * the resolution (1.2 x a four-digit rate rounds up past 1.2 about half the time, which would
   * cost a midpoint), and so that the extension steps (2^(1/4), 2^(1/2), 2) and their midpoints
   * stay on the cold search's grid of powers of 2^(1/4).
   */
  public static final double WARM_STEP = Math.pow(2, 0.25);

  /**
   * The knee search warm-started from {@code hint}, the knee rate of another curve expected to
   * lie near this one's (NaN: the cold search, round 0 = {@link #INITIAL}). The first batch is
   * hint x {1 / {@link #WARM_STEP}, 1, {@link #WARM_STEP}}; then the cold search's rules, the same
   * stopping rule included (the maximum bracketed within {@link #RESOLUTION} on both sides, or a
   * bound), except the step of an extension: instead of a factor 2 at once, the factor between the
   * hint and the end the maximum sits at, at least {@link #WARM_STEP} and at most 2 (a galloping
   * search: hint x 2^(1/4), 2^(1/2), 2, 4, 8, ...). A knee next to the hint costs one or two
   * points beyond the first batch; a far one costs at most three more extensions than a factor-2
   * search from the hint would (SweepProgress's model table, docs/replay.md).
   */
  public static List<Double> next(NavigableMap<Double, Double> curve, double reference, double hint) {
    boolean warm = !Double.isNaN(hint);
    double lo = round(reference * FLOOR);
    double hi = round(reference * CAP);
    List<Double> out = new ArrayList<>();
    if (curve.isEmpty()) {
      if (!warm) {
        for (double m : INITIAL) out.add(round(m * reference));
        return out;
      }
      TreeSet<Double> first = new TreeSet<>();
      for (double m : new double[] {1 / WARM_STEP, 1, WARM_STEP}) first.add(round(Math.min(Math.max(hint * m, lo), hi)));
      out.addAll(first);
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
    TreeSet<Double> add = new TreeSet<>();
    Double left = curve.lowerKey(at);
    Double right = curve.higherKey(at);
    if (best <= 0) {
      // nothing within SLO anywhere sampled: only lower rates can help
      double x = round(curve.firstKey() / step(warm, hint, curve.firstKey()));
      if (curve.firstKey() > lo && !curve.containsKey(x)) add.add(x);
      out.addAll(add);
      return out;
    }
    if (left == null) {
      if (at > lo) add.add(round(Math.max(at / step(warm, hint, at), lo)));
    } else if (at / left > RESOLUTION) {
      add.add(round(Math.sqrt(at * left)));
    }
    if (right == null) {
      if (at < hi) add.add(round(Math.min(at * step(warm, hint, at), hi)));
    } else if (right / at > RESOLUTION) {
      add.add(round(Math.sqrt(at * right)));
    }
    for (double x : add) if (!curve.containsKey(x) && x > 0) out.add(x);
    return out;
  }

  /** An extension's factor from the end at {@code end}: 2 cold; warm, the distance from the hint within [WARM_STEP, 2]. */
  private static double step(boolean warm, double hint, double end) {
    if (!warm) return 2;
    double d = Math.max(end / hint, hint / end);
    return Math.min(2, Math.max(WARM_STEP, d));
  }

  /**
   * The refinement's resolution (issue 26): the maximum is located to within this factor on each
   * side, so a curve rising linearly to a kink loses at most 1% of its maximum to the grid, half
   * the 2% gain the verdict decides on (the coarse {@link #RESOLUTION} is ten times that).
   */
  public static final double FINE_RESOLUTION = 1.01;
  /** Golden section: a new point at this fraction of the larger gap, measured from the maximum. */
  static final double GOLDEN = 0.3819660112501051;

  /**
   * One more rate for a curve whose knee the coarse search has bracketed, to locate its maximum
   * to within {@code resolution} on each side; empty when it is located (or cannot be: the
   * maximum at a sampled end, or nothing within SLO). Brent's rule in log-rate: the vertex of the
   * parabola through the maximum and its two neighbours when it lies inside their bracket and
   * clear of every sampled rate, else a step of 0.9 x the resolution from the maximum towards
   * the vertex when that side is still open, else the golden-section point of the larger gap.
   * One point a round, so the bracket shrinks by 0.618 or better per simulation.
   */
  public static List<Double> refine(NavigableMap<Double, Double> curve, double resolution) {
    double at = argmax(curve);
    if (Double.isNaN(at)) return List.of();
    double best = curve.get(at);
    Double left = curve.lowerKey(at);
    Double right = curve.higherKey(at);
    double tol = Math.log(resolution);
    boolean leftOpen = left != null && Math.log(at / left) > tol * (1 + 1e-9);
    boolean rightOpen = right != null && Math.log(right / at) > tol * (1 + 1e-9);
    if (!leftOpen && !rightOpen) return List.of();
    double u0 = Math.log(at);
    List<Double> tries = new ArrayList<>();
    if (left != null && right != null) {
      double ul = Math.log(left);
      double ur = Math.log(right);
      double yl = curve.get(left);
      double yr = curve.get(right);
      // vertex of the parabola through (ul, yl), (u0, best), (ur, yr)
      double p = (u0 - ul) * (best - yr);
      double q = (u0 - ur) * (best - yl);
      double den = 2 * (p - q);
      if (den != 0) {
        double uv = u0 - ((u0 - ul) * p - (u0 - ur) * q) / den;
        double clear = tol / 2;
        if (uv > ul + clear && uv < ur - clear && Math.abs(uv - u0) > clear) tries.add(Math.exp(uv));
        else if (uv < u0 && leftOpen) tries.add(Math.exp(u0 - 0.9 * tol));
        else if (uv > u0 && rightOpen) tries.add(Math.exp(u0 + 0.9 * tol));
      }
    }
    // golden section in the larger open gap
    double gl = leftOpen ? u0 - Math.log(left) : 0;
    double gr = rightOpen ? Math.log(right) - u0 : 0;
    tries.add(gl >= gr ? Math.exp(u0 - GOLDEN * gl) : Math.exp(u0 + GOLDEN * gr));
    // plain midpoints, in case rounding lands the others on a sampled rate
    if (leftOpen) tries.add(Math.sqrt(at * left));
    if (rightOpen) tries.add(Math.sqrt(at * right));
    for (double x : tries) {
      double r = round(x);
      if (r > 0 && !curve.containsKey(r)) return List.of(r);
    }
    return List.of();
  }

  /**
   * How closely a curve's maximum is located: the larger factor between the maximum's rate and a
   * sampled neighbour, minus 1 (0.008 = within 0.8% on each side); NaN when the maximum lies at a
   * sampled end (it may lie beyond) or nothing is within SLO.
   */
  public static double resolution(NavigableMap<Double, Double> curve) {
    double at = argmax(curve);
    if (Double.isNaN(at)) return Double.NaN;
    Double left = curve.lowerKey(at);
    Double right = curve.higherKey(at);
    if (left == null || right == null) return Double.NaN;
    return Math.max(at / left, right / at) - 1;
  }

  /** The rate of a curve's maximum (the lowest on ties), NaN when nothing is within SLO. */
  private static double argmax(NavigableMap<Double, Double> curve) {
    double best = Double.NEGATIVE_INFINITY;
    double at = Double.NaN;
    for (Map.Entry<Double, Double> e : curve.entrySet()) {
      if (e.getValue() > best) {
        best = e.getValue();
        at = e.getKey();
      }
    }
    return best > 0 ? at : Double.NaN;
  }

  /**
   * The next rate of a bisection for the highest offered rate at which a curve keeps at least
   * {@code target} of its requests within SLO, sampled at {@code attainment} (rate -> share within
   * SLO); empty when it is located to within {@code resolution} (see {@link #attainmentRate}) or
   * cannot move (every sampled rate misses the target down to {@code floor}, or meets it up to
   * {@code cap}). Bounds: {@code hi} = the lowest sampled rate below target, {@code lo} = the
   * highest sampled rate under it that meets it; outside a bracket the search steps a factor 2.
   */
  public static List<Double> bisectAttainment(NavigableMap<Double, Double> attainment, double target, double resolution,
      double floor, double cap) {
    if (attainment.isEmpty()) return List.of();
    Double hi = null;
    for (Map.Entry<Double, Double> e : attainment.entrySet()) {
      if (e.getValue() < target) {
        hi = e.getKey();
        break;
      }
    }
    double x;
    if (hi == null) {
      double top = attainment.lastKey();
      if (top >= cap) return List.of();
      x = Math.min(top * 2, cap);
    } else {
      Double lo = null;
      for (Map.Entry<Double, Double> e : attainment.headMap(hi, false).descendingMap().entrySet()) {
        if (e.getValue() >= target) {
          lo = e.getKey();
          break;
        }
      }
      if (lo == null) {
        if (hi <= floor) return List.of();
        x = Math.max(hi / 2, floor);
      } else {
        if (hi / lo <= resolution * (1 + 1e-9)) return List.of();
        x = Math.sqrt(lo * hi);
      }
    }
    double r = round(x);
    return r > 0 && !attainment.containsKey(r) ? List.of(r) : List.of();
  }

  /**
   * The highest sampled rate at which the curve keeps at least {@code target} within SLO below
   * the lowest rate that misses it (the {@code lo} of {@link #bisectAttainment}); NaN when no
   * sampled rate meets it.
   */
  public static double attainmentRate(NavigableMap<Double, Double> attainment, double target) {
    Double hi = null;
    for (Map.Entry<Double, Double> e : attainment.entrySet()) {
      if (e.getValue() < target) {
        hi = e.getKey();
        break;
      }
    }
    NavigableMap<Double, Double> below = hi == null ? attainment : attainment.headMap(hi, false);
    for (Map.Entry<Double, Double> e : below.descendingMap().entrySet()) if (e.getValue() >= target) return e.getKey();
    return Double.NaN;
  }

  /** Four significant digits: rates appear in tables and must compare equal across runs. */
  public static double round(double x) {
    return AuditPlan.round(x);
  }
}
