package io.smetric.audit.replay.bench;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A synthetic agent workload for benchmarks until the generator lands: sessions open as a
 * Poisson stream, start from one of 20 shared system prompts (2-4k tokens), and each turn appends
 * the previous output plus a tool result (300-1500 tokens) to the history; turns per session are
 * geometric (mean 25), think time exponential (mean 8 s). 16-token blocks, chained as ingest
 * would; each prompt's last, partial block changes id when the history grows. Streams straight
 * into the builder so that only the segment tree is held in memory.
 */
public final class AgentTraceSynth {
  private AgentTraceSynth() {}

  /** Receives each synthetic request; {@code chained[0..count)} is only valid during the call. */
  public interface Sink {
    void accept(String id, String session, int turn, double arrival, int input, int output, int blockSize,
        long[] chained, int count, long seq);
  }

  public static ReplayTrace build(int requests, double sessionsPerSecond, long seed, boolean keepBlocks) {
    ReplayTraceBuilder tb = new ReplayTraceBuilder("synthetic-agent", keepBlocks);
    generate(requests, sessionsPerSecond, seed,
        (id, ss, turn, at, in, out, bs, c, n, seq) -> tb.add(id, ss, turn, at, in, out, bs, c, n, seq));
    return tb.build();
  }

  public static void generate(int requests, double sessionsPerSecond, long seed, Sink sink) {
    final int b = 16;
    SplittableRandom rnd = new SplittableRandom(seed);
    long[][] templates = new long[20][];
    for (int k = 0; k < templates.length; k++) {
      int tokens = 2000 + rnd.nextInt(2001);
      long[] raw = new long[tokens / b];
      for (int i = 0; i < raw.length; i++) raw[i] = rnd.nextLong();
      templates[k] = BlockChain.chain(raw);
    }
    final class Session {
      int id;
      int turn;
      int turns;
      long[] full = new long[256];
      int nFull;
      int tokens;
      double next;
    }
    PriorityQueue<Session> pq = new PriorityQueue<>((x, y) -> x.next != y.next ? Double.compare(x.next, y.next) : Integer.compare(x.id, y.id));
    double nextOpen = 0;
    int opened = 0;
    long[] prompt = new long[1 << 16];
    for (int r = 0; r < requests; r++) {
      while (pq.isEmpty() || nextOpen <= pq.peek().next) {
        Session s = new Session();
        s.id = opened++;
        s.turns = 1 + (int) Math.floor(Math.log(1 - rnd.nextDouble()) / Math.log(1 - 1.0 / 25));
        long[] tpl = templates[rnd.nextInt(templates.length)];
        System.arraycopy(tpl, 0, s.full, 0, tpl.length);
        s.nFull = tpl.length;
        s.tokens = tpl.length * b;
        s.next = nextOpen;
        pq.add(s);
        nextOpen += -Math.log(1 - rnd.nextDouble()) / sessionsPerSecond;
      }
      Session s = pq.poll();
      // the new user message or tool result
      int add = s.turn == 0 ? 100 + rnd.nextInt(400) : 300 + rnd.nextInt(1201);
      int before = s.tokens;
      s.tokens += add;
      int fullNow = s.tokens / b;
      if (s.full.length < fullNow + 1) s.full = java.util.Arrays.copyOf(s.full, Math.max(fullNow + 1, s.full.length * 2));
      long c = s.nFull == 0 ? BlockChain.SEED : s.full[s.nFull - 1];
      for (int i = s.nFull; i < fullNow; i++) {
        c = BlockChain.mix64(c, rnd.nextLong());
        s.full[i] = c;
      }
      s.nFull = fullNow;
      int nb = fullNow;
      if (prompt.length < nb + 1) prompt = new long[nb * 2];
      System.arraycopy(s.full, 0, prompt, 0, nb);
      if (s.tokens % b != 0) prompt[nb++] = BlockChain.mix64(c, rnd.nextLong()); // partial last block
      int out = 50 + rnd.nextInt(351);
      sink.accept("r" + r, "s" + s.id, s.turn, s.next, s.tokens, out, b, prompt, nb, r);
      // the response joins the history before the next turn
      s.tokens += out;
      s.turn++;
      if (s.turn < s.turns) {
        s.next += 2.0 + -Math.log(1 - rnd.nextDouble()) * 8.0;
        pq.add(s);
      }
      if (before < 0) throw new IllegalStateException();
    }
  }
}
