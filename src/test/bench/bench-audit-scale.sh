#!/usr/bin/env bash
# Scale benchmark of the full audit (issue 7): wall time and peak RSS per stage.
#
# Usage: src/test/bench/bench-audit-scale.sh TRACE OUT_DIR [extra audit options...]
#   e.g. src/test/bench/bench-audit-scale.sh /tmp/bench/agent-200k.jsonl /tmp/audit-200k --instances 32
# Environment: SMETRIC_XMX (driver heap, default 8g), MASTER (default local[2]).
# Traces: generate --preset agent --requests {50000,200000,1000000} --seed 1 --format smetric
#         --out /tmp/bench/agent-{50k,200k,1m}.jsonl (docs/lab/benchmarks.md, "Full audit at scale").
#
# Samples the process every second (RSS, user + system CPU seconds) and attributes each sample to
# the audit step that was running (the audit prints "[k/n step] started (... total Ns)" on stderr),
# then prints one row per step: wall seconds, CPU seconds and peak RSS. Writes OUT_DIR.bench.tsv
# and OUT_DIR.log.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc-sample.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
trace="$1"; out="$2"; shift 2
log="$out.log"; rss="$out.rss"
(cd "$here" && mvn -q -B -o package -DskipTests >&2)
export SPARK_LOCAL_IP=127.0.0.1
start=$(date +%s.%N)
java @"$here/jvm.args" -Xmx"${SMETRIC_XMX:-8g}" -cp "$here/target/smetric-audit-0.1.0.jar:$(cat "$here/target/classpath.txt")" \
  io.smetric.audit.cli.Main audit "$trace" --out "$out" --overwrite --master "${MASTER:-local[2]}" "$@" \
  > "$log.out" 2> "$log" &
pid=$!
: > "$rss"
while kill -0 "$pid" 2>/dev/null; do
  s=$(proc_sample "$pid") && echo "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.1f", a-b}') $s" >> "$rss"
  sleep 1
done
rc=0; wait "$pid" || rc=$?
python3 "$here/src/test/bench/python/audit_steps.py" "$log" "$rss" "$out.bench.tsv" "$rc"
