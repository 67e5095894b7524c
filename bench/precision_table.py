#!/usr/bin/env python3
"""precision_table.py — the table of bench/precision.sh from its runs.jsonl: per model and
precision the mean over seeds (± half the seeds' range), the differences from fp32 and the
FP16 steps skipped (docs/benchmarks.md, "Mixed precision"). Several files may be given (e.g.
seeds run on different days); a model is tabulated per table when the lines name one.

    python3 bench/precision_table.py runs.jsonl [more.jsonl ...]
"""
import json, re, sys, statistics as st
runs = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip()]
runs = [r for r in runs if "failed" not in r]
for r in runs:  # a table other than Adult (lines before TABLE existed are Adult's) goes by name
    if r.get("table", "adult.csv") != "adult.csv":
        r["model"] = "%s (%s)" % (r["model"], r["table"].rsplit(".", 1)[0])
keys = ["quality", "quality_threshold", "pair_trends_threshold", "detection"]
# the mean over seeds, with half the spread (max - min) of the seeds beside it
print("| model | precision | seeds | fit s (mean) | quality | quality (threshold mode) | strong-pair trends | detection | Δ quality | Δ strong-pair trends | Δ detection | fp16 steps skipped |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def cell(rs, k):
    v = [r[k] for r in rs]
    return "%.3f ±%.3f" % (st.mean(v), (max(v) - min(v)) / 2) if len(v) > 1 else "%.3f" % v[0]
for model in sorted({r["model"] for r in runs}):
    b = [r for r in runs if r["model"] == model and r["precision"] == "fp32"]
    base = {k: st.mean(r[k] for r in b) for k in keys} if b else None
    for prec in ["fp32", "tf32", "bf16", "fp16"]:
        rs = sorted((r for r in runs if r["model"] == model and r["precision"] == prec), key=lambda r: r["seed"])
        if not rs:
            continue
        m = {k: st.mean(r[k] for r in rs) for k in keys}
        d = ["%+.3f" % (m[k] - base[k]) if base else "" for k in ("quality", "pair_trends_threshold", "detection")]
        # per seed: skipped steps (CTGAN: discriminator + generator) of the steps per network
        sk = ", ".join("+".join(a for a, _ in re.findall(r"(\d+) of (\d+)", r["fp16_skipped"])) +
                       " of " + re.findall(r"of (\d+)", r["fp16_skipped"])[0]
                       for r in rs if r.get("fp16_skipped"))
        print("| %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            model, prec, ",".join(str(r["seed"]) for r in rs), st.mean(r["fit_s"] for r in rs),
            cell(rs, "quality"), cell(rs, "quality_threshold"), cell(rs, "pair_trends_threshold"),
            cell(rs, "detection"), *d, sk))
