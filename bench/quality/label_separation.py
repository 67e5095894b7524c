#!/usr/bin/env python3
"""label_separation.py — does each column separate the two classes of a binary target as much
in the synthetic rows as in the real ones?

For every numeric column c and a two-class target y, the area under the ROC curve of c alone
as a score for y (Mann-Whitney: the probability that a row of the second class has a larger c
than a row of the first, ties counting one half), minus 0.5: a signed separation, 0 when the
column says nothing about the class. Per table it prints

  - the sum of |separation| over the columns (the real rows' beside it): above the real sum,
    the synthetic classes stand further apart, column by column, than the real ones;
  - the mean of (synthetic - real separation) x sign(real separation): positive, the columns
    that separate the real classes separate the synthetic ones more (exaggerated), negative
    less (blurred);
  - with --columns, the columns whose separation moved most.

A classifier trained on rows whose classes are exaggerated column by column learns a boundary
the real rows do not follow (bench/results/ddpm_news_eta_20261126/NOTES.md, "News over four fits, the weights' average and
DDIM noise"). Non-numeric columns and rows with a missing value in a column are left out of
that column's score. Needs only NumPy.

    python3 bench/quality/label_separation.py --real train.csv --target T SYN.csv [SYN.csv ...]
        [--columns N]
"""
import argparse
import csv

import numpy as np


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def numeric(values):
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        try:
            out[i] = float(v)
        except ValueError:
            if v.strip() != "":
                return None  # a non-numeric column
    return out


def auc(x, y):
    """P(x of class 1 > x of class 0) + P(tie) / 2, from average ranks (Mann-Whitney U)."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    ranks = np.empty(len(x))
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n0 == 0 or n1 == 0:
        return float("nan")
    return (ranks[y == 1].sum() - n1 * (n1 + 1) / 2.0) / (n0 * n1)


def separations(path, target, classes=None):
    header, rows = read(path)
    t = header.index(target)
    labels = [r[t] for r in rows]
    if classes is None:
        classes = sorted(set(labels))
        if len(classes) != 2:
            raise SystemExit(f"{path}: target {target} has {len(classes)} classes, not 2")
    y = np.array([1 if v == classes[1] else 0 for v in labels])
    out = {}
    for c, name in enumerate(header):
        if c == t:
            continue
        x = numeric([r[c] for r in rows])
        if x is None:
            continue
        ok = ~np.isnan(x)
        out[name] = auc(x[ok], y[ok]) - 0.5
    return out, classes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--columns", type=int, default=0)
    ap.add_argument("synthetic", nargs="+")
    a = ap.parse_args()
    real, classes = separations(a.real, a.target)
    print(f"{a.real}: sum |separation| {sum(abs(v) for v in real.values()):.3f} over {len(real)} columns "
          f"(classes {classes[0]!r} < {classes[1]!r})")
    for path in a.synthetic:
        syn, _ = separations(path, a.target, classes)
        common = [c for c in real if c in syn and not np.isnan(syn[c])]
        moved = {c: (syn[c] - real[c]) * np.sign(real[c]) for c in common}
        print(f"{path}: sum |separation| {sum(abs(syn[c]) for c in common):.3f}, "
              f"mean exaggeration {np.mean(list(moved.values())):+.4f}")
        for c in sorted(common, key=lambda c: -abs(moved[c]))[:a.columns]:
            print(f"    {c}: real {real[c]:+.3f}, synthetic {syn[c]:+.3f}")


if __name__ == "__main__":
    main()
