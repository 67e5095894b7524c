import json,glob,collections,sys,statistics as st
keys=[('column_pair_trends','Trend'),('detection_xgboost','C2ST-XGB'),('alpha_precision','α'),('beta_recall','β'),('tstr_xgboost_auc','TSTR AUC'),('dcr_share_equal_size','DCR share eq.')]
R=collections.defaultdict(list)
for f in sorted(glob.glob('runs/*.json')):
    t,lab,sd=f.split('/')[1].rsplit('.json',1)[0].split('.')
    d=json.load(open(f))['scores']
    cpu=float(open(f.replace('.json','.sample_cpu')).read().split()[0])
    R[(t,lab)].append(([d.get(k) for k,_ in keys],cpu))
order=sys.argv[2].split(',') if len(sys.argv)>2 else None
names={'s100':'S 100, DDIM (default)','s50':'S 50, DDIM','s25':'S 25, DDIM','s50o2':'S 50, 2M','s25o2':'S 25, 2M','s15o2':'S 15, 2M','s25quad':'S 25, DDIM, quadratic','s25trail':'S 25, DDIM, trailing','s25o2quad':'S 25, 2M, quadratic','s100e5':'S 100, DDIM, η 0.5'}
for t in sys.argv[1].split(','):
    print(f"\n**{t}**\n")
    print("| sampler | draws | "+" | ".join(n for _,n in keys)+" | sampling CPU s |")
    print("|---|---|"+"---|"*len(keys)+"---|")
    labs=[l for (tt,l) in R if tt==t]
    for lab in (order or sorted(labs)):
        if (t,lab) not in R: continue
        rows=R[(t,lab)]
        cells=[]
        for i in range(len(keys)):
            v=[r[0][i] for r in rows if r[0][i] is not None]
            if not v: cells.append("–"); continue
            cells.append("%.3f"%st.mean(v) + (" [%.3f–%.3f]"%(min(v),max(v)) if len(v)>1 else ""))
        cpu=st.mean([r[1] for r in rows])
        print(f"| {names.get(lab,lab)} | {len(rows)} | "+" | ".join(cells)+f" | {cpu:.2f} |")
