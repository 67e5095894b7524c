#!/usr/bin/env python3
"""marginals.py — the marginals a user checks first, real against synthetic rows.

    python3 bench/quality/marginals.py REAL.csv SYNTH.csv [--target COLUMN] [--json OUT]

Three checks (the criteria of the defaults' measurement, bench/quality/defaults.sh):
  - missing values: per column, the synthetic count (scaled to the real row count) within 2x
    of the real one; for real counts under 20, within the Poisson band r +- (3 sqrt(r + 1) + 1)
    instead, so that 1 against 3 passes and 1 against 22 does not;
  - rare categories: per categorical column (text, or numbers with at most 10 distinct values,
    the reader's default), every category below 1% of the real rows, the same rule on its count;
  - the target (when given): every class's rate within 2 percentage points.
Values are read as text (pandas, keep_default_na), so a missing value is what pandas calls NA;
the synthetic file is read the same way. Prints one line per failure and a summary; exit 0.
"""
import argparse
import json
import math
import sys

import pandas as pd


def within(r, s):
    """Is a synthetic count s (already scaled) close enough to a real count r?"""
    if r < 20:
        return abs(s - r) <= 3.0 * math.sqrt(r + 1.0) + 1.0
    return s <= 2.0 * r and s >= r / 2.0


def is_categorical(col):
    num = pd.to_numeric(col.dropna(), errors="coerce")
    if num.isna().any():
        return True
    return col.dropna().nunique() <= 10


def check(real, synth, target=None):
    n_r, n_s = len(real), len(synth)
    scale = n_r / n_s if n_s else 0.0
    out = {"rows_real": n_r, "rows_synth": n_s, "missing": [], "rare": [], "target": []}
    for c in real.columns:
        if c not in synth.columns:
            continue
        r = int(real[c].isna().sum())
        s = float(synth[c].isna().sum()) * scale
        if r or s:
            out["missing"].append({"column": c, "real": r, "synth": round(s, 1), "ok": within(r, s)})
        if not is_categorical(real[c]):
            continue
        vr = real[c].dropna().astype(str).value_counts()
        vs = synth[c].dropna().astype(str).value_counts()
        for cat, cnt in vr.items():
            if cnt >= 0.01 * n_r:
                continue
            sc = float(vs.get(cat, 0)) * scale
            out["rare"].append({"column": c, "category": cat, "real": int(cnt),
                                "synth": round(sc, 1), "ok": within(int(cnt), sc)})
    if target and target in real.columns and target in synth.columns:
        pr = real[target].astype(str).value_counts(normalize=True)
        ps = synth[target].astype(str).value_counts(normalize=True)
        for cat, p in pr.items():
            q = float(ps.get(cat, 0.0))
            out["target"].append({"class": cat, "real": round(100 * p, 2), "synth": round(100 * q, 2),
                                  "ok": abs(q - p) <= 0.02})
    for k in ("missing", "rare", "target"):
        out[k + "_failed"] = sum(1 for e in out[k] if not e["ok"])
        out[k + "_checked"] = len(out[k])
    worst = [e for e in out["missing"] + out["rare"] if e["real"] or e["synth"]]
    out["worst_ratio"] = round(max([(max(e["synth"], 1) / max(e["real"], 1)) for e in worst] + [1.0]), 2)
    out["target_max_gap_points"] = round(max([abs(e["synth"] - e["real"]) for e in out["target"]] + [0.0]), 2)
    out["ok"] = out["missing_failed"] == 0 and out["rare_failed"] == 0 and out["target_failed"] == 0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("real")
    ap.add_argument("synth")
    ap.add_argument("--target")
    ap.add_argument("--json")
    a = ap.parse_args()
    real = pd.read_csv(a.real, dtype=str, skipinitialspace=True, na_values=["?"])
    synth = pd.read_csv(a.synth, dtype=str, skipinitialspace=True, na_values=["?"])
    # numeric text like "1.0" vs "1": compare categories of numeric columns as numbers
    for c in real.columns:
        if c in synth.columns:
            rn = pd.to_numeric(real[c], errors="coerce")
            sn = pd.to_numeric(synth[c], errors="coerce")
            if rn.notna().sum() == real[c].notna().sum() and sn.notna().sum() == synth[c].notna().sum():
                real[c] = rn.map(lambda v: None if pd.isna(v) else repr(float(v)))
                synth[c] = sn.map(lambda v: None if pd.isna(v) else repr(float(v)))
    res = check(real, synth, a.target)
    for k in ("missing", "rare", "target"):
        for e in res[k]:
            if not e["ok"]:
                print(f"  {k}: " + ", ".join(f"{kk}={vv}" for kk, vv in e.items() if kk != "ok"))
    print(f"missing {res['missing_checked'] - res['missing_failed']}/{res['missing_checked']} ok, "
          f"rare categories {res['rare_checked'] - res['rare_failed']}/{res['rare_checked']} ok, "
          f"target classes {res['target_checked'] - res['target_failed']}/{res['target_checked']} ok "
          f"(largest gap {res['target_max_gap_points']} points), worst count ratio {res['worst_ratio']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
