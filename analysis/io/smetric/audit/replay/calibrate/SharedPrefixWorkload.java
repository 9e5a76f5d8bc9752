package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * inference-perf's {@code shared_prefix} workload (kubernetes-sigs/inference-perf; docs/validation.md
 * section 4 has every rule with file and line). {@code groups} system prompts of
 * {@code systemPromptTokens} tokens, {@code promptsPerGroup} questions of {@code questionTokens}
 * each per group, {@code outputTokens} generated per request (the tool sends
 * {@code max_tokens = output_len}; with {@code ignore_eos} the server generates exactly that many).
 * Stages follow each other, each offering {@code rate} requests per second for {@code durationS};
 * request number n of a stage (restarting at 0 every stage) is served as follows:
 *
 * <ul>
 *   <li>{@link MultiTurn#NONE} (the tool before 4ec6bfd, 2025-11-24, and every run with multi-turn
 *       off): the G x P prompts "system prompt + question" are shuffled once and request n sends
 *       prompt n mod (G x P), so every prompt recurs every G x P requests.
 *   <li>the multi-turn variants: G x P users, one per (group, question); request n is round
 *       n div U of user n mod U, its prompt is the user's context followed by new text, and the
 *       context then becomes that prompt followed by the response. A user's rounds are sent one at a
 *       time (each waits for the previous response): the records carry the previous round as
 *       {@code parentId}; their arrival is the time the tool scheduled them.
 * </ul>
 *
 * Token counts are the tokens the engine saw; the tool's random-token texts re-tokenise to slightly
 * different lengths, which readers fold into these counts (docs/validation.md section 2).
 */
