package io.smetric.audit.infer.corpus;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A second, small trace synthesiser written apart from both the project's generator and {@link
 * AgentTraceSimulator}, to measure session inference on a structure neither was tuned on (issue
 * 28 item 8). It is an event-driven agent model:
 *
 * <ul>
 *   <li>a prompt is a list of content segments (id, length) rendered token by token; a token's
 *       value is a hash of (segment id, offset), a block id is a rolling hash over the block's
 *       tokens chained with the previous block's id (the last, partial block too), remapped to
 *       sequential ids as Mooncake's {@code hash_ids};
 *   <li>12 system prompts (300-6,000 tokens, half of them on a shared 400-token base) picked with
 *       Zipf(1.1) popularity, so many sessions share each template;
 *   <li>{@link #popularTaskShare} of sessions start one of a few popular tasks of their template:
 *       identical first prompts across sessions;
 *   <li>turns: tool output (lognormal size, median 400 tokens, sigma 1.5, 5-20,000) after a short
 *       tool time, or a user message after a lognormal think time; every response is echoed in
 *       the next prompt between an assistant header and an end marker, and each prompt ends in the
 *       assistant header (so a follow-up extends its parent's whole prompt);
 *   <li>spawns: a response spawns 1-6 sub-agents, all given one context: fresh (own sub-agent
 *       template + instruction), with the call (the spawner's prompt + the call + instruction), or
 *       cut (the spawner's template + its first j messages + instruction); started together or
 *       staggered; the spawner waits for their results (sync) or goes on (async);
 *   <li>compaction: past a per-session context limit the history is replaced by a summary (the task
 *       kept or not);
 *   <li>sessions arrive as a Poisson stream fast enough for a few hundred to be in flight; the trace
 *       starts after a warm-up, so sessions already running are seen mid-way (missing parents).
 * </ul>
 *
 * Every number here is an assumption chosen to make the cases the issue names frequent, not a
 * measurement of any service.
 */
public final class HeldOutSynth {
  public int requests = 3000;
  public int blockSize = 16;
  public long seed = 7;
  public double sessionRatePerS = 2.0;
  public double popularTaskShare = 0.35;
  public double spawnProb = 0.12;
  public double warmupS = 60;

  private static final long ASSIST = 1, END = 2, TOOL = 3, USER = 4, SUB_BASE = 5;
  private static final int HDR = 4;

  private SplittableRandom rnd;
  private long nextSeg = 1000;
  private final List<Req> out = new ArrayList<>();
  private final PriorityQueue<Ev> events = new PriorityQueue<>(Comparator.<Ev>comparingDouble(e -> e.t).thenComparingLong(e -> e.order));
  private long order;
  private int sessions;
  private final it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap ids = new it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap();

  private static final class Seg {
    final long id;
    final int len;

    Seg(long id, int len) {
      this.id = id;
      this.len = len;
    }
  }

  private final class Agent {
    String session, family;
    List<Seg> template;
    List<Seg> history = new ArrayList<>();
    Seg task;
    int turn, turnsLeft, contextLimit;
    int lastReq = -1;
    /** The request that spawned this agent (its turn 0's parent), -1 for a root. */
    int spawnedBy = -1;
    Agent spawner;
    int pendingChildren;
    List<Seg> results = new ArrayList<>();
    String nextClass = "root";
    boolean nextCompacted;
  }

  private static final class Req {
    double t;
    long order;
    int in, out;
    int[] blocks;
    int parent;
    String session, family, linkClass, trigger;
    int turn;
    boolean fork, compacted;
  }

  private static final class Ev {
    double t;
    long order;
    Agent a;
  }

  public List<CorpusRequest> run() {
    rnd = new SplittableRandom(seed);
    List<List<Seg>> templates = new ArrayList<>();
    Seg base = seg(400);
    double[] weight = new double[12];
    double sum = 0;
    for (int i = 0; i < 12; i++) {
      List<Seg> t = new ArrayList<>();
      if (i % 2 == 0) t.add(base);
      t.add(seg(300 + rnd.nextInt(5700)));
      templates.add(t);
      weight[i] = Math.pow(i + 1, -1.1);
      sum += weight[i];
    }
    List<List<Seg>> popular = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      List<Seg> tasks = new ArrayList<>();
      for (int k = 0; k < 4; k++) tasks.add(seg(taskLen()));
      popular.add(tasks);
    }
    List<List<Seg>> subTemplates = List.of(List.of(seg(700)), List.of(seg(1500)), List.of(seg(250)));
    // enough simulated time for the request count: a session makes ~10 requests
    double horizon = warmupS + requests / (sessionRatePerS * 8.0) + 60;
    for (double t = rnd.nextDouble() * 0.5; t < horizon; t += -Math.log(1 - rnd.nextDouble()) / sessionRatePerS) {
      double u = rnd.nextDouble() * sum;
      int ti = 0;
      while (ti < 11 && (u -= weight[ti]) > 0) ti++;
      Agent a = new Agent();
      a.session = "s" + sessions++;
      a.family = a.session;
      a.template = templates.get(ti);
      a.task = rnd.nextDouble() < popularTaskShare ? popular.get(ti).get(rnd.nextInt(4)) : seg(taskLen());
      a.history.add(new Seg(USER, HDR));
      a.history.add(a.task);
      a.turnsLeft = 1 + geometric(9);
      a.contextLimit = 12_000 + rnd.nextInt(20_000);
      schedule(a, t);
    }
    // sessions go on past the last arrival; what comes after the kept requests is not simulated
    while (!events.isEmpty()) {
      Ev e = events.poll();
      if (e.t > horizon + 120) break;
      step(e, subTemplates);
    }
    return emit();
  }

  private void step(Ev e, List<List<Seg>> subTemplates) {
    Agent a = e.a;
    // compaction: past the context limit the history becomes a summary (task kept half the time)
    if (tokens(a) > a.contextLimit && a.turn > 0) {
      List<Seg> h = new ArrayList<>();
      boolean keep = rnd.nextBoolean();
      if (keep) {
        h.add(new Seg(USER, HDR));
        h.add(a.task);
      }
      h.add(new Seg(USER, HDR));
      h.add(seg(300 + rnd.nextInt(1200)));
      a.history = h;
      a.nextClass = keep ? "compaction_keep_task" : "compaction";
      a.nextCompacted = true;
    }
    List<Seg> prompt = new ArrayList<>(a.template);
    prompt.addAll(a.history);
    prompt.add(new Seg(ASSIST, HDR));
    Req r = new Req();
    r.t = e.t;
    r.order = order++;
    r.in = 0;
    for (Seg s : prompt) r.in += s.len;
    r.blocks = blocks(prompt, r.in);
    r.parent = a.turn == 0 ? a.spawnedBy : a.lastReq;
    r.session = a.session;
    r.family = a.family;
    r.turn = a.turn;
    r.linkClass = a.nextClass;
    r.fork = a.turn == 0 && a.spawnedBy >= 0;
    r.compacted = a.nextCompacted;
    r.trigger = r.fork ? "subagent" : a.turn == 0 ? "user" : "tool";
    boolean spawn = a.turnsLeft > 1 && rnd.nextDouble() < spawnProb;
    r.out = spawn ? 40 + rnd.nextInt(120) : (int) Math.max(5, Math.min(4000, lognormal(250, 0.9)));
    int self = out.size();
    out.add(r);
    a.lastReq = self;
    a.turn++;
    a.turnsLeft--;
    a.nextCompacted = false;
    double end = e.t + 0.2 + rnd.nextDouble() * 1.5 + r.out * 0.02;
    Seg resp = seg(r.out);
    a.history.add(new Seg(ASSIST, HDR));
    a.history.add(resp);
    a.history.add(new Seg(END, 1));
    if (a.turnsLeft <= 0) {
      finish(a, end);
      return;
    }
    if (spawn) {
      int k = 1 + rnd.nextInt(6);
      double mode = rnd.nextDouble();
      boolean together = rnd.nextDouble() < 0.25;
      boolean sync = rnd.nextDouble() < 0.7;
      for (int i = 0; i < k; i++) {
        Agent c = new Agent();
        c.session = "s" + sessions++;
        c.family = a.family;
        c.spawnedBy = self;
        c.turnsLeft = 1 + rnd.nextInt(6);
        c.contextLimit = a.contextLimit;
        Seg instr = seg(30 + rnd.nextInt(400));
        if (mode < 0.35) {
          c.template = subTemplates.get(rnd.nextInt(subTemplates.size()));
          c.nextClass = "fork_fresh";
        } else if (mode < 0.65) {
          c.template = a.template;
          c.history.addAll(a.history); // the spawner's prompt and its call
          c.nextClass = "fork_with_call";
        } else {
          c.template = a.template;
          // cut after a whole message of the history before this response (task at least)
          int h = a.history.size() - 3;
          List<Integer> cuts = new ArrayList<>();
          for (int x = 2; x <= h; x++) {
            long id = x == h ? ASSIST : a.history.get(x).id;
            if (id == ASSIST || id == TOOL || id == USER) cuts.add(x);
          }
          c.history.addAll(a.history.subList(0, cuts.get(rnd.nextInt(cuts.size()))));
          c.nextClass = "fork_cut";
        }
        c.task = instr;
        c.history.add(new Seg(USER, HDR));
        c.history.add(instr);
        if (sync) {
          c.spawner = a;
          a.pendingChildren++;
        }
        schedule(c, end + (together ? 0.001 : 0.05 + rnd.nextDouble() * 1.5));
      }
      a.nextClass = sync ? "join" : "continuation";
      if (!sync) {
        a.history.add(new Seg(TOOL, HDR));
        a.history.add(seg(10 + rnd.nextInt(20)));
        schedule(a, end + 0.1 + rnd.nextDouble());
      }
      return;
    }
    a.nextClass = "continuation";
    if (rnd.nextDouble() < 0.7) {
      a.history.add(new Seg(TOOL, HDR));
      a.history.add(seg((int) Math.max(5, Math.min(20_000, lognormal(400, 1.5)))));
      schedule(a, end + 0.05 + -Math.log(1 - rnd.nextDouble()) * 2.0);
    } else {
      a.history.add(new Seg(USER, HDR));
      a.history.add(seg(20 + rnd.nextInt(280)));
      schedule(a, end + lognormal(20, 1.0));
    }
  }

  /** A finished sub-agent hands its result to a waiting spawner, which resumes when all are back. */
  private void finish(Agent a, double end) {
    Agent s = a.spawner;
    if (s == null) return;
    s.results.add(seg(50 + rnd.nextInt(1500)));
    if (--s.pendingChildren == 0) {
      for (Seg r : s.results) {
        s.history.add(new Seg(TOOL, HDR));
        s.history.add(r);
      }
      s.results.clear();
      schedule(s, end + 0.05 + rnd.nextDouble() * 0.5);
    }
  }

  private void schedule(Agent a, double t) {
    Ev e = new Ev();
    e.t = t;
    e.order = order++;
    e.a = a;
    events.add(e);
  }

  private List<CorpusRequest> emit() {
    List<Req> kept = new ArrayList<>();
    int[] lineOf = new int[out.size()];
    java.util.Arrays.fill(lineOf, -1);
    List<Integer> idx = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) if (out.get(i).t >= warmupS) idx.add(i);
    idx.sort(Comparator.<Integer>comparingLong(i -> Math.round(out.get(i).t * 1000)).thenComparingLong(i -> out.get(i).order));
    if (idx.size() > requests) idx = idx.subList(0, requests);
    for (int i : idx) {
      lineOf[i] = kept.size();
      kept.add(out.get(i));
    }
    List<CorpusRequest> res = new ArrayList<>(kept.size());
    ids.clear();
    for (int line = 0; line < kept.size(); line++) {
      Req r = kept.get(line);
      CorpusRequest c = new CorpusRequest();
      c.line = line;
      c.timestampMs = Math.round(r.t * 1000);
      c.inputTokens = r.in;
      c.outputTokens = r.out;
      c.hashIds = new int[r.blocks.length];
      for (int i = 0; i < r.blocks.length; i++) {
        int id = ids.getOrDefault(r.blocks[i], -1);
        if (id < 0) {
          id = ids.size();
          ids.put(r.blocks[i], id);
        }
        c.hashIds[i] = id;
      }
      c.session = r.session;
      c.parentLine = r.parent >= 0 ? lineOf[r.parent] : -1;
      c.turn = r.turn;
      c.trigger = r.trigger;
      c.family = r.family;
      c.fork = r.fork;
      c.compacted = r.compacted;
      c.linkClass = r.parent >= 0 && c.parentLine < 0 ? "mid_trace_start" : r.linkClass;
      res.add(c);
    }
    return res;
  }

  // ---- content ----------------------------------------------------------------------------

  private final it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap blockIndex = new it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap();

  /** Chained block ids of a prompt: a rolling hash over (segment, offset) tokens, partial last block included. */
  private int[] blocks(List<Seg> prompt, int in) {
    int b = blockSize;
    int[] res = new int[(in + b - 1) / b];
    long h = 0x5bd1e995L;
    int inBlock = 0, bi = 0;
    for (Seg s : prompt) {
      for (int off = 0; off < s.len; off++) {
        long tok = tokenValue(s.id, off);
        h = Long.rotateLeft(h ^ tok, 23) * 0xff51afd7ed558ccdL;
        if (++inBlock == b) {
          res[bi++] = index(h ^ (h >>> 31));
          inBlock = 0;
        }
      }
    }
    if (inBlock > 0) res[bi] = index(h ^ (h >>> 29) ^ inBlock);
    return res;
  }

  private int index(long h) {
    int id = blockIndex.getOrDefault(h, -1);
    if (id < 0) {
      id = blockIndex.size();
      blockIndex.put(h, id);
    }
    return id;
  }

  private static long tokenValue(long seg, int off) {
    long z = seg * 0xc4ceb9fe1a85ec53L + off * 0x2545F4914F6CDD1DL;
    z ^= z >>> 33;
    return z * 0x9E3779B97F4A7C15L;
  }

  private Seg seg(int len) {
    return new Seg(nextSeg++, Math.max(1, len));
  }

  private int taskLen() {
    return (int) Math.max(30, Math.min(800, lognormal(150, 0.8)));
  }

  private int tokens(Agent a) {
    int n = 0;
    for (Seg s : a.template) n += s.len;
    for (Seg s : a.history) n += s.len;
    return n;
  }

  private int geometric(double mean) {
    return (int) Math.floor(Math.log(1 - rnd.nextDouble()) / Math.log(1 - 1 / mean));
  }

  private double lognormal(double median, double sigma) {
    return median * Math.exp(sigma * gauss());
  }

  private double gauss() {
    double u = 1 - rnd.nextDouble(), v = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
