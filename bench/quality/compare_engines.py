#!/usr/bin/env python3
"""compare_engines.py — Genesis beside the reference on the five public tables.

Reads the JSON lines of `bench/quality/five_tables.sh` for two engines — Genesis
(ENGINE=genesis) and the reference `ctgan` package (ENGINE=ref) — and writes, per table and
model (CTGAN, TVAE), each engine's mean over its seeds ± half the seeds' range, and
Genesis − reference, for: overall quality (all pairs), column shapes, pair trends, strong-pair
trends (SDMetrics' threshold mode), detection, TSTR F1 minus the real rows' F1 (logistic
regression, MLP), exact-copy rate, DCR baseline and DCR overfitting protection, and fit
seconds. Every score comes from the same `genesis evaluate` (bench/results/five_tables_ref_20261125/NOTES.md, "Five public
tables" and "Genesis beside the reference").

    python3 bench/quality/compare_engines.py \
        --genesis bench/results/five_tables_20261125/runs.jsonl \
        --ref bench/results/five_tables_ref_20261125/runs.jsonl \
        --out bench/results/five_tables_ref_20261125

--genesis may be given several times (and so may --ref): for each (table, model) the LAST
file that holds runs of it wins, with all its seeds. So when one model's default changes,
rerun only that model (five_tables.sh MODELS=tvae OUT=...) and list the new file after the
old one; the Markdown names the file each row came from.

Writes OUT/compare.md (the side-by-side table, the five-table means, the list of shortfalls),
OUT/compare.tsv (one line per table, model and metric) and OUT/compare_deltas.png (Genesis −
reference per table, metric and model; needs matplotlib, skipped with a message without it).

A shortfall is Genesis below the reference on overall, pair trends, strong pairs or
detection, or more than 0.01 below on a TSTR F1; it is marked "(beyond seeds)" when the
difference is larger than the two engines' half ranges added, "(within seeds)" otherwise.
Standard library only, apart from the plot.
"""
import argparse
import json
import os
import statistics as st
import sys

TABLES = ["california", "bank", "covertype", "energy", "news"]
TABLE_NAMES = {"california": "california housing", "bank": "bank marketing",
               "covertype": "covertype (15k sample)", "energy": "energy (appliances)",
               "news": "online news (first 9,874)"}
MODELS = ["ctgan", "tvae"]
MODEL_NAMES = {"ctgan": "CTGAN", "tvae": "TVAE"}

# (key, column title, how it is computed, shortfall rule: None, "below", "below0.01")
METRICS = [
    ("overall", "overall", lambda s: s["quality"], "below"),
    ("shapes", "shapes", lambda s: s["column_shapes"], None),
    ("pair_trends", "pair trends", lambda s: s["column_pair_trends"], "below"),
    ("strong_pairs", "strong pairs", lambda s: s["column_pair_trends_threshold"], "below"),
    ("detection", "detection", lambda s: s["detection"], "below"),
    ("tstr_lr", "TSTR LR − real",
     lambda s: s["tstr_logistic_regression"] - s["trtr_logistic_regression"], "below0.01"),
    ("tstr_mlp", "TSTR MLP − real", lambda s: s["tstr_mlp"] - s["trtr_mlp"], "below0.01"),
    ("exact_copies", "exact copies", lambda s: s["exact_copy_rate"], None),
    ("dcr_baseline", "DCR baseline", lambda s: s["dcr_baseline_protection"], None),
    ("dcr_overfit", "DCR overfitting", lambda s: s["dcr_overfitting_protection"], None),
]


def load(paths, engine):
    """{(table, model): (path, [run, ...])}, the last file holding a key winning."""
    got = {}
    for p in paths:
        per = {}
        for line in open(p):
            if not line.strip():
                continue
            r = json.loads(line)
            if "failed" in r or r.get("engine", "genesis") != engine or r["model"] not in MODELS:
                continue
            per.setdefault((r["table"], r["model"]), []).append(r)
        for k, rs in per.items():
            got[k] = (p, sorted(rs, key=lambda r: r["seed"]))
    return got


def value(f, r):
    try:
        return f(r["scores"])
    except (KeyError, TypeError):
        return None


def summary(vals):
    v = [x for x in vals if x is not None]
    if not v:
        return None
    return st.mean(v), (max(v) - min(v)) / 2, len(v)


