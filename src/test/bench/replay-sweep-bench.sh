#!/bin/bash
# Replay benchmarks on an ingested trace (docs/lab/benchmarks.md, "Policy replay"):
#   1. the 5-policy x 5-capacity x 8-rate sweep (200 simulations), 2. the audit preset (--sweep audit).
# Usage (from the repository, after `mvn -q -B -o package -DskipTests`):
#   flock /work/wt/bench.lock src/test/bench/replay-sweep-bench.sh INGESTED_DIR OUT_PREFIX [XMX]
# Prints wall time, CPU time and peak RSS of each run (GNU time) and the load average around it.
set -euo pipefail
IN=$1
OUT=$2
XMX=${3:-4g}
CP=target/smetric-audit-0.1.0.jar:$(cat target/classpath.txt)
rm -rf "$OUT-sweep" "$OUT-audit"
echo "sweep start $(date -u +%T) $(uptime)"
/usr/bin/time -f "sweep: wall %e s, user %U s, sys %S s, peak RSS %M KB" java @jvm.args -Xmx$XMX -cp "$CP" io.smetric.audit.cli.Main \
  replay "$IN" --master 'local[2]' --instances 32 --policies smetric,least-load,cache-affinity,lmetric,dynamo-kv \
  --global-ratio 0,0.4,0.8,1.6,3.2 --rate-scale 0.025,0.05,0.075,0.1,0.125,0.15,0.175,0.2 --out "$OUT-sweep" > "$OUT-sweep.log" 2>&1
tail -1 "$OUT-sweep.log"
echo "sweep end $(date -u +%T) $(uptime)"
echo "audit start $(date -u +%T) $(uptime)"
/usr/bin/time -f "audit: wall %e s, user %U s, sys %S s, peak RSS %M KB" java @jvm.args -Xmx$XMX -cp "$CP" io.smetric.audit.cli.Main \
  replay "$IN" --master 'local[2]' --instances 32 --sweep audit --out "$OUT-audit" > "$OUT-audit.log" 2>&1
tail -1 "$OUT-audit.log"
echo "audit end $(date -u +%T) $(uptime)"
