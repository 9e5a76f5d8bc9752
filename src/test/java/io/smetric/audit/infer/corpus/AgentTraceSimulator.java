package io.smetric.audit.infer.corpus;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * An agent-serving trace simulator written for the session-inference corpus, independently of
 * the project's WorkloadGenerator. Agents hold a message list (task, assistant turns, tool and
 * user messages, sub-agent results, summaries); each request renders template + messages +
 * generation prompt into content segments, and block ids are hashes of the token prefix they end
 * (prefix-chained, like Mooncake's {@code hash_ids}), remapped to sequential ids in order of first
 * appearance. Nothing here knows the inference rule: it only writes what an agent framework would
 * send, and the truth of why each request was sent ({@link LinkClass}).
 *
 * <p>Events (root-session arrivals, sends, sub-agent results) run in (time, insertion) order from
 * one seeded random stream, so a spec gives the same trace every time. Requests sent before time
 * 0 (the warm-up) are not written: their follow-ups are seen mid-session.
 */
public final class AgentTraceSimulator {
  /** A piece of content: equal content ids mean equal tokens. */
  record Seg(long content, int tokens) {}

  /** A rendered message: header, body, end marker. */
  record Msg(Seg[] segs, int tokens, boolean tool) {
    static Msg of(long header, int headerTokens, long body, int bodyTokens, boolean tool) {
      return new Msg(new Seg[] {new Seg(header, headerTokens), new Seg(body, bodyTokens), new Seg(END, 1)},
          headerTokens + bodyTokens + 1, tool);
    }
  }

  // chat-template constants (content ids below 0, never issued by the content counter)
  static final long HDR_SYS = -1, HDR_USER = -2, HDR_ASSIST = -3, HDR_TOOL = -4, END = -5, THINK_EMPTY = -6;
  private static final int SYNC = 0, ASYNC = 1, DETACHED = 2;
  private static final int WITH_CALL = 0, FULL = 1, CUT = 2, FRESH = 3;

  private static final class Agent {
    int family;
    String session;
    Agent parent;
    int depth;
    Seg[] system;
    ArrayList<Msg> history = new ArrayList<>();
    int turn;
    int plannedTurns;
    long lastReq = -1;
    boolean done;
    boolean pinTask;
    /** How the spawner treats this sub-agent's result. */
    int waitMode;
    // the next request
    List<Msg> pendingAdd = new ArrayList<>();
    String nextClass;
    String nextTrigger;
    long nextParent = -1;
    boolean nextFork;
    // sub-agents
    int pendingSubs;
    List<Msg> results = new ArrayList<>();
    List<Msg> arrived = new ArrayList<>();
  }

  private record Event(double time, long seq, int type, Agent agent, int tokens) {}

  private static final int ARRIVAL = 0, SEND = 1, RESULT = 2;

  private final CorpusSpec s;
  private final SplittableRandom rng;
  private final PriorityQueue<Event> queue = new PriorityQueue<>(
      (a, b) -> a.time != b.time ? Double.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
  private long eventSeq;
  private long nextContent = 1;
  private final Seg[][] templates;
  private final double[] templateCdf;
  private final Seg[][] subTemplates;
  private final List<CorpusRequest> out = new ArrayList<>();
  /** Line of each sent request (index = request number), -1 if sent before the trace. */
  private final IntArrayList lineOf = new IntArrayList();
  private final Long2IntOpenHashMap idOf = new Long2IntOpenHashMap();
  private int nextId;
  private int sessions;
  private int families;

  public AgentTraceSimulator(CorpusSpec spec) {
    this.s = spec;
    this.rng = new SplittableRandom(spec.seed);
    idOf.defaultReturnValue(-1);
    long base = spec.baseTemplateTokens > 0 ? nextContent++ : 0;
    templates = new Seg[spec.templateTokens.length][];
    templateCdf = new double[spec.templateTokens.length];
    double total = 0;
    for (int i = 0; i < templates.length; i++) {
      templates[i] = template(spec.templateTokens[i], base, spec.baseTemplateTokens);
      total += Math.pow(i + 1, -spec.templateZipf);
      templateCdf[i] = total;
    }
    for (int i = 0; i < templateCdf.length; i++) templateCdf[i] /= total;
    subTemplates = new Seg[spec.subAgentTemplateTokens.length][];
    for (int i = 0; i < subTemplates.length; i++) subTemplates[i] = template(spec.subAgentTemplateTokens[i], 0, 0);
  }

  private Seg[] template(int tokens, long base, int baseTokens) {
    if (baseTokens > 0 && tokens > baseTokens + 5) {
      return new Seg[] {new Seg(HDR_SYS, 3), new Seg(base, baseTokens), new Seg(nextContent++, tokens - baseTokens - 4),
          new Seg(END, 1)};
    }
    return new Seg[] {new Seg(HDR_SYS, 3), new Seg(nextContent++, Math.max(1, tokens - 4)), new Seg(END, 1)};
  }

  /** Runs the simulation until {@code spec.requests} requests are written (or nothing is left to do). */
  public List<CorpusRequest> run() {
    schedule(-s.warmupS, ARRIVAL, null, 0);
    while (out.size() < s.requests && !queue.isEmpty()) {
      Event e = queue.poll();
      switch (e.type) {
        case ARRIVAL -> arrival(e.time);
        case SEND -> send(e.agent, e.time);
        default -> result(e.agent, e.time, e.tokens);
      }
    }
    return out;
  }

  private void schedule(double t, int type, Agent a, int tokens) {
    queue.add(new Event(t, eventSeq++, type, a, tokens));
  }

  // ---- root sessions -------------------------------------------------------------------------

  private void arrival(double t) {
    int tpl = pickTemplate();
    if (rng.nextDouble() < s.burstProb) {
      int m = uniformInt(s.burstMin, s.burstMax);
      for (int j = 0; j < m; j++) startRoot(t + rng.nextDouble() * s.burstSpreadS, tpl, task());
    } else {
      Msg task = task();
      for (int r = 0; r < s.rolloutsPerTask; r++) startRoot(t + (r == 0 ? 0 : rng.nextDouble() * s.rolloutSpreadS), tpl, task);
    }
    schedule(t + rng.nextExponential() / s.sessionRate, ARRIVAL, null, 0);
  }

  private Msg task() {
    return Msg.of(HDR_USER, 4, nextContent++, lognormalInt(s.taskMedian, s.taskSigma, 1, s.contextLimit / 4), false);
  }

  private void startRoot(double t, int tpl, Msg task) {
    Agent a = new Agent();
    a.family = families++;
    a.session = "s" + sessions++;
    a.system = templates[tpl];
    a.history.add(task);
    a.plannedTurns = lognormalInt(s.turnsMedian, 0.9, 1, s.turnsMax);
    a.pinTask = rng.nextBoolean();
    a.nextClass = LinkClass.ROOT;
    a.nextTrigger = "user";
    schedule(t, SEND, a, 0);
  }

  // ---- one request ---------------------------------------------------------------------------

  private void send(Agent a, double t) {
    a.history.addAll(a.pendingAdd);
    a.pendingAdd = new ArrayList<>();
    a.history.addAll(a.arrived);
    a.arrived.clear();
    String cls = a.nextClass;
    boolean compacted = false;
    if (a.turn > 0 && !a.nextFork) {
      boolean over = tokens(a) > s.contextLimit;
      if (over || rng.nextDouble() < s.compactProb) {
        cls = manageContext(a);
        compacted = true;
      }
    }
    List<Seg> prompt = render(a);
    int in = 0;
    for (Seg g : prompt) in += g.tokens;
    int outTokens = lognormalInt(s.outputMedian, s.outputSigma, 1, 8000);
    double tps = s.decodeTpsMin + rng.nextDouble() * (s.decodeTpsMax - s.decodeTpsMin);
    double end = t + s.ttftMedianS * Math.exp(0.5 * rng.nextGaussian()) + outTokens / tps;
    long req = lineOf.size();
    int parentLine = a.nextParent < 0 ? -1 : lineOf.getInt((int) a.nextParent);
    if (t >= 0 && out.size() < s.requests) {
      CorpusRequest r = new CorpusRequest();
      r.line = out.size();
      r.timestampMs = Math.round(t * 1000);
      r.inputTokens = in;
      r.outputTokens = outTokens;
      r.hashIds = blockIds(prompt, in);
      r.session = a.session;
      r.parentLine = parentLine;
      r.turn = a.turn;
      r.trigger = a.nextTrigger;
      r.family = "f" + a.family;
      r.fork = a.nextFork;
      r.compacted = compacted;
      r.linkClass = a.nextParent >= 0 && parentLine < 0 ? LinkClass.MID_TRACE_START : cls;
      out.add(r);
      lineOf.add(r.line);
    } else {
      lineOf.add(-1);
    }
    a.lastReq = req;
    a.turn++;
    a.nextFork = false;
    if (a.turn >= a.plannedTurns) {
      finish(a, end);
    } else if (a.depth < s.maxDepth && rng.nextDouble() < s.forkProb) {
      spawn(a, end, outTokens);
    } else {
      boolean tool = rng.nextDouble() < s.toolProb;
      a.pendingAdd.add(echo(outTokens));
      a.pendingAdd.add(tool ? toolMsg(lognormalInt(s.toolOutputMedian, s.toolOutputSigma, 1, s.contextLimit / 4))
          : Msg.of(HDR_USER, 4, nextContent++, lognormalInt(s.userMessageMedian, 1.0, 1, 4000), false));
      next(a, LinkClass.CONTINUATION, tool ? "tool" : "user", end + think(tool));
    }
  }

  private void next(Agent a, String cls, String trigger, double t) {
    a.nextClass = cls;
    a.nextTrigger = trigger;
    a.nextParent = a.lastReq;
    schedule(t, SEND, a, 0);
  }

  private Msg echo(int outTokens) {
    double f = s.echoMin + rng.nextDouble() * (s.echoMax - s.echoMin);
    return Msg.of(HDR_ASSIST, 4, nextContent++, Math.max(1, (int) Math.round(outTokens * f)), false);
  }

  private Msg toolMsg(int tokens) {
    return Msg.of(HDR_TOOL, 5, nextContent++, tokens, true);
  }

  private List<Seg> render(Agent a) {
    List<Seg> p = new ArrayList<>();
    for (Seg g : a.system) p.add(g);
    for (Msg m : a.history) for (Seg g : m.segs) p.add(g);
    p.add(new Seg(HDR_ASSIST, 4));
    if (s.tailRewrite) p.add(new Seg(THINK_EMPTY, s.genPromptExtraTokens));
    return p;
  }

  private int tokens(Agent a) {
    int n = 4 + (s.tailRewrite ? s.genPromptExtraTokens : 0);
    for (Seg g : a.system) n += g.tokens;
    for (Msg m : a.history) n += m.tokens;
    return n;
  }

  /** Rewrites a's history to fit (or because the agent chose to compact); returns the link class. */
  private String manageContext(Agent a) {
    Msg newest = a.history.get(a.history.size() - 1);
    Msg task = a.history.get(0);
    Msg summary = Msg.of(HDR_USER, 4, nextContent++, lognormalInt(s.summaryMedian, 0.6, 20, s.contextLimit / 4), false);
    int mode = pick(s.compactModeWeights);
    switch (mode) {
      case 1 -> {
        a.history = new ArrayList<>(List.of(task, summary, newest));
        return LinkClass.COMPACTION_KEEP_TASK;
      }
      case 2 -> {
        ArrayList<Msg> h = a.history;
        int keepFrom = a.pinTask ? 1 : 0;
        int budget = (int) (0.6 * s.contextLimit);
        while (h.size() > keepFrom + 1 && tokens(a) > budget) h.remove(keepFrom);
        if (tokens(a) > s.contextLimit) break; // one message alone is too long: summarise instead
        return LinkClass.SLIDING_WINDOW;
      }
      case 3 -> {
        ArrayList<Msg> h = a.history;
        int lastTools = 0;
        for (int i = h.size() - 1; i >= 0; i--) {
          Msg m = h.get(i);
          if (!m.tool) continue;
          if (++lastTools > 2 && m.tokens > 14) h.set(i, Msg.of(HDR_TOOL, 5, nextContent++, 8, true));
        }
        if (tokens(a) > s.contextLimit) break;
        return LinkClass.HISTORY_EDIT;
      }
      default -> { }
    }
    a.history = new ArrayList<>(List.of(summary, newest));
    return LinkClass.COMPACTION;
  }

  // ---- sub-agents ----------------------------------------------------------------------------

  private void spawn(Agent a, double end, int callTokens) {
    int k = uniformInt(s.fanoutMin, s.fanoutMax);
    int wait = pick(s.forkWaitWeights);
    Msg call = echo(callTokens);
    double start = end + 0.01 + rng.nextDouble() * 0.2;
    for (int i = 0; i < k; i++) {
      Agent sub = new Agent();
      sub.family = a.family;
      sub.session = "s" + sessions++;
      sub.parent = a;
      sub.depth = a.depth + 1;
      sub.waitMode = wait;
      sub.pinTask = rng.nextBoolean();
      sub.plannedTurns = lognormalInt(s.subTurnsMedian, 0.8, 1, s.turnsMax);
      Msg instruction = Msg.of(HDR_USER, 4, nextContent++, lognormalInt(s.instructionMedian, 0.8, 1, 4000), false);
      int mode = pick(s.forkModeWeights);
      sub.system = mode == FRESH ? subTemplates[rng.nextInt(subTemplates.length)] : a.system;
      switch (mode) {
        case WITH_CALL -> {
          sub.history.addAll(a.history);
          sub.history.add(call);
          sub.nextClass = LinkClass.FORK_WITH_CALL;
        }
        case FULL -> {
          sub.history.addAll(a.history);
          sub.nextClass = LinkClass.FORK_FULL;
        }
        case CUT -> {
          sub.history.addAll(a.history.subList(0, rng.nextInt(a.history.size() + 1)));
          sub.nextClass = LinkClass.FORK_CUT;
        }
        default -> sub.nextClass = LinkClass.FORK_FRESH;
      }
      sub.history.add(instruction);
      sub.nextTrigger = "subagent";
      sub.nextParent = a.lastReq;
      sub.nextFork = true;
      schedule(start + i * s.forkStaggerS, SEND, sub, 0);
    }
    a.pendingAdd.add(call);
    if (wait == SYNC) {
      a.pendingSubs = k;
      a.results = new ArrayList<>();
    } else {
      a.pendingAdd.add(toolMsg(uniformInt(5, 30))); // "sub-agents started"
      next(a, LinkClass.CONTINUATION, "tool", end + think(true));
    }
  }

  private void finish(Agent a, double end) {
    a.done = true;
    if (a.parent != null && a.waitMode != DETACHED) {
      schedule(end, RESULT, a, lognormalInt(s.outputMedian * 2, 0.8, 1, 8000));
    }
  }

  private void result(Agent sub, double t, int tokens) {
    Agent p = sub.parent;
    if (sub.waitMode == SYNC) {
      p.results.add(toolMsg(tokens));
      if (--p.pendingSubs == 0) {
        p.pendingAdd.addAll(p.results);
        next(p, LinkClass.JOIN, "tool", t + 0.01 + rng.nextDouble() * 0.3);
      }
    } else if (!p.done) {
      p.arrived.add(toolMsg(tokens));
    }
  }

  // ---- block ids -----------------------------------------------------------------------------

  private int[] blockIds(List<Seg> prompt, int in) {
    int b = s.blockSize;
    int[] ids = new int[(in + b - 1) / b];
    long chain = 0x243F6A8885A308D3L;
    long acc = 0;
    int filled = 0;
    int bi = 0;
    for (Seg g : prompt) {
      int off = 0;
      while (off < g.tokens) {
        int take = Math.min(g.tokens - off, b - filled);
        acc = mix(acc, mix(g.content, ((long) off << 32) | take));
        off += take;
        filled += take;
        if (filled == b) {
          chain = mix(chain, mix(acc, b));
          ids[bi++] = remap(chain);
          acc = 0;
          filled = 0;
        }
      }
    }
    if (filled > 0) ids[bi] = remap(mix(chain, mix(acc, filled)));
    return ids;
  }

  private int remap(long h) {
    int id = idOf.get(h);
    if (id < 0) {
      id = nextId++;
      idOf.put(h, id);
    }
    return id;
  }

  static long mix(long a, long b) {
    long z = a * 0x9E3779B97F4A7C15L + b + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  // ---- draws ---------------------------------------------------------------------------------

  private double think(boolean tool) {
    double m = s.thinkMedianS * (tool ? 1 : s.userThinkFactor);
    return switch (s.think) {
      case LOGNORMAL -> m * Math.exp(1.2 * rng.nextGaussian());
      case HEAVY_TAIL -> Math.min(s.thinkCapS,
          m / Math.pow(2, 1 / s.paretoAlpha) / Math.pow(1 - rng.nextDouble(), 1 / s.paretoAlpha));
      case NEAR_ZERO -> tool ? 0.03 * rng.nextExponential() : m * Math.exp(rng.nextGaussian());
      case BURSTY -> rng.nextDouble() < 0.85 ? 0.03 * rng.nextExponential() : 20 * m * Math.exp(rng.nextGaussian());
    };
  }

  private int lognormalInt(double median, double sigma, int min, int max) {
    long v = Math.round(median * Math.exp(sigma * rng.nextGaussian()));
    return (int) Math.max(min, Math.min(max, v));
  }

  private int uniformInt(int lo, int hi) {
    return lo + rng.nextInt(hi - lo + 1);
  }

  private int pick(double[] w) {
    double total = 0;
    for (double x : w) total += x;
    double u = rng.nextDouble() * total;
    for (int i = 0; i < w.length; i++) {
      u -= w[i];
      if (u < 0) return i;
    }
    return w.length - 1;
  }

  private int pickTemplate() {
    double u = rng.nextDouble();
    for (int i = 0; i < templateCdf.length; i++) if (u < templateCdf[i]) return i;
    return templateCdf.length - 1;
  }
}
