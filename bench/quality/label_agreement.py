#!/usr/bin/env python3
"""label_agreement.py — do the synthetic rows' labels follow from their features as the real
rows' do?

A classifier trained on synthetic rows and tested on real ones (TSTR) falls short of one
trained on real rows when the synthetic rows are off in their features, or when their labels
are: a row whose features say one class and whose label says another teaches the classifier a
blurred boundary. This script separates the second cause. It trains a random forest on the
real training rows and reports

  - its accuracy and macro F1 on the real holdout rows (how far the label follows from the
    features in real data: the ceiling),
  - its agreement with each synthetic table's own labels: the share of synthetic rows whose
    label the real rows' forest predicts from the row's features, and the macro F1 of the
    forest's predictions against those labels (the rare classes count as much as the common
    one, as in the TSTR scores),
  - and, for context, the accuracy and macro F1 on the holdout of a forest trained on the
    synthetic rows.

Agreement well below the holdout accuracy means the generator writes labels that its rows'
features do not support (bench/results/ddpm_tstr_20261125/NOTES.md, "Why the MLP trained on DDPM rows falls short").

    python3 bench/quality/label_agreement.py --train train.csv --holdout holdout.csv \
        --target T SYNTHETIC.csv [SYNTHETIC.csv ...] [--json out.jsonl] [--label NAME ...]

Needs pandas and scikit-learn (a benchmark tool, not part of the product: the Python
environment of the reference runs has both). One line per synthetic table on stdout (and as
JSON with --json). Deterministic: the forests use random_state 0 and one thread.
"""
import argparse
import json
import sys

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score


def features(df, target, columns=None):
    """One-hot encoded features (categorical columns as dummies, missing values as -1 or
    their own dummy), aligned to `columns` when given."""
    x = df.drop(columns=[target])
    num = x.select_dtypes(include=[np.number]).columns
    x[num] = x[num].fillna(-1)
    x = pd.get_dummies(x, dummy_na=True)
    if columns is not None:
        x = x.reindex(columns=columns, fill_value=0)
    return x


def forest():
    return RandomForestClassifier(n_estimators=200, n_jobs=1, random_state=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--holdout", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--label", action="append", default=[],
                    help="a name per synthetic table (default: its path)")
    ap.add_argument("--json", help="append one JSON line per synthetic table to this file")
    ap.add_argument("synthetic", nargs="+")
    a = ap.parse_args()
    train = pd.read_csv(a.train)
    hold = pd.read_csv(a.holdout)
    t = a.target
    ytr, yho = train[t].astype(str), hold[t].astype(str)
    xtr = features(train, t)
    cols = xtr.columns
    real = forest().fit(xtr, ytr)
    ph = real.predict(features(hold, t, cols))
    acc_hold = float((ph == yho).mean())
    f1_hold = float(f1_score(yho, ph, average="macro"))
    print(f"real rows' forest: holdout accuracy {acc_hold:.3f}, macro F1 {f1_hold:.3f} "
          f"({len(hold)} rows)")
    out = []
    for i, path in enumerate(a.synthetic):
        name = a.label[i] if i < len(a.label) else path
        syn = pd.read_csv(path)
        ys = syn[t].astype(str)
        xs = features(syn, t, cols)
        ps = real.predict(xs)
        agree = float((ps == ys).mean())
        agree_f1 = float(f1_score(ys, ps, average="macro"))
        pt = forest().fit(xs, ys).predict(features(hold, t, cols))
        tstr = float((pt == yho).mean())
        tstr_f1 = float(f1_score(yho, pt, average="macro"))
        rec = {"synthetic": name, "target": t, "rows": int(len(syn)),
               "holdout_accuracy_real_forest": acc_hold, "holdout_f1_real_forest": f1_hold,
               "agreement": agree, "agreement_f1": agree_f1,
               "holdout_accuracy_synthetic_forest": tstr, "holdout_f1_synthetic_forest": tstr_f1}
        out.append(rec)
        print(f"{name}: agreement {agree:.3f}, F1 {agree_f1:.3f} (real holdout {acc_hold:.3f}, "
              f"{f1_hold:.3f}); synthetic rows' forest on the holdout {tstr:.3f}, {tstr_f1:.3f}")
    if a.json:
        with open(a.json, "a") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
