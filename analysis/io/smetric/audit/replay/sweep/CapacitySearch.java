package io.smetric.audit.replay.sweep;

import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalInt;

/**
 * The smallest instance count that passes a pass/fail test, found by a bracket and a bisection on
 * the integer count (issue 29): start at a guess; while nothing passes, double the largest count
 * that failed (up to a cap); while nothing fails below the smallest count that passed, halve it
 * (down to 1); then bisect between the largest failing count and the smallest passing one until
 * they are adjacent. Assumes the test is monotone in the count (more instances never turn a pass
 * into a fail), which holds for the replay's cluster in the usual case and is an assumption in
 * general: a non-monotone test still ends, at a count that passes with its neighbour below failing.
 */
public final class CapacitySearch {
  private CapacitySearch() {}

  /**
   * The next count to test given the counts tested so far (count -> passed), or empty when the
   * answer is located ({@link #answer}) or cannot be within [1, {@code max}].
   */
  public static OptionalInt next(NavigableMap<Integer, Boolean> tested, int start, int max) {
    if (max < 1) throw new IllegalArgumentException("max must be >= 1, got " + max);
    Integer hi = lowestPass(tested);
    Integer lo = highestFailBelow(tested, hi);
    if (hi != null && lo != null && hi - lo <= 1) return OptionalInt.empty();
    if (hi == null && lo != null && lo >= max) return OptionalInt.empty();
    if (lo == null && hi != null && hi <= 1) return OptionalInt.empty();
    // the guess first, when what is known (e.g. a failure carried over from a lower traffic) leaves it open
    int s = Math.max(1, Math.min(start, max));
    if (!tested.containsKey(s) && (lo == null || s > lo) && (hi == null || s < hi)) return OptionalInt.of(s);
    if (hi == null) return OptionalInt.of(Math.min(lo * 2, max));
    if (lo == null) return OptionalInt.of(Math.max(1, hi / 2));
    return OptionalInt.of(lo + (hi - lo) / 2);
  }

  /** The smallest passing count whose neighbour below failed (or is 0), null when not located. */
  public static Integer answer(NavigableMap<Integer, Boolean> tested) {
    Integer hi = lowestPass(tested);
    if (hi == null) return null;
    Integer lo = highestFailBelow(tested, hi);
    return hi == 1 || (lo != null && hi - lo == 1) ? hi : null;
  }

  /** The largest failing count below the lowest pass (below everything when nothing passed), null when none. */
  public static Integer highestFailBelow(NavigableMap<Integer, Boolean> tested, Integer hi) {
    NavigableMap<Integer, Boolean> below = hi == null ? tested : tested.headMap(hi, false);
    for (Map.Entry<Integer, Boolean> e : below.descendingMap().entrySet()) if (!e.getValue()) return e.getKey();
    return null;
  }

  public static Integer lowestPass(NavigableMap<Integer, Boolean> tested) {
    for (Map.Entry<Integer, Boolean> e : tested.entrySet()) if (e.getValue()) return e.getKey();
    return null;
  }
}
