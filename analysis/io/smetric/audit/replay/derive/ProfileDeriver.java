package io.smetric.audit.replay.derive;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ModelProfile.Source;
import java.util.Locale;

/**
 * A profile from a model's config, a GPU and the learned efficiency factors (docs/replay.md,
 * "Derived profiles"). Per instance of {@code tp} GPUs (peak FLOP/s P and bandwidth B summed):
 *
 * <pre>
 *   a = layers x (fixed step cost per layer)                 learned
 *   b = FLOPs per token / (prefill MFU x P)                 learned MFU
 *   e = attention FLOPs per pair / (attention MFU x P)      learned (prefill MFU where no profile fits e)
 *   d = KV bytes per token x copies / (KV read efficiency x B)
 *   c, frontend latency                                     learned as they are
 *   R, W = weights every step reads, routed experts          from config.json at hbmEfficiency x B
 * </pre>
 *
 * Memory, KV capacity and engine limits follow the GPU table and the engine's defaults; the global
 * tier's costs are those of the default profile (they describe the KV store, not the model).
 */
public final class ProfileDeriver {
  private ProfileDeriver() {}

  public record Request(ModelFacts model, String modelName, GpuSpec gpu, int tp, String engine, String name) {}

  /** Where the FLOP/s, bandwidth and memory come from, for the sources. */
  private static String gpuRef(GpuSpec g, int tp) {
    return tp + " x " + g.name() + " (measurements/facts/gpus.csv: " + g.source() + ")";
  }

