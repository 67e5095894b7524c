#!/usr/bin/env python3
"""pair_breakdown.py — where one engine's strong-pair trends fall short of another's.

The five-table benchmark (`bench/quality/five_tables.sh`) keeps each run's full
`genesis evaluate --json` output as OUT/<table>/<engine>-<model>-s<seed>.csv.eval.json. Its
strong-pair trend score is a mean over many pairs of three kinds; this script splits it, for
two run folders (e.g. Genesis's and the reference's) and one model:

  - strong pairs by kind: continuous-continuous (SDMetrics CorrelationSimilarity),
    continuous-categorical and categorical-categorical (ContingencySimilarity), the mean
    score of each engine over its seeds;
  - for the continuous-continuous strong pairs, the mean |Pearson| of the real rows and of
    each engine's rows (how much of the correlation each keeps);
  - the column-shape scores (KSComplement / TVComplement) per column type;
  - the pairs with the largest difference, each with both engines' scores, the real and
    synthetic correlations and the column shapes of its two columns.

    python3 bench/quality/pair_breakdown.py --a OUT_GENESIS --a-name genesis \
        --b OUT_REF --b-name ref --model ctgan [--tables "covertype energy"] [--top 8]

Writes Markdown on stdout (bench/results/five_tables_ref_20261125/NOTES.md, "Where CTGAN's strong pairs fall short").
Standard library only.
"""
import argparse
import glob
import json
import os
import statistics as st
import sys


def runs(folder, table, prefix, model):
    """The evaluation JSONs of one engine, table and model, one per seed (sample-step
    variants of DDPM are taken as separate runs)."""
    pat = os.path.join(folder, table, f"{prefix}-{model}-s*.csv.eval.json")
    out = []
    for path in sorted(glob.glob(pat)):
        with open(path) as f:
            out.append(json.load(f))
    return out


def kinds_of(quality):
    return {c["column"]: ("cont" if c["metric"] == "KSComplement" else "cat")
            for c in quality["column_shapes"]}


def collect(evals):
    """Per engine: pair scores by key, shapes by column, column kinds."""
    pairs, shapes, kinds = {}, {}, {}
    for ev in evals:
        q = ev["quality"]
        kinds.update(kinds_of(q))
        for c in q["column_shapes"]:
            shapes.setdefault(c["column"], []).append(c["score"])
        for p in q["column_pair_trends"]:
            if not p.get("meets_threshold"):
                continue
            key = (p["column_1"], p["column_2"])
            pairs.setdefault(key, []).append(p)
    return pairs, shapes, kinds


def mean(xs):
    xs = [x for x in xs if x is not None]
    return st.mean(xs) if xs else float("nan")


def fmt(x, d=3):
    return "—" if x is None or x != x else f"{x:.{d}f}"


