package io.smetric.audit.infer.corpus;

import java.util.Arrays;

/**
 * One named member of the session-inference test corpus: every knob of {@link AgentTraceSimulator}
 * with a fixed seed. Written independently of the project's WorkloadGenerator (ingest/.../generate)
 * and on purpose not sharing its assumptions: sub-agents may see the spawning call or not, cut the
 * history at any message or start fresh, run synchronously, asynchronously or detached; the prompt
 * may not echo the response verbatim; compaction may keep the task, slide a window or truncate old
 * tool output; think times may be heavy-tailed, bursty or near zero; templates have many lengths
 * (some shorter than a block, most ending mid-block) and may be nested.
 *
 * <p>Mutable builder-style fields, copied by {@link #copy}; {@link CorpusMembers} defines the
 * members. Times are seconds, lengths tokens.
 */
public final class CorpusSpec implements Cloneable {
  /** Think-time (gap between a response's end and the next request) shapes. */
  public enum Think {
    /** lognormal, median {@link #thinkMedianS}, sigma 1.2 */
    LOGNORMAL,
    /** Pareto with scale {@link #thinkMedianS} / 2^(1/alpha), alpha {@link #paretoAlpha}, capped at {@link #thinkCapS} */
    HEAVY_TAIL,
    /** exponential with mean 30 ms: tool calls answered by a local tool at once */
    NEAR_ZERO,
    /** 85% near zero (bursts of tool calls), 15% lognormal with median 20x {@link #thinkMedianS} */
    BURSTY
  }

  public String name;
  public long seed;
  public int requests = 3000;
  public int blockSize = 512;

  // root sessions
  /** Poisson arrivals of root sessions (or of bursts), per second. */
  public double sessionRate = 0.2;
  /** Share of arrivals that are a burst of sessions on one template. */
  public double burstProb = 0;
  public int burstMin = 20, burstMax = 60;
  /** Sessions of a burst start uniformly within this many seconds. */
  public double burstSpreadS = 5;
  /** Each task is run by this many independent sessions (best-of-n rollouts sharing template and task). */
  public int rolloutsPerTask = 1;
  public double rolloutSpreadS = 2;
  /** Simulated time before the trace starts: sessions in flight at 0 are seen mid-session. */
  public double warmupS = 0;

  // templates
  /** Lengths of the shared system prompts (templates), tokens. */
  public int[] templateTokens = {2100, 3700, 900};
  /** Popularity of template i is proportional to (i + 1)^-templateZipf. */
  public double templateZipf = 1.0;
  /** Length of a base prompt shared by every template (nested templates: base + variant), 0 = none. */
  public int baseTemplateTokens = 0;
  /** Lengths of sub-agent system prompts (one per sub-agent type) for fresh sub-agents. */
  public int[] subAgentTemplateTokens = {1300, 600};

  // conversation
  public int taskMedian = 300;
  public double taskSigma = 1.0;
  public int turnsMedian = 8;
  public int turnsMax = 60;
  public int outputMedian = 180;
  public double outputSigma = 1.0;
  public int toolOutputMedian = 350;
  public double toolOutputSigma = 1.4;
  public int userMessageMedian = 40;
  /** Share of follow-ups that answer a tool call (the rest are user messages). */
  public double toolProb = 0.8;
  public Think think = Think.LOGNORMAL;
  public double thinkMedianS = 2.0;
  public double paretoAlpha = 1.1;
  public double thinkCapS = 1800;
  /** User turns wait this much longer (median) than tool turns. */
  public double userThinkFactor = 8;
  public double ttftMedianS = 0.5;
  public double decodeTpsMin = 25, decodeTpsMax = 120;

  // echo of the response in the next prompt
  /** Echoed share of the response: 1 = verbatim; otherwise uniform in [echoMin, echoMax] (reasoning stripped). */
  public double echoMin = 1, echoMax = 1;
  /** The generation prompt differs from how history renders an assistant turn ("<think></think>" tail). */
  public boolean tailRewrite = false;
  public int genPromptExtraTokens = 4;

  // sub-agents
  /** Probability that a response spawns sub-agents (at any turn). */
  public double forkProb = 0.08;
  public int fanoutMin = 1, fanoutMax = 4;
  public int maxDepth = 2;
  /** Weights of the sub-agent context modes: with call, full, cut at a message, fresh template. */
  public double[] forkModeWeights = {0.4, 0.2, 0.3, 0.1};
  /** Weights of the spawner's behaviour: sync (waits, then joins), async (continues, results later), detached. */
  public double[] forkWaitWeights = {0.7, 0.2, 0.1};
  /** Sub-agents of one spawn start this far apart (0 = the same instant). */
  public double forkStaggerS = 0.05;
  public int subTurnsMedian = 4;
  public int instructionMedian = 120;

  // context management
  public int contextLimit = 60000;
  /** Per-turn probability of compacting although the limit is not reached. */
  public double compactProb = 0.01;
  /** Weights of what happens at the limit: summary, summary keeping the task, sliding window, truncate old tool output. */
  public double[] compactModeWeights = {1, 0, 0, 0};
  public int summaryMedian = 600;

  public CorpusSpec(String name, long seed) {
    this.name = name;
    this.seed = seed;
  }

  public CorpusSpec copy() {
    try {
      CorpusSpec c = (CorpusSpec) super.clone();
      c.templateTokens = templateTokens.clone();
      c.subAgentTemplateTokens = subAgentTemplateTokens.clone();
      c.forkModeWeights = forkModeWeights.clone();
      c.forkWaitWeights = forkWaitWeights.clone();
      c.compactModeWeights = compactModeWeights.clone();
      return c;
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  /** The same member with another request count (benchmark runs use larger ones). */
  public CorpusSpec withRequests(int n) {
    CorpusSpec c = copy();
    c.requests = n;
    return c;
  }

  @Override
  public String toString() {
    return name + " (seed " + seed + ", " + requests + " requests, B=" + blockSize + ", templates "
        + Arrays.toString(templateTokens) + ", think " + think + ")";
  }
}
