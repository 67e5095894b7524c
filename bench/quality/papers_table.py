#!/usr/bin/env python3
"""papers_table.py — the runs of bench/quality/five_tables.sh by the 2024-2026 papers' metrics,
beside the figures TabSyn / TabDiff publish (docs/benchmarks.md, "By the papers' metrics").

    python3 bench/quality/papers_table.py OUT/runs.jsonl [OUT/real.jsonl] > OUT/table.md

runs.jsonl: five_tables.sh's lines (one per table, model and seed; seeds are averaged).
real.jsonl (optional): the same line format for a "real" row, real rows that are neither
training nor holdout rows scored as if synthetic (the ceiling of each score at this size).
The published rows are typed in below from the figures of the 2026 re-run of every method
on one harness (Adult; News: Trend, C2ST-XGB and beta-recall only), trained on the full
tables at GPU budgets; they are labelled "published" and never averaged with ours.
"""
import json
import statistics as st
import sys

# published (arXiv 2603.23016, tabpc re-run): shape, trend, c2st_lr, c2st_xgb, alpha, beta, mle_auc, dcr
PUB = {
    "adult": {
        "CTGAN": (.809, .758, .588, .000, .754, .131, .862, .484),
        "TVAE": (.762, .666, .229, .000, .623, .122, .871, .503),
        "TabSyn": (.992, .980, .987, .794, .990, .480, .910, .507),
        "TabDiff": (.993, .985, .990, .841, .986, .526, .913, .549),
    },
    "news": {
        "TabSyn": (None, .983, None, .121, None, .431, None, None),
        "TabDiff": (None, .984, None, .030, None, .356, None, None),
    },
}
ORDER = ["adult", "news", "bank", "california", "covertype", "energy"]
MODELS = ["ddpm", "ctgan", "tvae"]
NAME = {"ddpm": "Genesis DDPM", "ctgan": "Genesis CTGAN", "tvae": "Genesis TVAE", "real": "real rows"}


def load(path):
    out = {}
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        if "failed" in r:
            continue
        model = r["model"].split("@")[0]
        out.setdefault((r["table"], model), []).append(r)
    return out


def mean(rs, key):
    v = [r["scores"].get(key) for r in rs]
    v = [x for x in v if x is not None]
    return st.mean(v) if v else None


def f(x):
    return "–" if x is None else "%.3f" % x


def fr(rs, key):
    """mean, with the seeds' range when there are several"""
    v = [r["scores"].get(key) for r in rs]
    v = [x for x in v if x is not None]
    if not v:
        return "–"
    return "%.3f" % st.mean(v) + (" (%.3f–%.3f)" % (min(v), max(v)) if len(v) > 1 else "")


def main():
    runs = load(sys.argv[1])
    if len(sys.argv) > 2:
        runs.update(load(sys.argv[2]))
    tables = [t for t in ORDER if any(k[0] == t for k in runs)]
    fid = ["| table | method | source | Shape | Trend | C2ST-LR | C2ST-XGB | α-precision | β-recall |",
           "|---|---|---|---|---|---|---|---|---|"]
    use = ["| table | method | source | TSTR XGBoost AUC | real-trained AUC | difference | "
           "TSTR LR F1 − real | TSTR MLP F1 − real | DCR share (0.5 ideal) | fit s | sample s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in tables:
        for m in MODELS + ["real"]:
            rs = runs.get((t, m))
            if not rs:
                continue
            src = "measured" + (" (%d seeds)" % len(rs) if len(rs) > 1 else "")
            g = lambda k: mean(rs, k)
            fid.append("| %s | %s | %s | %s |" % (t, NAME[m], src, " | ".join(fr(rs, k) for k in (
                "column_shapes", "column_pair_trends", "detection", "detection_xgboost",
                "alpha_precision", "beta_recall"))))
            ts, tr = g("tstr_xgboost_auc"), g("trtr_xgboost_auc")
            dlr = (None if g("tstr_logistic_regression") is None or g("trtr_logistic_regression") is None
                   else g("tstr_logistic_regression") - g("trtr_logistic_regression"))
            dmlp = (None if g("tstr_mlp") is None or g("trtr_mlp") is None else g("tstr_mlp") - g("trtr_mlp"))
            fs = st.mean(r["fit_s"] for r in rs) if m != "real" else None
            ss = st.mean(r["sample_s"] for r in rs) if m != "real" else None
            use.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                t, NAME[m], src, fr(rs, "tstr_xgboost_auc"), f(tr), "–" if ts is None or tr is None else "%+.3f" % (ts - tr),
                "–" if dlr is None else "%+.3f" % dlr, "–" if dmlp is None else "%+.3f" % dmlp,
                fr(rs, "dcr_share_equal_size"), "–" if fs is None else "%.0f" % fs, "–" if ss is None else "%.0f" % ss))
        for m, v in PUB.get(t, {}).items():
            fid.append("| %s | %s | published | %s |" % (t, m, " | ".join(f(x) for x in v[:6])))
            if v[6] is not None:
                use.append("| %s | %s | published | %s | – | – | – | – | %s | – | – |" % (t, m, f(v[6]), f(v[7])))
    # method x table, one pair of metrics per table (the layout of docs/benchmarks.md)
    pivots = [("Trend / C2ST-XGB", ("column_pair_trends", 1), ("detection_xgboost", 3)),
              ("α-precision / β-recall", ("alpha_precision", 4), ("beta_recall", 5)),
              ("TSTR XGBoost AUC (real-trained AUC) / DCR share, equal sizes", ("tstr_xgboost_auc", 6), ("dcr_share_equal_size", 7))]
    for title, (k1, i1), (k2, i2) in pivots:
        print("**%s**\n" % title)
        print("| method | source | " + " | ".join(tables) + " |")
        print("|---|---|" + "---|" * len(tables))
        for m in MODELS + ["real"]:
            if not any((t, m) in runs for t in tables):
                continue
            cells = []
            for t in tables:
                rs = runs.get((t, m))
                if not rs:
                    cells.append("")
                    continue
                a, b = mean(rs, k1), mean(rs, k2)
                if k1 == "tstr_xgboost_auc":
                    a = None if a is None else "%s (%s)" % (f(a), f(mean(rs, "trtr_xgboost_auc")))
                    cells.append("%s / %s" % ("–" if a is None else a, f(b)))
                else:
                    cells.append("%s / %s" % (f(a), f(b)))
            print("| %s | measured | %s |" % (NAME[m], " | ".join(cells)))
        for pm in ("CTGAN", "TVAE", "TabSyn", "TabDiff"):
            if not any(pm in PUB.get(t, {}) for t in tables):
                continue
            cells = []
            for t in tables:
                v = PUB.get(t, {}).get(pm)
                cells.append("" if v is None or (v[i1] is None and v[i2] is None)
                             else "%s / %s" % (f(v[i1]), f(v[i2])))
            print("| %s | published | %s |" % (pm, " | ".join(cells)))
        print()
    print("All columns, table by method:\n")
    print("\n".join(fid))
    print()
    print("\n".join(use))


if __name__ == "__main__":
    main()
