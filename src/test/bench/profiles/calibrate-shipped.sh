#!/usr/bin/env bash
# Re-makes the shipped profiles (src/main/resources/io/smetric/audit/replay/profiles/*.yaml) from
# their base facts (make-base-profiles.py) and the shipped measurements, with `calibrate`; the
# output of each run is what docs/validation.md reports. Usage: calibrate-shipped.sh [LOG_DIR]
# The sources entries of prefillPerTokenS (qwen3-30b-a3b-h20: the derivation and its range) and of
# decodePerContextTokenS (its range over b's range) were written by hand from these runs' outputs
# (docs/validation.md Sources 9); a rerun writes calibrate's generic ones in their place. To rewrite only
# the profiles' validation records for the coefficients they ship (no refit), run the bench tool
# io.smetric.audit.replay.bench.RelabelShippedProfiles with the profiles folder as its argument.
set -euo pipefail
here="$(cd "$(dirname "$0")/../../../.." && pwd)"
log="${1:-/tmp/calibrate-shipped}"
base="$(mktemp -d)"
mkdir -p "$log"
python3 "$here/src/test/bench/profiles/make-base-profiles.py" "$base"
out="$here/src/main/resources/io/smetric/audit/replay/profiles"
cal() { "$here/smetric-audit" calibrate "$@" --overwrite; }
# The prefill cost b of the default profile: fitted on H100 (vLLM PR #23151, with the step base), carried
# to the H20 by the BF16 FLOP/s ratio 989 / 148 (docs/validation.md Sources 9), then held fixed while the
# H20 table fits a, e and d. The A100 sweep is a cross-check only (its GPU count is not stated).
cal shipped:qwen3-30b-a3b-public/vllm-h100-pr23151.json --base "$base/qwen3-30b-a3b-h100.json" \
  --fit stepBaseS,prefillPerTokenS --out "$log/qwen3-30b-a3b-h100.yaml" | tee "$log/qwen3-30b-a3b-h100.txt"
cal shipped:qwen3-30b-a3b-public/tt-inference-server-340-a100.csv --base "$base/qwen3-30b-a3b-a100.json" \
  --fit stepBaseS,prefillPerTokenS,decodePerContextTokenS,frontendLatencyS --max-point-error 10 \
  --out "$log/qwen3-30b-a3b-a100.yaml" | tee "$log/qwen3-30b-a3b-a100.txt"
python3 - "$log/qwen3-30b-a3b-h100.yaml" "$base/qwen3-30b-a3b-h20.json" <<'PY'
import json, re, sys
b_h100 = float(re.search(r"(?m)^prefillPerTokenS: (.+)$", open(sys.argv[1]).read()).group(1))
p = json.load(open(sys.argv[2]))
p["prefillPerTokenS"] = b_h100 * 989 / 148
json.dump(p, open(sys.argv[2], "w"), indent=1)
print("b on H100 %.4g s/token -> H20 %.4g s/token" % (b_h100, p["prefillPerTokenS"]))
PY
cal shipped:qwen-speed-benchmark/qwen3-moe-h20-speed.csv --group qwen3-30b-a3b/h20-96gb/tp1/sglang-0.4.6.post1/bf16 \
  --base "$base/qwen3-30b-a3b-h20.json" --fit stepBaseS,prefillAttentionPerPairS,decodePerContextTokenS --leave-one-out \
  --out "$out/qwen3-30b-a3b-h20.yaml" | tee "$log/qwen3-30b-a3b-h20.txt"
for p in llama-2-7b-h100-tp1:llama-2-7b llama-2-70b-h100-tp4:llama-2-70b codellama-34b-h100-tp2:codellama-34b \
         mixtral-8x7b-h100-tp2:mixtral-8x7b; do
  name="${p%%:*}"; group="${p##*:}"
  cal shipped:inference-sim-h100/runs.json --group "$group" --base "$base/$name.json" \
    --fit frontendLatencyS,stepBaseS,decodePerSeqS,decodePerContextTokenS --hold-out codegen,roleplay,reasoning \
    --out "$out/$name.yaml" | tee "$log/$name.txt"
done
