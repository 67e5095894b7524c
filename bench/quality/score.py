#!/usr/bin/env python3
"""Score a synthetic table against its real training table (Adult by default).

Benchmark harness only (runs in a separate Python venv with `sdmetrics`);
nothing here is part of the Genesis product.

Reports, as one JSON object (stdout, and --json-out) followed by a Markdown
table row (--md-header prints the header first):

* SDMetrics single-table QualityReport (Column Shapes, Column Pair Trends,
  overall) in two modes:
    - all-pairs mode: every column pair averaged (pre-2026 SDMetrics, and all
      published scores); run with the report's thresholds set to 0;
    - threshold mode (SDMetrics default since Jan 2026): a pair counts only if
      real |Pearson| > 0.5 (two continuous columns) or real Cramer's V > 0.3
      (any other pair).  Its Column Pair Trends score is the "strong-pair
      trends" score: the mean pair-trend score over the strongly related pairs.
      It is cross-checked against the all-pairs details restricted to those pairs.
* Detection: sdmetrics LogisticDetection, 1 - mean over 3 stratified folds of
  (2*max(AUC, 0.5) - 1); both tables subsampled to --detect-rows (20000).
* TSTR (train on synthetic, test on the real holdout, target income): the four
  SDGym binary classifiers as defined by sdmetrics' BinaryDecisionTreeClassifier,
  BinaryAdaBoostClassifier, BinaryLogisticRegression, BinaryMLPClassifier
  (same models, kwargs and HyperTransformer -> SimpleImputer -> RobustScaler
  pipeline).  F1 with positive label ">50K".  Headline tstr_f1 = mean of the
  four F1s (SDGym <= 0.3 leaderboard convention: `adult/f1` is the mean over
  these four classifiers).  The pipeline is re-run here with the one-hot encoder
  set to ignore categories unseen in the synthetic training table (sdmetrics'
  own raises on them); --check-sdmetrics also runs sdmetrics' compute() and
  reports both (they agree exactly when no unseen category occurs).
* Value checks: capital-gain / capital-loss fraction exactly 0 and fraction
  negative (real vs synthetic); per continuous column the fraction of synthetic
  values below the real min / above the real max.
* Wall time of each part.

Preprocessing applied to all three tables before any metric: surrounding
whitespace stripped from every text column (Adult's " State-gov" -> "State-gov"),
a trailing "." stripped from the target labels (adult_test's " >50K." -> ">50K"),
continuous columns parsed as numbers (unparseable -> NaN, counted).
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
           "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

warnings.filterwarnings("ignore")

import sdmetrics  # noqa: E402
import sklearn  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.metrics import f1_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, RobustScaler  # noqa: E402
from sdmetrics.reports.single_table import QualityReport  # noqa: E402
from sdmetrics.single_table import (  # noqa: E402
    BinaryAdaBoostClassifier, BinaryDecisionTreeClassifier,
    BinaryLogisticRegression, BinaryMLPClassifier, LogisticDetection)

ADULT_CONTINUOUS = ["age", "fnlwgt", "education-num", "capital-gain",
                    "capital-loss", "hours-per-week"]
ZERO_INFLATED = ["capital-gain", "capital-loss"]
TSTR_MODELS = [("DecisionTree", BinaryDecisionTreeClassifier),
               ("AdaBoost", BinaryAdaBoostClassifier),
               ("LogisticRegression", BinaryLogisticRegression),
               ("MLP", BinaryMLPClassifier)]


def r4(x):
    if x is None:
        return None
    try:
        x = float(x)
    except (TypeError, ValueError):
        return x
    return None if math.isnan(x) else round(x, 4)


# --------------------------------------------------------------------------- io
def load(path, continuous, target):
    df = pd.read_csv(path)
    for c in df.columns:
        if c in continuous:
            if df[c].dtype == object:
                df[c] = pd.to_numeric(df[c].str.strip(), errors="coerce")
            else:
                df[c] = pd.to_numeric(df[c], errors="coerce")
        elif df[c].dtype == object:
            df[c] = df[c].str.strip()
        else:
            df[c] = df[c].astype(str).str.strip()  # numeric-looking category codes
    if target in df.columns:
        df[target] = df[target].str.rstrip(".").str.strip()
    return df


def metadata_for(columns, continuous):
    return {"columns": {c: {"sdtype": "numerical" if c in continuous else "categorical"}
                        for c in columns}}


# ---------------------------------------------------------------------- quality
def quality(real, syn, meta, threshold_mode):
    rep = QualityReport()
    if not threshold_mode:
        rep.real_correlation_threshold = 0
        rep.real_association_threshold = 0
    rep.generate(real, syn, meta, verbose=False)
    props = rep.get_properties().set_index("Property")["Score"]
    return {
        "overall": float(rep.get_score()),
        "column_shapes": float(props["Column Shapes"]),
        "column_pair_trends": float(props["Column Pair Trends"]),
        "thresholds": [rep.real_correlation_threshold, rep.real_association_threshold],
    }, rep.get_details("Column Pair Trends")


# -------------------------------------------------------------------- detection
def detection(real, syn, meta, max_rows, seed):
    rs = np.random.RandomState(seed)
    r = real.sample(min(max_rows, len(real)), random_state=rs).reset_index(drop=True)
    s = syn.sample(min(max_rows, len(syn)), random_state=rs).reset_index(drop=True)
    np.random.seed(seed)  # StratifiedKFold(shuffle=True) inside uses the global RNG
    try:
        return float(LogisticDetection.compute(r, s, meta)), "sdmetrics.LogisticDetection"
    except Exception as e:  # e.g. a synthetic-only category breaks its encoder
        sys.stderr.write(f"LogisticDetection failed ({e!r}); using replica\n")
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold
    both = pd.concat([r, s], ignore_index=True)
    X = HT(fit_on=both).transform(both).to_numpy(dtype=float)
    y = np.r_[np.ones(len(r)), np.zeros(len(s))]
    np.random.seed(seed)
    sc = []
    for tr, te in StratifiedKFold(n_splits=3, shuffle=True).split(X, y):
        m = Pipeline([("imputer", SimpleImputer()), ("scalar", RobustScaler()),
                      ("classifier", LogisticRegression(solver="lbfgs"))])
        m.fit(X[tr], y[tr])
        sc.append(max(0.5, roc_auc_score(y[te], m.predict_proba(X[te])[:, 1])) * 2 - 1)
    return float(1 - np.mean(sc)), "replica (one-hot fitted on real+synthetic)"


# ------------------------------------------------------------------------- TSTR
class HT:
    """sdmetrics.utils.HyperTransformer, with unseen categories ignored."""

    def __init__(self, fit_on):
        self.kind, self.info = {}, {}
        for f in fit_on:
            k = fit_on[f].dropna().infer_objects().dtype.kind
            self.kind[f] = k
            if k in "if":
                self.info[f] = fit_on[f].mean()
            elif k == "b":
                self.info[f] = pd.to_numeric(fit_on[f], errors="coerce").astype(float).mode().iloc[0]
            elif k == "O":
                self.info[f] = OneHotEncoder(handle_unknown="ignore").fit(
                    pd.DataFrame({"field": fit_on[f]}))

    def transform(self, data):
        data = data.copy()
        for f in list(data.columns):
            k, info = self.kind[f], self.info[f]
            if k in "if":
                data[f] = data[f].fillna(info)
            elif k == "b":
                data[f] = pd.to_numeric(data[f], errors="coerce").astype(float).fillna(info)
            elif k == "O":
                out = info.transform(pd.DataFrame({"field": data[f]})).toarray()
                t = pd.DataFrame(out, columns=[f"{f}_value{i}" for i in range(out.shape[1])],
                                 index=data.index)
                data = pd.concat([data.drop(columns=[f]), t], axis=1)
        return data


def tstr_one(model_cls, train, test, target, seed):
    ytr = train[target].to_numpy()
    yte = test[target].to_numpy()
    Xtr = train.drop(columns=[target])
    Xte = test.drop(columns=[target])
    np.random.seed(seed)
    labels = np.unique(ytr)
    if len(labels) == 1:
        pred = np.full(len(Xte), labels[0])
    else:
        ht = HT(Xtr)
        Xtr = ht.transform(Xtr)
        Xte = ht.transform(Xte)
        Xtr[np.isin(Xtr, [np.inf, -np.inf])] = None
        Xte[np.isin(Xte, [np.inf, -np.inf])] = None
        kw = dict(model_cls.MODEL_KWARGS or {})
        pipe = Pipeline([("imputer", SimpleImputer()), ("scaler", RobustScaler()),
                         ("model", model_cls.MODEL(**kw))])
        pipe.fit(Xtr, ytr)
        pred = pipe.predict(Xte)
    return float(f1_score(yte, pred))


def tstr(syn, test, target, positive, continuous, seed, check_sdmetrics):
    tr = syn.copy()
    te = test[syn.columns].copy()
    tr[target] = tr[target] == positive  # bool target: f1 positive class = True
    te[target] = te[target] == positive
    res, chk = {}, {}
    for name, cls in TSTR_MODELS:
        res[name] = tstr_one(cls, tr, te, target, seed)
        if check_sdmetrics:
            np.random.seed(seed)
            try:
                meta = metadata_for(tr.columns, continuous)
                meta["columns"][target] = {"sdtype": "boolean"}
                chk[name] = float(cls.compute(te, tr, meta, target=target))
            except Exception as e:
                chk[name] = f"error: {type(e).__name__}: {str(e)[:120]}"
    return res, chk


# ------------------------------------------------------------------ value checks
def value_checks(real, syn, continuous):
    out = {}
    for c in ZERO_INFLATED:
        if c in real and c in syn:
            out[c] = {"zero_real": r4((real[c] == 0).mean()), "zero_syn": r4((syn[c] == 0).mean()),
                      "neg_real": r4((real[c] < 0).mean()), "neg_syn": r4((syn[c] < 0).mean())}
    rng = {}
    any_out = np.zeros(len(syn), dtype=bool)
    for c in continuous:
        lo, hi = real[c].min(), real[c].max()
        below, above = syn[c] < lo, syn[c] > hi
        any_out |= (below | above).to_numpy()
        rng[c] = {"real_min": r4(lo), "real_max": r4(hi), "syn_min": r4(syn[c].min()),
                  "syn_max": r4(syn[c].max()), "below": r4(below.mean()),
                  "above": r4(above.mean()), "syn_nan": r4(syn[c].isna().mean())}
    out["range"] = rng
    out["rows_out_of_range"] = r4(any_out.mean())
    return out


# -------------------------------------------------------------------------- main
MD_COLS = ["label", "QR all", "shapes", "trends all", "QR thr", "trends thr (strong)",
           "#strong", "detect", "TSTR F1", "DT", "Ada", "LR", "MLP",
           "cg=0 real/syn", "cg<0", "rows out of range", "score s"]


def md_row(label, o):
    q, t, d = o["quality_all_pairs"], o["quality_threshold"], o["tstr_f1_by_model"]
    cg = o["value_checks"].get("capital-gain", {})

    def f(x, n=3):
        return "-" if x is None else f"{x:.{n}f}"
    cells = [label, f(q["overall"]), f(q["column_shapes"]), f(q["column_pair_trends"]),
             f(t["overall"]), f(t["column_pair_trends"]), str(o["strong_pairs_n"]),
             f(o["detection"]), f(o["tstr_f1"]), f(d.get("DecisionTree")),
             f(d.get("AdaBoost")), f(d.get("LogisticRegression")), f(d.get("MLP")),
             f"{f(cg.get('zero_real'))}/{f(cg.get('zero_syn'))}", f(cg.get("neg_syn")),
             f(o["value_checks"]["rows_out_of_range"]), f"{o['time_s']['total']:.0f}"]
    return "| " + " | ".join(cells) + " |"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", required=True, help="training CSV the generator saw")
    ap.add_argument("--synthetic", required=True, help="synthetic CSV")
    ap.add_argument("--test", help="holdout CSV for TSTR (e.g. adult_test.csv); no TSTR if absent")
    ap.add_argument("--target", default="income")
    ap.add_argument("--positive", default=">50K", help="positive label for F1 (after stripping)")
    ap.add_argument("--continuous", default=",".join(ADULT_CONTINUOUS),
                    help="comma list of continuous columns; all others categorical")
    ap.add_argument("--real-rows", default=None,
                    help="slice of the real CSV to use, python style 'a:b' (e.g. ':16000')")
    ap.add_argument("--synthetic-rows", default=None, help="same for the synthetic CSV")
    ap.add_argument("--detect-rows", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--label", default=None, help="row label in the Markdown output")
    ap.add_argument("--check-sdmetrics", action="store_true",
                    help="also run sdmetrics' own efficacy compute() for comparison")
    ap.add_argument("--skip", default="", help="comma list of parts to skip: quality,detection,tstr")
    ap.add_argument("--json-out")
    ap.add_argument("--md-header", action="store_true")
    args = ap.parse_args()
    skip = set(s for s in args.skip.split(",") if s)

    t_all = time.perf_counter()
    cont = [c for c in args.continuous.split(",") if c]

    def sl(df, spec):
        if not spec:
            return df
        a, b = (int(x) if x else None for x in spec.split(":"))
        return df.iloc[a:b].reset_index(drop=True)

    real = sl(load(args.real, cont, args.target), args.real_rows)
    syn = sl(load(args.synthetic, cont, args.target), args.synthetic_rows)
    if set(real.columns) != set(syn.columns):
        sys.exit(f"column mismatch: real-only {set(real.columns) - set(syn.columns)}, "
                 f"synthetic-only {set(syn.columns) - set(real.columns)}")
    syn = syn[real.columns]
    cont = [c for c in cont if c in real.columns]
    meta = metadata_for(real.columns, cont)
    times = {}
    out = {"real": args.real, "synthetic": args.synthetic, "test": args.test,
           "real_rows": len(real), "synthetic_rows": len(syn),
           "versions": {"sdmetrics": sdmetrics.__version__, "sklearn": sklearn.__version__,
                        "pandas": pd.__version__, "numpy": np.__version__}}

    if "quality" not in skip:
        t = time.perf_counter()
        qa, det_all = quality(real, syn, meta, threshold_mode=False)
        times["quality_all_pairs"] = time.perf_counter() - t
        t = time.perf_counter()
        qt, det_thr = quality(real, syn, meta, threshold_mode=True)
        times["quality_threshold"] = time.perf_counter() - t
        strong = det_thr[det_thr["Meets Threshold?"].astype("boolean").fillna(False).astype(bool)]
        key = ["Column 1", "Column 2"]
        check = det_all.merge(strong[key], on=key)["Score"].mean()
        out["quality_all_pairs"] = {k: r4(v) if k != "thresholds" else v for k, v in qa.items()}
        out["quality_threshold"] = {k: r4(v) if k != "thresholds" else v for k, v in qt.items()}
        out["strong_pair_trends"] = r4(qt["column_pair_trends"])
        out["strong_pair_trends_check"] = r4(check)
        out["strong_pairs_n"] = int(len(strong))
        out["pairs_n"] = int(len(det_all))
        out["strong_pairs"] = [
            {"pair": f"{row['Column 1']}~{row['Column 2']}", "metric": row["Metric"],
             "real_assoc": r4(row["Real Correlation"] if row["Metric"] == "CorrelationSimilarity"
                              else row.get("Real Association")),
             "score": r4(row["Score"])} for _, row in strong.iterrows()]
    else:
        out["quality_all_pairs"] = out["quality_threshold"] = {
            "overall": None, "column_shapes": None, "column_pair_trends": None}
        out["strong_pair_trends"] = out["strong_pairs_n"] = None

    if "detection" not in skip:
        t = time.perf_counter()
        d, how = detection(real, syn, meta, args.detect_rows, args.seed)
        times["detection"] = time.perf_counter() - t
        out["detection"], out["detection_impl"] = r4(d), how
    else:
        out["detection"] = None

    out["tstr_f1_by_model"] = {}
    out["tstr_f1"] = None
    if args.test and "tstr" not in skip:
        test = load(args.test, cont, args.target)
        t = time.perf_counter()
        res, chk = tstr(syn, test, args.target, args.positive, cont, args.seed,
                        args.check_sdmetrics)
        times["tstr"] = time.perf_counter() - t
        out["tstr_f1_by_model"] = {k: r4(v) for k, v in res.items()}
        out["tstr_f1"] = r4(np.mean(list(res.values())))
        out["tstr_positive"] = args.positive
        out["tstr_test_rows"] = len(test)
        out["tstr_impl"] = "sdmetrics Binary* models/kwargs/pipeline, one-hot ignores unseen"
        if chk:
            out["tstr_sdmetrics_check"] = {k: r4(v) for k, v in chk.items()}

    t = time.perf_counter()
    out["value_checks"] = value_checks(real, syn, cont)
    times["value_checks"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - t_all
    out["time_s"] = {k: round(v, 2) for k, v in times.items()}

    print(json.dumps(out))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(out, f, indent=1)
    if args.md_header:
        print("| " + " | ".join(MD_COLS) + " |")
        print("|" + "---|" * len(MD_COLS))
    print(md_row(args.label or os.path.basename(args.synthetic), out))


if __name__ == "__main__":
    main()
