#!/usr/bin/env bash
# Scale benchmark of the full audit on a real Spark standalone cluster (issue 7): a Master and
# WORKERS Workers on 127.0.0.1 started from the Maven-resolved Spark jars, the application jar
# submitted through org.apache.spark.deploy.SparkSubmit (client mode), wall time per audit step,
# peak RSS of the driver JVM and of all executor JVMs together. Every daemon is stopped by PID
# on exit, also on failure.
#
# Usage: src/test/bench/bench-audit-cluster.sh TRACE OUT_DIR [extra audit options...]
#   e.g. src/test/bench/bench-audit-cluster.sh /tmp/bench/agent-200k.jsonl /tmp/audit-200k-cluster --instances 32
# Environment: WORKERS (2), WORKER_CORES (1), WORKER_MEM (7g), EXECUTOR_MEM (6g),
#              DRIVER_XMX (2g: the driver holds no trace data, so it stays small).
# Writes OUT_DIR.bench.tsv, OUT_DIR.log (audit stderr), OUT_DIR.cluster/ (daemon logs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc-sample.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
trace="$1"; out="$2"; shift 2
log="$out.log"; rss="$out.rss"; work="$out.cluster"
(cd "$here" && mvn -q -B -o package -DskipTests >&2)
cp="$(cat "$here/target/classpath.txt")"
app="$here/target/smetric-audit-0.1.0-spark.jar"
mapfile -t jvm < <(grep -v '^\s*$' "$here/jvm.args")
rm -rf "$work"; mkdir -p "$work/spark-home/jars" "$work/logs"
IFS=: read -ra jars <<< "$cp"
for j in "${jars[@]}"; do ln -sf "$j" "$work/spark-home/jars/"; done
export SPARK_HOME="$work/spark-home" SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
stop_all() {
  for p in "${pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  sleep 3
  for p in "${pids[@]}"; do pkill -KILL -P "$p" 2>/dev/null || true; kill -9 "$p" 2>/dev/null || true; done
}
trap stop_all EXIT
port=$(free_port)
java "${jvm[@]}" -Xmx512m -cp "$cp" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" \
  --webui-port "$(free_port)" > "$work/logs/master.log" 2>&1 &
pids+=($!)
for ((i = 0; i < ${WORKERS:-2}; i++)); do
  java "${jvm[@]}" -Xmx512m -cp "$cp" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 \
    --cores "${WORKER_CORES:-1}" --memory "${WORKER_MEM:-7g}" --webui-port "$(free_port)" \
    --work-dir "$work/worker$i" "spark://127.0.0.1:$port" > "$work/logs/worker$i.log" 2>&1 &
  pids+=($!)
done
for ((t = 0; t < 240; t++)); do
  [[ $(grep -c "Registering worker" "$work/logs/master.log" 2>/dev/null || true) -ge ${WORKERS:-2} ]] && break
  sleep 0.5
done
start=$(date +%s.%N)
java "${jvm[@]}" -Xmx"${DRIVER_XMX:-2g}" -cp "$cp" org.apache.spark.deploy.SparkSubmit \
  --master "spark://127.0.0.1:$port" --deploy-mode client \
  --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
  --conf spark.executor.memory="${EXECUTOR_MEM:-6g}" --conf spark.executor.cores="${WORKER_CORES:-1}" \
  --conf spark.ui.enabled=false --class io.smetric.audit.cli.Main "$app" \
  audit "$trace" --out "$out" --overwrite "$@" > "$log.out" 2> "$log" &
driver=$!
pids+=("$driver")
: > "$rss"
while kill -0 "$driver" 2>/dev/null; do
  # executors exit with the application; their last sample keeps their CPU until then
  s=$(proc_sample "$driver" $(pgrep -f CoarseGrainedExecutorBackend || true)) \
    && echo "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.1f", a-b}') $s" >> "$rss"
  sleep 1
done
rc=0; wait "$driver" || rc=$?
python3 "$here/src/test/bench/python/audit_steps.py" "$log" "$rss" "$out.bench.tsv" "$rc"
grep -c "Registering app" "$work/logs/master.log" | sed 's/^/applications registered on the master: /'