  public static ModelProfile derive(Request r, Efficiency eff) {
    ModelFacts m = r.model();
    GpuSpec g = r.gpu();
    int tp = r.tp();
    if (tp < 1) throw new UsageException("--tp must be >= 1");
    String engine = r.engine() == null ? "vllm" : r.engine().toLowerCase(Locale.ROOT);
    if (!engine.equals("vllm") && !engine.equals("sglang")) throw new UsageException("--engine must be vllm or sglang, got " + r.engine());
    double peak = g.bf16Tflops() * 1e12 * tp;
    double bw = g.hbmGBps() * 1e9 * tp;
    String learned = "efficiency learned from " + String.join(", ", eff.from()) + " (profiles/derive-basis.csv)";
    String facts = "derived from " + m.source() + " (" + m.describe() + ")";
    String gref = gpuRef(g, tp);

    ModelProfile.Builder p = new ModelProfile.Builder();
    p.name = r.name() != null ? r.name() : "derived-" + slug(r.modelName()) + "-" + slug(g.name()) + "-tp" + tp;
    p.model = r.modelName() + " (BF16)";
    p.hardware = tp + " x " + g.name() + (tp > 1 ? " (TP" + tp + ")" : "");
    p.engine = (engine.equals("vllm") ? "vLLM V1" : "SGLang") + " defaults (derived profile)";
    p.description = "Derived, not fitted: " + r.modelName() + " on " + p.hardware + " from its config.json, the GPU table and"
        + " efficiency factors learned from the shipped calibrated profiles (" + String.join(", ", eff.from())
        + "); calibrate it on a measurement of this deployment before trusting a verdict near a threshold.";

    // ---- compute: b and e
    Efficiency.Factor mfu = eff.get(Efficiency.PREFILL_MFU);
    if (mfu == null) throw new UsageException("no profile to learn the prefill MFU from");
    p.prefillPerTokenS = m.flopsPerToken() / (mfu.value() * peak);
    double mfuLow = Math.min(mfu.low(), 0.30);
    double mfuHigh = Math.max(mfu.high(), 1.0);
    p.sources.put("prefillPerTokenS", new Source("derived", String.format(Locale.ROOT,
        "%.3g GFLOP per token (2 x %.3gB weights multiplied, LM head included, embedding lookup not) at a prefill MFU of %s of %s"
            + " BF16 peak %.0f TFLOP/s; %s. Every shipped b is itself derived at the share measured for one prefill"
            + " (docs/validation.md Sources 9), so this factor is carried, not cross-validated; range: MFU %.2f (FLOP floor at %.0f%%) to %.2f",
        m.flopsPerToken() / 1e9, m.activeMatmulParams() / 1e9, eff.describe(Efficiency.PREFILL_MFU, "%.3f"), gref, peak / 1e12, facts,
        mfuHigh, 100 * mfuHigh, mfuLow), m.flopsPerToken() / (mfuHigh * peak), m.flopsPerToken() / (mfuLow * peak)));

    Efficiency.Factor att = eff.get(Efficiency.ATTENTION_MFU);
    double attMfu = att != null ? att.value() : mfu.value();
    p.prefillAttentionPerPairS = m.attentionFlopsPerPair() / (attMfu * peak);
    p.sources.put("prefillAttentionPerPairS", att != null
        ? new Source("derived", String.format(Locale.ROOT, "%.4g FLOP per (token, context token) pair (2 x layers x heads x"
            + " (key + value dims)) at an attention MFU of %s of the BF16 peak; %s", m.attentionFlopsPerPair(),
            eff.describe(Efficiency.ATTENTION_MFU, "%.3f"), learned),
            m.attentionFlopsPerPair() / (Math.min(1.0, att.high()) * peak), m.attentionFlopsPerPair() / (Math.min(att.low(), mfu.value()) * peak))
        : new Source("assumption", String.format(Locale.ROOT, "%.4g FLOP per pair at the prefill MFU %.3f: none of %s has its"
            + " attention cost fitted; range: 100%% of the peak to the prefill MFU", m.attentionFlopsPerPair(), mfu.value(),
            String.join(", ", eff.from())), m.attentionFlopsPerPair() / peak, p.prefillAttentionPerPairS));

    // ---- decode: d, c; fixed step cost a; frontend
    Efficiency.Factor kv = eff.get(Efficiency.KV_READ);
    double kvBytes = (double) m.kvBytesPerToken() * m.kvReplication(tp);
    if (kv != null) {
      p.decodePerContextTokenS = kvBytes / (kv.value() * bw);
      p.sources.put("decodePerContextTokenS", new Source("derived", String.format(Locale.ROOT,
          "%.0f B of KV per context token%s read at %s of %.0f GB/s; %s; range over the learned efficiencies", kvBytes,
          m.kvReplication(tp) > 1 ? " (" + m.kvReplication(tp) + " copies: KV replicated over the tensor-parallel GPUs)" : "",
          eff.describe(Efficiency.KV_READ, "%.3f"), bw / 1e9, learned), kvBytes / (Math.min(1.0, kv.high()) * bw), kvBytes / (kv.low() * bw)));
    } else {
      p.decodePerContextTokenS = kvBytes / (0.5 * bw);
      p.sources.put("decodePerContextTokenS", new Source("assumption", "KV read at 50% of the peak bandwidth: no training profile"
          + " has d fitted; range 100%-30%", kvBytes / bw, kvBytes / (0.3 * bw)));
    }
    Efficiency.Factor a = eff.get(Efficiency.STEP_PER_LAYER);
    if (a != null) {
      p.stepBaseS = a.value() * m.layers();
      p.sources.put("stepBaseS", new Source("derived", String.format(Locale.ROOT, "%d layers x %s s per layer (fixed step cost"
          + " per layer: kernel launches, synchronisation, sampling spread over layers); %s", m.layers(),
          eff.describe(Efficiency.STEP_PER_LAYER, "%.3g"), learned), a.low() * m.layers(), a.high() * m.layers()));
    } else {
      p.stepBaseS = 1e-3;
      p.sources.put("stepBaseS", new Source("assumption", "1 ms: no training profile has a fitted step base", 5e-4, 6e-3));
    }
    learnedOrAssumed(p, eff, Efficiency.PER_SEQ, "decodePerSeqS", 2e-5, learned, "s per decoding sequence", 1e-6, 7e-5);
    learnedOrAssumed(p, eff, Efficiency.FRONTEND, "frontendLatencyS", 0.02, learned,
        "s of HTTP, tokenisation and streaming outside the engine (not a GPU figure)", 0.0, 0.04);

    // ---- weights read per step
    p.denseWeightGB = m.denseReadBytes() / 1e9;
    p.expertWeightGB = m.expertBytes() / 1e9;
    p.experts = m.experts();
    p.expertsPerToken = m.expertsPerToken();
    p.hbmGBps = g.hbmGBps() * tp;
    Efficiency.Factor hbm = eff.get(Efficiency.HBM_WEIGHTS);
    p.hbmEfficiency = hbm == null ? 0.8 : hbm.value();
    p.sources.put("denseWeightGB", new Source("derived", String.format(Locale.ROOT, "weights every step reads (attention,"
        + " dense FFN, shared experts, routers, LM head; not the embedding table) x 2 B = %.2f GB; %s", p.denseWeightGB, facts), null, null));
    p.sources.put("expertWeightGB", new Source("derived", String.format(Locale.ROOT,
        "%d MoE layers x %d routed experts x 3 x %d x %d x 2 B = %.2f GB; %s", m.moeLayers(), m.experts(), m.hidden(),
        m.moeIntermediate(), p.expertWeightGB, facts), null, null));
    p.sources.put("experts", new Source("documented", "routed experts per MoE layer, " + m.source(), null, null));
    p.sources.put("expertsPerToken", new Source("documented", "num_experts_per_tok, " + m.source(), null, null));
    p.sources.put("hbmGBps", new Source("documented", gref, null, null));
    p.sources.put("hbmEfficiency", new Source("assumption", "share of the peak bandwidth weight reads reach: "
        + eff.describe(Efficiency.HBM_WEIGHTS, "%.2f") + ", the value each training profile's fit held it at (an assumption"
        + " there too), so the learned step cost is consistent with it", 0.6, 0.95));

    // ---- memory and KV
    p.kvBytesPerToken = m.kvBytesPerToken();
    p.sources.put("kvBytesPerToken", new Source("derived", m.mla()
        ? String.format(Locale.ROOT, "%d layers x (kv_lora_rank %d + qk_rope_head_dim %d) x 2 B = %d (MLA latent); %s", m.layers(),
            m.kvLoraRank(), m.qkRopeHeadDim(), p.kvBytesPerToken, facts)
        : String.format(Locale.ROOT, "%d layers x 2 (K, V) x %d KV heads x %d dims x 2 B = %d; %s", m.layers(), m.kvHeads(), m.qkHeadDim(),
            p.kvBytesPerToken, facts), null, null));
    p.gpuMemoryGiB = g.memoryGiB() * tp;
    p.sources.put("gpuMemoryGiB", new Source("documented", String.format(Locale.ROOT, "%d x %.0f GB = %.1f GiB (%s)", tp,
        g.memoryGB(), p.gpuMemoryGiB, gref), null, null));
    p.weightsGiB = m.weightBytes() / (1L << 30);
    p.sources.put("weightsGiB", new Source("derived", String.format(Locale.ROOT, "%.2fB parameters x 2 B = %.2f GiB; %s",
        m.totalParams() / 1e9, p.weightsGiB, facts), null, null));
    p.runtimeOverheadGiB = 4.0 * tp;
    p.sources.put("runtimeOverheadGiB", new Source("assumption", "activations, CUDA graphs, fragmentation: 4 GiB per GPU"
        + " (range 2-8 per GPU)", 2.0 * tp, 8.0 * tp));
    if (engine.equals("vllm")) {
      boolean big = g.memoryGiB() >= 70 && !g.name().toLowerCase(Locale.ROOT).startsWith("a100");
      p.memoryUtilization = 0.9;
      p.maxBatch = big ? 1024 : 256;
      p.tokenBudget = big ? 8192 : 2048;
      p.prefillChunkTokens = 0;
      p.sources.put("memoryUtilization", new Source("documented", "vLLM gpu_memory_utilization default 0.9 (docs/validation.md"
          + " Sources 8)", null, null));
      String rule = "vLLM V1 API-server default for " + (big ? "GPUs with >= 70 GiB other than A100: 1024 sequences, 8192 tokens"
          : "GPUs under 70 GiB and A100: 256 sequences, 2048 tokens") + " (vllm/engine/arg_utils.py; docs/validation.md Sources 8)";
      p.sources.put("maxBatch", new Source("documented", rule, null, null));
      p.sources.put("tokenBudget", new Source("documented", rule, null, null));
      p.sources.put("prefillChunkTokens", new Source("documented", "vLLM chunks a prefill at the token budget", null, null));
    } else {
      p.memoryUtilization = 0.85;
      p.maxBatch = 1024;
      p.tokenBudget = 8192;
      p.prefillChunkTokens = 8192;
      p.sources.put("memoryUtilization", new Source("assumption", "SGLang mem_fraction_static 0.85, as Qwen's speed benchmark set it"
          + " (docs/validation.md Sources 1); SGLang's own default depends on the GPU", 0.8, 0.9));
      p.sources.put("maxBatch", new Source("assumption", "SGLang sizes max_running_requests from its KV pool; 1024 as vLLM's"
          + " large-GPU default", 256.0, 4096.0));
      p.sources.put("tokenBudget", new Source("assumption", "8192 tokens per step, SGLang's chunked_prefill_size on large-memory"
          + " GPUs as the shipped default profile assumes", 2048.0, 16384.0));
      p.sources.put("prefillChunkTokens", new Source("assumption", "SGLang chunked_prefill_size 8192 (as tokenBudget)", 2048.0, 16384.0));
    }
    double freeGiB = p.gpuMemoryGiB * p.memoryUtilization - p.weightsGiB - p.runtimeOverheadGiB;
    if (freeGiB <= 0) {
      throw new UsageException(String.format(Locale.ROOT, "%s does not fit on %s: %.1f GiB of weights + %.1f GiB runtime against"
          + " %.1f GiB x %.2f; use more GPUs (--tp)", r.modelName(), p.hardware, p.weightsGiB, p.runtimeOverheadGiB, p.gpuMemoryGiB,
          p.memoryUtilization));
    }
    p.kvCapacityTokens = (long) Math.floor(freeGiB * (1L << 30) / kvBytes);
    p.sources.put("kvCapacityTokens", new Source("derived", String.format(Locale.ROOT,
        "(%.1f GiB x %.2f - %.2f GiB weights - %.1f GiB runtime) / %.0f B per token%s", p.gpuMemoryGiB, p.memoryUtilization,
        p.weightsGiB, p.runtimeOverheadGiB, kvBytes, m.kvReplication(tp) > 1 ? " (KV replicated " + m.kvReplication(tp) + "x over TP)" : ""),
        null, null));

    // ---- the global KV tier: the default profile's (a property of the store, not of the model)
    ModelProfile d = ModelProfile.defaultProfile();
    p.globalReadGBps = d.globalReadGBps;
    p.globalLookupLatencyS = d.globalLookupLatencyS;
    p.globalSaveGBps = d.globalSaveGBps;
    p.globalSaveBlocksStep = d.globalSaveBlocksStep;
    p.globalAggregateGBpsPerNode = d.globalAggregateGBpsPerNode;
    for (String f : new String[] {"globalReadGBps", "globalLookupLatencyS", "globalSaveGBps", "globalSaveBlocksStep",
        "globalAggregateGBpsPerNode"}) {
      Source s = d.sources.get(f);
      p.sources.put(f, new Source(s.kind, "as for " + d.name + ": " + s.ref, s.low, s.high));
    }
    ModelProfile out = p.build();
    out.validate();
    return out;
  }

  private static void learnedOrAssumed(ModelProfile.Builder p, Efficiency eff, String factor, String field, double fallback, String learned,
      String what, double low, double high) {
    Efficiency.Factor f = eff.get(factor);
    double v = f == null ? fallback : f.value();
    if (field.equals("decodePerSeqS")) p.decodePerSeqS = v;
    else p.frontendLatencyS = v;
    p.sources.put(field, f == null
        ? new Source("assumption", String.format(Locale.ROOT, "%.3g %s: no training profile has it fitted", v, what), low, high)
        : new Source("derived", String.format(Locale.ROOT, "%s %s; %s", eff.describe(factor, "%.3g"), what, learned), f.low(), f.high()));
  }

  static String slug(String s) {
    String t = s.toLowerCase(Locale.ROOT);
    int slash = t.lastIndexOf('/');
    if (slash >= 0) t = t.substring(slash + 1);
    if (t.endsWith(".json")) t = t.substring(0, t.length() - 5);
    if (t.equals("config")) t = "model";
    return t.replaceAll("[^a-z0-9.]+", "-").replaceAll("^-|-$", "");
  }
}
