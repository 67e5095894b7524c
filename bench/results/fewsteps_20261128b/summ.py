import json,glob,collections,sys,statistics as st
keys=[('column_pair_trends','Trend'),('detection_xgboost','C2ST'),('alpha_precision','alpha'),('beta_recall','beta'),('tstr_xgboost_auc','TSTR'),('dcr_share_equal_size','DCReq'),('quality','Q')]
R=collections.defaultdict(list)
for f in sorted(glob.glob('runs/*.json')):
    t,lab,sd=f.split('/')[1].rsplit('.json',1)[0].split('.')
    d=json.load(open(f))['scores']
    cpu=float(open(f.replace('.json','.sample_cpu')).read().split()[0])
    R[(t,lab)].append([d.get(k) for k,_ in keys]+[cpu])
tabs=['adult','bank','males','chile']
for t in tabs:
    print("==",t)
    print("%-10s n "%"setting"+" ".join("%7s"%n for _,n in keys)+"  cpu_s")
    for (tt,lab),rows in sorted(R.items(), key=lambda x:x[0][1]):
        if tt!=t: continue
        m=[st.mean([r[i] for r in rows if r[i] is not None] or [float('nan')]) for i in range(len(keys)+1)]
        print("%-10s %d "%(lab,len(rows))+" ".join("%7.3f"%x for x in m[:-1])+"  %.2f"%m[-1])
