package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.TraceBatch;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

/**
 * Runs the segment plan over a stream of requests in trace order: each request's regions go to
 * the {@link SegmentTask} that {@link Routing} names, and the request-level block counts (used
 * blocks by minute and turn, block-count findings) are summed on the way. With one task everything
 * happens on the calling thread; with several, the calling thread reads and routes and each task
 * runs on its own thread, fed batch by batch (bounded queues: memory holds a few batches, not the
 * trace). A Spark task runs the same code on its partition's share ({@link #task}).
 */
final class SegmentReuse {
  private SegmentReuse() {}

  /** Checks (arrival_s, seq) order across batches. */
  static final class OrderCheck {
    private double lastA = Double.NEGATIVE_INFINITY;
    private long lastSeq = Long.MIN_VALUE;

    void check(TraceBatch b, String where) {
      for (int i = 0; i < b.n; i++) {
        double a = b.arrival[i];
        long q = b.seq[i];
        if (!Double.isFinite(a)) throw new BadInputException(where, -1, Canonical.ARRIVAL_S, "not finite: " + a);
        if (a < lastA || (a == lastA && q < lastSeq)) {
          throw new Characterization.UnsortedInput("request " + b.requestId[i] + " of " + where + " is out of (arrival_s, seq) order");
        }
        lastA = a;
        lastSeq = q;
      }
    }
  }

  /** Request-level block counts of one batch (all requests with blocks) into {@code out}. */
  static void countRequests(TraceBatch b, ReuseSums out) {
    for (int i = 0; i < b.n; i++) {
      if (!b.hasBlocks(i)) continue;
      int exp = TraceBatch.expectedBlocks(b.input[i], b.blockSize[i]);
      out.request((long) Math.floor(b.arrival[i] / 60.0), b.turn[i], Math.min(b.idLen[i], exp), b.idLen[i], exp);
    }
  }

  /**
   * The regions of batch {@code b} that task {@code part} handles, as (row, from, to) triples; the
   * session keys are computed once per row in {@code keys}.
   */
  static int[] regions(TraceBatch b, Routing routing, int part) {
    int[] out = new int[16];
    int k = 0;
    for (int i = 0; i < b.n; i++) {
      int n = b.usedBlocks(i);
      if (n == 0) continue;
      int d = routing.cut(b.ids[i], b.idOff[i], n);
      if (d > 0 && routing.owner(b.id(i, 0)) == part) {
        if (k + 3 > out.length) out = java.util.Arrays.copyOf(out, out.length * 2);
        out[k++] = i;
        out[k++] = 0;
        out[k++] = d;
      }
      if (d < n && routing.owner(b.id(i, d)) == part) {
        if (k + 3 > out.length) out = java.util.Arrays.copyOf(out, out.length * 2);
        out[k++] = i;
        out[k++] = d;
        out[k++] = n;
      }
    }
    return java.util.Arrays.copyOf(out, k);
  }

