#!/usr/bin/env python3
"""Parity of `genesis evaluate` with SDMetrics (PyPI sdmetrics, run on this machine).

For each pair of tables (real, synthetic) this script

* runs `genesis evaluate --real R --synthetic S --json` (quality and validity only);
* reads both CSV files with pandas defaults (as an SDMetrics user would: leading spaces
  kept, " ?" a category), builds SDMetrics metadata from Genesis' column types
  (continuous -> numerical, everything else categorical; a continuous column pandas read
  as text is converted with pd.to_numeric(errors="coerce"));
* runs QualityReport twice -- thresholds 0 (all pairs, every score published before 2026)
  and the defaults (2026 threshold mode) -- and DiagnosticReport;
* compares every property score (and overall) and every per-column / per-pair score, and
  fails when a property score differs by more than --tol (0.005).

Pairs (built in --work, default /tmp/genesis-parity):
  adult-vs-test       Adult train vs Adult test (the test's income labels end in ".")
  adult-shuffled      Adult vs a copy with age and occupation shuffled independently
  adult-collapsed     Adult vs a copy with education " Masters" collapsed into " Bachelors"
  bank-vs-subsample   bank_full vs a 5000-row subsample of itself
  genesis-adult       Adult vs `genesis generate` (CTGAN, 5 epochs, seed 1)
  genesis-housing     california_housing vs `genesis generate` (CTGAN, 5 epochs, seed 2;
                      missing values)
  genesis-adult-sample  data/adult_sample.csv vs `genesis generate` (5 epochs, seed 2)
  genesis-adult-60k   Adult vs 60,000 generated rows (5 epochs, seed 4): above SDMetrics'
                      50,000-row limit, so both sides subsample the contingency pairs with
                      their own random draws -- agreement in distribution, not bit for bit

Data: every pair except genesis-adult-sample reads larger public tables the repository does
not ship (Adult's train and test splits, bank_full, california_housing) from the folder
GENESIS_DATA (default ../shared/data beside the repository, a sibling folder of the
developers' setup). When that folder is absent only genesis-adult-sample runs, and a note
says so.

Usage:
  $PYREF/bin/python bench/evaluate/parity.py --genesis build-eval/genesis \
      [--pairs a,b] [--md bench/evaluate/results.md] [--json-out FILE]
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

warnings.filterwarnings("ignore")

import sdmetrics  # noqa: E402
from sdmetrics.reports.single_table import DiagnosticReport, QualityReport  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.environ.get("GENESIS_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data"))


# ------------------------------------------------------------------------- table pairs
def build_pairs(work, genesis, names):
    os.makedirs(work, exist_ok=True)
    adult = f"{DATA}/adult.csv"
    pairs = {}

    def want(n):
        return not names or n in names

    if want("adult-vs-test"):
        pairs["adult-vs-test"] = (adult, f"{DATA}/adult_test.csv")
    if want("adult-shuffled"):
        p = f"{work}/adult_shuffled.csv"
        if not os.path.exists(p):
            df = pd.read_csv(adult, dtype=str, keep_default_na=False)
            rs = np.random.RandomState(7)
            for c in ("age", "occupation"):
                df[c] = df[c].to_numpy()[rs.permutation(len(df))]
            df.to_csv(p, index=False)
        pairs["adult-shuffled"] = (adult, p)
    if want("adult-collapsed"):
        p = f"{work}/adult_collapsed.csv"
        if not os.path.exists(p):
            df = pd.read_csv(adult, dtype=str, keep_default_na=False)
            df.loc[df["education"] == " Masters", "education"] = " Bachelors"
            df.to_csv(p, index=False)
        pairs["adult-collapsed"] = (adult, p)
    if want("bank-vs-subsample"):
        p = f"{work}/bank_sub5000.csv"
        if not os.path.exists(p):
            with open(f"{DATA}/bank_full.csv") as f:
                lines = f.read().splitlines()
            rs = np.random.RandomState(11)
            keep = sorted(rs.choice(len(lines) - 1, 5000, replace=False) + 1)
            with open(p, "w") as f:
                f.write("\n".join([lines[0]] + [lines[i] for i in keep]) + "\n")
        pairs["bank-vs-subsample"] = (f"{DATA}/bank_full.csv", p)
    gens = [("genesis-adult", adult, 1, 32561),
            ("genesis-adult-60k", adult, 4, 60000),
            ("genesis-housing", f"{DATA}/california_housing.csv", 2, 20640),
            ("genesis-adult-sample", f"{ROOT}/data/adult_sample.csv", 2, None)]
    for name, src, seed, n in gens:
        if not want(name):
            continue
        p = f"{work}/{name}.csv"
        if not os.path.exists(p):
            cmd = ["nice", genesis, "generate", "-i", src, "-o", p, "--epochs", "5",
                   "--seed", str(seed), "-q"]
            if n:
                cmd += ["-n", str(n)]
            sys.stderr.write("generating: " + " ".join(cmd) + "\n")
            subprocess.run(cmd, check=True)
        pairs[name] = (src, p)
    return pairs


# ----------------------------------------------------------------------------- genesis
def run_genesis(genesis, real, syn):
    t = time.perf_counter()
    out = subprocess.run([genesis, "evaluate", "--real", real, "--synthetic", syn, "--json",
                          "--skip", "privacy,detection,usefulness"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout), time.perf_counter() - t


# ---------------------------------------------------------------------------- sdmetrics
def sniff(path):
    """The delimiter of the header line, as Genesis sniffs it (most frequent of , ; tab |)."""
    with open(path, encoding="utf-8") as f:
        head = f.readline()
    return max([",", ";", "\t", "|"], key=head.count)


def load(path, continuous):
    df = pd.read_csv(path, sep=sniff(path))
    for c in continuous:
        if df[c].dtype == object:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def run_sdmetrics(real_path, syn_path, types):
    cont = [c for c, t in types.items() if t == "continuous"]
    real = load(real_path, cont)
    syn = load(syn_path, cont)[list(real.columns)]
    meta = {"columns": {c: {"sdtype": "numerical" if types[c] == "continuous" else "categorical"}
                        for c in real.columns}}
    out = {}
    t = time.perf_counter()
    for mode in ("all", "threshold"):
        rep = QualityReport()
        if mode == "all":
            rep.real_correlation_threshold = 0
            rep.real_association_threshold = 0
        rep.generate(real, syn, meta, verbose=False)
        props = rep.get_properties().set_index("Property")["Score"]
        out[mode] = {"overall": float(rep.get_score()),
                     "shapes": float(props["Column Shapes"]),
                     "trends": float(props["Column Pair Trends"]),
                     "shape_details": rep.get_details("Column Shapes"),
                     "pair_details": rep.get_details("Column Pair Trends")}
    diag = DiagnosticReport()
    diag.generate(real, syn, meta, verbose=False)
    props = diag.get_properties().set_index("Property")["Score"]
    out["diagnostic"] = {"overall": float(diag.get_score()),
                         "validity": float(props["Data Validity"]),
                         "structure": float(props["Data Structure"]),
                         "details": diag.get_details("Data Validity")}
    out["time"] = time.perf_counter() - t
    return out


# ----------------------------------------------------------------------------- compare
def nan_eq(a, b, tol):
    a = float("nan") if a is None else float(a)
    b = float("nan") if b is None else float(b)
    if math.isnan(a) and math.isnan(b):
        return True, 0.0
    if math.isnan(a) or math.isnan(b):
        return False, float("inf")
    return abs(a - b) <= tol, abs(a - b)


def compare(g, s, tol):
    q = g["quality"]
    rows = []

    def prop(name, gv, sv):
        ok, d = nan_eq(gv, sv, tol)
        rows.append({"property": name, "genesis": gv, "sdmetrics": sv, "diff": d, "ok": ok})

    prop("Quality overall (all pairs)", q["all_pairs"]["score"], s["all"]["overall"])
    prop("Column Shapes", q["all_pairs"]["column_shapes"], s["all"]["shapes"])
    prop("Column Pair Trends (all pairs)", q["all_pairs"]["column_pair_trends"], s["all"]["trends"])
    prop("Quality overall (threshold)", q["threshold"]["score"], s["threshold"]["overall"])
    prop("Column Pair Trends (threshold)", q["threshold"]["column_pair_trends"],
         s["threshold"]["trends"])
    v = g["validity"]
    prop("Diagnostic overall", v["score"], s["diagnostic"]["overall"])
    prop("Data Validity", v["data_validity"], s["diagnostic"]["validity"])
    prop("Data Structure", v["data_structure"], s["diagnostic"]["structure"])

    # item details
    item = {"shape_max_diff": 0.0, "pair_max_diff": 0.0, "validity_max_diff": 0.0,
            "threshold_flags_differ": [], "items_nan_mismatch": []}
    sd = s["all"]["shape_details"].set_index("Column")["Score"]
    for c in q["column_shapes"]:
        ok, d = nan_eq(c["score"], sd[c["column"]], 1e-9)
        if d == float("inf"):
            item["items_nan_mismatch"].append(("shape", c["column"]))
        else:
            item["shape_max_diff"] = max(item["shape_max_diff"], d)
    pa = s["all"]["pair_details"].set_index(["Column 1", "Column 2"])
    pt = s["threshold"]["pair_details"].set_index(["Column 1", "Column 2"])
    for p in q["column_pair_trends"]:
        key = (p["column_1"], p["column_2"])
        ok, d = nan_eq(p["score"], pa.loc[key, "Score"], 1e-9)
        if d == float("inf"):
            item["items_nan_mismatch"].append(("pair", key))
        else:
            item["pair_max_diff"] = max(item["pair_max_diff"], d)
        meets = pt.loc[key, "Meets Threshold?"]
        meets = bool(meets) if not pd.isna(meets) else False
        if meets != bool(p["meets_threshold"]):
            item["threshold_flags_differ"].append(
                {"pair": key, "genesis": p["meets_threshold"], "sdmetrics": meets,
                 "real_corr": p["real_correlation"], "real_assoc": p["real_association"],
                 "sd_real_corr": float(pt.loc[key, "Real Correlation"]),
                 "sd_real_assoc": float(pt.loc[key, "Real Association"])})
    vd = s["diagnostic"]["details"].set_index("Column")["Score"]
    for c in v["columns"]:
        ok, d = nan_eq(c["score"], vd[c["column"]], 1e-9)
        if d == float("inf"):
            item["items_nan_mismatch"].append(("validity", c["column"]))
        else:
            item["validity_max_diff"] = max(item["validity_max_diff"], d)
    return rows, item


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--genesis", default=f"{ROOT}/build-eval/genesis")
    ap.add_argument("--work", default="/tmp/genesis-parity")
    ap.add_argument("--pairs", default="", help="comma list of pair names (default: all)")
    ap.add_argument("--tol", type=float, default=0.005)
    ap.add_argument("--md", help="write the Markdown results table here")
    ap.add_argument("--json-out")
    args = ap.parse_args()
    names = [n for n in args.pairs.split(",") if n]
    if not os.path.isdir(DATA):
        sys.stderr.write(f"parity: {DATA} not found (set GENESIS_DATA); only genesis-adult-sample "
                         "runs\n")
        names = [n for n in names if n == "genesis-adult-sample"] or ["genesis-adult-sample"]
    pairs = build_pairs(args.work, args.genesis, names)
    results, all_ok = [], True
    for name, (real, syn) in pairs.items():
        g, tg = run_genesis(args.genesis, real, syn)
        types = {c["column"]: c["type"] for c in g["quality"]["column_shapes"]}
        s = run_sdmetrics(real, syn, types)
        rows, item = compare(g, s, args.tol)
        ok = all(r["ok"] for r in rows)
        all_ok &= ok
        results.append({"pair": name, "real": real, "synthetic": syn, "rows": rows,
                        "items": item, "ok": ok, "genesis_s": tg, "sdmetrics_s": s["time"],
                        "strong_pairs": g["quality"]["threshold"]["pairs_counted"],
                        "pairs": g["quality"]["pairs"]})
        print(f"== {name}: {'OK' if ok else 'MISMATCH'} (genesis {tg:.2f} s, "
              f"sdmetrics {s['time']:.1f} s)")
        for r in rows:
            print(f"   {r['property']:34s} genesis {r['genesis']:.6f}  sdmetrics "
                  f"{r['sdmetrics']:.6f}  diff {r['diff']:.2e}{'' if r['ok'] else '  <-- FAIL'}")
        print(f"   item max |diff|: shapes {item['shape_max_diff']:.1e}, pairs "
              f"{item['pair_max_diff']:.1e}, validity {item['validity_max_diff']:.1e}; "
              f"threshold flags differing: {len(item['threshold_flags_differ'])}; "
              f"NaN mismatches: {item['items_nan_mismatch']}")
        for f in item["threshold_flags_differ"]:
            print("     flag:", f)
        sys.stdout.flush()
    if args.md:
        write_md(args.md, results, args.tol)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1, default=str)
    sys.exit(0 if all_ok else 1)


def write_md(path, results, tol):
    cols = ["pair", "quality all (G / SDM)", "quality thr (G / SDM)", "shapes", "trends all",
            "trends thr", "diagnostic", "validity", "structure", "max |diff|", "item max |diff|",
            "strong pairs"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in results:
        by = {x["property"]: x for x in r["rows"]}

        def gs(k):
            x = by[k]
            return f"{x['genesis']:.4f} / {x['sdmetrics']:.4f}"
        mx = max(x["diff"] for x in r["rows"])
        it = r["items"]
        imx = max(it["shape_max_diff"], it["pair_max_diff"], it["validity_max_diff"])
        lines.append("| " + " | ".join([
            r["pair"], gs("Quality overall (all pairs)"), gs("Quality overall (threshold)"),
            gs("Column Shapes"), gs("Column Pair Trends (all pairs)"),
            gs("Column Pair Trends (threshold)"), gs("Diagnostic overall"), gs("Data Validity"),
            gs("Data Structure"), f"{mx:.1e}", f"{imx:.1e}",
            f"{r['strong_pairs']} / {r['pairs']}"]) + " |")
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    head = (f"Parity of `genesis evaluate` with sdmetrics {sdmetrics.__version__} "
            f"(pandas {pd.__version__}, numpy {np.__version__}), tolerance {tol}, both pair "
            f"modes (thresholds 0 and the 2026 defaults). Machine: {cpu}, {os.cpu_count()} "
            f"cores, no GPU. Every cell: Genesis / SDMetrics; `max |diff|` over the property "
            f"scores, `item max |diff|` over every per-column and per-pair score.\n\n")
    with open(path, "w") as f:
        f.write(head + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
