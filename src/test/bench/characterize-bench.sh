#!/usr/bin/env bash
# Characterization benchmark (docs/lab/benchmarks.md, "Characterization"): runs smetric-audit analyze,
# the DuckDB peer and the plain-Python peer on one canonical trace, one after the other in the same
# run, each in its own process under /usr/bin/time (wall time, peak RSS, CPU), then checks that
# they report the same headline numbers. Tool "spark" is `analyze` as the launcher runs it (default
# engine auto: in process on a local master, with the launcher's class-data-sharing archive);
# "spark-tasks" is `analyze --engine spark` (the segment tasks as Spark tasks on SPARK_MASTER).
# usage: src/test/bench/characterize-bench.sh CANONICAL_DIR NAME [SPARK_XMX] [PYTHON_INPUT]
# PYTHON_INPUT: a generator smetric JSONL to give the Python peer directly (else a canonical export).
# Environment: TOOLS (default "spark duckdb python"; also "spark-tasks": which ones to run; results of tools not run this
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
# the launcher's class-data-sharing archive (smetric-audit records it on its first run after a build)
cds=target/smetric-audit-analyze.jsa
if [[ ! -f "$cds" || "$cds" -ot target/smetric-audit-0.1.0.jar ]]; then
  # not timed: the launcher's first analyze after a build records the archive
  ./smetric-audit analyze "$canon" --instances 32 --out "$work/warmup-out" --overwrite > /dev/null 2>&1 || true
fi
cds_opts=()
[[ -f "$cds" ]] && cds_opts=(-XX:SharedArchiveFile="$cds" -Xlog:cds=off -Xlog:cds+dynamic=off)
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
    spark|spark-tasks) rm -rf "$work/eventlog"; mkdir -p "$work/eventlog"
      engine=auto; [[ "$t" == spark-tasks ]] && engine=spark
      /usr/bin/time -f "$t wall_s=%e peak_rss_kb=%M user_s=%U sys_s=%S" -o "$work/$t.time" \
      java @jvm.args -Xmx"$xmx" "${cds_opts[@]}" -Dsmetric.phases=1 -Dspark.eventLog.enabled=true -Dspark.eventLog.dir="$work/eventlog" \
      -Dspark.eventLog.compress=false -Dspark.eventLog.rolling.enabled=false -cp "target/smetric-audit-0.1.0.jar:$(cat target/classpath.txt)" io.smetric.audit.cli.Main \
      analyze "$canon" --instances 32 --out "$work/$t-out" --overwrite --master "${SPARK_MASTER:-local[*]}" --engine $engine \
      > "$work/$t.stdout" 2> "$work/$t.stderr" || echo "$t failed: see $work/$t.stderr" >> "$work/report.txt"
      # Spark's own metrics when Spark ran: stage times and shuffle volume; the in-process phases otherwise
      { python3 src/test/bench/python/spark_stages.py "$work/eventlog" 2>/dev/null || true; grep -E '^(phase|thread) ' "$work/$t.stderr" || true; } > "$work/$t-stages.txt"
      python3 -c 'import json,sys; print("plan_counters", json.dumps(json.load(open(sys.argv[1]))["plan_counters"]))' \
        "$work/$t-out/characterization.json" >> "$work/$t-stages.txt" 2>/dev/null || true ;;
    duckdb) /usr/bin/time -f "duckdb wall_s=%e peak_rss_kb=%M user_s=%U sys_s=%S" -o "$work/duckdb.time" \
      "${limit[@]}" java -Xmx1g -Dduckdb.memory="${DUCKDB_MEMORY:-6GB}" -cp "$cp_test" io.smetric.audit.bench.DuckDbCharacterize "$canon/trace" \
      > "$work/duckdb.json" 2> "$work/duckdb.stderr" || echo "duckdb stopped or failed (PEER_TIMEOUT=${PEER_TIMEOUT:-none})" >> "$work/report.txt" ;;
    python) /usr/bin/time -f "python wall_s=%e peak_rss_kb=%M user_s=%U sys_s=%S" -o "$work/python.time" \
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
def headline(d):
    try:
        ch = json.load(open(w + "/" + d + "/characterization.json"))
    except OSError:
        return None
    def val(*p):
        x = ch
        for k in p: x = x[k]
        return x.get("value")
    h = {"reuse_token_weighted": val("reuse", "token_weighted"),
         "share_intra_session": val("reuse_by_source", "intra_session", "share_of_hit_tokens"),
         "share_system_prompt": val("reuse_by_source", "system_prompt", "share_of_hit_tokens"),
         "share_inter_session": val("reuse_by_source", "inter_session", "share_of_hit_tokens"),
         "interval_p90_s": val("reuse_interval", "all", "p90_s"),
         "interval_share_within_threshold": val("reuse_interval", "all", "share_within_threshold"),
         "top_25pct_session_token_share": (ch["sessions"].get("token_skew") or {}).get("top_25pct_share", {}).get("value")}
    return {k: v for k, v in h.items() if v is not None}
spark = headline("spark-out")
tasks = headline("spark-tasks-out")
if spark is None:
    spark = tasks
if spark is None:
    print("spark: no result"); sys.exit(0)
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
    if tasks is not None:
        same = same and tasks.get(k) == spark[k]
    ok &= same
    print("%-34s analyze=%.12g spark-tasks=%s duckdb=%s python=%s %s" % (k, spark[k], None if tasks is None else tasks.get(k), d, p,
        "agree" if same else "DIFFER"))
print("all agree" if ok else "MISMATCH")
PY
