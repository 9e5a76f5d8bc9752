#!/usr/bin/env bash
# Runs a JShell notebook with the built tool on the class path and Spark's JVM flags.
# Usage: notebooks-java/run.sh NOTEBOOK.jsh [-Dkey=value ...]   (properties reach the notebook)
# The tool is built first if needed (same rule as ./smetric-audit).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nb="$1"; shift
jar="$here/target/smetric-audit-0.1.0.jar"
if [[ ! -f "$jar" || ! -f "$here/target/classpath.txt" ]]; then
  (cd "$here" && mvn -q -B package -DskipTests >&2)
fi
jflags=()
while IFS= read -r f; do [[ -n "$f" ]] && jflags+=("-R$f"); done < "$here/jvm.args"
for p in "$@"; do jflags+=("-R$p"); done
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
cd "$here"
exec jshell "${jflags[@]}" -R-Xmx"${SMETRIC_XMX:-3g}" -R-Dsmetric.repo="$here" -R-Djava.awt.headless=true \
  --class-path "$jar:$(cat "$here/target/classpath.txt")" "$nb"
