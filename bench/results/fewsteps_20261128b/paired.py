import json,sys,os
keys=[('column_pair_trends','Trend'),('detection_xgboost','C2ST'),('alpha_precision','alpha'),('beta_recall','beta'),('tstr_xgboost_auc','TSTR')]
def L(t,l,s):
    f=f'runs/{t}.{l}.s{s}.json'
    return json.load(open(f))['scores'] if os.path.exists(f) else None
for a,b in [('s100o2','s100'),('s50o2','s50'),('s25o2','s25')]:
    print(f"{a} - {b} (paired by draw seed)")
    for t in ['adult','bank','males','chile']:
        row=[]
        for s in [0,1,2]:
            x,y=L(t,a,s),L(t,b,s)
            if x and y: row.append(" ".join("%+.3f"%((x[k] or 0)-(y[k] or 0)) for k,_ in keys))
        print("  ",t," | ".join(row))
