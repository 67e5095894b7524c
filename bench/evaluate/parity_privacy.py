#!/usr/bin/env python3
"""Privacy and detection metrics of `genesis evaluate` beside SDMetrics' own (sdmetrics 0.32.0).

Small tables only (SDMetrics' DCR builds a 1000 x 1000 cross join per chunk in pandas):
  real       data/adult_sample.csv (2000 Adult rows)
  synthetic  (a) a `genesis generate` output of it (5 epochs, seed 2; parity.py makes it),
             (b) 800 real rows, 200 of them with fnlwgt moved by up to +-1.2 %, 100 with
                 age + 1, 50 with a workclass changed (near copies, exact copies)
  holdout    1000 other Adult rows (adult.csv rows 10001-11000)

Compared: NewRowSynthesis (exact), median DCR synthetic -> real (exact), the share of rows
closer to training than to the holdout and DCROverfittingProtection (exact), DCRBaseline-
Protection (its random table differs: in distribution), LogisticDetection (own folds and
optimiser: in distribution; SDMetrics' encoder raises on a category only the synthetic
table has, then it is reported as n/a).

The holdout comes from Adult's full training split, which the repository does not ship:
adult.csv in the folder GENESIS_DATA (default ../shared/data beside the repository, a sibling
folder of the developers' setup). Without it the script says so and exits 0.

  $PYREF/bin/python bench/evaluate/parity_privacy.py --genesis build-eval/genesis
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

warnings.filterwarnings("ignore")

from sdmetrics.single_table import (DCRBaselineProtection, DCROverfittingProtection,  # noqa: E402
                                    LogisticDetection, NewRowSynthesis)
from sdmetrics.single_table.privacy.dcr_utils import calculate_dcr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--genesis", default=f"{ROOT}/build-eval/genesis")
    ap.add_argument("--work", default="/tmp/genesis-parity")
    ap.add_argument("--md", help="append a Markdown table here")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    real_p = f"{ROOT}/data/adult_sample.csv"
    hold_p = f"{args.work}/adult_holdout1000.csv"
    adult_p = os.path.join(os.environ.get("GENESIS_DATA", os.path.join(os.path.dirname(ROOT),
                                                                        "shared", "data")),
                           "adult.csv")
    if not os.path.exists(adult_p):
        print(f"parity_privacy: {adult_p} not found (set GENESIS_DATA); skipping")
        return
    with open(adult_p) as f:
        lines = f.read().splitlines()
    with open(hold_p, "w") as f:
        f.write("\n".join([lines[0]] + lines[10001:11001]) + "\n")
    gen_p = f"{args.work}/genesis-adult-sample.csv"
    if not os.path.exists(gen_p):
        subprocess.run(["nice", args.genesis, "generate", "-i", real_p, "-o", gen_p, "--epochs",
                        "5", "--seed", "2", "-q"], check=True)
    near_p = f"{args.work}/adult_near_copies.csv"
    real = pd.read_csv(real_p)
    s = real.sample(800, random_state=1).reset_index(drop=True)
    rs = np.random.RandomState(2)
    s.loc[:199, "fnlwgt"] = (s.loc[:199, "fnlwgt"] * (1 + rs.uniform(-0.012, 0.012, 200))).round().astype(int)
    s.loc[200:299, "age"] += 1
    s.loc[300:349, "workclass"] = " Never-worked"
    s.to_csv(near_p, index=False)

    rows = []
    for name, syn_p in (("genesis output", gen_p), ("near copies", near_p)):
        out = subprocess.run([args.genesis, "evaluate", "--real", real_p, "--synthetic", syn_p,
                              "--holdout", hold_p, "--dcr-rows", "0",
                              "--dcr-reference-rows", "all", "--skip",
                              "quality,validity,usefulness", "--json"],
                             check=True, capture_output=True, text=True)
        g = json.loads(out.stdout)
        meta = {"columns": {c["column"]: {"sdtype": "numerical" if c["type"] == "continuous"
                                          else "categorical"}
                            for c in json.loads(subprocess.run(
                                [args.genesis, "evaluate", "--real", real_p, "--synthetic",
                                 syn_p, "--json", "--skip", "validity,privacy,detection"],
                                check=True, capture_output=True, text=True).stdout)
                            ["quality"]["column_shapes"]}}
        r = pd.read_csv(real_p)
        sy = pd.read_csv(syn_p)
        h = pd.read_csv(hold_p)
        t = time.perf_counter()
        nrs = NewRowSynthesis.compute(r, sy, meta)
        med = float(calculate_dcr(sy, r, meta).median())
        of = DCROverfittingProtection.compute_breakdown(r, sy, h, meta, None)
        bl = DCRBaselineProtection.compute(r, sy, meta, None)
        np.random.seed(0)
        try:
            det = float(LogisticDetection.compute(r, sy, meta))
        except Exception as e:  # noqa: BLE001
            det = f"n/a ({type(e).__name__})"
        ts = time.perf_counter() - t
        p, d = g["privacy"], g["privacy"]["dcr"]
        rows.append((name, [
            ("NewRowSynthesis", p["new_row_synthesis"]["score"], nrs),
            ("median DCR synthetic->real", d["median_dcr_synthetic_to_real"], med),
            ("closer to training", d["closer_to_training"],
             float(of["synthetic_data_percentages"]["closer_to_training"])),
            ("DCROverfittingProtection", d["overfitting_protection"], float(of["score"])),
            ("DCRBaselineProtection (random baseline)", d["baseline_protection"], float(bl)),
            ("LogisticDetection (own folds)", g["scores"]["detection"], det),
        ], ts))
    lines = ["| synthetic | metric | Genesis | SDMetrics |", "|---|---|---|---|"]
    for name, items, ts in rows:
        print(f"== {name} (sdmetrics {ts:.0f} s)")
        for m, gv, sv in items:
            sv_s = f"{sv:.6f}" if isinstance(sv, float) else str(sv)
            print(f"   {m:42s} genesis {gv:.6f}  sdmetrics {sv_s}")
            lines.append(f"| {name} | {m} | {gv:.4f} | {sv if isinstance(sv, str) else f'{sv:.4f}'} |")
    if args.md:
        with open(args.md, "a") as f:
            f.write("\nPrivacy and detection (real: data/adult_sample.csv, holdout: 1000 other "
                    "Adult rows, every synthetic row used for DCR):\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
