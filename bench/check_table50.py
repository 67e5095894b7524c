#!/usr/bin/env python3
"""check_table50.py — compares a CSV with the known structure of the 50-column benchmark table
(bench/bench_make_table.c): the values it has by construction, next to what the CSV shows.
Use it on a synthetic copy of that table (or on the table itself, as a check of the generator).

  python3 bench/check_table50.py synthetic.csv [--rows N] [--json out.json]

Checks (truth from the generator's definition, not from a sample):
  - Pearson correlation of c01~c02 (0.72), c01~c03 (-0.54), c02~c03 (-0.48), c02~c04 (0.21),
    c03~c05 (0.45), c04~c25 (0.9968) and c01~c04 (0);
  - shares of exact values: c16/c17/c18 == 0 (0.9/0.7/0.5), c19 == 40 (0.45), c20 == -1 (0.2);
    c21 whole numbers in 17..90;
  - k01's marginal (A/B/C 0.483/0.303/0.213) and, for every Zipf column, the total variation
    distance between its level shares and the exact Zipf marginal;
  - k21 as a function of k22: the share of rows whose k21 is the most common k21 of their k22
    level (1 in the real table).
Only the standard library; reads the first --rows rows (default all).
"""
import argparse
import csv
import json
import math
import sys
from collections import Counter, defaultdict

ZIPF = {"k02": (2, 1.2), "k03": (2, 0), "k04": (3, 1), "k05": (4, 0.5), "k06": (5, 1),
        "k07": (6, 1.5), "k08": (7, 0.8), "k09": (8, 1), "k10": (10, 1), "k11": (12, 0.7),
        "k12": (15, 1.2), "k13": (16, 1), "k14": (20, 1), "k15": (24, 1.1), "k16": (30, 1),
        "k17": (5, 0.3), "k18": (9, 1), "k19": (3, 0), "k20": (50, 1), "k22": (40, 0.8),
        "k24": (50, 1.1), "k25": (12, 0)}
PAIRS = {("c01", "c02"): 0.72, ("c01", "c03"): -0.54, ("c02", "c03"): -0.48,
         ("c02", "c04"): 0.21, ("c03", "c05"): 0.45, ("c04", "c25"): 2.5 / math.sqrt(6.29),
         ("c01", "c04"): 0.0}
EXACT = {("c16", 0.0): 0.9, ("c17", 0.0): 0.7, ("c18", 0.0): 0.5, ("c19", 40.0): 0.45,
         ("c20", -1.0): 0.2}
K01 = {"A": 0.9 * 0.5 + 0.1 / 3, "B": 0.9 * 0.3 + 0.1 / 3, "C": 0.9 * 0.2 + 0.1 / 3}


def num(x):
    try:
        return float(x)
    except ValueError:
        return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--rows", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args()

    cols = sorted({c for p in PAIRS for c in p})
    sums = defaultdict(float)  # running sums for the correlations
    exact = Counter()
    counts = {k: Counter() for k in list(ZIPF) + ["k01"]}
    k21_by_k22 = defaultdict(Counter)
    c21_bad = 0
    n = 0
    with open(args.csv, newline="") as f:
        rd = csv.DictReader(f)
        for row in rd:
            v = {c: num(row[c]) for c in cols}
            for a, b in PAIRS:
                sums[a, b, "xy"] += v[a] * v[b]
            for c in cols:
                sums[c, "x"] += v[c]
                sums[c, "xx"] += v[c] * v[c]
            for (c, val) in EXACT:
                if num(row[c]) == val:
                    exact[c, val] += 1
            a = num(row["c21"])
            if not (17 <= a <= 90 and a == int(a)):  # NaN fails the range test
                c21_bad += 1
            for k in counts:
                counts[k][row[k]] += 1
            k21_by_k22[row["k22"]][row["k21"]] += 1
            n += 1
            if args.rows and n >= args.rows:
                break
    if n < 2:
        sys.exit("check_table50: fewer than 2 rows")

    out = {"rows": n, "correlations": {}, "exact_shares": {}, "categorical_tv": {}}
    for (a, b), truth in PAIRS.items():
        ma, mb = sums[a, "x"] / n, sums[b, "x"] / n
        cov = sums[a, b, "xy"] / n - ma * mb
        va, vb = sums[a, "xx"] / n - ma * ma, sums[b, "xx"] / n - mb * mb
        r = cov / math.sqrt(va * vb) if va > 0 and vb > 0 else float("nan")
        out["correlations"][f"{a}~{b}"] = {"truth": round(truth, 4), "observed": round(r, 4)}
    for (c, val), truth in EXACT.items():
        out["exact_shares"][f"{c}=={val:g}"] = {"truth": truth, "observed": round(exact[c, val] / n, 4)}
    out["c21_outside_whole_17_90"] = round(c21_bad / n, 4)
    tv = 0.5 * sum(abs(counts["k01"][k] / n - p) for k, p in K01.items())
    tv += 0.5 * sum(c / n for k, c in counts["k01"].items() if k not in K01)
    out["categorical_tv"]["k01"] = round(tv, 4)
    for k, (levels, s) in ZIPF.items():
        w = [(q + 1.0) ** -s for q in range(levels)]
        tot = sum(w)
        truth = {f"L{q:02d}": w[q] / tot for q in range(levels)}
        tv = 0.5 * sum(abs(counts[k][lab] / n - p) for lab, p in truth.items())
        tv += 0.5 * sum(c / n for lab, c in counts[k].items() if lab not in truth)
        out["categorical_tv"][k] = round(tv, 4)
    out["k21_function_of_k22"] = round(sum(max(c.values()) for c in k21_by_k22.values()) / n, 4)
    out["mean_categorical_tv"] = round(sum(out["categorical_tv"].values()) / len(out["categorical_tv"]), 4)

    print(f"rows: {n}")
    print("| check | truth | observed |")
    print("|---|---|---|")
    for k, d in out["correlations"].items():
        print(f"| Pearson {k} | {d['truth']:.3f} | {d['observed']:.3f} |")
    for k, d in out["exact_shares"].items():
        print(f"| share {k} | {d['truth']:.3f} | {d['observed']:.3f} |")
    print(f"| c21 outside whole 17..90 | 0 | {out['c21_outside_whole_17_90']:.4f} |")
    print(f"| k21 a function of k22 | 1 | {out['k21_function_of_k22']:.4f} |")
    print(f"| mean total variation, categorical marginals (k01 + 22 Zipf columns) | 0 | "
          f"{out['mean_categorical_tv']:.4f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
