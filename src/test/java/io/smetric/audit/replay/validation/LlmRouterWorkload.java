package io.smetric.audit.replay.validation;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The workload of zxuhan/llm-router's cloud benchmark as a canonical trace, rebuilt from its
 * generator (internal/trace/trace.go Generate, with the options cmd/bench/main.go passes in
 * real-backend mode): every session opens with a shared system message (a 32-character sentence
 * padded with 's' to 6,144 characters), 40% of them with a second, shared code-context message
 * ('c' padding to 1,536 characters); each turn adds a user message of 80 random characters, in 30%
 * of turns an assistant tool call and a tool result of 64 random characters; the request is the
 * history so far, and a fixed assistant reply ("ack tN") joins it afterwards, so each prompt extends
 * the session's previous one. Sessions start uniformly within 200 ms, turn N is due 40 N + [0, 50)
 * ms after its session's start, and waits for the previous turn's response (the replay's closed
 * loop). Requests are not streamed: the published TTFT is the whole response time.
 *
 * <p>Token counts are {@link Assumptions}: the benchmark's strings are synthetic (long runs of one
 * letter, random characters) and Qwen2.5's tokenizer is not at hand; the chat template (Qwen2.5's
 * {@code <|im_start|>role\n ... <|im_end|>\n}: 5 tokens a message, 3 for the generation prompt) is
 * documented. The random draws are ours (same distributions as the Go generator's, not its stream).
 */
final class LlmRouterWorkload {
  private LlmRouterWorkload() {}

  static final class Assumptions {
    /** Characters per token of a run of one letter ('s', 'c' padding); range tried 2-16. */
    double repeatCharsPerToken = 4;
    /** Characters per token of the random strings; range 1-3. */
    double randomCharsPerToken = 2;
    /** vLLM's default KV block size. */
    int blockSize = 16;
  }

  record Params(int sessions, int turns, int systemChars, int userChars, int codeChars, double codeShare,
      double toolProb, int toolChars, int startJitterMs, int turnGapMs, int maxTokens) {}

  private static final int TEMPLATE = 5; // <|im_start|> role \n ... <|im_end|> \n
  private static final int GEN_PROMPT = 3; // <|im_start|> assistant \n

  static List<TraceRecord> build(Params p, Assumptions a, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int sysTokens = TEMPLATE + 8 + (int) Math.round((p.systemChars() - 32) / a.repeatCharsPerToken);
    int codeTokens = TEMPLATE + 5 + (int) Math.round((p.codeChars() - 16) / a.repeatCharsPerToken);
    int userTokens = TEMPLATE + 4 + (int) Math.round(p.userChars() / a.randomCharsPerToken);
    int toolTokens = (TEMPLATE + 5) + TEMPLATE + (int) Math.round(p.toolChars() / a.randomCharsPerToken);
    int ackTokens = TEMPLATE + 3; // the generation prompt's 3 tokens open it
    List<Object[]> reqs = new ArrayList<>(); // {time, session, turn, tokens, sharedSys, sharedCode}
    for (int s = 0; s < p.sessions(); s++) {
      boolean code = rnd.nextDouble() < p.codeShare();
      double start = rnd.nextInt(p.startJitterMs() + 1) / 1000.0;
      int tokens = sysTokens + (code ? codeTokens : 0);
      for (int t = 0; t < p.turns(); t++) {
        if (t > 0) tokens += ackTokens;
        tokens += userTokens;
        if (rnd.nextDouble() < p.toolProb()) tokens += toolTokens;
        double due = start + (t * p.turnGapMs() + rnd.nextInt(50)) / 1000.0;
        reqs.add(new Object[] {due, s, t, tokens + GEN_PROMPT, code});
      }
    }
    reqs.sort((x, y) -> Double.compare((double) x[0], (double) y[0]));
    Traces.Builder b = Traces.builder().blockSize(a.blockSize);
    for (Object[] r : reqs) {
      int s = (int) r[1];
      int t = (int) r[2];
      int tokens = (int) r[3];
      boolean code = (boolean) r[4];
      b.req("s" + s + "t" + t, "s" + s, null, t, t == 0 ? "user" : "tool",
          (double) r[0], tokens, p.maxTokens(), // assumption: every answer reaches max_tokens
          blocks(s, t, tokens, code, sysTokens, codeTokens, a.blockSize));
    }
    return b.records();
  }

  /** Full blocks inside the shared system (and code) messages are shared; the rest are the session's. */
  private static long[] blocks(int s, int t, int tokens, boolean code, int sys, int codeTok, int bs) {
    int full = tokens / bs;
    boolean partial = tokens % bs != 0;
    long[] ids = new long[full + (partial ? 1 : 0)];
    for (int i = 0; i < full; i++) {
      long end = (long) (i + 1) * bs;
      if (end <= sys) ids[i] = (1L << 40) | i;
      else if (code && end <= sys + codeTok) ids[i] = (2L << 40) | i;
      else ids[i] = ((long) (s + 16) << 40) | i;
    }
    if (partial) ids[full] = ((long) (s + 16) << 40) | (1L << 30) | t;
    return ids;
  }
}
