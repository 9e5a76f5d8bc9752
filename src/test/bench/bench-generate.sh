#!/usr/bin/env bash
# Generator benchmark: wall time and peak RSS of generating the 200k-request agent trace
# (16-token blocks, smetric format) into /tmp/bench (never into the repository).
# Usage: src/test/bench/bench-generate.sh [REQUESTS [OUT]]   (run on an idle machine)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$here"
n="${1:-200000}"
out="${2:-/tmp/bench/agent-200k.jsonl}"
mvn -q -B -o compile dependency:build-classpath -Dmdep.outputFile=target/gen-classpath.txt >/dev/null
mkdir -p "$(dirname "$out")"
/usr/bin/time -v java @jvm.args -Xmx512m -cp "target/classes:$(cat target/gen-classpath.txt)" io.smetric.audit.cli.Main \
  generate --preset agent --requests "$n" --seed 1 --format smetric --out "$out" --overwrite > "$out.bench.log" 2>&1
grep -E '^(wrote|truth|[0-9]+ requests)|Elapsed|Maximum resident|Percent of CPU|User time|System time' "$out.bench.log"
ls -l "$out" "$out.truth.jsonl"
