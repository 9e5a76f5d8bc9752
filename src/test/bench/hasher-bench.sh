#!/usr/bin/env bash
# Block-hasher benchmark (docs/lab/benchmarks.md, "Block-hasher"). Run from the repository root after
# `mvn -q -B -o package -DskipTests` and `mvn -q -B -o test-compile`.
#   src/test/bench/hasher-bench.sh [copies]   (default 40)
# 1. single thread, no Spark: HasherBench (jtokkit alone vs the hasher) and the streaming check
#    (a 200 MB trajectory under -Xmx256m);
# 2. the `hash` command on local[2] over `copies` copies of sample-traces/raw-logs plus, per copy,
#    an OpenAI-format JSONL made from the glaive conversations (one request per assistant turn,
#    full history, session ids and timestamps), so that all three readers and the session cache run.
set -euo pipefail
COPIES=${1:-40}
REPO=$(pwd)
CP="target/classes:target/test-classes:$(cat target/classpath.txt)"
WORK=${TMPDIR:-/tmp}/hasher-bench
rm -rf "$WORK" && mkdir -p "$WORK/logs"
head -c 32 /dev/urandom | base64 > "$WORK/salt"

echo "== single thread"
java -Xmx1g -cp "$CP" io.smetric.audit.hasher.HasherBench "$REPO" 10 2>/dev/null
java -Xmx256m -cp "$CP" io.smetric.audit.hasher.HasherBench "$REPO" 1 --streaming 2>/dev/null | tail -1

echo "== hash command, local[2], $COPIES copies"
python3 - "$REPO" "$WORK/logs" "$COPIES" <<'PY'
import json, shutil, sys, os
repo, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = os.path.join(repo, "sample-traces/raw-logs")
glaive = json.load(open(os.path.join(raw, "glaive-sharegpt/glaive_toolcall_en_demo_first50.json")))
role = {"human": "user", "gpt": "assistant", "function_call": "assistant", "observation": "tool"}
for c in range(copies):
    d = os.path.join(out, "c%03d" % c); os.makedirs(d)
    for f in os.listdir(os.path.join(raw, "swe-agent")):
        if f.endswith(".traj"): shutil.copy(os.path.join(raw, "swe-agent", f), d)
    shutil.copy(os.path.join(raw, "glaive-sharegpt/glaive_toolcall_en_demo_first50.json"), d)
    with open(os.path.join(d, "openai.jsonl"), "w") as w:
        t = 1767225600.0 + c
        for k, conv in enumerate(glaive):
            hist = []
            tools = json.loads(conv["tools"]) if conv.get("tools") else []
            for turn in conv["conversations"]:
                if role[turn["from"]] == "assistant":
                    w.write(json.dumps({"timestamp": t, "session_id": "c%d-s%d" % (c, k),
                        "messages": list(hist), "tools": tools, "usage": {"completion_tokens": 20}}) + "\n")
                    t += 1.5
                if turn["from"] == "function_call":
                    call = json.loads(turn["value"])
                    hist.append({"role": "assistant", "content": None, "tool_calls": [{"type": "function",
                        "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]})
                else:
                    hist.append({"role": role[turn["from"]], "content": turn["value"]})
PY
du -sh "$WORK/logs" | cut -f1 | sed 's/^/input size: /'
find "$WORK/logs" -type f | wc -l | sed 's/^/input files: /'
/usr/bin/time -f "wall %e s, max RSS %M KB" java @jvm.args -Xmx2g -cp "$CP" io.smetric.audit.cli.Main hash "$WORK/logs" \
  --salt-file "$WORK/salt" --out "$WORK/out" --master 'local[2]' 2>&1 | grep -v WARN | grep -E "hashed|wall"
python3 -c "import json;s=json.load(open('$WORK/out/hash-summary.json'));print('requests', s['requests'], 'prompt tokens', s['input_tokens'], 'blocks', s['blocks'])"
