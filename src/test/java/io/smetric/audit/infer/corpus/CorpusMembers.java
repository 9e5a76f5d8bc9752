package io.smetric.audit.infer.corpus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The named members of the session-inference corpus, each with a fixed seed. Each varies what a
 * rule may have come to depend on; the defaults of {@link CorpusSpec} are a plain agent workload
 * (three templates, lognormal think times, a few sub-agents of every kind, rare compaction).
 * Sizes default to 3,000 requests (measurement) and are small enough for tests; benchmarks pass a
 * larger count to {@link CorpusSpec#withRequests}.
 */
public final class CorpusMembers {
  private CorpusMembers() {}

  public static Map<String, CorpusSpec> all() {
    Map<String, CorpusSpec> m = new LinkedHashMap<>();
    for (CorpusSpec s : list()) m.put(s.name, s);
    return m;
  }

  public static CorpusSpec get(String name) {
    CorpusSpec s = all().get(name);
    if (s == null) throw new IllegalArgumentException("no corpus member '" + name + "'; members: " + all().keySet());
    return s.copy();
  }

  private static List<CorpusSpec> list() {
    List<CorpusSpec> l = new ArrayList<>();

    l.add(new CorpusSpec("baseline", 101));

    // Pareto think times with alpha 0.8 (no finite mean), capped at 30 min: a few follow-ups come
    // back after hundreds of sessions moved on. Sessions arrive slowly enough that the trace spans
    // ~40 min at 3,000 requests: at a higher rate the trace ends before the long gaps close, and
    // the censored sample would look like the lognormal one
    CorpusSpec heavy = new CorpusSpec("heavy-tail-think", 102);
    heavy.think = CorpusSpec.Think.HEAVY_TAIL;
    heavy.paretoAlpha = 0.8;
    heavy.thinkCapS = 1800;
    heavy.sessionRate = 0.05;
    l.add(heavy);

    // tool calls answered at once, short outputs, fast decode: parent and child ~100 ms apart
    CorpusSpec zero = new CorpusSpec("near-zero-gaps-b16", 103);
    zero.blockSize = 16;
    zero.think = CorpusSpec.Think.NEAR_ZERO;
    zero.toolProb = 0.95;
    zero.outputMedian = 40;
    zero.decodeTpsMin = 80;
    zero.decodeTpsMax = 300;
    zero.ttftMedianS = 0.12;
    zero.toolOutputMedian = 120;
    zero.contextLimit = 12000;
    zero.sessionRate = 0.5;
    l.add(zero);

    // dozens of sessions on one long system prompt, starting within seconds; bursts of tool calls
    CorpusSpec crowd = new CorpusSpec("crowded-template", 104);
    crowd.templateTokens = new int[] {7000, 1500};
    crowd.templateZipf = 2.0;
    crowd.burstProb = 0.5;
    crowd.burstMin = 20;
    crowd.burstMax = 60;
    crowd.burstSpreadS = 5;
    crowd.sessionRate = 0.02;
    crowd.think = CorpusSpec.Think.BURSTY;
    l.add(crowd);

    // sub-agents from any turn, nested, wide fan-out, every context mode, spawned together
    CorpusSpec forks = new CorpusSpec("fork-zoo", 105);
    forks.forkProb = 0.25;
    forks.fanoutMin = 1;
    forks.fanoutMax = 12;
    forks.maxDepth = 3;
    forks.forkModeWeights = new double[] {1, 1, 1, 1};
    forks.forkWaitWeights = new double[] {0.4, 0.4, 0.2};
    forks.forkStaggerS = 0;
    l.add(forks);

    CorpusSpec forks16 = forks.copy();
    forks16.name = "fork-zoo-b16";
    forks16.seed = 106;
    forks16.blockSize = 16;
    forks16.contextLimit = 10000;
    forks16.forkStaggerS = 0.3;
    l.add(forks16);

    // many templates: shorter than a block, exactly one block, ending mid-block, nested (shared base), rare ones
    CorpusSpec tpl = new CorpusSpec("templates-mixed-b16", 107);
    tpl.blockSize = 16;
    tpl.templateTokens = new int[] {12, 150, 1023, 1024, 700, 3000, 8191, 2222, 333};
    tpl.templateZipf = 0.7;
    tpl.baseTemplateTokens = 600;
    tpl.contextLimit = 14000;
    tpl.sessionRate = 0.4;
    l.add(tpl);

    // context management of every kind: summaries (with and without the task), sliding windows, truncation
    CorpusSpec comp = new CorpusSpec("compaction-b16", 108);
    comp.blockSize = 16;
    comp.contextLimit = 9000;
    comp.compactProb = 0.05;
    comp.compactModeWeights = new double[] {1, 1, 1, 1};
    comp.toolOutputMedian = 600;
    comp.turnsMedian = 14;
    l.add(comp);

    // the trace starts while long sessions are in flight: their first requests seen have turn > 0
    CorpusSpec mid = new CorpusSpec("mid-trace-start", 109);
    mid.warmupS = 1800;
    mid.turnsMedian = 25;
    mid.turnsMax = 200;
    mid.thinkMedianS = 4;
    mid.sessionRate = 0.05;
    l.add(mid);

    // the prompt does not echo the response verbatim (reasoning stripped) and the generation
    // prompt is rendered differently in history ("<think></think>" tail)
    CorpusSpec echo = new CorpusSpec("no-echo-b16", 110);
    echo.blockSize = 16;
    echo.echoMin = 0.1;
    echo.echoMax = 0.7;
    echo.tailRewrite = true;
    echo.contextLimit = 12000;
    l.add(echo);

    // best-of-n rollouts: 8 sessions share template and task
    CorpusSpec roll = new CorpusSpec("rollouts", 111);
    roll.rolloutsPerTask = 8;
    roll.sessionRate = 0.05;
    l.add(roll);

    // the case as described: Mooncake-format, sub-agent forks, shared system prompts
    CorpusSpec moon = new CorpusSpec("subagent-mooncake", 112);
    moon.templateTokens = new int[] {1800, 4200};
    moon.forkProb = 0.15;
    moon.fanoutMin = 1;
    moon.fanoutMax = 5;
    moon.forkModeWeights = new double[] {0.5, 0.2, 0.3, 0};
    moon.forkWaitWeights = new double[] {1, 0, 0};
    moon.forkStaggerS = 0;
    moon.compactProb = 0;
    l.add(moon);
    return l;
  }
}
