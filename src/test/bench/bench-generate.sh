#!/usr/bin/env bash
# Generator benchmark: wall time and peak RSS of generating the 200k-request agent trace
# (16-token blocks, smetric format) into /tmp/bench (never into the repository).
# Usage: src/test/bench/bench-generate.sh [REQUESTS]   (run on an idle machine)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
n="${1:-200000}"
mvn -q -B -o compile dependency:build-classpath -Dmdep.outputFile=target/gen-classpath.txt >/dev/null
mkdir -p /tmp/bench
/usr/bin/time -v java @jvm.args -Xmx1g -cp "target/classes:$(cat target/gen-classpath.txt)" io.smetric.audit.cli.Main \
  generate --preset agent --requests "$n" --seed 1 --format smetric --out /tmp/bench/agent-200k.jsonl --overwrite \
  2>&1 | grep -E '^(wrote|truth|[0-9]+ requests)|Elapsed|Maximum resident|Percent of CPU'
ls -l /tmp/bench/agent-200k.jsonl /tmp/bench/agent-200k.jsonl.truth.jsonl
