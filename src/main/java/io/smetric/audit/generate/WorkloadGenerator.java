package io.smetric.audit.generate;

import java.io.IOException;
import java.util.PriorityQueue;

/**
 * The synthetic workload model of docs/generator.md as a discrete-event simulation that streams
 * requests in arrival order. Root sessions arrive as a Poisson process; each active session has
 * at most one pending event (its next request) in a priority queue ordered by (time, scheduling
 * order), so memory depends on the number of concurrently active sessions, not on the trace
 * length.
 *
 * <p>Prompts are token sequences made of segments: a framework's system prompt, the session's
 * task text, responses, tool results, user messages, summaries, sub-agent instructions. Block i
 * covers tokens [iB, (i+1)B). A new prompt that shares its first K tokens with an earlier one keeps
 * that prompt's first floor(K/B) block ids; every other block is new content and gets a fresh id
 * from one counter. Because all new content is unique, ids are issued exactly at a block's first
 * appearance, in arrival order: the ids are already "sequential by first appearance" (as the
 * public Bailian and Mooncake traces remap theirs), and equal ids imply equal prefixes.
 *
 * <p>All random draws come from per-session streams split off one seeded master stream, and none
 * depends on the block size: the same seed gives the same sessions, lengths and times in every
 * format, and the same bytes for the same options.
 */
public final class WorkloadGenerator {
  private final GeneratorConfig c;
  private final int blockSize;
  private final double sessionRate;
  private final Rng master;

  /** Fixed prompts: index f is framework f's system prompt, K + f its auxiliary-call prompt. */
  private final int[] sysTokens;
  private final double[] frameworkCdf;
  private final IdList[] sysIds;
  private final int frameworks;

