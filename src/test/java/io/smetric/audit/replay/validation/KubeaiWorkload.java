package io.smetric.audit.replay.validation;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The workload of KubeAI's prefix-aware load-balancing benchmark as a canonical trace, rebuilt from
 * its generator (kubeai-project/kubeai benchmarks/chat-py/benchmark_serving.py,
 * sample_sharegpt_requests and get_request) and the parameters its doc publishes. The generator,
 * step by step:
 *
 * <ol>
 *   <li>every conversation of M messages (ShareGPT, 16+ messages) gives one prompt per odd message
 *       count i = 1, 3, ..., the first i messages as "User: ..."/"Assistant: ..." lines, sent to
 *       /v1/completions (no chat template), so prompt k+1 of a conversation extends prompt k;
 *   <li>{@code --max-conversations 800} keeps the first 800 such <em>prompts</em> (the variable is
 *       named for conversations but holds prompts), which are shuffled;
 *   <li>prompts over 8,192 tokens (or with a completion under 4 tokens) are skipped and the list is
 *       cycled until {@code --num-prompts 8000}: each prompt is sent about ten times;
 *   <li>requests leave at Poisson times of {@code --request-rate}, at most {@code --max-concurrency}
 *       in flight.
 * </ol>
 *
 * <p>The ShareGPT file itself is not shipped or fetched: message counts and lengths are drawn from
 * the {@link Assumptions} below, and the message scale is then set so that the 8,000 requests carry
 * the published total of input tokens (6,656,338), the output lengths so that they carry the
 * published generated tokens (608,447). Generation at temperature 0 is deterministic, so a
 * prompt's repeats get the same output length.
 *
 * <p>The concurrency cap: the script creates each request at its Poisson time and lets it wait for
 * one of N semaphore slots (TTFT counts from when it got one). The replay's closed loop chains the
 * requests of a session, and one queue behind N slots cannot be expressed (docs/replay.md, Limits).
 * With {@code slots > 0} the builder approximates it with N chains: request j is turn j / N of one
 * of N client sessions, the N requests of each round dealt to the sessions in a random order, so it
 * leaves at its Poisson time or when its session's previous request has its response, whichever is
 * later (the semaphore would give it the first slot to free). Dealing in order (j mod N) would give
 * a session the same prompt every round here (the 800 prompts cycle with period 800), and the
 * sessions holding long answers would run on alone at the end.
 * The sessions then stand for client slots, so {@link Built#conversation} keeps each request's
 * conversation for the routers keyed on it. With {@code slots = 0} (or at least the request
 * count) arrivals are open-loop Poisson.
 */
final class KubeaiWorkload {
  private KubeaiWorkload() {}

  /** What the published material does not state, each an assumption with the range tried. */
  static final class Assumptions {
    /** Messages per conversation = 16 + 2 x geometric(mean this): mean 24 (range tried 16-40). */
    double meanExtraPairs = 4;
    /** Log-normal sigma of a message's length (mean fixed by the published total); range 0.5-1.5. */
    double messageSigma = 1.0;
    /** Log-normal sigma of a prompt's generated length (mean 76.1, published); range 0.5-1.2. */
    double outputSigma = 0.8;
    /** vLLM's default KV block size. */
    int blockSize = 16;
    long seed = 12345;
  }

  /** The published generator parameters of one load point. */
  record Params(int numPrompts, int maxPrompts, int maxPromptTokens, long totalInput, long totalOutput,
      double requestRate, int slots) {}

  /** The trace and what it came to. */
  record Built(List<TraceRecord> records, int conversations, int keptPrompts, int skipped, long input, long output,
      double messageScale, int[] conversation) {}

  private record Prompt(int conv, int index, double rawTokens, double rawOutput) {}

  static Built build(Params p, Assumptions a) {
    SplittableRandom rnd = new SplittableRandom(a.seed);
    List<Prompt> prompts = new ArrayList<>();
    int conv = 0;
    while (prompts.size() < p.maxPrompts()) {
      int pairs = 8 + geometric(rnd, a.meanExtraPairs);
      double cum = 0;
      for (int k = 0; k < pairs && prompts.size() < p.maxPrompts(); k++) {
        cum += logNormal(rnd, a.messageSigma); // the user message of prompt k
        prompts.add(new Prompt(conv, k, cum, logNormal(rnd, a.outputSigma)));
        cum += logNormal(rnd, a.messageSigma); // the answer, part of prompt k+1
      }
      conv++;
    }
    for (int i = prompts.size() - 1; i > 0; i--) { // Fisher-Yates, as random.shuffle
      int j = rnd.nextInt(i + 1);
      Prompt t = prompts.get(i);
      prompts.set(i, prompts.get(j));
      prompts.set(j, t);
    }
    // the message scale that gives the published input total (monotone in the scale: bisection)
    double lo = 1;
    double hi = 10_000;
    for (int it = 0; it < 100; it++) {
      double mid = 0.5 * (lo + hi);
      if (totalInput(prompts, mid, p) < p.totalInput()) lo = mid;
      else hi = mid;
    }
    double scale = 0.5 * (lo + hi);
    List<Prompt> sent = cycle(prompts, scale, p);
    double rawOut = 0;
    for (Prompt q : sent) rawOut += q.rawOutput();
    double outScale = p.totalOutput() / rawOut;

    SplittableRandom arrivals = new SplittableRandom(a.seed + 1);
    Traces.Builder b = Traces.builder().blockSize(a.blockSize);
    double t = 0;
    long in = 0;
    long out = 0;
    int[] conversation = new int[sent.size()];
    boolean chained = p.slots() > 0 && p.slots() < sent.size();
    int[] slotOf = new int[chained ? sent.size() : 0];
    if (chained) {
      SplittableRandom deal = new SplittableRandom(a.seed + 2);
      for (int start = 0; start < sent.size(); start += p.slots()) {
        int m = Math.min(p.slots(), sent.size() - start);
        int[] perm = new int[p.slots()];
        for (int i = 0; i < perm.length; i++) perm[i] = i;
        for (int i = perm.length - 1; i > 0; i--) {
          int j = deal.nextInt(i + 1);
          int x = perm[i];
          perm[i] = perm[j];
          perm[j] = x;
        }
        for (int i = 0; i < m; i++) slotOf[start + i] = perm[i];
      }
    }
    for (int r = 0; r < sent.size(); r++) {
      Prompt q = sent.get(r);
      int tokens = tokens(q, scale);
      int output = Math.max(1, (int) Math.round(q.rawOutput() * outScale));
      conversation[r] = q.conv();
      String session = chained ? "u" + slotOf[r] : "c" + q.conv();
      int turn = chained ? r / p.slots() : q.index();
      b.req("q" + r, session, null, turn, turn == 0 ? "user" : "tool", t, tokens, output,
          blocks(q, tokens, a.blockSize));
      in += tokens;
      out += output;
      t += -Math.log(1 - arrivals.nextDouble()) / p.requestRate();
    }
    int skipped = 0;
    for (Prompt q : prompts) if (tokens(q, scale) > p.maxPromptTokens()) skipped++;
    return new Built(b.records(), conv, prompts.size(), skipped, in, out, scale, conversation);
  }

  /** BOS + the messages' tokens (the "User: "/"Assistant: " labels count in the message lengths). */
  private static int tokens(Prompt q, double scale) {
    return 1 + (int) Math.round(q.rawTokens() * scale);
  }

  private static List<Prompt> cycle(List<Prompt> prompts, double scale, Params p) {
    List<Prompt> kept = new ArrayList<>();
    for (Prompt q : prompts) if (tokens(q, scale) <= p.maxPromptTokens()) kept.add(q);
    if (kept.isEmpty()) throw new IllegalStateException("every prompt is longer than " + p.maxPromptTokens());
    List<Prompt> sent = new ArrayList<>(p.numPrompts());
    for (int i = 0; sent.size() < p.numPrompts(); i++) sent.add(kept.get(i % kept.size()));
    return sent;
  }

  private static long totalInput(List<Prompt> prompts, double scale, Params p) {
    long sum = 0;
    for (Prompt q : cycle(prompts, scale, p)) sum += tokens(q, scale);
    return sum;
  }

  /**
   * One token stream per conversation: a prompt's full blocks are that stream's first blocks
   * (shared with every longer prompt of the conversation), its last partial block its own.
   */
  private static long[] blocks(Prompt q, int tokens, int blockSize) {
    int full = tokens / blockSize;
    boolean partial = tokens % blockSize != 0;
    long[] ids = new long[full + (partial ? 1 : 0)];
    long base = (long) (q.conv() + 1) << 32;
    for (int i = 0; i < full; i++) ids[i] = base | i;
    if (partial) ids[full] = base | (1L << 30) | q.index();
    return ids;
  }

  private static int geometric(SplittableRandom rnd, double mean) {
    if (mean <= 0) return 0;
    double pSucc = 1 / (1 + mean); // failures before the first success, mean (1-p)/p
    return (int) Math.floor(Math.log(1 - rnd.nextDouble()) / Math.log(1 - pSucc));
  }

  /** Log-normal with mean 1. */
  private static double logNormal(SplittableRandom rnd, double sigma) {
    double u1 = 1 - rnd.nextDouble();
    double u2 = rnd.nextDouble();
    double z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return Math.exp(sigma * z - sigma * sigma / 2);
  }
}
