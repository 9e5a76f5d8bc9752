#!/usr/bin/env bash
# Re-makes the shipped profiles (src/main/resources/io/smetric/audit/replay/profiles/*.yaml) from
# their base facts (make-base-profiles.py) and the shipped measurements, with `calibrate`; the
# output of each run is what docs/validation.md reports. Usage: calibrate-shipped.sh [LOG_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/../../../.." && pwd)"
log="${1:-/tmp/calibrate-shipped}"
base="$(mktemp -d)"
mkdir -p "$log"
python3 "$here/src/test/bench/profiles/make-base-profiles.py" "$base"
out="$here/src/main/resources/io/smetric/audit/replay/profiles"
cal() { "$here/smetric-audit" calibrate "$@" --overwrite; }
cal shipped:qwen-speed-benchmark/qwen3-moe-h20-speed.csv --group qwen3-30b-a3b/h20-96gb/tp1/sglang-0.4.6.post1/bf16 \
  --base "$base/qwen3-30b-a3b-h20.json" --fit stepBaseS,prefillPerTokenS,prefillAttentionPerPairS --leave-one-out \
  --out "$out/qwen3-30b-a3b-h20.yaml" | tee "$log/qwen3-30b-a3b-h20.txt"
for p in llama-2-7b-h100-tp1:llama-2-7b llama-2-70b-h100-tp4:llama-2-70b codellama-34b-h100-tp2:codellama-34b \
         mixtral-8x7b-h100-tp2:mixtral-8x7b; do
  name="${p%%:*}"; group="${p##*:}"
  cal shipped:inference-sim-h100/runs.json --group "$group" --base "$base/$name.json" \
    --fit frontendLatencyS,stepBaseS,decodePerSeqS,decodePerContextTokenS --hold-out codegen,roleplay,reasoning \
    --out "$out/$name.yaml" | tee "$log/$name.txt"
done
