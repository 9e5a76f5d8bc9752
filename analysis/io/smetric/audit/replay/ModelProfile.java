package io.smetric.audit.replay;

import java.io.Serializable;

/**
 * The step-time cost model of one model instance, in the style of BLIS and Vidur: one scheduler
 * step takes
 *
 * <pre>
 *   a + b x (uncached prefill tokens in the step)
 *     + e x sum over prefill chunks of P x (L + P / 2)      (attention of a chunk of P tokens after L)
 *     + c x (decode sequences) + d x (sum of their context lengths)
 * </pre>
 *
 * with at most {@code maxBatch} sequences and {@code tokenBudget} tokens per step. The local KV
 * capacity, unless given, is the GPU memory left after the weights divided by the KV bytes of a
 * block. Users can load their own profile (fitted on their step times) from JSON or YAML.
 * The shipped default's numbers and their origin are in docs/replay.md.
 */
public final class ModelProfile implements Serializable {
  private static final long serialVersionUID = 1L;

  public String name = "qwen3-30b-a3b-h20-estimate";
  public String origin = "ESTIMATES from public specs (see docs/replay.md): Qwen3-30B-A3B BF16 on one NVIDIA H20 96 GB";
  /** a: fixed cost of a step [s]; MoE weights (~61 GB) read once per step at ~4 TB/s plus launch overhead. */
  public double stepBaseS = 0.015;
  /** b: per uncached prefill token [s]; ~6.6 GFLOP/token (3.3B active) at ~60 TFLOP/s (40% of 148). */
  public double prefillPerTokenS = 1.1e-4;
  /** e: per (new token x context token) pair of prefill attention [s]; 4 x 48 layers x 4096 FLOP at ~60 TFLOP/s. */
  public double prefillAttentionPerPairS = 1.3e-8;
  /** c: per decode sequence [s]; sampling and per-sequence overhead (estimate). */
  public double decodePerSeqS = 2.0e-4;
  /** d: per context token of a decode sequence [s]; 96 KiB of KV read at ~4 TB/s. */
  public double decodePerContextTokenS = 2.5e-8;
  /** KV bytes per token: 48 layers x 2 (K,V) x 4 KV heads x 128 dims x 2 bytes = 96 KiB. */
  public long kvBytesPerToken = 98_304;
  public double gpuMemoryGiB = 96;
  /** vLLM's gpu_memory_utilization default. */
  public double memoryUtilization = 0.90;
  /** 30.5B parameters x 2 bytes. */
  public double weightsGiB = 56.8;
  /** Activations, CUDA graphs, fragmentation (estimate). */
  public double runtimeOverheadGiB = 4.0;
  /** vLLM max_num_seqs. */
  public int maxBatch = 256;
  /** vLLM max_num_batched_tokens (chunked prefill). */
  public int tokenBudget = 8192;

  /** Local KV capacity in blocks of {@code blockSize} tokens derived from the memory figures. */
  public long derivedLocalBlocks(int blockSize) {
    double freeBytes = (gpuMemoryGiB * memoryUtilization - weightsGiB - runtimeOverheadGiB) * (1L << 30);
    if (freeBytes <= 0) throw new IllegalArgumentException("profile " + name + ": no memory left for KV after the weights");
    return (long) Math.floor(freeBytes / ((double) kvBytesPerToken * blockSize));
  }

  public void validate() {
    check(stepBaseS >= 0 && prefillPerTokenS >= 0 && prefillAttentionPerPairS >= 0 && decodePerSeqS >= 0
        && decodePerContextTokenS >= 0, "cost coefficients must be >= 0");
    check(stepBaseS + prefillPerTokenS > 0, "a step must take time (a + b > 0)");
    check(kvBytesPerToken > 0, "kvBytesPerToken must be > 0");
    check(maxBatch > 0, "maxBatch must be > 0");
    check(tokenBudget > 0, "tokenBudget must be > 0");
  }

  private void check(boolean ok, String msg) {
    if (!ok) throw new IllegalArgumentException("profile " + name + ": " + msg);
  }
}