def fmt(s, digits=3):
    if s is None:
        return "—"
    m, hr, n = s
    return ("%.*f" % (digits, m)) + (" ±%.*f" % (digits, hr) if n > 1 else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--genesis", action="append", required=True, help="Genesis runs.jsonl")
    ap.add_argument("--ref", action="append", required=True, help="reference runs.jsonl")
    ap.add_argument("--out", required=True, help="folder for compare.md / .tsv / _deltas.png")
    ap.add_argument("--root", default=".", help="file names in compare.md are relative to it")
    args = ap.parse_args()

    gen, ref = load(args.genesis, "genesis"), load(args.ref, "ref")
    os.makedirs(args.out, exist_ok=True)
    rel = lambda p: os.path.relpath(p, args.root)
    keys = [(t, m) for t in TABLES for m in MODELS if (t, m) in gen and (t, m) in ref]
    missing = [(t, m) for t in TABLES for m in MODELS if (t, m) not in keys]

    rows, tsv, short, deltas, warn = [], [], [], {}, []
    for t, m in keys:
        gp, grs = gen[(t, m)]
        rp, rrs = ref[(t, m)]
        # the same split gives the same real-row TSTR scores in both files
        for k in ("trtr_logistic_regression", "trtr_mlp"):
            a = {round(r["scores"][k], 9) for r in grs + rrs if r["scores"].get(k) is not None}
            if len(a) > 1:
                warn.append("%s %s: %s differs between the engines' runs (%s): not the same split?"
                            % (t, m, k, sorted(a)))
        cells = {"genesis": [], "ref": [], "delta": []}
        for key, title, f, rule in METRICS:
            g = summary([value(f, r) for r in grs])
            rf = summary([value(f, r) for r in rrs])
            d = None if g is None or rf is None else g[0] - rf[0]
            spread = None if d is None else g[1] + rf[1]
            mark = ""
            if d is not None and rule is not None:
                if (rule == "below" and d < 0) or (rule == "below0.01" and d < -0.01):
                    beyond = abs(d) > spread
                    mark = " **▼**" if beyond else " ▽"
                    short.append((t, m, title, g, rf, d, beyond))
            cells["genesis"].append(fmt(g, 4 if key == "exact_copies" else 3))
            cells["ref"].append(fmt(rf, 4 if key == "exact_copies" else 3))
            cells["delta"].append("—" if d is None else "%+.3f%s" % (d, mark))
            deltas[(t, m, key)] = (d, spread)
            tsv.append([t, m, key, g, rf, d, spread])
        gfit = summary([r["fit_s"] for r in grs])
        rfit = summary([r["fit_s"] for r in rrs])
        name = TABLE_NAMES[t]
        rows.append("| %s | %s | Genesis | %s | %s | %s |" % (
            name, MODEL_NAMES[m], ",".join(str(r["seed"]) for r in grs), " | ".join(cells["genesis"]),
            fmt(gfit, 0)))
        rows.append("| %s | %s | reference | %s | %s | %s |" % (
            name, MODEL_NAMES[m], ",".join(str(r["seed"]) for r in rrs), " | ".join(cells["ref"]),
            fmt(rfit, 0)))
        rows.append("| %s | %s | Genesis − ref | | %s | |" % (name, MODEL_NAMES[m],
                                                            " | ".join(cells["delta"])))

    head = ("| table | model | engine | seeds | " + " | ".join(t for _, t, _, _ in METRICS)
            + " | fit s |")
    md = ["Genesis beside the reference (`ctgan` package), each cell the mean over the seeds "
          "± half their range; TSTR columns are F1 minus the same classifier's F1 trained on "
          "the real rows. In the Genesis − ref rows, **▼** marks a shortfall (Genesis below "
          "on overall, pair trends, strong pairs or detection, or more than 0.01 below on a "
          "TSTR column) larger than the two engines' half ranges added, ▽ one within them.",
          "", head, "|" + "---|" * (5 + len(METRICS)), *rows, ""]
    # five-table means (each table's seed mean first), per model
    md += ["Mean over the tables (each table's mean over seeds first):", "",
           "| model | engine | tables | " + " | ".join(t for _, t, _, _ in METRICS) + " |",
           "|" + "---|" * (3 + len(METRICS))]
    for m in MODELS:
        ts = [t for t in TABLES if (t, m) in keys]
        if not ts:
            continue
        for eng, src in (("Genesis", gen), ("reference", ref)):
            vals = []
            for key, _, f, _ in METRICS:
                per = [summary([value(f, r) for r in src[(t, m)][1]]) for t in ts]
                per = [p[0] for p in per if p is not None]
                vals.append("%.3f" % st.mean(per) if per else "—")
            md.append("| %s | %s | %d | %s |" % (MODEL_NAMES[m], eng, len(ts), " | ".join(vals)))
        dl = []
        for key, _, _, _ in METRICS:
            per = [deltas[(t, m, key)][0] for t in ts if deltas[(t, m, key)][0] is not None]
            dl.append("%+.3f" % st.mean(per) if per else "—")
        md.append("| %s | Genesis − ref | %d | %s |" % (MODEL_NAMES[m], len(ts), " | ".join(dl)))
    md.append("")
    md.append("Shortfalls (Genesis − reference):")
    md.append("")
    if not short:
        md.append("- none")
    for t, m, title, g, rf, d, beyond in short:
        md.append("- %s %s, %s: %s against %s (%+.3f, %s)" % (
            TABLE_NAMES[t], MODEL_NAMES[m], title, fmt(g), fmt(rf), d,
            "beyond seeds" if beyond else "within seeds"))
    md.append("")
    md.append("Sources:")
    md.append("")
    for t, m in keys:
        md.append("- %s %s: Genesis `%s`, reference `%s`" % (t, m, rel(gen[(t, m)][0]),
                                                                  rel(ref[(t, m)][0])))
    for t, m in missing:
        md.append("- %s %s: not compared (%s)" % (t, m, " and ".join(
            e for e, src in (("no Genesis runs", gen), ("no reference runs", ref))
            if (t, m) not in src)))
    for w in warn:
        md.append("- warning: " + w)
    open(os.path.join(args.out, "compare.md"), "w").write("\n".join(md) + "\n")

    with open(os.path.join(args.out, "compare.tsv"), "w") as f:
        f.write("table\tmodel\tmetric\tgenesis_mean\tgenesis_half_range\tgenesis_seeds\t"
                "ref_mean\tref_half_range\tref_seeds\tdelta\thalf_ranges_added\n")
        for t, m, key, g, rf, d, spread in tsv:
            def three(s):
                return ["", "", ""] if s is None else ["%.5f" % s[0], "%.5f" % s[1], str(s[2])]
            f.write("\t".join([t, m, key] + three(g) + three(rf) +
                              ["" if d is None else "%.5f" % d,
                               "" if spread is None else "%.5f" % spread]) + "\n")
    print("\n".join(md))
    for w in warn:
        print("compare_engines: warning: " + w, file=sys.stderr)
    plot(keys, deltas, os.path.join(args.out, "compare_deltas.png"))


def plot(keys, deltas, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare_engines: matplotlib not found; no plot", file=sys.stderr)
        return
    shown = [k for k in METRICS if k[0] not in ("exact_copies", "dcr_overfit")]
    models = [m for m in MODELS if any(k[1] == m for k in keys)]
    fig, axes = plt.subplots(len(models), 1, figsize=(11, 3.6 * len(models)), squeeze=False)
    colors = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"]
    width = 0.8 / len(TABLES)
    for ax, m in zip(axes[:, 0], models):
        for i, t in enumerate(TABLES):
            if (t, m) not in keys:
                continue
            xs, ys, es = [], [], []
            for j, (key, _, _, _) in enumerate(shown):
                d, spread = deltas[(t, m, key)]
                if d is None:
                    continue
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(d)
                es.append(spread)
            ax.bar(xs, ys, width, yerr=es, color=colors[i], label=TABLE_NAMES[t],
                   error_kw={"elinewidth": 0.8, "capsize": 2})
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(shown)))
        ax.set_xticklabels([s[1] for s in shown])
        ax.set_ylabel("Genesis − reference")
        ax.set_title("%s, 50 epochs: Genesis − reference (mean over seeds; bars: half ranges "
                     "added)" % MODEL_NAMES[m], fontsize=10)
        ax.grid(axis="y", linewidth=0.3)
    axes[0, 0].legend(fontsize=8, ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.12))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("compare_engines: wrote " + path, file=sys.stderr)


if __name__ == "__main__":
    main()
