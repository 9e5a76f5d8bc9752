#!/usr/bin/env bash
# Session inference on the independent corpus (docs/session-inference.md, "Accuracy on traces we
# did not generate"), through the user's commands:
#   src/test/bench/infer-corpus.sh [--requests N] [MEMBER...]    (default: every member, 3,000 requests)
# 1. writes each member as Mooncake-format lines + truth (CorpusTool write, test classpath) into
#    $OUT (default /tmp/infer-corpus);
# 2. ./smetric-audit ingest MEMBER.jsonl --block-size B, then ./smetric-audit infer-sessions
#    --truth MEMBER.jsonl.truth.jsonl, as a user would;
# 3. prints the per-class table of every inference-accuracy.json (CorpusTool table);
# 4. scores every link with the independent oracle (CorpusTool score, in one JVM: LinkOracle
#    classes, docs/session-inference.md "Scoring on every link").
# The in-JVM equivalent (same pipeline, one Spark session, faster): CorpusTool eval.
# Prints the load average before each member: record it beside the numbers.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$here"
out="${OUT:-/tmp/infer-corpus}"
mvn -q -B -o package -DskipTests
mvn -q -B -o test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt >/dev/null
tool() {
  java @jvm.args -Xmx3g -cp "target/test-classes:target/classes:$(cat target/test-classpath.txt)" \
    io.smetric.audit.infer.corpus.CorpusTool "$@"
}
rm -rf "$out"
tool write "$out" "$@"
while IFS=$'\t' read -r name trace block; do
  echo "== $name (B=$block), $(uptime | sed 's/.*load/load/')"
  ./smetric-audit ingest "$trace" --block-size "$block" --out "$out/$name-canon" | tail -1
  ./smetric-audit infer-sessions "$out/$name-canon" --out "$out/$name-inf" --truth "$trace.truth.jsonl" | tail -4
done < "$out/members.tsv"
tool table "$out"/*-inf/inference-accuracy.json
tool score "$@"
