import json,sys
a=json.load(open(sys.argv[1]));b=json.load(open(sys.argv[2]))
n=[0]
def walk(x,y,p=''):
    if isinstance(x,dict):
        for k in x:
            if k=='time_s': continue
            walk(x[k],y.get(k) if isinstance(y,dict) else None,p+'.'+k)
    elif isinstance(x,list):
        for i,(u,v) in enumerate(zip(x,y)): walk(u,v,p+'[%d]'%i)
    else:
        n[0]+=1
        if x!=y and not (x!=x and y!=y): print('DIFF',p,x,y)
walk(a,b); print(n[0],'values compared')
print(json.dumps(b['time_s']))
