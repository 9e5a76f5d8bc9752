#!/usr/bin/env python3
"""Stand-in agent trace for benchmarks until the project's generator output is available.

Seeded, stdlib only. smetric-format JSONL: sessions of tool-driven turns whose prompt grows by
appending (same block ids every turn), a Zipf-chosen system prompt per session, 16-token blocks.
usage: agent_like_trace.py REQUESTS OUT.jsonl [SEED]
"""
import json
import random
import sys

n_req, out = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
B = 16
templates = [list(range(10_000_000 * (t + 1), 10_000_000 * (t + 1) + rnd.randint(20, 60))) for t in range(6)]
weights = [1 / (t + 1) for t in range(6)]
duration = n_req / 1440.0 * 60.0  # 32 instances x 45 requests per instance-minute
fresh = 1
recs = []
s = 0
while len(recs) < n_req:
    sid = "s%d" % s
    s += 1
    tmpl = rnd.choices(templates, weights)[0]
    content = list(tmpl)
    t = rnd.uniform(0, duration)
    turns = max(1, int(rnd.expovariate(1 / 20)))
    parent = None
    for k in range(turns):
        grow = max(1, int(rnd.lognormvariate(4.3, 0.8)))  # tokens appended this turn, median ~74
        extra = (grow + B - 1) // B
        content.extend(range(fresh, fresh + extra))
        fresh += extra
        n_in = len(content) * B - rnd.randint(0, B - 1)
        rid = "%s-%d" % (sid, k)
        recs.append({"request_id": rid, "session_id": sid, "parent_id": parent, "turn": k,
                     "trigger": "user" if k == 0 else "tool", "arrival_s": round(t, 3), "input_tokens": n_in,
                     "output_tokens": rnd.randint(20, 400), "block_size": B, "hash_ids": content[:]})
        parent = rid
        t += rnd.lognormvariate(1.4, 0.9)
        if len(recs) >= n_req:
            break
recs.sort(key=lambda r: r["arrival_s"])
with open(out, "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
