#!/usr/bin/env python3
"""gpu_session_table.py — the size table of bench/gpu_session.sh as a Markdown table for the
docs: the 50-column table (bench_make_table) at each row count, CTGAN, TVAE and DDPM, on the
GPU and on the same machine's host cores, with preparation, training loop and generation
apart, and the GPU guide's figures beside them.

  python3 bench/gpu_session_table.py sizes_call1.jsonl [more.jsonl] [--md FILE]

Input: the JSON lines of bench/train_sizes.py ("run", "projection", "skipped"). A row is
"measured" (a run; the mean where a size ran more than once) or "projected" (train_sizes.py's
rule: preparation and generation scale with rows, the training loop with optimiser steps, from
the largest size measured on the same device), never both. Standard library only.
"""
import argparse
import json
import sys

# The GPU guide's table: 50 columns, fit and generate, RTX 3090 and CPU (docs/benchmarks.md,
# "Training across dataset sizes"; bench/plot_sizes.py). It states neither epochs nor batch size.
GUIDE_GPU = {10000: 8, 100000: 25, 1000000: 180, 10000000: 1500}
GUIDE_CPU = {10000: 45, 100000: 420, 1000000: 4200, 10000000: 43200}
MODELS = {"ctgan": 0, "tvae": 1, "ddpm": 2}


def fmt(x):
    if x is None:
        return "–"
    if x >= 3600:
        return f"{x:,.0f} ({x / 3600:.1f} h)"
    if x >= 600:
        return f"{x:,.0f} ({x / 60:.0f} min)"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def rows_label(n):
    for d, s in ((1000000, "M"), (1000, "K")):
        if n >= d and n % d == 0:
            return f"{n // d}{s}"
    return str(n)


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jsonl", nargs="+")
    ap.add_argument("--md", help="write the table here (default: stdout)")
    a = ap.parse_args()
    runs, other = {}, {}
    machine, epochs, batch = "", None, None
    for p in a.jsonl:
        try:
            lines = open(p).read().splitlines()
        except OSError as e:
            print(f"gpu_session_table: {e}", file=sys.stderr)
            continue
        for line in lines:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("engine", "genesis") != "genesis":
                continue
            key = (r["rows"], r["model"], r["device"])
            machine = r.get("machine", machine)
            epochs, batch = r.get("epochs", epochs), r.get("batch_size", batch)
            if r.get("kind") == "run" and r.get("status") == "ok":
                runs.setdefault(key, []).append(r)
            elif key not in other:
                other[key] = r
    out = []
    out.append(f"Machine: {machine}. Genesis, {epochs} epoch(s) at batch {batch} (DDPM: ceil(rows / "
               f"{batch}) iterations, the same rows seen); host threads as the device column says. Preparation = the fit's wall time "
               "minus the training loop (process start, reading, transformer, encoding, model file); "
               "generation = `genesis sample -n ROWS -o -` to /dev/null, process start included. The guide "
               "column is the GPU guide's total for rows x 50 columns (RTX 3090 for the GPU rows, its CPU "
               "column for the host rows), whose epochs and batch size are not stated.")
    out.append("")
    out.append("| rows | model | device | preparation s | training loop s | generation s | total s | guide s | |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    keys = sorted(set(runs) | set(other), key=lambda k: (k[0], k[2] != "cuda", MODELS.get(k[1], 9)))
    for key in keys:
        n, model, dev = key
        guide = (GUIDE_GPU if dev == "cuda" else GUIDE_CPU).get(n)
        if key in runs:
            rs = runs[key]
            on = rs[-1].get("trained_on") or dev
            th = rs[-1].get("threads")
            if th == 0 and rs[-1].get("threads_auto"):
                th = rs[-1]["threads_auto"]
            if th:
                on += f", {th} host threads"
            prep, train = mean(r.get("prep_s") for r in rs), mean(r.get("train_s") for r in rs)
            gen, tot = mean(r["generate_s"] for r in rs), mean(r["total_s"] for r in rs)
            what = "measured" + (f" (mean of {len(rs)})" if len(rs) > 1 else "")
            out.append(f"| {rows_label(n)} | {model.upper()} | {on} | {fmt(prep)} | {fmt(train)} | {fmt(gen)} | "
                       f"**{fmt(tot)}** | {fmt(guide)} | {what} |")
            continue
        r = other[key]
        if r.get("kind") == "projection" and "projected_total_s" in r:
            steps = (epochs or 1) * (-(-n // batch) if model in ("tvae", "ddpm") else max(n // batch, 1))
            prep = r["from_prep_s_per_row"] * n
            train = (r.get("from_s_per_step") or 0) * steps
            out.append(f"| {rows_label(n)} | {model.upper()} | {dev} | {fmt(prep)} | {fmt(train)} | "
                       f"{fmt(r['projected_generate_s'])} | *{fmt(r['projected_total_s'])}* | {fmt(guide)} | "
                       f"**projected** from {rows_label(r['from_rows'])} rows ({r.get('reason', '')}) |")
        elif r.get("kind") == "projection":
            out.append(f"| {rows_label(n)} | {model.upper()} | {dev} | | | | not run | {fmt(guide)} | "
                       f"{r.get('reason', 'not run')}, nothing measured to project from |")
        else:
            why = r.get("status") or r.get("reason") or r.get("kind")
            out.append(f"| {rows_label(n)} | {model.upper()} | {dev} | | | | not measured | {fmt(guide)} | {why} |")
    text = "\n".join(out) + "\n"
    if a.md:
        open(a.md, "w").write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