public record SharedPrefixWorkload(int groups, int promptsPerGroup, int systemPromptTokens, int questionTokens,
    int outputTokens, MultiTurn multiTurn, LoadType loadType, List<LoadStage> loadStages, double interStageGapS,
    Integer measuredStage, int blockSize) implements WorkloadSpec {

  /** How a multi-turn session's prompts are built, by inference-perf version. */
  public enum MultiTurn {
    /** Single-turn prompts cycled (multi-turn off, or the tool before 4ec6bfd). */
    NONE,
    /** v0.3.0-v0.4.x: the context starts as the user's group system prompt; each round adds a question. */
    PREFIX_ONCE,
    /** 4621df7-v0.5.x (2026-04/05): the context starts empty; each round adds only the question. */
    NO_PREFIX,
    /** ad65fe0 and later (2026-05-27-, v0.6.x): the context starts empty; each round adds system prompt + question. */
    PREFIX_EVERY_ROUND
  }

  /** inference-perf {@code load.type}. */
  public enum LoadType {
    /** N = floor(rate x duration) arrivals, exponential gaps scaled to end exactly at the stage end. */
    CONSTANT,
    /** per second a Poisson(rate) count spread over that second the same way; N arrivals in all. */
    POISSON
  }

  public record LoadStage(double rate, double durationS) {
    public LoadStage {
      if (!(rate > 0) || Double.isInfinite(rate)) throw new IllegalArgumentException("stage rate must be > 0 and finite: " + rate);
      if (!(durationS > 0) || Double.isInfinite(durationS)) throw new IllegalArgumentException("stage duration must be > 0: " + durationS);
    }

    /** Python's {@code int(rate * duration)}, as the tool computes the stage's request count. */
    public int requests() {
      return (int) (rate * durationS);
    }
  }

  public SharedPrefixWorkload {
    if (groups <= 0 || promptsPerGroup <= 0) throw new IllegalArgumentException("groups and promptsPerGroup must be > 0");
    if (systemPromptTokens < 0 || questionTokens < 0) throw new IllegalArgumentException("token counts must be >= 0");
    if (systemPromptTokens + questionTokens == 0) throw new IllegalArgumentException("a prompt needs tokens");
    if (outputTokens <= 0) throw new IllegalArgumentException("outputTokens must be > 0");
    if (blockSize <= 0) throw new IllegalArgumentException("blockSize must be > 0");
    Objects.requireNonNull(multiTurn, "multiTurn");
    Objects.requireNonNull(loadType, "loadType");
    if (loadStages == null || loadStages.isEmpty()) throw new IllegalArgumentException("at least one load stage");
    loadStages = List.copyOf(loadStages);
    if (!(interStageGapS >= 0) || Double.isInfinite(interStageGapS)) throw new IllegalArgumentException("interStageGapS must be >= 0");
    if (measuredStage != null && (measuredStage < 0 || measuredStage >= loadStages.size())) {
      throw new IllegalArgumentException("measuredStage " + measuredStage + " is not one of the " + loadStages.size() + " stages");
    }
  }

  @Override
  public Integer concurrency() {
    return null;
  }

  @Override
  public double durationS() {
    List<Stage> s = stages();
    return s.get(s.size() - 1).endS();
  }

  @Override
  public List<Stage> stages() {
    List<Stage> out = new ArrayList<>();
    double start = 0;
    for (int k = 0; k < loadStages.size(); k++) {
      LoadStage ls = loadStages.get(k);
      out.add(new Stage(k, start, start + ls.durationS(), ls.rate()));
      start += ls.durationS() + interStageGapS;
    }
    return out;
  }

  @Override
  public List<TraceRecord> synthesize(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int users = groups * promptsPerGroup;
    int[] userOrder = identity(users);
    int[] textOrder = identity(users);
    Sampling.shuffle(rnd, userOrder);
    if (multiTurn == MultiTurn.NONE || multiTurn == MultiTurn.NO_PREFIX || multiTurn == MultiTurn.PREFIX_EVERY_ROUND) {
      // single-turn: one shuffled prompt list; newer multi-turn: users and prompts permuted together
      textOrder = userOrder;
    }
    PromptBlocks[] context = null;
    int[] rounds = null;
    String[] lastId = null;
    if (multiTurn != MultiTurn.NONE) {
      context = new PromptBlocks[users];
      rounds = new int[users];
      lastId = new String[users];
      for (int u = 0; u < users; u++) {
        context[u] = new PromptBlocks();
        if (multiTurn == MultiTurn.PREFIX_ONCE) context[u].add(sysKey(seed, u / promptsPerGroup), systemPromptTokens);
      }
    }
    List<TraceRecord> out = new ArrayList<>();
    PromptBlocks prompt = new PromptBlocks();
    long seq = 0;
    for (Stage st : stages()) {
      LoadStage ls = loadStages.get(st.index());
      double[] offsets = arrivals(rnd, ls);
      for (int n = 0; n < offsets.length; n++) {
        int slot = n % users;
        int text = textOrder[slot];
        int g = text / promptsPerGroup;
        String id = "s" + st.index() + "-" + n;
        prompt.clear();
        String session = null;
        String parent = null;
        Integer turn = null;
        if (multiTurn == MultiTurn.NONE) {
          prompt.add(sysKey(seed, g), systemPromptTokens).add(questionKey(seed, text), questionTokens);
        } else {
          int u = userOrder[slot];
          prompt.addAll(context[u]);
          if (multiTurn == MultiTurn.PREFIX_EVERY_ROUND) prompt.add(sysKey(seed, g), systemPromptTokens);
          prompt.add(questionKey(seed, text), questionTokens);
          session = "u" + u;
          parent = lastId[u];
          turn = rounds[u];
          context[u] = prompt.copy().add(PromptBlocks.key(seed, 3, u, rounds[u], 0), outputTokens);
          rounds[u]++;
          lastId[u] = id;
        }
        out.add(new TraceRecord(id, session, parent, turn, "user", st.startS() + offsets[n], prompt.tokens(),
            outputTokens, blockSize, prompt.chainedBlocks(blockSize), null, seq++));
      }
    }
    return out;
  }

  private double[] arrivals(SplittableRandom rnd, LoadStage ls) {
    int n = ls.requests();
    if (loadType == LoadType.CONSTANT) return Sampling.normalisedExponentialArrivals(rnd, n, ls.durationS());
    double[] out = new double[n];
    int filled = 0;
    double second = 0;
    while (filled < n) {
      int c = Sampling.poisson(rnd, ls.rate());
      if (c > 0) {
        double[] within = Sampling.normalisedExponentialArrivals(rnd, c, 1.0);
        for (int i = 0; i < c && filled < n; i++) out[filled++] = second + within[i];
      }
      second += 1.0;
    }
    return out;
  }

  private static long sysKey(long seed, int group) {
    return PromptBlocks.key(seed, 1, group, 0, 0);
  }

  private static long questionKey(long seed, int prompt) {
    return PromptBlocks.key(seed, 2, prompt, 0, 0);
  }

  private static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) a[i] = i;
    return a;
  }
}
