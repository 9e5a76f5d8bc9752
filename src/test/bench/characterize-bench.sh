#!/usr/bin/env bash
# Characterization benchmark (docs/benchmarks.md, "Characterization"): runs smetric-audit analyze
# (Spark), the DuckDB peer and the plain-Python peer on one canonical trace, one after the other
# in the same run, each in its own process under /usr/bin/time (wall time, peak RSS), then checks
# that the three report the same headline numbers.
# usage: src/test/bench/characterize-bench.sh CANONICAL_DIR NAME [SPARK_XMX] [PYTHON_INPUT]
# PYTHON_INPUT: a generator smetric JSONL to give the Python peer directly (else a canonical export).
# Environment: TOOLS (default "spark duckdb python": which ones to run; results of tools not run this
# time are kept from an earlier run in the same folder and compared too, and the report says so),
# PEER_TIMEOUT (seconds, default none: a peer still running then is stopped and reported as such),
# SPARK_MASTER (default local[*]), SKIP_BUILD (1: no mvn build, use target/ as it is),
# DUCKDB_MEMORY (DuckDB memory_limit, default 6GB; beyond it DuckDB spills to $TMPDIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
canon="$1"; name="$2"; xmx="${3:-2g}"
work="${BENCH_WORK:-/tmp/char-bench}/$name"
mkdir -p "$work"
cd "$here"
# SKIP_BUILD=1: use the build already in target/ (and $work/test-cp.txt), e.g. when several traces run back to back
if [[ "${SKIP_BUILD:-0}" != 1 || ! -f "$work/test-cp.txt" ]]; then
  mvn -q -B -o package -DskipTests >&2
  mvn -q -B -o test-compile >&2
  mvn -q -B -o dependency:build-classpath -Dmdep.outputFile="$work/test-cp.txt" -Dmdep.includeScope=test >&2
fi
cp_test="target/test-classes:target/classes:$(cat "$work/test-cp.txt")"
# Python reads a JSONL export in (arrival_s, seq) order (not timed; same records as the Parquet).
pyin="${4:-$work/trace.jsonl}"
[[ -f "$pyin" ]] || java -Xmx2g -cp "$cp_test" io.smetric.audit.bench.DuckDbCharacterize --export "$canon/trace" "$work/trace.jsonl"
tools="${TOOLS:-spark duckdb python}"
limit=()
[[ -n "${PEER_TIMEOUT:-}" ]] && limit=(timeout "$PEER_TIMEOUT")
echo "$(date -u +%FT%TZ) tools: $tools; load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$work/report.txt"
for t in $tools; do
  rm -f "$work/$t.time"
  echo "$(date -u +%FT%TZ) $t start, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/report.txt"
  case "$t" in
    spark) rm -rf "$work/eventlog"; mkdir -p "$work/eventlog"
      /usr/bin/time -f "spark wall_s=%e peak_rss_kb=%M" -o "$work/spark.time" \
      java @jvm.args -Xmx"$xmx" -Dspark.eventLog.enabled=true -Dspark.eventLog.dir="$work/eventlog" \
      -Dspark.eventLog.compress=false -Dspark.eventLog.rolling.enabled=false -cp "target/smetric-audit-0.1.0.jar:$(cat target/classpath.txt)" io.smetric.audit.cli.Main \
      analyze "$canon" --instances 32 --out "$work/spark-out" --overwrite --master "${SPARK_MASTER:-local[*]}" \
      > "$work/spark.stdout" 2> "$work/spark.stderr" || echo "spark failed: see $work/spark.stderr" >> "$work/report.txt"
      # Spark's own metrics: stage times and shuffle volume (what the plan ships)
      python3 src/test/bench/python/spark_stages.py "$work/eventlog" > "$work/spark-stages.txt" || true
      python3 -c 'import json,sys; print("plan_counters", json.dumps(json.load(open(sys.argv[1]))["plan_counters"]))' \
        "$work/spark-out/characterization.json" >> "$work/spark-stages.txt" 2>/dev/null || true ;;
    duckdb) /usr/bin/time -f "duckdb wall_s=%e peak_rss_kb=%M" -o "$work/duckdb.time" \
      "${limit[@]}" java -Xmx1g -Dduckdb.memory="${DUCKDB_MEMORY:-6GB}" -cp "$cp_test" io.smetric.audit.bench.DuckDbCharacterize "$canon/trace" \
      > "$work/duckdb.json" 2> "$work/duckdb.stderr" || echo "duckdb stopped or failed (PEER_TIMEOUT=${PEER_TIMEOUT:-none})" >> "$work/report.txt" ;;
    python) /usr/bin/time -f "python wall_s=%e peak_rss_kb=%M" -o "$work/python.time" \
      "${limit[@]}" python3 src/test/bench/python/characterize.py "$pyin" \
      > "$work/python.json" || echo "python stopped or failed (PEER_TIMEOUT=${PEER_TIMEOUT:-none})" >> "$work/report.txt" ;;
  esac
  echo "$(date -u +%FT%TZ) $t end, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/report.txt"
  cat "$work/$t.time" >> "$work/report.txt" 2>/dev/null || true
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$work/report.txt"
cat "$work"/*.time 2>/dev/null || true
python3 - "$work" <<'PY' | tee -a "$work/report.txt"
import json, sys
w = sys.argv[1]
try:
    ch = json.load(open(w + "/spark-out/characterization.json"))
except OSError:
    print("spark: no result"); sys.exit(0)
def val(*p):
    x = ch
    for k in p: x = x[k]
    return x.get("value")
spark = {"reuse_token_weighted": val("reuse", "token_weighted"),
         "share_intra_session": val("reuse_by_source", "intra_session", "share_of_hit_tokens"),
         "share_system_prompt": val("reuse_by_source", "system_prompt", "share_of_hit_tokens"),
         "share_inter_session": val("reuse_by_source", "inter_session", "share_of_hit_tokens"),
         "interval_p90_s": val("reuse_interval", "all", "p90_s"),
         "interval_share_within_threshold": val("reuse_interval", "all", "share_within_threshold"),
         "top_25pct_session_token_share": (ch["sessions"].get("token_skew") or {}).get("top_25pct_share", {}).get("value")}
spark = {k: v for k, v in spark.items() if v is not None}
def peer(n):
    try:
        return json.load(open(w + "/" + n + ".json"))
    except (OSError, ValueError):
        print("%s: no result" % n)
        return {}
duck = peer("duckdb"); py = peer("python")
ok = True
for k in sorted(spark):
    d, p = duck.get(k), py.get(k)
    same = d is not None and p is not None and abs(spark[k] - d) < 1e-9 and abs(spark[k] - p) < 1e-9
    ok &= same
    print("%-34s spark=%.12g duckdb=%s python=%s %s" % (k, spark[k], d, p, "agree" if same else "DIFFER"))
print("all three agree" if ok else "MISMATCH")
PY
