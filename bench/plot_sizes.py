#!/usr/bin/env python3
"""plot_sizes.py — plot and tabulate the results of bench/train_sizes.sh.

Reads one or more train_sizes_*.jsonl files and writes
  --svg FILE  a log-log plot of seconds (fit + generate N rows) against rows, one line per
              engine/model/device (measured: solid with filled dots, the mean of the runs at a
              size; projected: dashed with open dots), and the GPU guide's published RTX 3090
              and CPU times (docs/benchmarks.md) as grey reference lines;
  --md FILE   a Markdown table of every size: fit s, generate s, total, training loop, peak
              RSS, load average, and the reference's time over Genesis' time; projections in
              a second table, marked as projected.
Only the Python standard library: the SVG is written by hand.

  python3 bench/plot_sizes.py bench/results/train_sizes_DATE.jsonl [more.jsonl ...] \
      --svg docs/img/train_sizes.svg --md table.md
"""
import argparse
import json
import math
import statistics
import sys

# The GPU guide's table (RTX 3090, 50 columns; its epochs and batch size are not stated).
GUIDE = {"guide: RTX 3090": [(1e4, 8), (1e5, 25), (1e6, 180), (1e7, 1500)],
         "guide: CPU": [(1e4, 45), (1e5, 420), (1e6, 4200), (1e7, 43200)]}
COLORS = {("genesis", "ctgan"): "#1f5fbf", ("genesis", "tvae"): "#2e9e4a",
          ("reference", "ctgan"): "#d2462a", ("reference", "tvae"): "#e08a1e"}


def load(paths):
    runs, proj = [], []
    for p in paths:
        for line in open(p):
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("kind") == "run" and r.get("status") == "ok":
                runs.append(r)
            elif r.get("kind") == "projection" and "projected_total_s" in r:
                proj.append(r)
    return runs, proj


def series_key(r):
    return (r["engine"], r["model"], r["device"])


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt_s(x):
    if x is None:
        return "–"
    if x >= 3600:
        return f"{x:,.0f} ({x / 3600:.1f} h)"
    if x >= 600:
        return f"{x:,.0f} ({x / 60:.0f} min)"
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def aggregate(runs):
    """(engine, model, device, rows) -> dict of means over the runs."""
    groups = {}
    for r in runs:
        groups.setdefault(series_key(r) + (r["rows"],), []).append(r)
    agg = {}
    for k, rs in groups.items():
        agg[k] = {
            "runs": len(rs),
            "fit_s": mean([r["fit_s"] for r in rs]),
            "generate_s": mean([r["generate_s"] for r in rs]),
            "total_s": mean([r["total_s"] for r in rs]),
            "train_s": mean([r.get("train_s") for r in rs]),
            "prep_s": mean([r.get("prep_s") for r in rs]),
            "s_per_step": mean([r.get("s_per_step") for r in rs]),
            "peak_rss_mb": max(r.get("peak_rss_mb") or 0 for r in rs),
            "load": [r.get("load_before") for r in rs] + [rs[-1].get("load_after")],
            "totals": [r["total_s"] for r in rs],
            "threads": sorted({str(r.get("threads_auto", r.get("threads"))) for r in rs}),
            "machine": rs[0].get("machine"),
        }
    return agg


