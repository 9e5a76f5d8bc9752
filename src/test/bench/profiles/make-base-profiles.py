#!/usr/bin/env python3
"""Writes the base profiles (model and GPU facts with their sources, starting coefficients) that
`smetric-audit calibrate` fits into the shipped profiles (src/test/bench/profiles/calibrate-shipped.sh).
Usage: make-base-profiles.py OUT_DIR"""
import json, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FACTS = "measurements/facts/models.json (src/main/resources/io/smetric/audit/replay/)"
H100 = "NVIDIA H100 datasheet 2430615 via inference-sim/training@ed5c1d2:datasheets/h100-sxm.json (docs/validation.md, Sources 5)"
H20 = "H20 96 GB: 4.0 TB/s HBM3, 148 TFLOP/s BF16 (secondary: third-party spec tables; docs/validation.md, Sources 5)"
RUNS = "inference-sim/training@ed5c1d2 exp-config.yaml and the vLLM 0.15.1 logs of the runs (docs/validation.md, Sources 2)"


def src(kind, ref, low=None, high=None):
    d = {"kind": kind, "ref": ref}
    if low is not None:
        d["low"] = low
    if high is not None:
        d["high"] = high
    return d


GLOBAL_CENTRAL = dict(globalReadGBps=1.1, globalLookupLatencyS=0.020, globalSaveGBps=12.0, globalSaveBlocksStep=True,
                      globalAggregateGBpsPerNode=21.75)


def glob_sources(prefix=""):
    return {
        "globalReadGBps": src("measured", prefix + "effective per-instance read rate of an LMCache remote tier: 1.12 GB/s (LMCache PR #2213, remote backend), 0.63 GB/s (LMCache over Mooncake store, kvcache-ai/Mooncake issue #467); high end a local-DRAM-class path, 10.4 GB/s (#467); docs/validation.md Sources 6", 0.6, 10.0),
        "globalLookupLatencyS": src("measured", prefix + "per-lookup latency of the vLLM scheduler's get_num_new_matched_tokens through LMCache: 5.6-116 ms warm, 15-35 ms typical (LMCache issue #891); 1-2 ms with Mooncake batchexist (PR #936); charged once per fetch; docs/validation.md Sources 6", 0.001, 0.150),
        "globalSaveGBps": src("measured", prefix + "LMCache GPU->CPU store of a step's new KV: 12.1-14.8 GB/s (LMCache issue #2262 log lines, 2,048 tokens in 14.8-18.0 ms); slow end 3.3 GB/s = 17.4 us/token at 57 KB/token through GDS, fast end 19 GB/s = 3.0 us/token to local DRAM (kvcache-ai/Mooncake issue #467); docs/validation.md Sources 6", 3.3, 19.0),
        "globalSaveBlocksStep": src("documented", prefix + "LMCache's vLLM connector stores the step's KV in wait_for_save, which vLLM calls before the forward pass returns (non-layerwise default; lmcache/integration/vllm/vllm_v1_adapter.py, vllm/distributed/kv_transfer/kv_connector/v1/base.py); docs/validation.md Sources 6"),
        "globalAggregateGBpsPerNode": src("derived", prefix + "the global tier's serving bandwidth per server node: the paper's testbed pools its tier (Mooncake Store + LMCache) over the DRAM of 4 servers, each reached through one 200 Gbps RDMA NIC (arXiv 2607.08565 Section 3.1); 21.75 GB/s = 25 GB/s line rate at the 87% Mooncake's Transfer Engine measures (87 GB/s on 4 x 200 Gbps RoCE, kvcache-ai/Mooncake README), so 87 GB/s for the testbed's 4 nodes; range an assumption: half the NIC (10.9, the NIC also carrying other traffic) to a node with 4 such NICs as Mooncake measured it (87); docs/validation.md Sources 6", 10.9, 87.0),
    }


def write(p):
    with open(os.path.join(out, p["name"] + ".json"), "w") as f:
        json.dump(p, f, indent=1)


