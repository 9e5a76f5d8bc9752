#!/usr/bin/env python3
# The capacity rules of docs/replay.md ("Capacity": the interval's two waves, SMetric's no-tier chain
# from its tier answer) replayed against a recorded 200k agent-trace audit (replay.json of main
# 1759a8b), with CPU per run taken from that audit: the recorded run of the same search and count
# where there is one, else the nearest recorded count with the same outcome. The run counts are
# checked in Java by CapacityTest.recorded200k_fewerRuns_sameAnswers; this adds the CPU estimate
# (docs/lab/benchmarks.md, "Capacity: fewer runs for the same answers").
# Usage: src/test/bench/capacity-cpu-estimate.py REPLAY_JSON
import json
import sys
d=json.load(open(sys.argv[1]))
rec={}
for r in d['runs']:
  if r.get('variant')=='capacity':
    k=(r['policy'],r['global_ratio'],r['rate_scale'],r.get('replicate') or 0)
    rec.setdefault(k,{})[int(r['overrides']['instances'])]=(int(r['metrics']['attainment_pass']),r['cpu_s'])
def cpu(k,n,passed):
  m=rec[k]
  if n in m: return m[n][1],True
  same=[(abs(x-n),c) for x,(p,c) in m.items() if p==passed]
  return min(same)[1],False
def nearNext(tested,g,cap):
  hi=min([k for k,v in tested.items() if v],default=None)
  lo=max([k for k,v in tested.items() if not v and (hi is None or k<hi)],default=None)
  if (hi is not None and lo is not None and hi-lo<=1) or (hi is None and lo is not None and lo>=cap) or (lo is None and hi is not None and hi<=1): return None
  g=max(1,min(g,cap))
  if g not in tested and (lo is None or g>lo) and (hi is None or g<hi): return g
  if hi is not None and hi<=g:
    c=hi-max(1,g-hi+1)
    if lo is None: return max(1,c)
    if c>lo: return c
  elif lo is not None and lo>=g:
    c=lo+max(1,lo-g+1)
    if hi is None: return min(cap,c)
    if c<hi: return c
  if hi is None: return min(lo*2,cap)
  if lo is None: return max(1,hi//2)
  return lo+(hi-lo)//2
def run(k,th,g,cap,tested=None):
  t=dict(tested or {}); tot=0; est=0; n=0
  while True:
    x=nearNext(t,g,cap)
    if x is None: return n,tot,est
    p=x>=th; t[x]=p; c,ok=cpu(k,x,int(p)); tot+=c; n+=1; est+= (not ok)
# interval
sm=[72,72,72,72,73,73,73,73,73,72]; lm=[71,71,71,71,73,72,72,73,72,71]
T=0;N=0;E=0
for pol,point,reps,g2 in (('smetric',71,sm,72),('lmetric',70,lm,71)):
  for k,a in enumerate(reps,1):
    g = point if k<=3 else g2
    n,c,e=run((pol,1.6,1.0,k),a,g,max(64,16*point)); N+=n;T+=c;E+=e
print('interval new: sims',N,'cpu %.1f'%T,'probes estimated',E)
# search: SM@0 chain new
ans={1.0:86,1.25:95,1.5:103,2.0:118}
tot=0;n=0;e=0
n1,c1,e1=run(('smetric',0.0,1.0,0),86,71,16*235); tot+=c1;n+=n1;e+=e1
prev=86
for x,led,ledp in ((1.25,80,71),(1.5,87,80),(2.0,100,87)):
  s0=max(prev,round(prev*led/ledp)); 
  ni,ci,ei=run(('smetric',0.0,x,0),ans[x],s0,10**6,{prev-1:False}); tot+=ci;n+=ni;e+=ei; prev=ans[x]
old=sum(s['cpu_s'] for s in d['capacity']['searches'] if s['policy']=='smetric' and s['global_ratio']==0.0)
print('SM@0 chain new: sims',n,'cpu %.1f'%tot,'estimated',e,'old cpu %.1f'%old)
# SMetric at 1.6x, x1.5 and x2: from the previous answer x its own growth as an elasticity
import math
ans16={1.0:71,1.25:80,1.5:87,2.0:100}
fs=[1.0,1.25,1.5,2.0]
tot=0;n=0;e=0;old=0
for i in (2,3):
  x,prev,pp=fs[i],fs[i-1],fs[i-2]
  el=math.log(ans16[prev]/ans16[pp])/math.log(prev/pp)
  s0=max(ans16[prev],round(ans16[prev]*(x/prev)**el))
  ni,ci,ei=run(('smetric',1.6,x,0),ans16[x],s0,10**6,{ans16[prev]-1:False}); tot+=ci;n+=ni;e+=ei
  old+=sum(s['cpu_s'] for s in d['capacity']['searches'] if s['policy']=='smetric' and s['global_ratio']==1.6 and s['traffic_factor']==x)
print('SM@1.6 x1.5+x2 new: sims',n,'cpu %.1f'%tot,'estimated',e,'old cpu %.1f'%old)
