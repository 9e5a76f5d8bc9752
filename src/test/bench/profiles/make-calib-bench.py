#!/usr/bin/env python3
"""Writes a 300-point single-request table for the calibrate benchmark (docs/lab/benchmarks.md).

Points: input lengths log-uniform in [1, 129042], outputs 256/512/1024/2048 tokens; E2E from
Qwen's measured BF16 H20 row at the same input length (interpolated in log input length),
split into a TTFT of the default profile's prefill terms and an even TPOT, then +-3% Gaussian
noise (seed 7). Only the shape matters: the benchmark times the fit, it does not validate it.
Usage: make-calib-bench.py OUT.csv [N]
"""
import bisect, math, random, sys

MEASURED = [(1, 137.18), (6144, 490.1), (14336, 849.62), (30720, 1283.94), (63488, 1538.79), (129042, 1385.65)]
HEADER = "group,model,engine,engine_version,quantization,gpus,input_tokens,output_tokens,tokens_per_s,gpu_memory_mb,note,source"


def e2e_2048(n):
    xs = [math.log(i) for i, _ in MEASURED]
    ys = [(i + 2048) / tps for i, tps in MEASURED]
    x = math.log(n)
    k = min(max(bisect.bisect_left(xs, x), 1), len(xs) - 1)
    t = (x - xs[k - 1]) / (xs[k] - xs[k - 1])
    return ys[k - 1] + t * (ys[k] - ys[k - 1])


def main():
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rnd = random.Random(7)
    with open(out, "w") as f:
        f.write(HEADER + "\n")
        for _ in range(n):
            inp = max(1, int(round(math.exp(rnd.uniform(0, math.log(129042))))))
            o = rnd.choice([256, 512, 1024, 2048])
            ttft = 0.00536 + 1.96e-4 * inp + 5.53e-9 * inp * inp / 2
            tpot = (e2e_2048(inp) - ttft) / 2047
            e2e = (ttft + (o - 1) * tpot) * (1 + rnd.gauss(0, 0.03))
            f.write(f"bench/qwen3-30b-a3b/h20,Qwen3-30B-A3B,sglang,0.4.6.post1,BF16,1,{inp},{o},{(inp + o) / e2e:.3f},,synthetic,"
                    "make-calib-bench.py seed 7\n")


if __name__ == "__main__":
    main()
