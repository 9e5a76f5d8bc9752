#!/usr/bin/env python3
"""Per-stage wall time, task run time, GC and shuffle volume from a Spark event log (stdlib only).

usage: spark_stages.py EVENTLOG_DIR   (spark.eventLog.dir of one run, written uncompressed)
Prints one line per stage and the total shuffle written: the numbers docs/lab/benchmarks.md quotes.
"""
import glob
import json
import os
import sys

files = sorted(f for f in glob.glob(os.path.join(sys.argv[1], "**", "*"), recursive=True)
               if os.path.isfile(f) and not os.path.basename(f).startswith((".", "appstatus")))
stages, t0, t1, jobs = {}, None, None, 0
for f in files:
    for line in open(f):
        e = json.loads(line)
        ev = e["Event"]
        if ev == "SparkListenerApplicationStart":
            t0 = e["Timestamp"]
        elif ev == "SparkListenerApplicationEnd":
            t1 = e["Timestamp"]
        elif ev == "SparkListenerJobStart":
            jobs += 1
        elif ev == "SparkListenerStageCompleted":
            si = e["Stage Info"]
            acc = {a["Name"]: a.get("Value") for a in si.get("Accumulables", [])}

            def g(k):
                try:
                    return int(acc.get(k))
                except (TypeError, ValueError):
                    return 0
            stages[si["Stage ID"]] = (si["Stage Name"][:48], (si.get("Completion Time", 0) - si.get("Submission Time", 0)) / 1000,
                                      si["Number of Tasks"], g("internal.metrics.shuffle.write.recordsWritten"),
                                      g("internal.metrics.shuffle.write.bytesWritten"), g("internal.metrics.diskBytesSpilled"),
                                      g("internal.metrics.executorRunTime") / 1000, g("internal.metrics.jvmGCTime") / 1000)
print("%4s %-48s %7s %5s %11s %13s %11s %7s %6s" % ("id", "stage", "wall_s", "tasks", "shuf_rec", "shuf_bytes", "spill_disk", "run_s", "gc_s"))
tr = tb = 0
for k in sorted(stages):
    n, d, t, rw, bw, sd, rt, gc = stages[k]
    tr += rw
    tb += bw
    if d >= 1 or bw >= 1e6:
        print("%4d %-48s %7.1f %5d %11d %13d %11d %7.1f %6.1f" % (k, n, d, t, rw, bw, sd, rt, gc))
print("stages: %d (those under 1 s and 1 MB not listed); jobs: %d; application: %.1f s"
      % (len(stages), jobs, ((t1 or 0) - (t0 or 0)) / 1000))
print("total shuffle written: %d records, %.1f MB" % (tr, tb / 1e6))