# ---------- Qwen3-30B-A3B on H20: the paper's model and GPU ----------
q = dict(
    name="qwen3-30b-a3b-h20",
    description="The paper's model and GPU: Qwen3-30B-A3B (BF16) on one NVIDIA H20 96 GB per instance. Step costs fitted to Qwen's single-request speed benchmark on this GPU (SGLang 0.4.6.post1) with the prefill cost per token carried over from an H100 measurement by the FLOP/s ratio; the batch dependence of the MoE weight reads derived from the model's and the GPU's figures (no load measurement of this model on this GPU is public); global-tier costs as users measured LMCache remote tiers.",
    model="Qwen/Qwen3-30B-A3B (BF16)", hardware="1 x NVIDIA H20 96 GB", engine="SGLang 0.4.6.post1 (fit); vLLM V1 limits (replay)",
    stepBaseS=0.005, prefillPerTokenS=2.0e-4, prefillAttentionPerPairS=5.5e-9, decodePerSeqS=2.0e-5,
    decodePerContextTokenS=98304 / (4000e9 * 0.8), frontendLatencyS=0.0,
    denseWeightGB=2.46, expertWeightGB=57.98, experts=128, expertsPerToken=8, hbmGBps=4000, hbmEfficiency=0.8,
    kvBytesPerToken=98304, gpuMemoryGiB=96, memoryUtilization=0.9, weightsGiB=56.87, runtimeOverheadGiB=4.0,
    maxBatch=1024, tokenBudget=8192, prefillChunkTokens=8192, **GLOBAL_CENTRAL)
q["sources"] = {
    "stepBaseS": src("fitted", "calibrate"), "prefillAttentionPerPairS": src("fitted", "calibrate"),
    "prefillPerTokenS": src("derived", "b on H100 (calibrate on shipped:qwen3-30b-a3b-public/vllm-h100-pr23151.json) x 989 / 148, the BF16 FLOP/s ratio of H100 SXM to H20; docs/validation.md Sources 9", 8.43e-5, 1.4094e-4),
    "decodePerSeqS": src("assumption", "per decoding sequence (sampling, per-sequence kernels): not measurable from batch-1 data; the H100 vLLM fits give 1-70 us (docs/validation.md)", 1e-6, 7e-5),
    "decodePerContextTokenS": src("fitted", "calibrate, with prefillPerTokenS held at its derived value (a single-request E2E table cannot separate the two)"),
    "frontendLatencyS": src("assumption", "HTTP, tokenisation and streaming outside the engine; 0 here (inside stepBaseS in a batch-1 fit); the H100 vLLM fits give 17-38 ms", 0.0, 0.04),
    "denseWeightGB": src("derived", "non-expert weights every step reads: attention 0.91B + router 0.013B + lm_head 0.311B params x 2 B (" + FACTS + "; the embedding table is not read whole)"),
    "expertWeightGB": src("derived", "48 layers x 128 experts x 3 x 2048 x 768 params x 2 B = 57.98 GB (" + FACTS + ")"),
    "experts": src("documented", "128 routed experts per layer (" + FACTS + ")"),
    "expertsPerToken": src("documented", "8 experts per token (" + FACTS + ")"),
    "hbmGBps": src("documented", H20),
    "hbmEfficiency": src("assumption", "share of peak HBM bandwidth that weight reads reach; the Mixtral-8x7B (MoE) vLLM runs on H100 give 0.85 +- 0.05 when the fixed step cost is held at 1 ms (docs/validation.md); decides how fast the MoE step grows with the batch", 0.6, 0.95),
    "kvBytesPerToken": src("derived", "48 layers x 2 (K, V) x 4 KV heads x 128 dims x 2 B = 98,304 (" + FACTS + ")"),
    "gpuMemoryGiB": src("documented", "H20 96 GB HBM3 (" + H20 + ")", 89.4, 96.0),
    "memoryUtilization": src("documented", "vLLM gpu_memory_utilization default 0.9 (docs/validation.md Sources 8)"),
    "weightsGiB": src("derived", "30.53B params x 2 B = 61.06 GB = 56.87 GiB (" + FACTS + ")"),
    "runtimeOverheadGiB": src("assumption", "activations, CUDA graphs, fragmentation", 2.0, 8.0),
    "maxBatch": src("documented", "vLLM V1 max_num_seqs default for >= 70 GiB GPUs other than A100 (API server): 1024 (vllm/engine/arg_utils.py; docs/validation.md Sources 8)"),
    "tokenBudget": src("documented", "vLLM V1 max_num_batched_tokens default for such GPUs (API server): 8192 (docs/validation.md Sources 8)"),
    "prefillChunkTokens": src("assumption", "SGLang's chunked_prefill_size for large-memory GPUs, 8192, in the fitted benchmark (not stated by it); equal to vLLM's token budget"),
}
q["sources"].update(glob_sources())
write(q)


