package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** The bracket and bisection on the instance count, on monotone pass functions worked by hand. */
class CapacitySearchTest {
  /** Runs the search to the end; returns the counts tested, in order. */
  private static List<Integer> search(TreeMap<Integer, Boolean> tested, IntPredicate pass, int start, int max) {
    List<Integer> calls = new ArrayList<>();
    for (OptionalInt n = CapacitySearch.next(tested, start, max); n.isPresent(); n = CapacitySearch.next(tested, start, max)) {
      int k = n.getAsInt();
      calls.add(k);
      tested.put(k, pass.test(k));
      if (calls.size() > 100) throw new AssertionError("does not end: " + calls);
    }
    return calls;
  }

  /**
   * Answer 37, guess 20: 20 fails, doubled 40 passes; bisection (20, 40) -> 30 fails, (30, 40) ->
   * 35 fails, (35, 40) -> 37 passes, (35, 37) -> 36 fails: adjacent, six calls.
   */
  @Test
  void guessBelow_doublesThenBisects_sixCalls() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(20, 40, 30, 35, 37, 36), search(t, n -> n >= 37, 20, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }

  /** Guess 100 above 37: 100, 50 pass, 25 fails; then 37 P, 31 F, 34 F, 35 F, 36 F: eight calls. */
  @Test
  void guessAbove_halvesThenBisects_eightCalls() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(100, 50, 25, 37, 31, 34, 35, 36), search(t, n -> n >= 37, 100, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }

  /** Everything passes: 5, 2, 1 pass, and 1 is the answer (nothing below it). */
  @Test
  void allPass_answerIsOne() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(5, 2, 1), search(t, n -> true, 5, 64));
    assertEquals(1, CapacitySearch.answer(t));
  }

  /** Nothing passes up to the cap 64: 20, 40, 64 fail, then it stops without an answer. */
  @Test
  void nothingPassesUpToCap_noAnswer() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(20, 40, 64), search(t, n -> false, 20, 64));
    assertNull(CapacitySearch.answer(t));
  }

  /**
   * A failure carried over from a lower traffic (36, not run) bounds the search: guess 45 passes,
   * then (36, 45) -> 40, (36, 40) -> 38, (36, 38) -> 37 pass: four calls, 36 never simulated.
   */
  @Test
  void impliedFailure_boundsTheBisection() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    t.put(36, false);
    assertEquals(List.of(45, 40, 38, 37), search(t, n -> n >= 37, 45, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }
}
