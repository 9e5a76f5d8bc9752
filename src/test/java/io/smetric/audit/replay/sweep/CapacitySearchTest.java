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
    return drive(tested, pass, t -> CapacitySearch.next(t, start, max));
  }

  /** Tests the counts a search rule asks for until it stops; returns them in order. */
  private static List<Integer> drive(TreeMap<Integer, Boolean> tested, IntPredicate pass,
      java.util.function.Function<TreeMap<Integer, Boolean>, OptionalInt> rule) {
    List<Integer> calls = new ArrayList<>();
    for (OptionalInt n = rule.apply(tested); n.isPresent(); n = rule.apply(tested)) {
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

  /** Runs {@link CapacitySearch#nextNear} to the end; returns the counts tested, in order. */
  private static List<Integer> searchNear(TreeMap<Integer, Boolean> tested, IntPredicate pass, int guess, int max) {
    return drive(tested, pass, t -> CapacitySearch.nextNear(t, guess, max));
  }

  /** A guess on the answer: 37 passes, 36 fails, two calls (the bracket search from 20 took six). */
  @Test
  void nearGuessExact_twoCalls() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(37, 36), searchNear(t, n -> n >= 37, 37, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }

  /** Guess 40, three above 37: 40, 39 (1 below), 37 (2 further) pass, 33 (4 further) fails; bisection 35, 36 fail. */
  @Test
  void nearGuessAbove_stepsDownDoublingThenBisects() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(40, 39, 37, 33, 35, 36), searchNear(t, n -> n >= 37, 40, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }

  /** Guess 34, three below 37: 34, 35 fail, 37 (2 above 35) passes, then 36 fails: four calls. */
  @Test
  void nearGuessBelow_stepsUpDoublingThenBisects() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(34, 35, 37, 36), searchNear(t, n -> n >= 37, 34, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }

  /** A failure known beforehand (36, carried over) and a guess of 38: 38 and 37 pass, 36 is known: two calls. */
  @Test
  void nearImpliedFailure_bounds() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    t.put(36, false);
    assertEquals(List.of(38, 37), searchNear(t, n -> n >= 37, 38, 256));
    assertEquals(37, CapacitySearch.answer(t));
  }

  /** Nothing passes up to the cap 10 from guess 5: 5, 6, 8, 10 fail (the step capped), no answer. */
  @Test
  void nearNothingPassesUpToCap_noAnswer() {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    assertEquals(List.of(5, 6, 8, 10), searchNear(t, n -> false, 5, 10));
    assertNull(CapacitySearch.answer(t));
  }

  /**
   * The answers do not depend on the search: for every threshold 1..80 and every guess 1..120,
   * the stepping search from the guess and the bracket search from it both end at the threshold
   * (monotone pass functions; the cap 256 above every threshold).
   */
  @Test
  void nearAndBracket_sameAnswerForEveryThresholdAndGuess() {
    for (int a = 1; a <= 80; a++) {
      for (int g = 1; g <= 120; g++) {
        int th = a;
        TreeMap<Integer, Boolean> near = new TreeMap<>();
        searchNear(near, n -> n >= th, g, 256);
        TreeMap<Integer, Boolean> bracket = new TreeMap<>();
        search(bracket, n -> n >= th, g, 256);
        assertEquals(a, CapacitySearch.answer(near), "threshold " + a + ", guess " + g);
        assertEquals(a, CapacitySearch.answer(bracket), "threshold " + a + ", guess " + g);
      }
    }
  }

  /**
   * With a cap, the answer still does not depend on the start: for every threshold 1..80 and
   * every guess 1..60, the stepping search with the cap 40 ends at the threshold when it is within
   * the cap and without an answer when it is not (the interval's replicates use the cap of the
   * point estimate whatever their first guess, so a second-wave guess cannot change an answer).
   */
  @Test
  void nearWithCap_sameAnswerFromAnyGuess() {
    for (int a = 1; a <= 80; a++) {
      for (int g = 1; g <= 60; g++) {
        int th = a;
        TreeMap<Integer, Boolean> near = new TreeMap<>();
        searchNear(near, n -> n >= th, g, 40);
        assertEquals(a <= 40 ? Integer.valueOf(a) : null, CapacitySearch.answer(near), "threshold " + a + ", guess " + g);
      }
    }
  }

  /** The first wave: odd, about sqrt(B), never more than B. */
  @Test
  void firstWave_oddAboutSqrtB() {
    int[][] cases = {{0, 0}, {1, 1}, {2, 1}, {3, 1}, {4, 3}, {10, 3}, {15, 3}, {16, 5}, {100, 11}, {1000, 31}};
    for (int[] c : cases) assertEquals(c[1], Capacity.firstWave(c[0]), "B = " + c[0]);
  }

  /**
   * The second wave's guess, counted by hand with nextNear's costs (from a guess on the answer or
   * 1 below it: 2 runs; 1 above or 2 away: 4): answers 12 13 11 cost 8 from 11 and from 12 (10 from
   * 10 and 13), the tie goes to the median 12. The rule works whichever way the replicates sit:
   * answers 70 70 71 around a point estimate of 72 (fewer needed) give 70 (6 runs; 69: 8, 71: 10);
   * 74 74 75 (more needed) give 74. All three the same (72): 71 and 72 both cost 6, the median wins.
   * Answers not found up to the cap 64 count as 65: the guess is the cap (one failing run each).
   */
  @Test
  void secondWaveGuess_fewestRunsForTheFirstWave() {
    assertEquals(2, Capacity.nearRuns(12, 12, 192));
    assertEquals(2, Capacity.nearRuns(13, 12, 192));
    assertEquals(4, Capacity.nearRuns(11, 12, 192));
    assertEquals(4, Capacity.nearRuns(14, 12, 192));
    assertEquals(12, Capacity.secondWaveGuess(java.util.Arrays.asList(12, 13, 11), 192));
    assertEquals(70, Capacity.secondWaveGuess(java.util.Arrays.asList(70, 70, 71), 1152));
    assertEquals(74, Capacity.secondWaveGuess(java.util.Arrays.asList(74, 74, 75), 1152));
    assertEquals(72, Capacity.secondWaveGuess(java.util.Arrays.asList(72, 72, 72), 1152));
    assertEquals(64, Capacity.secondWaveGuess(java.util.Arrays.asList(null, null, null), 64));
    assertEquals(1, Capacity.nearRuns(65, 64, 64));
  }
}