def table_report(table, a, b, na, nb, top):
    pa, sa, ka = collect(a)
    pb, sb, kb = collect(b)
    kinds = {**kb, **ka}
    keys = sorted(set(pa) & set(pb))
    if not keys:
        return f"\n{table}: no strong pair in both engines' runs\n"
    lines = [f"\n**{table}** ({len(a)} {na} runs, {len(b)} {nb} runs, {len(keys)} strong pairs)\n"]
    lines.append(f"| kind | pairs | {na} | {nb} | {na} − {nb} |")
    lines.append("|---|---|---|---|---|")
    by_kind = {}
    for k in keys:
        kind = "-".join(sorted([kinds.get(k[0], "?"), kinds.get(k[1], "?")]))
        by_kind.setdefault(kind, []).append(k)
    for kind in sorted(by_kind):
        ks = by_kind[kind]
        ma = mean(mean(p["score"] for p in pa[k]) for k in ks)
        mb = mean(mean(p["score"] for p in pb[k]) for k in ks)
        lines.append(f"| {kind} | {len(ks)} | {fmt(ma)} | {fmt(mb)} | {ma - mb:+.3f} |")
    allk = keys
    ma = mean(mean(p["score"] for p in pa[k]) for k in allk)
    mb = mean(mean(p["score"] for p in pb[k]) for k in allk)
    lines.append(f"| all | {len(allk)} | {fmt(ma)} | {fmt(mb)} | {ma - mb:+.3f} |")
    cc = by_kind.get("cont-cont", [])
    if cc:
        real = mean(abs(pa[k][0]["real_correlation"]) for k in cc)
        ca = mean(mean(abs(p["synthetic_correlation"]) for p in pa[k]
                       if p.get("synthetic_correlation") is not None) for k in cc)
        cb = mean(mean(abs(p["synthetic_correlation"]) for p in pb[k]
                       if p.get("synthetic_correlation") is not None) for k in cc)
        lines.append(f"\nContinuous-continuous strong pairs, mean |Pearson|: real {fmt(real)}, "
                     f"{na} {fmt(ca)}, {nb} {fmt(cb)}.")
    for kind, name in (("cont", "continuous (KSComplement)"),
                       ("cat", "categorical (TVComplement)")):
        cols = [c for c in sa if kinds.get(c) == kind and c in sb]
        if cols:
            lines.append(f"Column shapes, {name}, mean over {len(cols)} columns: "
                         f"{na} {fmt(mean(mean(sa[c]) for c in cols))}, "
                         f"{nb} {fmt(mean(mean(sb[c]) for c in cols))}.")
    diffs = sorted(keys, key=lambda k: mean(p["score"] for p in pa[k]) -
                   mean(p["score"] for p in pb[k]))
    lines.append(f"\nLargest differences ({na} − {nb}; shapes: the two columns' column-shape "
                 f"scores, {na} / {nb}; corr: real → {na} / {nb}, mean over seeds):\n")
    lines.append(f"| pair | {na} | {nb} | {na} − {nb} | shapes | corr |")
    lines.append("|---|---|---|---|---|---|")
    show = diffs[:top] + [k for k in diffs[-max(top // 4, 1):] if k not in diffs[:top]]
    for k in show:
        sca = mean(p["score"] for p in pa[k])
        scb = mean(p["score"] for p in pb[k])
        shp = " · ".join(f"{fmt(mean(sa.get(c, [])), 2)} / {fmt(mean(sb.get(c, [])), 2)}"
                         for c in k)
        rc = pa[k][0].get("real_correlation")
        if rc is not None:
            cor = (f"{rc:.2f} → {fmt(mean(p.get('synthetic_correlation') for p in pa[k]), 2)}"
                   f" / {fmt(mean(p.get('synthetic_correlation') for p in pb[k]), 2)}")
        else:
            cor = ""
        lines.append(f"| {k[0]} ~ {k[1]} | {sca:.3f} | {scb:.3f} | {sca - scb:+.3f} | "
                     f"{shp} | {cor} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="first run folder (five_tables.sh OUT)")
    ap.add_argument("--b", required=True, help="second run folder")
    ap.add_argument("--a-name", default="genesis", help="engine prefix of the first folder's files")
    ap.add_argument("--b-name", default="ref", help="engine prefix of the second folder's files")
    ap.add_argument("--model", default="ctgan")
    ap.add_argument("--tables", default="california bank covertype energy news")
    ap.add_argument("--top", type=int, default=8)
    args = ap.parse_args()
    base = lambda p: os.path.basename(os.path.normpath(p))  # no machine paths in results
    out = [f"Strong-pair trends of {args.model}: {args.a_name} (run folder {base(args.a)}) "
           f"against {args.b_name} (run folder {base(args.b)})\n"]
    found = False
    for table in args.tables.split():
        a = runs(args.a, table, args.a_name, args.model)
        b = runs(args.b, table, args.b_name, args.model)
        if not a or not b:
            out.append(f"\n{table}: runs missing ({len(a)} {args.a_name}, {len(b)} {args.b_name})\n")
            continue
        found = True
        out.append(table_report(table, a, b, args.a_name, args.b_name, args.top))
    sys.stdout.write("".join(out))
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
