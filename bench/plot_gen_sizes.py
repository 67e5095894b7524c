#!/usr/bin/env python3
"""plot_gen_sizes.py — the plot of benchmark table 1 (bench/gen_sizes.sh): seconds to write n
rows (log-log) and peak memory (host, and device where measured) against n, one line per
device, as a hand-written SVG (no third-party packages).

    python3 bench/plot_gen_sizes.py bench/results/gen_sizes_*.jsonl --svg docs/img/gen_sizes.svg
"""
import argparse
import json
import math

COLORS = {"cpu": "#1f5fbf", "cuda": "#2e9e4a"}


def load(paths):
    rows = []
    for p in paths:
        for line in open(p):
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                if r.get("bench") == "gen_sizes":
                    rows.append(r)
    return rows


def panel(out, x0, y0, w, h, series, ylabel, ylog, xmin, xmax, ymin, ymax):
    def X(v):
        return x0 + w * (math.log10(v) - math.log10(xmin)) / (math.log10(xmax) - math.log10(xmin))

    def Y(v):
        if ylog:
            return y0 + h - h * (math.log10(v) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin))
        return y0 + h - h * (v - ymin) / (ymax - ymin)

    out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#444"/>')
    n = xmin
    while n <= xmax:
        out.append(f'<line x1="{X(n):.1f}" y1="{y0}" x2="{X(n):.1f}" y2="{y0 + h}" stroke="#ddd"/>')
        label = f"{n // 1000000}M" if n >= 1000000 else f"{n // 1000}K"
        out.append(f'<text x="{X(n):.1f}" y="{y0 + h + 16}" text-anchor="middle">{label}</text>')
        n *= 10
    ticks = []
    if ylog:
        t = 10 ** math.floor(math.log10(ymin))
        while t <= ymax:
            if t >= ymin:
                ticks.append(t)
            t *= 10
    else:
        step = (ymax - ymin) / 4
        ticks = [ymin + i * step for i in range(5)]
    for t in ticks:
        out.append(f'<line x1="{x0}" y1="{Y(t):.1f}" x2="{x0 + w}" y2="{Y(t):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{x0 - 6}" y="{Y(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(f'<text transform="translate({x0 - 46},{y0 + h / 2}) rotate(-90)" text-anchor="middle">{ylabel}</text>')
    for name, color, pts in series:
        pts = sorted(pts)
        out.append('<polyline points="' + " ".join(f"{X(a):.1f},{Y(b):.1f}" for a, b in pts) +
                   f'" fill="none" stroke="{color}" stroke-width="2.5"/>')
        for a, b in pts:
            out.append(f'<circle cx="{X(a):.1f}" cy="{Y(b):.1f}" r="4" fill="{color}"/>')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl", nargs="+")
    ap.add_argument("--svg", required=True)
    a = ap.parse_args()
    rows = load(a.jsonl)
    devices = sorted({r["device"] for r in rows})
    xs = [r["rows"] for r in rows]
    xmin = 10 ** math.floor(math.log10(min(xs)))
    xmax = 10 ** math.ceil(math.log10(max(xs)))
    secs = [r["seconds"] for r in rows]
    tmin = 10 ** math.floor(math.log10(min(secs)))
    tmax = 10 ** math.ceil(math.log10(max(secs)))
    time_series, mem_series = [], []
    mem_max = 0
    for d in devices:
        rs = [r for r in rows if r["device"] == d]
        c = COLORS.get(d, "#777")
        time_series.append((d, c, [(r["rows"], r["seconds"]) for r in rs]))
        mem_series.append((f"{d} host", c, [(r["rows"], r["peak_host"] / 2**20) for r in rs]))
        mem_max = max(mem_max, max(r["peak_host"] / 2**20 for r in rs))
        if any(r.get("peak_device") for r in rs):
            mem_series.append((f"{d} device", "#e08a1e", [(r["rows"], r["peak_device"] / 2**20) for r in rs]))
            mem_max = max(mem_max, max(r["peak_device"] / 2**20 for r in rs))
    W, H = 900, 420
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="12">', f'<rect width="{W}" height="{H}" fill="white"/>',
           '<text x="70" y="20" font-size="14" font-weight="bold">Generation to CSV across n '
           '(one Adult CTGAN model, batches sized from memory)</text>']
    panel(out, 80, 50, 330, 300, time_series, "seconds (log)", True, xmin, xmax, tmin, tmax)
    panel(out, 520, 50, 330, 300, mem_series, "peak memory, MiB", False, xmin, xmax, 0,
          max(64, math.ceil(mem_max * 1.15 / 32) * 32))
    out.append('<text x="245" y="395" text-anchor="middle">rows written</text>')
    out.append('<text x="685" y="395" text-anchor="middle">rows written (memory stays flat)</text>')
    y = 70
    for d in devices:
        out.append(f'<line x1="100" y1="{y}" x2="125" y2="{y}" stroke="{COLORS.get(d, "#777")}" stroke-width="2.5"/>'
                   f'<text x="131" y="{y + 4}">{d}</text>')
        y += 16
    machines = sorted({r.get("machine", "") for r in rows})
    out.append(f'<text x="70" y="{H - 6}" font-size="10" fill="#555">measured on: {"; ".join(machines)}; '
               f'load {rows[0].get("load", "?")} (see docs/benchmarks.md)</text>')
    out.append("</svg>")
    open(a.svg, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
