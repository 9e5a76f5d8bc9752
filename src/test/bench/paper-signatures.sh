#!/usr/bin/env bash
# The SMetric paper's signatures on a workload built to its Trace 1 statistics (issue 26 item 6;
# docs/validation.md, "The paper's signatures"): the generator's agent preset at 32 instances, the
# audit on the paper's cluster (32 instances, default profile qwen3-30b-a3b-h20, global tier
# 0-3.2x), then the numbers beside the paper's (src/test/bench/python/signatures.py).
#
# Usage: src/test/bench/paper-signatures.sh [REQUESTS (100000)] [WORK_DIR (/tmp/signatures)] [extra audit options...]
#   e.g. src/test/bench/paper-signatures.sh 100000 /tmp/signatures
#        src/test/bench/paper-signatures.sh 20000 /tmp/signatures --global-aggregate-gbps 87
# Writes WORK_DIR/agent-N.jsonl (+ truth), WORK_DIR/audit-N[-TAG]/, WORK_DIR/signatures-N[-TAG].txt;
# TAG (environment, default empty) names a variant run. --bootstrap 0 --no-conditions: the
# signatures need neither the replicates nor the conditions sweep, and they triple the time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
n="${1:-100000}"; work="${2:-/tmp/signatures}"; shift $(( $# < 2 ? $# : 2 ))
tag="${TAG:+-$TAG}"
mkdir -p "$work"; export TMPDIR="$work"
trace="$work/agent-$n.jsonl"
[[ -f "$trace" ]] || "$here/smetric-audit" generate --preset agent --instances-hint 32 --requests "$n" \
  --seed 1 --out "$trace"
start=$(date +%s); rc=0
"$here/smetric-audit" audit "$trace" --out "$work/audit-$n$tag" --overwrite --instances 32 \
  --bootstrap 0 --no-conditions "$@" > "$work/audit-$n$tag.out" 2> "$work/audit-$n$tag.err" || rc=$?
echo "audit exit $rc, wall $(( $(date +%s) - start )) s; $(head -1 "$work/audit-$n$tag.out")" >&2
python3 "$here/src/test/bench/python/signatures.py" "$work/audit-$n$tag" | tee "$work/signatures-$n$tag.txt"
