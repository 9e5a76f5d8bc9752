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
    if (settled(lo, hi, max)) return OptionalInt.empty();
    // the guess first, when what is known (e.g. a failure carried over from a lower traffic) leaves it open
    int s = Math.max(1, Math.min(start, max));
    if (!tested.containsKey(s) && (lo == null || s > lo) && (hi == null || s < hi)) return OptionalInt.of(s);
    if (hi == null) return OptionalInt.of(Math.min(lo * 2, max));
    if (lo == null) return OptionalInt.of(Math.max(1, hi / 2));
    return OptionalInt.of(lo + (hi - lo) / 2);
  }

  /**
   * Whether nothing is left to test: a pass next to a fail (the answer), a fail at the cap (none
   * within it), or a pass at 1.
   */
  private static boolean settled(Integer lo, Integer hi, int max) {
    return (hi != null && lo != null && hi - lo <= 1) || (hi == null && lo != null && lo >= max) || (lo == null && hi != null && hi <= 1);
  }

  /**
   * The next count to test when {@code guess} is expected to sit at or next to the answer (another
   * router's answer at the same traffic, or a point estimate's neighbours on a bootstrap
   * replicate): test the guess, then step away from it by 1, 2, 4, ... counts in the direction the
   * results point (guess - 1, guess - 3, guess - 7 below a pass; guess + 1, + 3, + 7 above a
   * fail) until a pass sits above a fail, then bisect. A guess off by d costs about 2 log2(d) + 2
   * runs, against about log2 of the whole bracket for {@link #next}: cheaper when the guess is
   * good, dearer when it is not. Empty when the answer is located or cannot be within [1, {@code max}].
   */
  public static OptionalInt nextNear(NavigableMap<Integer, Boolean> tested, int guess, int max) {
    if (max < 1) throw new IllegalArgumentException("max must be >= 1, got " + max);
    Integer hi = lowestPass(tested);
    Integer lo = highestFailBelow(tested, hi);
    if (settled(lo, hi, max)) return OptionalInt.empty();
    int g = Math.max(1, Math.min(guess, max));
    if (!tested.containsKey(g) && (lo == null || g > lo) && (hi == null || g < hi)) return OptionalInt.of(g);
    // keep stepping while the step lands inside what is known (a failure carried over from a lower
    // traffic must not turn the search into a bisection of the whole gap)
    if (hi != null && hi <= g) {
      int c = hi - Math.max(1, g - hi + 1);
      if (lo == null) return OptionalInt.of(Math.max(1, c));
      if (c > lo) return OptionalInt.of(c);
    } else if (lo != null && lo >= g) {
      int c = lo + Math.max(1, lo - g + 1);
      if (hi == null) return OptionalInt.of(Math.min(max, c));
      if (c < hi) return OptionalInt.of(c);
    }
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
