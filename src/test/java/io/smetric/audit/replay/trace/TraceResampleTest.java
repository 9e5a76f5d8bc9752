package io.smetric.audit.replay.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.testing.Traces;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Bootstrap replicates over session trees. Hand-made trace (16-token blocks; block 1 is a system
 * prompt shared by sessions A and B):
 *
 * <pre>
 *   tree  request  session  arrival  blocks
 *   0     a0       A        0        1 2
 *   0     a1       A        10       1 2 3
 *   1     b0       B        20       1 11
 *   1     b1       B        30       1 11 12
 *   2     z        -        40       21
 * </pre>
 *
 * Draw {0, 0, 2}: slot 0 (start 0) holds A, slot 1 (start 20) holds A again, slot 2 (start 40)
 * holds z. Replay order: a0 0, a1 10, a0' 20, a1' 30, z 40. The second copy of A gets its own
 * copies of A's own segments ({2} and {3}); the system prompt {1} stays shared with the first.
 */
class TraceResampleTest {
  private static ReplayTrace trace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 4, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 10, 48, 4, 1, 2, 3)
        .req("b0", "B", null, 0, "user", 20, 32, 4, 1, 11)
        .req("b1", "B", "b0", 1, "tool", 30, 48, 4, 1, 11, 12)
        .req("z", null, null, null, "user", 40, 16, 4, 21);
    return ReplayTraceBuilder.fromRecords(b.records(), false);
  }

  @Test
  void sessionTrees_handMade() {
    assertArrayEquals(new int[] {0, 0, 1, 1, 2}, trace().sessionTrees());
  }

  @Test
  void treeDrawnTwice_copiesShareOnlyTheSharedPrefix() {
    ReplayTrace t = trace();
    ReplayTrace r = TraceResample.ofDraw(t, new int[] {0, 0, 2});
    assertEquals(5, r.n);
    assertArrayEquals(new double[] {0, 10, 20, 30, 40}, r.arrival, 0.0);
    assertArrayEquals(new int[] {32, 48, 32, 48, 16}, r.input);
    // two sessions (A and its copy), z has none
    assertEquals(2, r.sessions);
    assertArrayEquals(new int[] {0, 0, 1, 1, -1}, r.session);
    assertNotEquals(r.sessionHash[0], r.sessionHash[1]);
    assertArrayEquals(new int[] {-1, 0, -1, 2, -1}, r.prevInSession);
    assertArrayEquals(new int[] {0, 0, 2, 2, -1}, r.sessionFirst);
    assertArrayEquals(new int[] {0, 2, 0, 2, 0}, r.estHitBlocks);
    // within a copy the history is shared; across the copies only the system prompt block
    assertEquals(2, r.commonBlocks(0, 1));
    assertEquals(2, r.commonBlocks(2, 3));
    assertEquals(1, r.commonBlocks(0, 2));
    assertEquals(1, r.commonBlocks(1, 3));
    // A's own segments {2} and {3} are copied once: two more segments
    assertEquals(t.segments + 2, r.segments);
    // replayed on one unbounded instance: a0' hits only the shared block (16 tokens), a1' its own copy's 2 blocks
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.instances = 1;
      sb.localBlocks = -1L;
    });
    SimOutcome o = new Simulator(r, s, Policies.LEAST_LOAD.create(s)).run();
    assertArrayEquals(new int[] {0, 2, 1, 2, 0}, o.localHitBlocks);
  }

  /**
   * A tree placed so late that it runs past the trace's window (its last arrival, 40) wraps to the
   * window's start, as a session the trace caught in progress. Draw {2, 1, 1}: slot 0 (start 0)
   * holds z, slot 1 (start 20) B, slot 2 (start 40) B again: b0'' at 40, b1'' at 50 - 40 = 10.
   * Replay order: z 0, b1'' 10, b0 20, b1 30, b0'' 40. b1'' is a session of its own with no
   * previous request, no turn-0 request and no history estimate, on its own copies of B's own
   * segments (so it shares only the system prompt with b0'' and b1): B's 2 own segments are copied
   * twice (slot 2 before and after the wrap).
   */
  @Test
  void treePastTheWindow_wrapsToItsStart_asASessionOfItsOwn() {
    ReplayTrace t = trace();
    ReplayTrace r = TraceResample.ofDraw(t, new int[] {2, 1, 1});
    assertEquals(5, r.n);
    assertArrayEquals(new double[] {0, 10, 20, 30, 40}, r.arrival, 0.0);
    assertArrayEquals(new int[] {16, 48, 32, 48, 32}, r.input);
    assertEquals(3, r.sessions);
    assertArrayEquals(new int[] {-1, 2, 0, 0, 1}, r.session);
    assertArrayEquals(new int[] {-1, -1, -1, 2, -1}, r.prevInSession);
    assertArrayEquals(new int[] {-1, -1, 2, 2, 4}, r.sessionFirst);
    assertArrayEquals(new int[] {0, 0, 0, 2, 0}, r.estHitBlocks);
    assertEquals(t.segments + 4, r.segments);
    assertEquals(1, r.commonBlocks(1, 3));
    assertEquals(1, r.commonBlocks(1, 4));
    assertEquals(2, r.commonBlocks(2, 3));
    assertEquals(4, r.sessionTreeCount(), "the wrapped piece is a tree of its own");
    // one unbounded instance: b1'' finds nothing (first use of the system prompt), b0 the system
    // prompt b1'' computed, b1 its history, b0'' only the system prompt
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.instances = 1;
      sb.localBlocks = -1L;
    });
    SimOutcome o = new Simulator(r, s, Policies.LEAST_LOAD.create(s)).run();
    assertArrayEquals(new int[] {0, 0, 1, 2, 1}, o.localHitBlocks);
  }

  @Test
  void randomReplicates_keepTreeStartsOffsetsAndStructure() {
    Traces.Builder b = Traces.builder().blockSize(16);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
    // 20 sessions of 1-4 turns, each extending its own history after a shared system block
    long id = 1000;
    for (int s = 0; s < 20; s++) {
      double t0 = s * 7.0;
      int turns = 1 + rnd.nextInt(4);
      long[] hist = {1};
      for (int k = 0; k < turns; k++) {
        long[] next = Arrays.copyOf(hist, hist.length + 1);
        next[hist.length] = id++;
        b.req("s" + s + "-" + k, "S" + s, k == 0 ? null : "s" + s + "-" + (k - 1), k, k == 0 ? "user" : "tool",
            t0 + 3 * k, 16 * next.length, 8, next);
        hist = next;
      }
    }
    ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), false);
    for (long seed = 1; seed <= 5; seed++) {
      ReplayTrace r = TraceResample.of(t, TraceResample.replicateSeed(42, (int) seed));
      // a tree placed past the window's end (the last arrival) wraps to its start as a tree of its own
      int trees = r.sessionTreeCount();
      assertTrue(trees >= 20);
      double end = t.arrival[t.n - 1];
      double[] starts = new double[trees];
      Arrays.fill(starts, Double.POSITIVE_INFINITY);
      int[] tree = r.sessionTrees();
      for (int i = 0; i < r.n; i++) {
        assertTrue(r.arrival[i] >= 0 && r.arrival[i] <= end, "inside the trace's window");
        starts[tree[i]] = Math.min(starts[tree[i]], r.arrival[i]);
        if (i > 0) assertTrue(r.arrival[i - 1] <= r.arrival[i], "in arrival order");
        int p = r.prevInSession[i];
        if (p >= 0) {
          assertEquals(r.session[i], r.session[p]);
          assertEquals(3.0, r.arrival[i] - r.arrival[p], 1e-9, "think time kept");
          assertEquals(r.estHitBlocks[i], r.commonBlocks(i, p));
        }
        // different sessions share exactly the system prompt block
        for (int q = 0; q < i; q++) if (r.session[q] != r.session[i]) assertEquals(1, r.commonBlocks(i, q));
      }
      // the trace's 20 tree starts all hold a tree; a wrapped piece starts elsewhere in the window
      for (int k = 0; k < 20; k++) {
        boolean found = false;
        for (double x : starts) found |= Math.abs(x - 7.0 * k) < 1e-9;
        assertTrue(found, "tree start " + 7.0 * k + " kept");
      }
      // deterministic in the seed
      ReplayTrace again = TraceResample.of(t, TraceResample.replicateSeed(42, (int) seed));
      assertArrayEquals(r.arrival, again.arrival, 0.0);
      assertArrayEquals(r.pathNodes, again.pathNodes);
    }
  }

  /**
   * Equal load (issue 26): three sessions, A (0 s: a0 32+4 tokens, 10 s: a1 48+4), B (20 s: 32+4,
   * 30 s: 48+4), C (40 s: 16+4), 196 prompt+output tokens over the 40 s window, 4.9 tok/s. Draw
   * {0, 0, 0}: A three times, at 0, 20 and 40 (its a1 at 50 wraps to 10, a tree of its own): 264
   * tokens over the same 40 s, 6.6 tok/s, a factor 264 / 196. Run at rate x / factor with the
   * audit's SESSIONS scaling the tree starts stretch by factor / x (offsets kept): 0, 10 (wrapped
   * piece), 20 f / x, 40 f / x; the last arrival (the window's end) 40 f / x, so the replicate
   * offers 264 x / (40 f) = 196 x / 40 tok/s, the trace's own rate at x (whose window is 40 / x).
   */
  @Test
  void offeredTokenFactor_replicateAtRateOverFactor_offersTheTracesTokenRate() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 4, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 10, 48, 4, 1, 2, 3)
        .req("b0", "B", null, 0, "user", 20, 32, 4, 1, 11)
        .req("b1", "B", "b0", 1, "tool", 30, 48, 4, 1, 11, 12)
        .req("c0", "C", null, 0, "user", 40, 16, 4, 21);
    ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), false);
    ReplayTrace r = TraceResample.ofDraw(t, new int[] {0, 0, 0});
    assertEquals(196, TraceResample.offeredTokens(t));
    assertEquals(264, TraceResample.offeredTokens(r));
    double f = TraceResample.offeredTokenFactor(t, r);
    assertEquals(264.0 / 196.0, f, 1e-15);
    for (double x : new double[] {1.0, 2.0, 0.5}) {
      ReplaySettings s = ReplaySettings.defaults().with(sb -> {
        sb.rateScaling = ReplaySettings.RateScaling.SESSIONS;
        sb.rateScale = x;
      });
      double[] orig = new double[t.n];
      Simulator.scaledArrivals(t, s, 0, orig);
      double origRate = 196 / Arrays.stream(orig).max().getAsDouble();
      assertEquals(196 * x / 40, origRate, 1e-12, "the trace at " + x + "x");
      s = s.with(sb -> sb.rateScale = x / f);
      double[] rep = new double[r.n];
      Simulator.scaledArrivals(r, s, 0, rep);
      double[] sorted = rep.clone();
      Arrays.sort(sorted);
      // a0 0 and a1 10 (slot 0, anchored at 0), the wrapped a1'' (its own tree, anchored at 10) at 10 f / x
      assertArrayEquals(new double[] {0, Math.min(10, 10 * f / x), Math.max(10, 10 * f / x), 20 * f / x,
          20 * f / x + 10, 40 * f / x}, sorted, 1e-9, "at " + x + "x");
      assertEquals(origRate, 264 / sorted[sorted.length - 1], 1e-12, "equal offered tokens per second at " + x + "x");
      // without the factor the replicate offers 264 / 196 = 1.35 times the trace's rate
      s = s.with(sb -> sb.rateScale = x);
      Simulator.scaledArrivals(r, s, 0, rep);
      assertEquals(origRate * f, 264 / Arrays.stream(rep).max().getAsDouble(), 1e-12);
    }
  }
}