def markdown(runs, proj):
    agg = aggregate(runs)
    out = []
    out.append("| rows | model | engine | device | runs | fit s | generate s | total s | "
               "of which training loop s | s/step | peak RSS MB | load (1-min avg, before each run) "
               "| reference ÷ Genesis (total; fit) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in sorted(agg, key=lambda k: (k[3], k[1], k[0] != "genesis", k[2])):
        a = agg[k]
        engine, model, device, rows = k
        ratio = ""
        if engine == "reference":
            g = agg.get(("genesis", model, device, rows))
            if g:
                ratio = f"**{a['total_s'] / g['total_s']:.1f}×**; {a['fit_s'] / g['fit_s']:.1f}×"
        name = "Genesis" if engine == "genesis" else "reference (SDV ctgan package)"
        thr = "/".join(a["threads"])
        name += f", {thr} thread{'s' if thr not in ('1',) else ''}" if device == "cpu" else ""
        totals = " / ".join(f"{t:.1f}" for t in a["totals"]) if a["runs"] > 1 else ""
        loads = ", ".join(f"{l[0]:.2f}" for l in a["load"][:-1] if l)
        out.append(f"| {rows:,} | {model.upper()} | {name} | {device} | {a['runs']} | "
                   f"{fmt_s(a['fit_s'])} | {fmt_s(a['generate_s'])} | {fmt_s(a['total_s'])}"
                   f"{' (' + totals + ')' if totals else ''} | {fmt_s(a['train_s'])} | "
                   f"{a['s_per_step']:.3f} | {a['peak_rss_mb']:.0f} | {loads} | {ratio} |"
                   if a["s_per_step"] is not None else
                   f"| {rows:,} | {model.upper()} | {name} | {device} | {a['runs']} | "
                   f"{fmt_s(a['fit_s'])} | {fmt_s(a['generate_s'])} | {fmt_s(a['total_s'])} | – | – | "
                   f"{a['peak_rss_mb']:.0f} | {loads} | {ratio} |")
    if proj:
        out.append("")
        out.append("Projected, **not measured** (from the largest measured size of the same engine: "
                   "preparation and generation scaled by rows, the training loop by optimiser steps):")
        out.append("")
        out.append("| rows | model | engine | device | projected fit s | projected generate s | "
                   "projected total | projected from | why not run |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        seen = set()
        for p in sorted(proj, key=lambda p: (p["rows"], p["model"], p["engine"])):
            k = (p["rows"], p["model"], p["engine"], p["device"])
            if k in seen:
                continue
            seen.add(k)
            out.append(f"| {p['rows']:,} | {p['model'].upper()} | {p['engine']} | {p['device']} | "
                       f"{fmt_s(p['projected_fit_s'])} | {fmt_s(p['projected_generate_s'])} | "
                       f"{fmt_s(p['projected_total_s'])} | {p['from_rows']:,} rows | {p['reason']} |")
    return "\n".join(out) + "\n"


def svg(runs, proj, title):
    agg = aggregate(runs)
    W, H = 860, 520
    L, R, T, B = 70, 250, 40, 60  # margins; legend on the right
    pts = [(k[3], a["total_s"]) for k, a in agg.items()]
    pts += [(p["rows"], p["projected_total_s"]) for p in proj]
    pts += [xy for v in GUIDE.values() for xy in v]
    pts += [(x, y / 10) for x, y in GUIDE["guide: RTX 3090"]]
    xmin, xmax = 10 ** math.floor(math.log10(min(x for x, _ in pts))), 10 ** math.ceil(math.log10(max(x for x, _ in pts)))
    ymin = 10 ** math.floor(math.log10(min(y for _, y in pts if y > 0)))
    ymax = 10 ** math.ceil(math.log10(max(y for _, y in pts)))

    def X(x):
        return L + (math.log10(x) - math.log10(xmin)) / (math.log10(xmax) - math.log10(xmin)) * (W - L - R)

    def Y(y):
        return H - B - (math.log10(y) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin)) * (H - T - B)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{L}" y="18" font-size="14" font-weight="bold">{title}</text>']
    settings = sorted({(r["epochs"], r["batch_size"]) for r in runs} | {(p["epochs"], p["batch_size"]) for p in proj})
    sub = "; ".join(f"{e} epoch{'s' if e != 1 else ''}, batch {b}" for e, b in settings)
    o.append(f'<text x="{L}" y="33" font-size="11" fill="#444">{sub}, the same for every engine; '
             f'the guide does not state its settings</text>')
    # grid and axes
    e = int(math.log10(xmin))
    while 10 ** e <= xmax:
        x = X(10 ** e)
        o.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#ddd"/>')
        lab = {4: "10K", 5: "100K", 6: "1M", 7: "10M", 3: "1K", 8: "100M"}.get(e, f"1e{e}")
        o.append(f'<text x="{x:.1f}" y="{H - B + 18}" text-anchor="middle">{lab}</text>')
        e += 1
    e = int(math.log10(ymin))
    ylabels = {-1: "0.1 s", 0: "1 s", 1: "10 s", 2: "100 s", 3: "1,000 s", 4: "10,000 s", 5: "100,000 s"}
    while 10 ** e <= ymax:
        y = Y(10 ** e)
        o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{ylabels.get(e, f"1e{e} s")}</text>')
        e += 1
    for sec, lab in ((60, "1 min"), (3600, "1 h")):
        if ymin < sec < ymax:
            y = Y(sec)
            o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#bbb" stroke-dasharray="2,3"/>')
            o.append(f'<text x="{W - R - 4}" y="{y + 12:.1f}" text-anchor="end" fill="#888">{lab}</text>')
    o.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#444"/>')
    o.append(f'<text x="{(L + W - R) / 2:.0f}" y="{H - 18}" text-anchor="middle">rows in the table '
             f'(= rows generated)</text>')
    o.append(f'<text transform="translate(16,{(T + H - B) / 2:.0f}) rotate(-90)" text-anchor="middle">'
             f'seconds, fit + generate (log)</text>')

    legend = []
    # guide lines
    for i, (name, xy) in enumerate(GUIDE.items()):
        color = "#777" if "3090" in name else "#aaa"
        d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in xy)
        o.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="8,4"/>')
        for x, y in xy:
            o.append(f'<rect x="{X(x) - 3:.1f}" y="{Y(y) - 3:.1f}" width="6" height="6" fill="{color}"/>')
        legend.append((name, color, "8,4", "rect"))
        tenx = [(x, y / 10) for x, y in xy] if "3090" in name else None
        if tenx:
            d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in tenx)
            o.append(f'<polyline points="{d}" fill="none" stroke="#777" stroke-width="1" stroke-dasharray="1,3"/>')
            legend.append(("bar: RTX 3090 ÷ 10", "#777", "1,3", None))
    # measured and projected series
    keys = sorted({k[:3] for k in agg} | {(p["engine"], p["model"], p["device"]) for p in proj})
    for key in keys:
        engine, model, device = key
        color = COLORS.get((engine, model), "#444")
        if device != "cpu":
            color = {"genesis": "#6a1fbf", "reference": "#8c564b"}.get(engine, color)
        meas = sorted((k[3], a["total_s"]) for k, a in agg.items() if k[:3] == key)
        prj = sorted((p["rows"], p["projected_total_s"]) for p in proj
                     if (p["engine"], p["model"], p["device"]) == key)
        dash = "" if device == "cpu" else ' stroke-dasharray="10,2,2,2"'
        if len(meas) > 1:
            d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in meas)
            o.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2.5"{dash}/>')
        if meas and prj:
            d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in [meas[-1]] + prj)
            o.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="4,4"/>')
        for x, y in meas:
            o.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="4.5" fill="{color}"/>')
        for x, y in prj:
            o.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="4.5" fill="white" stroke="{color}" stroke-width="2"/>')
        label = f"{'Genesis' if engine == 'genesis' else 'reference'} {model.upper()}, {device}"
        legend.append((label, color, dash.split('"')[1] if dash else "", "circle"))
    if proj:
        legend.append(("open dot, dashed: projected", "#444", "4,4", "open"))
    ly = T + 10
    for name, color, dashes, marker in legend:
        lx = W - R + 15
        da = f' stroke-dasharray="{dashes}"' if dashes else ""
        o.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 30}" y2="{ly}" stroke="{color}" stroke-width="2.5"{da}/>')
        if marker == "circle":
            o.append(f'<circle cx="{lx + 15}" cy="{ly}" r="4" fill="{color}"/>')
        elif marker == "open":
            o.append(f'<circle cx="{lx + 15}" cy="{ly}" r="4" fill="white" stroke="{color}" stroke-width="2"/>')
        elif marker == "rect":
            o.append(f'<rect x="{lx + 12}" y="{ly - 3}" width="6" height="6" fill="{color}"/>')
        o.append(f'<text x="{lx + 38}" y="{ly + 4}">{name}</text>')
        ly += 20
    machines = sorted({r.get("machine", "?") for r in runs})
    for i, m in enumerate(machines[:3]):
        o.append(f'<text x="{L}" y="{H - 4 - 14 * (len(machines[:3]) - 1 - i)}" font-size="10" fill="#555">'
                 f'measured on: {m}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jsonl", nargs="+")
    ap.add_argument("--svg")
    ap.add_argument("--md")
    ap.add_argument("--title", default="Training across dataset sizes: 50-column table, fit + generate N rows")
    args = ap.parse_args()
    runs, proj = load(args.jsonl)
    if not runs and not proj:
        print("plot_sizes: no results in", " ".join(args.jsonl))
        return 0
    md = markdown(runs, proj)
    if args.md:
        open(args.md, "w").write(md)
    if args.svg:
        open(args.svg, "w").write(svg(runs, proj, args.title))
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
