#!/usr/bin/env python3
"""ncu_summary.py — Nsight Compute's raw CSV page (`ncu --csv --page raw --metrics
gpu__time_duration.sum --log-file F ...`) summed per kernel: launches, total and mean device
time, grid and block of the first launch; then the total. bench/gpu_session.sh's `kernels`
phase prints it as Markdown.

    python3 bench/ncu_summary.py ncu.csv [MARKER]

MARKER (default k_step_advance, launched once per training step): its launch count is taken
as the number of steps timed, and the device time and kernels per step are printed from it.
"""
import csv
import sys


def main(path, marker="k_step_advance"):
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        print("no kernel rows in %s (ncu printed: %s)" % (path, " ".join(lines[-3:])[:300]))
        return 1
    rows = list(csv.reader(lines[start:]))
    head, rows = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(head)}
    units = ""
    if rows and not rows[0][col["ID"]].strip().isdigit():  # the units row
        units = rows[0][col["gpu__time_duration.sum"]]
        rows = rows[1:]
    scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}.get(units, 1e-3)
    per = {}
    for r in rows:
        name = r[col["Kernel Name"]].split("(")[0].strip()
        try:
            t = float(r[col["gpu__time_duration.sum"]].replace(",", "")) * scale
        except ValueError:
            continue
        e = per.setdefault(name, [0, 0.0, r[col.get("Grid Size", 0)], r[col.get("Block Size", 0)]])
        e[0] += 1
        e[1] += t
    total = sum(e[1] for e in per.values())
    n = sum(e[0] for e in per.values())
    print("| kernel | launches | total us | mean us | share | grid | block |")
    print("|---|---|---|---|---|---|---|")
    for name, (c, t, g, b) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        print("| %s | %d | %.1f | %.2f | %.1f%% | %s | %s |" % (name[:60], c, t, t / c, 100 * t / total, g, b))
    print("")
    print("%d kernels timed, %.1f us of device time in all, %.2f us per kernel on average (unit read: %s)"
          % (n, total, total / max(n, 1), units or "assumed nsecond"))
    steps = per.get(marker, [0])[0]
    if steps:
        print("")
        print("%s launched %d times: about %.0f kernels and %.1f us of device time per step"
              % (marker, steps, n / steps, total / steps))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
