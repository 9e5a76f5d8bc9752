package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Independent requests with given lengths, as {@code vllm bench serve} (random, sharegpt, ...) and
 * GuideLLM send them: request i has {@code inputTokens[i]} prompt tokens, of which the first
 * {@code sharedPrefixTokens} are the same for every request (vllm bench {@code --random-prefix-len};
 * 0 when unknown) and the rest unique, and generates {@code outputTokens[i]}.
 *
 * <p>Arrivals: {@link Arrival#ALL_AT_ONCE} (request rate inf; with {@link #concurrency} the client
 * keeps that many in flight); {@link Arrival#GAMMA} (vllm bench: the first request at 0, then gaps
 * drawn Gamma(shape = burstiness, scale = 1 / (rate x burstiness)); burstiness 1 is Poisson);
 * {@link Arrival#EXPONENTIAL} (GuideLLM poisson); {@link Arrival#UNIFORM} (GuideLLM constant: one
 * request every 1 / rate). A finite rate and a concurrency limit together mean both apply.
 */
public record SampledWorkload(int[] inputTokens, int[] outputTokens, int sharedPrefixTokens, Arrival arrival,
    double rate, double burstiness, Integer concurrency, double durationS, int blockSize) implements WorkloadSpec {

  public enum Arrival { ALL_AT_ONCE, GAMMA, EXPONENTIAL, UNIFORM }

  public SampledWorkload {
    Objects.requireNonNull(inputTokens, "inputTokens");
    Objects.requireNonNull(outputTokens, "outputTokens");
    Objects.requireNonNull(arrival, "arrival");
    if (inputTokens.length != outputTokens.length) {
      throw new IllegalArgumentException(inputTokens.length + " input lengths but " + outputTokens.length + " output lengths");
    }
    if (inputTokens.length == 0) throw new IllegalArgumentException("no requests");
    inputTokens = inputTokens.clone();
    outputTokens = outputTokens.clone();
    for (int i = 0; i < inputTokens.length; i++) {
      if (inputTokens[i] <= 0) throw new IllegalArgumentException("request " + i + ": input tokens must be > 0: " + inputTokens[i]);
      if (outputTokens[i] < 0) throw new IllegalArgumentException("request " + i + ": output tokens must be >= 0: " + outputTokens[i]);
    }
    if (sharedPrefixTokens < 0) throw new IllegalArgumentException("sharedPrefixTokens must be >= 0");
    if (arrival != Arrival.ALL_AT_ONCE && !(rate > 0 && Double.isFinite(rate))) {
      throw new IllegalArgumentException("arrival " + arrival + " needs a finite rate > 0, got " + rate);
    }
    if (arrival == Arrival.GAMMA && !(burstiness > 0)) throw new IllegalArgumentException("burstiness must be > 0");
    if (concurrency != null && concurrency <= 0) throw new IllegalArgumentException("concurrency must be > 0");
    if (blockSize <= 0) throw new IllegalArgumentException("blockSize must be > 0");
  }

  /** n requests of the same lengths. */
  public static SampledWorkload uniform(int n, int input, int output, Arrival arrival, double rate, double burstiness,
      Integer concurrency, double durationS, int blockSize) {
    int[] in = new int[n];
    int[] out = new int[n];
    Arrays.fill(in, input);
    Arrays.fill(out, output);
    return new SampledWorkload(in, out, 0, arrival, rate, burstiness, concurrency, durationS, blockSize);
  }

  public int requests() {
    return inputTokens.length;
  }

  @Override
  public List<TraceRecord> synthesize(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long prefixKey = PromptBlocks.key(seed, 5, 0, 0, 0);
    PromptBlocks p = new PromptBlocks();
    List<TraceRecord> out = new ArrayList<>(inputTokens.length);
    double t = 0;
    for (int i = 0; i < inputTokens.length; i++) {
      if (i > 0) {
        switch (arrival) {
          case ALL_AT_ONCE -> { }
          case GAMMA -> t += Sampling.gamma(rnd, burstiness, 1.0 / (rate * burstiness));
          case EXPONENTIAL -> t += Sampling.exponential(rnd, 1.0 / rate);
          case UNIFORM -> t = i / rate;
        }
      }
      int shared = Math.min(sharedPrefixTokens, inputTokens[i]);
      p.clear();
      p.add(prefixKey, shared).add(PromptBlocks.key(seed, 6, i, 0, 0), inputTokens[i] - shared);
      out.add(new TraceRecord("s0-" + i, null, null, null, "user", t, inputTokens[i], outputTokens[i], blockSize,
          p.chainedBlocks(blockSize), null, i));
    }
    return out;
  }

  @Override
  public List<Stage> stages() {
    double end = Double.isNaN(durationS) ? 0.0 : durationS;
    return List.of(new Stage(0, 0.0, end, arrival == Arrival.ALL_AT_ONCE ? Double.NaN : rate));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SampledWorkload w && Arrays.equals(inputTokens, w.inputTokens)
        && Arrays.equals(outputTokens, w.outputTokens) && sharedPrefixTokens == w.sharedPrefixTokens
        && arrival == w.arrival && Double.compare(rate, w.rate) == 0 && Double.compare(burstiness, w.burstiness) == 0
        && Objects.equals(concurrency, w.concurrency) && Double.compare(durationS, w.durationS) == 0
        && blockSize == w.blockSize;
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(inputTokens), Arrays.hashCode(outputTokens), sharedPrefixTokens, arrival, rate,
        burstiness, concurrency, durationS, blockSize);
  }

  @Override
  public String toString() {
    return "SampledWorkload[" + inputTokens.length + " requests, arrival " + arrival + ", rate " + rate
        + ", concurrency " + concurrency + "]";
  }
}
