#!/usr/bin/env python3
"""The SMetric paper's signatures read from one audit folder (stdlib only); docs/validation.md,
"The paper's signatures".

usage: signatures.py AUDIT_DIR

Prints (1) the workload statistics of characterization.json beside the paper's Trace 1 figures,
(2) per router (cache-affinity = the paper's cache-first production router, lmetric, least-load =
load balance, smetric) and global capacity the mechanism metrics of replay.json: at the router's
own headline run (maximum TPS within SLO), at the lowest and the highest offered rate the search
ran, and at the equal-load points (1.0x, 1.5x, 2.0x of the reference rate), and (3) SMetric's gains
(equal load per capacity and load; the maxima of `comparison` and `paper_claim`).
Rates in GB/s are bytes / 1e9.
"""
import json
import sys

audit = sys.argv[1]
ch = json.load(open(f'{audit}/characterization/characterization.json'))
rp = json.load(open(f'{audit}/replay/replay.json'))

V = lambda d: d['value'] if isinstance(d, dict) else d
src = ch['reuse_by_source']
print('== workload (characterization.json) against Trace 1')
rows = [
    ('ideal reuse (token-weighted)', '~82%', V(ch['reuse']['token_weighted'])),
    ('intra-session share of hits', '~67%', V(src['intra_session']['share_of_hit_tokens'])),
    ('system-prompt share of hits', '~18%', V(src['system_prompt']['share_of_hit_tokens'])),
    ('inter-session share of hits', 'rest', V(src['inter_session']['share_of_hit_tokens'])),
    ('hit tokens reused within 100 s', '~90%', V(ch['reuse_interval']['all']['share_within_threshold'])),
    ('tool-triggered follow-ups', '92.9%', V(ch['sessions']['trigger_mix']['follow_ups']['tool'])),
    ('top-25% sessions token share', '>80%', V(ch['sessions']['token_skew']['top_25pct_share'])),
]
for name, paper, v in rows:
    print(f'  {name:34s} paper {paper:6s} trace {v:.3f}')
rr = ch['request_instance_ratio']
f1 = lambda x: 'n/a' if x is None else f'{x:.1f}'  # no whole minute in a short trace
print(f'  requests / instance-minute (32)    paper 43-48  trace mean {f1(V(rr.get("mean")))} '
      f'p50 {f1(V(rr.get("p50")))} min {f1(V(rr.get("min")))}')
t = ch['trace']
print(f'  requests {t["requests"]}, sessions {t["sessions"]}, span {t["last_arrival_s"] - t["first_arrival_s"]:.0f} s')

ROUTERS = ['cache-affinity', 'lmetric', 'least-load', 'smetric']
runs = {r['run_id']: r for r in rp['runs']}
# at the defaults: OVERLOAD and HIT_RATIO the settings' values, or not read by the policy (null)
dflt = lambda x: x.get('overload') in (None, rp['settings']['overload']) and x.get('hit_ratio') in (None, rp['settings']['hitRatio'])
head = {(h['policy'], h['global_ratio']): h for h in rp['headline'] if dflt(h)}
main = [r for r in rp['runs'] if r.get('variant') is None and dflt(r)]


def fmt(m):
    g = lambda k: m.get(k, float('nan'))
    return (f'local {g("local_hit_ratio"):.3f} global {g("global_hit_ratio"):.3f} '
            f'total {g("local_hit_ratio") + g("global_hit_ratio"):.3f} imb {g("imbalance_mean"):.2f} '
            f'stick {g("stickiness"):.3f} prev {g("stickiness_previous"):.3f} '
            f'stickExt {g("stickiness_extending_turn0"):.3f} extShare {g("follow_ups_extending_turn0_share"):.3f} '
            f'migr {g("session_migrations"):.0f} '
            f'gRead mean {g("global_mean_read_bytes_per_s") / 1e9:.2f} peak {g("global_peak_read_bytes_per_s") / 1e9:.2f} GB/s '
            f'bytes {g("global_bytes_read") / 1e12:.2f} TB rpim {g("requests_per_instance_minute_mean"):.1f} '
            f'attain {g("slo_attainment"):.3f} tps {g("tps_within_slo") / 1e3:.1f}k')


print('\n== routers per capacity: headline, lowest and highest rate of the search, equal load')
caps = sorted({r['global_ratio'] for r in main})
for gr in caps:
    print(f'-- global ratio {gr}')
    for p in ROUTERS:
        h = head.get((p, gr))
        if not h:
            continue
        mine = sorted((r for r in main if r['policy'] == p and r['global_ratio'] == gr), key=lambda r: r['rate_scale'])
        print(f'  {p:15s} headline x{h["at_rate_scale"]:<7} {fmt(runs[h["run_id"]]["metrics"])}')
        print(f'  {"":15s} lowest   x{mine[0]["rate_scale"]:<7} {fmt(mine[0]["metrics"])}')
        print(f'  {"":15s} highest  x{mine[-1]["rate_scale"]:<7} {fmt(mine[-1]["metrics"])}')
    # the equal-load points; the judged router's 1.0x run is its reference bisection's run
    b = next(b for b in rp['equal_load']['by_global_ratio'] if b['global_ratio'] == gr)
    for pt in b['points']:
        for p in ROUTERS:
            r = next((r for r in rp['runs'] if r['policy'] == p and r['global_ratio'] == gr and dflt(r)
                      and r['rate_scale'] == pt['rate_scale']), None)
            if r:
                print(f'  equal-load {pt["load"]}x (x{pt["rate_scale"]:<7}) {p:15s} {fmt(r["metrics"])}')

print('\n== SMetric gains')
el = rp['equal_load']
for b in el['by_global_ratio']:
    for pt in b['points']:
        gains = ' '.join(f'{k} {v:+.3f}' for k, v in pt['smetric_gain_vs'].items() if v is not None)
        print(f'  equal load g={b["global_ratio"]} load {pt["load"]} (x{pt["rate_scale"]}, judged '
              f'{b["judged_router"]}): {gains}')
for blk in ('comparison', 'paper_claim'):
    c = rp[blk]
    print(f'  {blk}: best gain with global tier {c["smetric_best_gain_with_global_tier"]}')
    for b in c['by_global_ratio']:
        print(f'    g={b["global_ratio"]} smetric {b["smetric_tps_within_slo"] / 1e3:.1f}k vs '
              f'{b["best_baseline"]} {b["best_baseline_tps_within_slo"] / 1e3:.1f}k gain {b["gain"]:+.3f}')
j = rp['judged']
print(f'  judged with tier: {j["smetric_gain_with_global_tier"]}')
print(f'  judged without tier: {j["smetric_gain_without_global_tier"]}')
# the aggregate the replay applied (global_tier, issue 26 item 5); older replay.json: the setting
agg = rp.get('global_tier', {}).get('aggregate_gbps', rp['settings'].get('globalAggregateGBps'))
print(f'  settings: aggregate {agg} GB/s, NIC {rp["settings"]["nodeNicGBps"]} GB/s, '
      f'{rp["settings"]["instancesPerNode"]} instances/node, per-instance read {rp["settings"]["profile"]["globalReadGBps"]} GB/s; '
      f'local capacity {rp["local_capacity_blocks"]} blocks; x_ref {rp["sweep"]["rate_reference"]}; wall {rp["wall_s"]:.0f} s')
