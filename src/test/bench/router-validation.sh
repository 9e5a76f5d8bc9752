#!/usr/bin/env bash
# Routing on real multi-instance clusters (issue 27 item 4; docs/validation.md, "Routing on real
# multi-instance clusters"): replays the published router comparisons whose workload and results
# are public and prints the measured-vs-simulated tables. The workload builders, the test-side
# router stand-ins and the published numbers live in src/test (io.smetric.audit.replay.validation,
# src/test/resources/io/smetric/audit/replay/validation/); nothing is fitted to the routing results.
#
# Usage: src/test/bench/router-validation.sh [options]
#   --kubeai-extra-pairs X     messages per conversation = 16 + 2 x geometric(mean X) (default 4)
#   --kubeai-message-sigma X   log-normal sigma of a message's length (default 1.0)
#   --kubeai-output-sigma X    log-normal sigma of a prompt's generated length (default 0.8)
#   --llm-router-repeat-chars X  characters a token of the one-letter padding (default 4)
#   --llm-router-random-chars X  characters a token of the random strings (default 2)
#   --set FIELD=VALUE          a profile field on top of the case's profile (sensitivity runs only),
#                              e.g. --set prefillPerTokenS=1.92e-4
# Builds the main and test classes offline first (mvn -o test-compile, then the jar if missing).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$here"
export TMPDIR="${TMPDIR:-/tmp}"
# the jar as the launcher keeps it: rebuilt when missing or older than any main source
if [[ ! -f target/smetric-audit-0.1.0.jar || ! -f target/classpath.txt \
      || -n "$(find pom.xml ingest block-hasher analysis reports src/main -newer target/smetric-audit-0.1.0.jar -type f -print -quit)" ]]; then
  mvn -B -o -q -DskipTests package >&2
fi
mvn -B -o -q test-compile >&2
exec "${JAVA:-java}" -Xmx3g -cp "target/smetric-audit-0.1.0.jar:$(cat target/classpath.txt):target/test-classes" \
  io.smetric.audit.replay.validation.RouterValidation "$@"