# ---------- Qwen3-30B-A3B on H100 and A100: not shipped, only to measure the prefill cost ----------
# The public TTFT measurements of this model are on other GPUs (docs/validation.md, Sources 9). These
# bases differ from the H20 one only in the GPU's figures; the fitted b and d are carried to the H20
# by calibrate-shipped.sh with the stated rules (FLOP/s ratio for b, bandwidth ratio for d).
def qwen_on(name, hardware, hbm, tflops, mem_gib, budget, note):
    p = json.loads(json.dumps(q))
    # starting values: b at ~30% of the GPU's BF16 peak for 6.7 GFLOP per token (2 x 3.35B active
    # parameters); e scaled from the H20 fit by the FLOP/s ratio (not fitted: one prompt length)
    p.update(prefillPerTokenS=6.7e9 / (0.3 * tflops * 1e12), prefillAttentionPerPairS=5.5e-9 * 148 / tflops,
             decodePerContextTokenS=98304 / (hbm * 1e9 * 0.8),
             name=name, hardware=hardware, hbmGBps=hbm, gpuMemoryGiB=mem_gib, tokenBudget=budget, prefillChunkTokens=budget,
             description="Auxiliary (not shipped): Qwen3-30B-A3B on " + hardware + ", " + note,
             engine="vLLM (version not stated by the source)", frontendLatencyS=0.02)
    p["sources"]["hbmGBps"] = src("documented", hardware + " HBM bandwidth (NVIDIA datasheet figures)")
    p["sources"]["frontendLatencyS"] = src("assumption", "HTTP, tokenisation and streaming; the H100 vLLM fits give 17-38 ms", 0.0, 0.04)
    write(p)


qwen_on("qwen3-30b-a3b-h100", "1 x NVIDIA H100 80 GB", 3350, 989, 74.5, 8192,
        "for vllm-project/vllm PR #23151's concurrency-10 run")
qwen_on("qwen3-30b-a3b-a100", "1 x NVIDIA A100 80 GB (GPU count not stated by the source)", 2039, 312, 74.5, 2048,
        "for tenstorrent/tt-inference-server issue #340's single-request sweep")


# ---------- H100 validation profiles ----------
# b from the FLOP rule: 2 x active parameters FLOP per token at a share (MFU) of the instance's
# BF16 peak. The one vLLM prefill on H100 measured here (Qwen3-30B-A3B, vLLM PR #23151, docs/validation.md
# Sources 9) ran at 37% of the peak; 100% is the floor, 30% the assumed slow end.
MFU_MEASURED, MFU_SLOW = 0.371, 0.30


def flop_b(active_params, tp, mfu):
    return 2 * active_params / (mfu * 989e12 * tp)


