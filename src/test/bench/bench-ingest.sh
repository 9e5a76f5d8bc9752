#!/usr/bin/env bash
# Ingest benchmark (docs/lab/benchmarks.md, "## Ingest"). One command, run once, on an idle machine:
#   src/test/bench/bench-ingest.sh                 the whole protocol below
#   src/test/bench/bench-ingest.sh TRACE...        only part 1, for the given traces
# 1. time and peak RSS of `smetric-audit ingest` (default heap) against the practical floor
#    JacksonFloor (one thread of Jackson streaming over the same file, nothing written), for the
#    200k-request generated agent trace and the shipped Mooncake sample;
# 2. peak RSS with a small fixed heap (SMETRIC_XMX, default 1g) for a 50k-request slice (the
#    first 50,000 lines) and the whole 200k trace: it must not grow with the trace.
# The 200k trace is generated if missing (the command of docs/lab/benchmarks.md, "## Generator").
# Each run starts with the file in the page cache (read once before). Prints the load average
# before each run: record it beside the numbers.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$here"
bench=/tmp/bench
big="$bench/agent-200k.jsonl"
small_heap="${SMETRIC_XMX_SMALL:-1g}"
mvn -q -B -o package -DskipTests
mvn -q -B -o test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt >/dev/null
if [[ ! -f "$big" ]]; then
  mkdir -p "$bench"
  java @jvm.args -Xmx512m -cp "target/classes:$(cat target/classpath.txt)" io.smetric.audit.cli.Main \
    generate --preset agent --requests 200000 --seed 1 --format smetric --out "$big" --overwrite
fi

warm() { # both sides are timed with the file in the page cache: read it once first
  cat "$1" > /dev/null
}

ingest() { # ingest TRACE HEAP: wall, peak RSS and the progress lines
  local out
  warm "$1"
  out=$(mktemp -d)/ingest
  echo "-- ingest $(basename "$1") (heap $2), $(uptime | sed 's/.*load/load/')"
  SMETRIC_XMX="$2" /usr/bin/time -f "ingest: wall %e s, peak RSS %M KB" ./smetric-audit ingest "$1" --out "$out" 2>&1 \
    | grep -E '^(ingest|dataset)|peak RSS'
  rm -rf "$(dirname "$out")"
}

floor() { # floor TRACE
  warm "$1"
  echo "-- floor $(basename "$1"), $(uptime | sed 's/.*load/load/')"
  /usr/bin/time -f "floor: wall %e s, peak RSS %M KB" java -Xmx2g -cp "target/test-classes:$(cat target/test-classpath.txt)" \
    io.smetric.audit.bench.JacksonFloor "$1" 2>&1 | grep -E 'jackson-floor|floor:'
}

if [[ $# -gt 0 ]]; then
  for trace in "$@"; do
    echo "== $trace ($(du -h "$trace" | cut -f1))"
    ingest "$trace" "${SMETRIC_XMX:-4g}"
    floor "$trace"
  done
  exit 0
fi

echo "== 1. time against the floor"
for trace in "$big" sample-traces/mooncake/synthetic_trace.jsonl; do
  echo "== $trace ($(du -h "$trace" | cut -f1))"
  ingest "$trace" 4g
  floor "$trace"
done

echo "== 2. peak memory with a fixed $small_heap heap: a 50k-request slice and the whole 200k trace"
slice="$bench/agent-200k-first50k.jsonl"
[[ -f "$slice" ]] || head -n 50000 "$big" > "$slice"
for trace in "$slice" "$big"; do
  echo "== $trace ($(du -h "$trace" | cut -f1))"
  ingest "$trace" "$small_heap"
done
