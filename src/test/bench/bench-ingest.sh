#!/usr/bin/env bash
# Ingest benchmark: wall time and peak RSS of `smetric-audit ingest` against the practical floor
# (one thread of Jackson streaming over the same file, src/test/bench/.../JacksonFloor.java).
# Usage: src/test/bench/bench-ingest.sh TRACE.jsonl [more traces...]   (run on an idle machine)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$here"
mvn -q -B package -DskipTests
mvn -q -B test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt >/dev/null
for trace in "$@"; do
  echo "== $trace ($(du -h "$trace" | cut -f1))"
  out=$(mktemp -d)/ingest
  /usr/bin/time -f "ingest: wall %e s, peak RSS %M KB" ./smetric-audit ingest "$trace" --out "$out" 2>&1 | grep -E '^(ingest|dataset|wall)|peak RSS'
  /usr/bin/time -f "floor: wall %e s, peak RSS %M KB" java -Xmx2g -cp "target/test-classes:$(cat target/test-classpath.txt)" \
    io.smetric.audit.bench.JacksonFloor "$trace" 2>&1 | grep -E 'jackson-floor|floor:'
  rm -rf "$(dirname "$out")"
done