def h100(name, model, tp, dense_gb, expert_gb, e, k, kv, kvcap, weights_gib, desc, active_params):
    hbm = 3350 * tp
    b = flop_b(active_params, tp, MFU_MEASURED)
    p = dict(name=name, description=desc, model=model, hardware=f"{tp} x NVIDIA H100 SXM 80 GB (TP{tp})", engine="vLLM 0.15.1 (V1)",
             stepBaseS=0.001, prefillPerTokenS=b, prefillAttentionPerPairS=1e-9, decodePerSeqS=1e-5,
             decodePerContextTokenS=kv / (hbm * 1e9 * 0.8), frontendLatencyS=0.02,
             denseWeightGB=dense_gb, expertWeightGB=expert_gb, experts=e, expertsPerToken=k, hbmGBps=hbm, hbmEfficiency=0.8,
             kvBytesPerToken=kv, kvCapacityTokens=kvcap, gpuMemoryGiB=round(80e9 * tp / 2 ** 30, 1), memoryUtilization=0.9,
             weightsGiB=weights_gib, runtimeOverheadGiB=4.0, maxBatch=128, tokenBudget=2048, prefillChunkTokens=0, **GLOBAL_CENTRAL)
    p["sources"] = {
        "stepBaseS": src("fitted", "calibrate"), "decodePerSeqS": src("fitted", "calibrate"),
        "decodePerContextTokenS": src("fitted", "calibrate"), "frontendLatencyS": src("fitted", "calibrate"),
        "prefillPerTokenS": src("derived", f"2 x {active_params / 1e9:.2f}B active parameters FLOP per token at 37% of {tp} x 989 TFLOP/s (BF16 peak, {H100}): the share of the peak measured for the one vLLM prefill on H100 found public (Qwen3-30B-A3B, vllm-project/vllm PR #23151, docs/validation.md Sources 9); range: 100% of the peak (the FLOP floor) to 30% (assumption). These runs hit the prefix cache for almost every prompt token and cannot measure it; no public TTFT of this model on H100 was found", flop_b(active_params, tp, 1.0), flop_b(active_params, tp, MFU_SLOW)),
        "prefillAttentionPerPairS": src("assumption", "small at these prompt lengths (550-1,000 tokens, almost all cached)"),
        "denseWeightGB": src("derived", "weights every step reads (all but the embedding table) x 2 B (" + FACTS + ")"),
        "expertWeightGB": src("derived", "routed experts' weights x 2 B (" + FACTS + "); 0 for a dense model"),
        "experts": src("documented", FACTS), "expertsPerToken": src("documented", FACTS),
        "hbmGBps": src("documented", f"{tp} x 3.35 TB/s ({H100})"),
        "hbmEfficiency": src("assumption", "share of peak bandwidth weight reads reach; next to a fitted fixed step cost only their sum matters at these batch sizes", 0.6, 1.0),
        "kvBytesPerToken": src("derived", "layers x 2 x KV heads x 128 x 2 B (" + FACTS + ")"),
        "kvCapacityTokens": src("measured", "vLLM's GPU KV cache size in the runs (" + RUNS + ")"),
        "gpuMemoryGiB": src("documented", f"{tp} x 80 GB ({H100})"),
        "memoryUtilization": src("documented", "vLLM default 0.9 (the runs did not set it)"),
        "weightsGiB": src("derived", "parameters x 2 B (" + FACTS + ")"),
        "runtimeOverheadGiB": src("assumption", "unused: the KV capacity is measured", 2.0, 8.0),
        "maxBatch": src("measured", "max_num_seqs 128 of the runs (" + RUNS + ")"),
        "tokenBudget": src("measured", "max_num_batched_tokens 2048 of the runs (" + RUNS + ")"),
    }
    p["sources"].update(glob_sources("no global tier in these runs; as for qwen3-30b-a3b-h20: "))
    write(p)


h100("llama-2-7b-h100-tp1", "meta-llama/Llama-2-7b-hf (FP16)", 1, 13.21, 0, 0, 0, 524288, 119408, 12.55,
     "Validation profile: Llama-2-7B on one H100 SXM, vLLM 0.15.1, fitted to the inference-sim/training runs' 'general' stages and checked on the others.", 6740000000.0)
h100("llama-2-70b-h100-tp4", "meta-llama/Llama-2-70b-hf (FP16)", 4, 137.43, 0, 0, 0, 327680, 501712, 128.47,
     "Validation profile: Llama-2-70B on four H100 SXM (TP4), vLLM 0.15.1, fitted to the 'general' stages and checked on the others.", 69000000000.0)
h100("codellama-34b-h100-tp2", "codellama/CodeLlama-34b-Instruct-hf (FP16)", 2, 66.97, 0, 0, 0, 196608, 425648, 62.85,
     "Validation profile: CodeLlama-34B on two H100 SXM (TP2), vLLM 0.15.1, fitted to the 'general' stages and checked on the others.", 33700000000.0)
h100("mixtral-8x7b-h100-tp2", "mistralai/Mixtral-8x7B-v0.1 (FP16)", 2, 2.94, 90.2, 8, 2, 131072, 440176, 86.99,
     "Validation profile: Mixtral-8x7B (MoE, 8 experts, top-2) on two H100 SXM (TP2), vLLM 0.15.1, fitted to the 'general' stages and checked on the others.", 12900000000.0)
