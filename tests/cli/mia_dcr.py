"""mia_dcr.py — a distance-to-closest-record membership-inference attack (tests/cli/dp.sh):
for every row of the members (the training table) and of the non-members (rows the model
never saw), the distance to the closest synthetic row (Gower: range-scaled absolute
difference per numeric column, 0/1 per categorical column, averaged over the columns); the
attack guesses "member" for the smaller distance. Prints the AUC of that guess (0.5: no
advantage; ties count half).
usage: python3 mia_dcr.py members.csv nonmembers.csv synthetic.csv"""
import sys, numpy as np, pandas as pd
mem, non, syn = (pd.read_csv(f, skipinitialspace=True) for f in sys.argv[1:4])
num = [c for c in mem.columns if pd.api.types.is_numeric_dtype(mem[c])]
cat = [c for c in mem.columns if c not in num]
def enc(df):
    X = [((pd.to_numeric(df[c], errors="coerce") - mem[c].min()) / (mem[c].max() - mem[c].min() or 1)).fillna(-1).to_numpy() for c in num]
    return np.stack(X, 1), df[cat].astype(str).apply(lambda s: s.str.strip()).to_numpy()
S = enc(syn)
def dcr(df):
    Xn, Xc = enc(df)
    out = np.empty(len(df))
    for i in range(len(df)):
        d = np.abs(S[0] - Xn[i]).clip(0, 1).sum(1) + (S[1] != Xc[i]).sum(1)
        out[i] = d.min() / (len(num) + len(cat))
    return out
a, b = dcr(mem), dcr(non)
# AUC that a member has the smaller DCR (ties half)
x = np.concatenate([a, b]); r = pd.Series(x).rank().to_numpy()
auc = 1 - (r[:len(a)].sum() - len(a) * (len(a) + 1) / 2) / (len(a) * len(b))
print(f"auc {auc:.4f} median_dcr_mem {np.median(a):.4f} non {np.median(b):.4f}")