  /** The 64-bit session key of the block passes (a request without a session is a session of its own). */
  static long sessionKey(TraceBatch b, int i) {
    return b.sessionId[i] == null ? Hashing.lonelyRequest(b.requestId[i].getBytes(java.nio.charset.StandardCharsets.UTF_8))
        : Hashing.session(b.sessionId[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** A root session's turn-0 request: turn 0, no parent, not a sub-agent (forks never make templates). */
  static boolean rootTurn0(TraceBatch b, int i) {
    return b.sessionId[i] != null && b.turn[i] == 0 && b.parentId[i] == null
        && !io.smetric.audit.contract.Canonical.TRIGGER_SUBAGENT.equals(b.trigger[i]);
  }

  static long[] sessionKeys(TraceBatch b) {
    long[] keys = new long[b.n];
    for (int i = 0; i < b.n; i++) if (b.usedBlocks(i) > 0) keys[i] = sessionKey(b, i);
    return keys;
  }

  private static void feed(SegmentTask t, TraceBatch b, int[] reg, long[] keys) {
    for (int q = 0; q < reg.length; q += 3) t.add(b, reg[q], reg[q + 1], reg[q + 2], keys[reg[q]]);
  }

  /**
   * One task's share of a whole stream (a Spark task reading every file): its regions, and, for
   * task 0 only, the request-level counts. The stream is checked for order.
   */
  static ReuseSums task(Iterator<TraceBatch> batches, Routing routing, int part, int templateMinSessions, String where) {
    SegmentTask t = new SegmentTask();
    ReuseSums sums = new ReuseSums();
    OrderCheck order = new OrderCheck();
    while (batches.hasNext()) {
      TraceBatch b = batches.next();
      order.check(b, where);
      if (part == 0) countRequests(b, sums);
      int[] reg = regions(b, routing, part);
      if (reg.length > 0) feed(t, b, reg, sessionKeys(b));
    }
    t.finish(templateMinSessions, sums);
    return sums;
  }

  /**
   * The whole stream in this process: {@code routing.parts} tasks, each on its own thread when
   * there are several. {@code perBatch} sees every batch first (request-level statistics).
   */
  static ReuseSums local(Iterator<TraceBatch> batches, Routing routing, int templateMinSessions, String where,
      Consumer<TraceBatch> perBatch) {
    ReuseSums sums = new ReuseSums();
    OrderCheck order = new OrderCheck();
    int parts = routing.parts;
    if (parts == 1) {
      SegmentTask t = new SegmentTask();
      while (batches.hasNext()) {
        TraceBatch b = batches.next();
        order.check(b, where);
        perBatch.accept(b);
        countRequests(b, sums);
        feed(t, b, regions(b, routing, 0), sessionKeys(b));
      }
      t.finish(templateMinSessions, sums);
      return sums;
    }
    List<Worker> workers = new ArrayList<>();
    for (int p = 0; p < parts; p++) workers.add(new Worker(templateMinSessions));
    for (Worker w : workers) w.start();
    RuntimeException failure = null;
    try {
      while (batches.hasNext()) {
        TraceBatch b = batches.next();
        order.check(b, where);
        perBatch.accept(b);
        countRequests(b, sums);
        long[] keys = sessionKeys(b);
        int[][] reg = split(b, routing, keys);
        for (int p = 0; p < parts; p++) {
          if (reg[p].length > 0) workers.get(p).put(new Work(b, reg[p], keys));
        }
        for (Worker w : workers) w.rethrow();
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    for (Worker w : workers) w.put(Work.END);
    for (Worker w : workers) {
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    Phases.threadCpu("reader");
    if (failure != null) throw failure;
    for (Worker w : workers) {
      w.rethrow();
      sums.merge(w.out);
    }
    return sums;
  }

  /** Regions of every task in one pass over the batch (one cut per row). */
  private static int[][] split(TraceBatch b, Routing routing, long[] keys) {
    int parts = routing.parts;
    int[][] out = new int[parts][16];
    int[] k = new int[parts];
    for (int i = 0; i < b.n; i++) {
      int n = b.usedBlocks(i);
      if (n == 0) continue;
      int d = routing.cut(b.ids[i], b.idOff[i], n);
      if (d > 0) k = push(out, k, routing.owner(b.id(i, 0)), i, 0, d);
      if (d < n) k = push(out, k, routing.owner(b.id(i, d)), i, d, n);
    }
    for (int p = 0; p < parts; p++) out[p] = java.util.Arrays.copyOf(out[p], k[p]);
    return out;
  }

  private static int[] push(int[][] out, int[] k, int p, int i, int from, int to) {
    if (k[p] + 3 > out[p].length) out[p] = java.util.Arrays.copyOf(out[p], out[p].length * 2);
    out[p][k[p]++] = i;
    out[p][k[p]++] = from;
    out[p][k[p]++] = to;
    return k;
  }

  private record Work(TraceBatch b, int[] regions, long[] keys) {
    static final Work END = new Work(null, null, null);
  }

  private static final class Worker extends Thread {
    private final BlockingQueue<Work> queue = new ArrayBlockingQueue<>(4);
    private final int k;
    final ReuseSums out = new ReuseSums();
    private volatile Throwable error;

    Worker(int k) {
      super("segment-task");
      setDaemon(true);
      this.k = k;
    }

    void put(Work w) {
      try {
        queue.put(w);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }

    void rethrow() {
      Throwable e = error;
      if (e instanceof RuntimeException re) throw re;
      if (e instanceof Error er) throw er;
      if (e != null) throw new IllegalStateException(e);
    }

    @Override
    public void run() {
      SegmentTask t = new SegmentTask();
      boolean ended = false;
      try {
        while (true) {
          Work w = queue.take();
          if (w == Work.END) {
            ended = true;
            break;
          }
          feed(t, w.b(), w.regions(), w.keys());
        }
        Phases.threadCpu(getName() + " fed");
        t.finish(k, out);
        Phases.threadCpu(getName() + " finished");
      } catch (Throwable e) {
        error = e;
        // keep draining so that the reader never blocks on a full queue
        try {
          while (!ended && queue.take() != Work.END) {
            // discard
          }
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
