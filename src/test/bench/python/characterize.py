#!/usr/bin/env python3
"""Benchmark peer: the characterization's headline numbers in one plain sequential pass.

Standard library only, single-threaded. Reads a canonical trace exported as JSONL sorted by
(arrival_s, seq) (the bench exports it from the canonical Parquet; see docs/lab/benchmarks.md) and
prints the same headline numbers as `smetric-audit analyze` (trace-model.md sections 2-5):
token-weighted ideal reuse, source shares of hit tokens, interval p90 and share within the
threshold, top-25% session token share.

A generator smetric-format file (in arrival order) can be read directly (seq = line number).

usage: characterize.py TRACE.jsonl [--template-min-sessions K] [--threshold S]
"""
import argparse
import json
import math
import sys
from decimal import Decimal, ROUND_CEILING


def used_blocks(r):
    b, blocks = r.get("block_size"), r["blocks"]
    if b is None or blocks is None or b <= 0:
        return 0
    return min(len(blocks), (r["input_tokens"] + b - 1) // b)


def load(line):
    """A canonical JSONL record; a generator (smetric-format) line works too: its hash_ids are
    numbered so that equal ids mean equal prefixes, which is all the chained ids provide."""
    r = json.loads(line)
    if "blocks" not in r:
        r["blocks"] = r.get("hash_ids")
    return r


def session_key(r):
    s = r.get("session_id")
    return s if s is not None else "\0req:" + r["request_id"]


def weighted_percentile(hist, q):
    """Smallest v whose cumulative weight reaches q of the total (no interpolation)."""
    total = sum(hist.values())
    need = int((Decimal(repr(q)) * total).to_integral_value(rounding=ROUND_CEILING))
    cum = 0
    for v in sorted(hist):
        cum += hist[v]
        if cum >= need:
            return v
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--template-min-sessions", type=int, default=3)
    ap.add_argument("--threshold", type=float, default=100.0)
    a = ap.parse_args()

    # pass 1: template blocks = in the turn-0 requests of >= K distinct root sessions
    roots = {}
    with open(a.trace, "rb") as f:
        for line in f:
            r = load(line)
            if (r.get("session_id") is not None and r.get("turn") == 0 and r.get("parent_id") is None
                    and r.get("trigger") != "subagent"):
                s = r["session_id"]
                for c in r["blocks"][:used_blocks(r)]:
                    roots.setdefault(c, set()).add(s)
    template = {c for c, ss in roots.items() if len(ss) >= a.template_min_sessions}
    del roots

    # pass 2: requests in (arrival_s, seq) order
    last = {}            # block -> arrival of the latest request holding it
    sess_of = {}         # block -> the session that held it, or the set of them once shared
    hit = [0, 0, 0]      # intra, system prompt, inter
    hist = {}            # interval in us -> hit tokens
    prefill = 0
    session_tokens = {}
    has_sessions = False
    prev = None
    with open(a.trace, "rb") as f:
        for no, line in enumerate(f):
            r = load(line)
            key = (r["arrival_s"], r.get("seq", no))
            if prev is not None and key < prev:
                sys.exit("trace is not sorted by (arrival_s, seq)")
            prev = key
            t, n_in = r["arrival_s"], r["input_tokens"]
            prefill += n_in
            if r.get("session_id") is not None:
                has_sessions = True
                session_tokens[r["session_id"]] = session_tokens.get(r["session_id"], 0) + n_in + r["output_tokens"]
            n = used_blocks(r)
            if n == 0:
                continue
            s, b, blocks = session_key(r), r["block_size"], r["blocks"]
            k = 0
            for i in range(n):
                if blocks[i] in last:
                    k = i + 1
            for i in range(k):
                c = blocks[i]
                w = min(b, n_in - i * b)
                x = sess_of[c]
                same = (s in x) if type(x) is set else (x == s)
                src = 0 if same else (1 if c in template else 2)
                hit[src] += w
                us = math.floor((t - last[c]) * 1e6 + 0.5)  # Java Math.round, not round-half-even
                hist[us] = hist.get(us, 0) + w
            for i in range(n):
                c = blocks[i]
                last[c] = t
                x = sess_of.get(c)
                if x is None:
                    sess_of[c] = s
                elif type(x) is set:
                    x.add(s)
                elif x != s:
                    sess_of[c] = {x, s}

    total_hit = sum(hit)
    out = {"reuse_token_weighted": total_hit / prefill if prefill else None}
    if has_sessions and total_hit:
        out["share_intra_session"] = hit[0] / total_hit
        out["share_system_prompt"] = hit[1] / total_hit
        out["share_inter_session"] = hit[2] / total_hit
    if hist:
        out["interval_p90_s"] = weighted_percentile(hist, 0.9) / 1e6
        thr = round(a.threshold * 1e6)
        out["interval_share_within_threshold"] = sum(w for v, w in hist.items() if v <= thr) / total_hit
    if session_tokens:
        vals = sorted(session_tokens.values(), reverse=True)
        top = math.ceil(0.25 * len(vals))
        out["top_25pct_session_token_share"] = sum(vals[:top]) / sum(vals) if sum(vals) else None
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