  private final PriorityQueue<Event> queue =
      new PriorityQueue<>((a, b) -> a.time != b.time ? Double.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
  private long eventSeq;
  /** Next output block id (issued in the window, in order of first appearance). */
  private long nextId;
  /** Next warm-up block id: negative, mapped to an output id when first written (oldIds). */
  private long nextOldId = -1;
  private final it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap oldIds = new it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap();
  private boolean inWindow;
  private long emitted;
  private long sessionsStarted;
  private final GeneratedRequest req = new GeneratedRequest();
  private final Stats stats = new Stats();

  // cached parameters (hot path)
  private final double ttft, decodeTps;

  /**
   * @param sessionRate root-session arrivals per second (Poisson)
   */
  public WorkloadGenerator(GeneratorConfig config, long seed, int blockSize, double sessionRate) {
    config.validate();
    if (blockSize < 1) throw new IllegalArgumentException("block size must be >= 1");
    if (!(sessionRate > 0) || Double.isInfinite(sessionRate)) throw new IllegalArgumentException("session rate must be > 0");
    this.c = config;
    this.blockSize = blockSize;
    this.sessionRate = sessionRate;
    this.master = new Rng(seed);
    int k = config.getInt(Param.FRAMEWORKS);
    frameworks = k;
    sysTokens = new int[2 * k];
    frameworkCdf = new double[k];
    sysIds = new IdList[2 * k];
    double mean = config.get(Param.SYSTEM_PROMPT_TOKENS);
    double spread = config.get(Param.SYSTEM_PROMPT_SPREAD);
    double zipf = config.get(Param.FRAMEWORK_ZIPF);
    double total = 0;
    for (int i = 0; i < k; i++) {
      double pos = k == 1 ? 0.5 : (double) i / (k - 1);
      sysTokens[i] = (int) Math.round(mean * (1 + spread * (pos - 0.5)));
      sysTokens[k + i] = config.getInt(Param.AUX_SYSTEM_PROMPT_TOKENS);
      total += StrictMath.pow(i + 1, -zipf);
      frameworkCdf[i] = total;
    }
    for (int i = 0; i < k; i++) frameworkCdf[i] /= total;
    ttft = config.get(Param.TTFT_S);
    decodeTps = config.get(Param.DECODE_TPS);
  }

  /** System prompt length of each framework, in tokens. */
  public int[] systemPromptTokens() {
    return java.util.Arrays.copyOf(sysTokens, frameworks);
  }

  /** Generates exactly {@code requests} requests into the sink. */
  public Stats run(long requests, RequestSink sink) throws IOException {
    oldIds.defaultReturnValue(-1);
    double start = -c.get(Param.WARMUP_S);
    schedule(start + master.exponential(sessionRate), null);
    while (emitted < requests) {
      Event e = queue.poll();
      inWindow = e.time >= 0;
      Session s = e.session;
      if (s == null) {
        s = newRootSession();
        schedule(e.time + master.exponential(sessionRate), null);
      }
      emit(s, e.time, sink);
    }
    stats.requests = emitted;
    stats.sessions = sessionsStarted;
    stats.blocks = nextId;
    return stats;
  }

  private void schedule(double time, Session s) {
    queue.add(new Event(time, eventSeq++, s));
  }

  private Session newRootSession() {
    int fw = -1;
    if (frameworks > 0) {
      double u = master.nextDouble();
      fw = 0;
      while (fw < frameworks - 1 && u >= frameworkCdf[fw]) fw++;
    }
    Rng rng = master.split();
    boolean aux = fw >= 0 && rng.chance(c.get(Param.AUX_PROB));
    int prompt = fw < 0 ? -1 : aux ? frameworks + fw : fw;
    int sys = prompt < 0 ? 0 : sysTokens[prompt];
    int turns;
    int task;
    if (aux) {
      turns = 1;
      task = rng.lognormalInt(c.get(Param.AUX_TOKENS_MEDIAN), c.get(Param.AUX_TOKENS_SIGMA), 1,
          c.getInt(Param.TASK_TOKENS_MAX));
    } else {
      turns = rng.paretoInt(c.get(Param.TURNS_ALPHA), c.getInt(Param.MAX_TURNS));
      task = rng.lognormalInt(c.get(Param.TASK_TOKENS_MEDIAN), c.get(Param.TASK_TOKENS_SIGMA), 1,
          c.getInt(Param.TASK_TOKENS_MAX));
    }
    Session s = new Session(rng, fw, prompt, sys, turns, 0, null);
    s.nextKeep = sys;
    s.nextTokens = sys + task;
    s.nextTrigger = GeneratedRequest.USER;
    s.nextParentLine = -1;
    return s;
  }

  private void emit(Session s, double time, RequestSink sink) throws IOException {
    if (s.index < 0 && inWindow) {
      s.index = sessionsStarted++;
      if (s.parent != null) stats.forkSessions++;
    }
    int turn = s.turn++;
    IdList ids = s.ids;
    if (turn == 0 && s.parent == null && s.prompt >= 0) {
      ids.copyPrefix(systemIds(s.prompt), s.sysTokens / blockSize);
    }
    ids.truncate(Math.min(ids.count, s.nextKeep / blockSize));
    if (inWindow && ids.hasOld) nextId = ids.resolve(oldIds, nextId);
    int blocks = (int) ((s.nextTokens + (long) blockSize - 1) / blockSize);
    if (inWindow) for (int i = ids.count; i < blocks; i++) ids.append(nextId++);
    else for (int i = ids.count; i < blocks; i++) ids.appendOld(nextOldId--);

    Rng rng = s.rng;
    int out = rng.lognormalInt(c.get(Param.OUTPUT_TOKENS_MEDIAN), c.get(Param.OUTPUT_TOKENS_SIGMA), 1,
        c.getInt(Param.OUTPUT_TOKENS_MAX));
    double u = rng.nextDouble();
    double ps = c.get(Param.TYPE_SEARCH_PROB), pi = c.get(Param.TYPE_IMAGE_PROB), pf = c.get(Param.TYPE_FILE_PROB);
    String type = u < ps ? "search" : u < ps + pi ? "image" : u < ps + pi + pf ? "file" : "text";

    if (!inWindow) {
      // warm-up: the request happens but is not written; its follow-ups will name no parent
      s.promptTokens = s.nextTokens;
      s.lastLine = -1;
      s.nextCompacted = false;
      planNext(s, time, out);
      return;
    }
    GeneratedRequest r = req;
    r.line = emitted++;
    r.session = s.index;
    r.parentLine = s.nextParentLine;
    r.turn = turn;
    r.trigger = s.nextTrigger;
    r.arrivalS = time;
    r.inputTokens = s.nextTokens;
    r.outputTokens = out;
    r.blockSize = blockSize;
    r.framework = s.framework;
    r.type = type;
    r.fork = s.parent != null;
    r.aux = s.prompt >= frameworks;
    r.compacted = s.nextCompacted;
    r.blocks = ids;
    sink.accept(r);

    stats.inputTokens += r.inputTokens;
    stats.outputTokens += out;
    stats.blockIds += ids.count;
    if (r.compacted) stats.compactions++;
    stats.lastArrivalS = time;

    s.promptTokens = s.nextTokens;
    s.lastLine = r.line;
    s.nextCompacted = false;
    planNext(s, time, out);
  }

  private IdList systemIds(int fw) {
    IdList l = sysIds[fw];
    if (l == null) {
      l = new IdList();
      int n = sysTokens[fw] / blockSize; // only full blocks: the straddling block is session-specific
      for (int i = 0; i < n; i++) {
        if (inWindow) l.append(nextId++);
        else l.appendOld(nextOldId--);
      }
      sysIds[fw] = l;
    }
    if (inWindow && l.hasOld) nextId = l.resolve(oldIds, nextId);
    return l;
  }

  /** After request r (just emitted) of session s: schedule its follow-up, spawn sub-agents, or end. */
  private void planNext(Session s, double arrival, int out) {
    Rng rng = s.rng;
    double end = arrival + ttft + out / decodeTps;
    if (s.turn >= s.plannedTurns) {
      finish(s, end, out);
      return;
    }
    if (s.depth < c.getInt(Param.MAX_FORK_DEPTH) && rng.chance(c.get(Param.FORK_PROB))) {
      spawn(s, end, out);
      return;
    }
    boolean tool = rng.chance(c.get(Param.TOOL_PROB));
    int text;
    double delay;
    if (tool) {
      text = rng.lognormalInt(c.get(Param.TOOL_OUTPUT_TOKENS_MEDIAN), c.get(Param.TOOL_OUTPUT_TOKENS_SIGMA), 1,
          c.getInt(Param.TOOL_OUTPUT_TOKENS_MAX));
      delay = rng.lognormal(c.get(Param.TOOL_TIME_MEDIAN_S), c.get(Param.TOOL_TIME_SIGMA));
      if (rng.chance(c.get(Param.TOOL_APPROVAL_PROB))) {
        delay += rng.lognormal(c.get(Param.APPROVAL_TIME_MEDIAN_S), c.get(Param.APPROVAL_TIME_SIGMA));
      }
    } else {
      text = rng.lognormalInt(c.get(Param.USER_MESSAGE_TOKENS_MEDIAN), c.get(Param.USER_MESSAGE_TOKENS_SIGMA), 1,
          c.getInt(Param.USER_MESSAGE_TOKENS_MAX));
      delay = rng.lognormal(c.get(Param.USER_THINK_MEDIAN_S), c.get(Param.USER_THINK_SIGMA));
    }
    planFollowUp(s, tool ? GeneratedRequest.TOOL : GeneratedRequest.USER, out, text, end + delay);
  }

  /**
   * The follow-up's prompt is the previous prompt + the previous response + the new text, unless
   * the agent compacts (with probability compact_prob, or because the prompt would exceed
   * context_limit_tokens): then it is system prompt + summary + the new text.
   */
  private void planFollowUp(Session s, String trigger, int previousOutput, int text, double time) {
    Rng rng = s.rng;
    long extended = (long) s.promptTokens + previousOutput + text;
    boolean compact = rng.chance(c.get(Param.COMPACT_PROB)) || extended > c.getInt(Param.CONTEXT_LIMIT_TOKENS);
    if (compact) {
      int summary = rng.lognormalInt(c.get(Param.COMPACT_SUMMARY_TOKENS_MEDIAN),
          c.get(Param.COMPACT_SUMMARY_TOKENS_SIGMA), 1, Integer.MAX_VALUE / 4);
      s.nextKeep = s.sysTokens;
      s.nextTokens = (int) Math.min(Integer.MAX_VALUE / 2, (long) s.sysTokens + summary + text);
      s.nextCompacted = true;
    } else {
      s.nextKeep = s.promptTokens;
      s.nextTokens = (int) Math.min(Integer.MAX_VALUE / 2, extended);
      s.nextCompacted = false;
    }
    s.nextTrigger = trigger;
    s.nextParentLine = s.lastLine;
    schedule(time, s);
  }

  /**
   * The response of s's last request spawns sub-agents. Each inherits a prefix of that request's
   * prompt (the whole prompt, or a uniform cut after the system prompt) plus a new instruction;
   * s waits until all of them end, then continues with their answers as its tool result.
   */
  private void spawn(Session s, double end, int out) {
    Rng rng = s.rng;
    int k = rng.chance(c.get(Param.FORK_PARALLEL_PROB)) ? rng.uniformInt(2, c.getInt(Param.FORK_PARALLEL_MAX)) : 1;
    double start = end + c.get(Param.FORK_SPAWN_DELAY_S);
    s.pendingForks = k;
    s.joinAt = end;
    s.forkAnswers = 0;
    s.spawnOutput = out;
    stats.spawns++;
    for (int i = 0; i < k; i++) {
      Rng fr = rng.split();
      int history = s.promptTokens - s.sysTokens;
      int cut = fr.chance(c.get(Param.FORK_FULL_CONTEXT_PROB))
          ? s.promptTokens
          : s.sysTokens + Math.min(history, (int) Math.floor(fr.nextDouble() * (history + 1)));
      int instruction = fr.lognormalInt(c.get(Param.FORK_INSTRUCTION_TOKENS_MEDIAN),
          c.get(Param.FORK_INSTRUCTION_TOKENS_SIGMA), 1, Integer.MAX_VALUE / 4);
      int turns = fr.paretoInt(c.get(Param.FORK_TURNS_ALPHA), c.getInt(Param.FORK_MAX_TURNS));
      Session f = new Session(fr, s.framework, s.prompt, s.sysTokens, turns, s.depth + 1, s);
      f.ids.copyPrefix(s.ids, Math.min(s.ids.count, cut / blockSize));
      f.nextKeep = cut;
      f.nextTokens = cut + instruction;
      f.nextTrigger = GeneratedRequest.SUBAGENT;
      f.nextParentLine = s.lastLine;
      schedule(start, f);
    }
  }

  private void finish(Session s, double end, int out) {
    Session p = s.parent;
    if (p == null) return;
    p.pendingForks--;
    p.joinAt = Math.max(p.joinAt, end);
    p.forkAnswers += out;
    if (p.pendingForks == 0) {
      planFollowUp(p, GeneratedRequest.TOOL, p.spawnOutput, p.forkAnswers, p.joinAt + c.get(Param.FORK_JOIN_DELAY_S));
    }
  }

  private static final class Event {
    final double time;
    final long seq;
    final Session session;

    Event(double time, long seq, Session session) {
      this.time = time;
      this.seq = seq;
      this.session = session;
    }
  }

  private static final class Session {
    final Rng rng;
    final int framework;
    /** Index of the fixed prompt at the start of every request (see sysTokens), or -1. */
    final int prompt;
    final int sysTokens;
    final int plannedTurns;
    final int depth;
    final Session parent;
    final IdList ids = new IdList();
    long index = -1;
    int turn;
    int promptTokens;
    long lastLine = -1;
    // the planned next request
    int nextKeep;
    int nextTokens;
    String nextTrigger;
    long nextParentLine;
    boolean nextCompacted;
    // sub-agents in flight
    int pendingForks;
    double joinAt;
    int forkAnswers;
    int spawnOutput;

    Session(Rng rng, int framework, int prompt, int sysTokens, int plannedTurns, int depth, Session parent) {
      this.rng = rng;
      this.framework = framework;
      this.prompt = prompt;
      this.sysTokens = sysTokens;
      this.plannedTurns = plannedTurns;
      this.depth = depth;
      this.parent = parent;
    }
  }

  /** Counts of what was generated (printed by the CLI). */
  public static final class Stats {
    public long requests;
    public long sessions;
    public long forkSessions;
    public long spawns;
    public long compactions;
    public long inputTokens;
    public long outputTokens;
    /** Block ids written (sum of hash_ids lengths). */
    public long blockIds;
    /** Distinct block ids issued. */
    public long blocks;
    public double lastArrivalS;
  }
}
