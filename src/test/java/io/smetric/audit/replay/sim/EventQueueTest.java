package io.smetric.audit.replay.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The event queue pops in (time, insertion) order whatever mix of its two lanes the pushes take:
 * checked against java.util.PriorityQueue on random interleavings of pushes and pops, with
 * timeout-like events (now + a long delay, nearly ascending), near-future events and ties.
 */
class EventQueueTest {
  private record Ev(double time, long seq, int type, int a, int b) {}

  @Test
  void popsInTimeThenInsertionOrder_likeOneHeap() {
    for (long seed = 1; seed <= 30; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      EventQueue q = new EventQueue();
      PriorityQueue<Ev> ref = new PriorityQueue<>((x, y) -> x.time() != y.time() ? Double.compare(x.time(), y.time())
          : Long.compare(x.seq(), y.seq()));
      long seq = 0;
      double now = 0;
      int popped = 0;
      for (int step = 0; step < 20_000; step++) {
        if (ref.isEmpty() || rnd.nextInt(100) < 52) {
          double tm = switch (rnd.nextInt(4)) {
            case 0 -> now + 600 - rnd.nextDouble() * (seed % 3 == 0 ? 50 : 1); // timeouts: nearly ascending
            case 1 -> now; // released now (ties with other events at the same time)
            case 2 -> now + rnd.nextInt(3) * 0.5; // step ends on a grid: ties
            default -> now + rnd.nextDouble() * 10;
          };
          int ty = rnd.nextInt(6);
          int a = rnd.nextInt(1000);
          int b = rnd.nextInt(1000);
          q.push(tm, ty, a, b);
          ref.add(new Ev(tm, seq++, ty, a, b));
        } else {
          Ev e = ref.poll();
          assertEquals(e.time(), q.peekTime(), "seed " + seed);
          q.pop();
          String ctx = "seed " + seed + " pop " + popped++;
          assertEquals(e.time(), q.t, ctx);
          assertEquals(e.type(), q.evType, ctx);
          assertEquals(e.a(), q.evA, ctx);
          assertEquals(e.b(), q.evB, ctx);
          now = e.time();
        }
        assertEquals(ref.isEmpty(), q.isEmpty());
      }
      assertTrue(popped > 5_000, "too few pops to say anything: " + popped);
    }
  }
}
