#!/usr/bin/env bash
# Scale benchmark of the full audit (issue 7): wall time and peak RSS per stage.
#
# Usage: src/test/bench/bench-audit-scale.sh TRACE OUT_DIR [extra audit options...]
#   e.g. src/test/bench/bench-audit-scale.sh /tmp/bench/agent-200k.jsonl /tmp/audit-200k --instances 32
# Environment: SMETRIC_XMX (driver heap, default 8g), MASTER (default local[2]).
# Traces: generate --preset agent --requests {50000,200000,1000000} --seed 1 --format smetric
#         --out /tmp/bench/agent-{50k,200k,1m}.jsonl (docs/benchmarks.md, "Full audit at scale").
#
# Samples the process's RSS every second and attributes each sample to the audit step that was
# running (the audit prints "[k/n step] started (... total Ns)" on stderr), then prints one row
# per step: wall seconds and peak RSS. Writes OUT_DIR.bench.tsv and OUT_DIR.log.
set -euo pipefail
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
  r=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [[ -n "$r" ]] && echo "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.1f", a-b}') $r" >> "$rss"
  sleep 1
done
rc=0; wait "$pid" || rc=$?
python3 - "$log" "$rss" "$out.bench.tsv" "$rc" <<'EOF'
import re, sys
log, rss, tsv, rc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def secs(s):
    m = re.match(r'(?:(\d+)m)?(\d+)s', s)
    return int(m.group(1) or 0) * 60 + int(m.group(2))
steps = []  # (name, start_s)
end = None
for line in open(log):
    m = re.match(r'\[(\d+)/(\d+) ([^\]]+)\] (.*)\(step [^,]+, total ([0-9ms]+)\)', line)
    if not m: continue
    t = secs(m.group(5))
    if m.group(4).startswith('started'): steps.append([m.group(3), t])
    end = t
samples = [tuple(map(float, l.split())) for l in open(rss) if l.strip()]
rows = []
for i, (name, t0) in enumerate(steps):
    t1 = steps[i + 1][1] if i + 1 < len(steps) else (samples[-1][0] if samples else end)
    peak = max([kb for (t, kb) in samples if t0 <= t <= t1 + 1] or [0])
    rows.append((name, t1 - t0, peak / 1024 / 1024))
total = samples[-1][0] if samples else end
with open(tsv, 'w') as f:
    f.write("step\twall_s\tpeak_rss_gib\n")
    for r in rows: f.write("%s\t%d\t%.2f\n" % r)
    f.write("total\t%d\t%.2f\n" % (total, max([kb for _, kb in samples] or [0]) / 1024 / 1024))
print(open(tsv).read(), end='')
print("exit code", rc)
EOF
