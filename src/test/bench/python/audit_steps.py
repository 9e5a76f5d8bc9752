#!/usr/bin/env python3
"""Per-step wall time and peak RSS of one audit run (stdlib only), for the scale benchmarks.

usage: audit_steps.py AUDIT_STDERR_LOG RSS_SAMPLES OUT_TSV EXIT_CODE
AUDIT_STDERR_LOG holds the audit's progress lines "[k/n step] started (... total Ns)";
RSS_SAMPLES has one "seconds_since_start driver_rss_kib executors_rss_kib cpu_seconds" line per
sample (executors 0 in local mode; cpu = user + system seconds of the driver and executor JVMs so
far). Each sample is attributed to the step running at that time; prints and writes one row per
step: wall seconds, CPU seconds (less sensitive than wall time to other load on the machine) and
peak RSS.
"""
import re
import sys

log, rss, tsv, rc = sys.argv[1:5]


def secs(s):
    m = re.match(r'(?:(\d+)m)?(\d+)s', s)
    return int(m.group(1) or 0) * 60 + int(m.group(2))


steps = []  # [name, start_s]
end = None
for line in open(log, errors='replace'):
    m = re.match(r'\[(\d+)/(\d+) ([^\]]+)\] (.*)\(step [^,]+, total ([0-9ms]+)\)', line)
    if not m:
        continue
    t = secs(m.group(5))
    if m.group(4).startswith('started'):
        steps.append([m.group(3), t])
    end = t
samples = []
for l in open(rss):
    f = l.split()
    if f:
        samples.append((float(f[0]), int(f[1]), int(f[2]), float(f[3])))
cluster = any(s[2] for s in samples)


def peaks(t0, t1):
    sel = [s for s in samples if t0 <= s[0] <= t1 + 1] or [(0, 0, 0, 0)]
    before = [s[3] for s in samples if s[0] <= t0] or [0.0]
    cpu = max(s[3] for s in sel) - max(before)
    return max(s[1] for s in sel) / 2**20, max(s[2] for s in sel) / 2**20, cpu


total = samples[-1][0] if samples else end
with open(tsv, 'w') as f:
    f.write("step\twall_s\tcpu_s\tpeak_driver_rss_gib" + ("\tpeak_executors_rss_gib" if cluster else "") + "\n")
    for i, (name, t0) in enumerate(steps):
        t1 = steps[i + 1][1] if i + 1 < len(steps) else total
        d, e, c = peaks(t0, t1)
        f.write("%s\t%d\t%d\t%.2f" % (name, t1 - t0, c, d) + ("\t%.2f" % e if cluster else "") + "\n")
    d, e, c = peaks(0, total or 0)
    f.write("total\t%d\t%d\t%.2f" % (total or 0, c, d) + ("\t%.2f" % e if cluster else "") + "\n")
print(open(tsv).read(), end='')
print("exit code", rc)
