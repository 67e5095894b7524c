#!/usr/bin/env python3
"""kernel_times.py — one table per training step's kernels, from either source:

  kernel_times.py ncu FILE.csv [STEP_KERNEL]   Nsight Compute's CSV (`ncu --csv --metrics
      gpu__time_duration.sum ...`): per kernel name (parameters dropped) the launches,
      total, mean, min and max device time, grid and block, sorted by total; STEP_KERNEL (a
      kernel that runs once a step, default k_select_block) gives the steps in the window and
      the device time per step.
  kernel_times.py trace FILE [STEP_KERNEL]     the emulated runtime's GENESIS_CUEMU_TRACE
      (lines `kernel NAME grid X.. block X.. smem N`): the same table with launches and launch
      configurations only (no times: the emulator does not model them).

Standard library only (run on the GPU machine by bench/gpu_session.sh, phase `kernels`).
"""
import csv
import sys
from collections import OrderedDict

UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
         "s": 1e6, "second": 1e6}


def read_ncu(path):
    """(name, grid, block, microseconds) per profiled kernel."""
    with open(path, newline="") as f:
        lines = [ln for ln in f if ln.startswith('"')]  # ncu's own ==PROF== lines dropped
    rows = list(csv.reader(lines))
    if not rows:
        return []
    head = rows[0]
    col = {h: i for i, h in enumerate(head)}
    need = ["Kernel Name", "Metric Name", "Metric Unit", "Metric Value"]
    missing = [h for h in need if h not in col]
    if missing:
        raise SystemExit(f"{path}: no column(s) {missing} in ncu's CSV header {head}")
    out = []
    for r in rows[1:]:
        if len(r) < len(head) or r[col["Metric Name"]] != "gpu__time_duration.sum":
            continue
        unit = r[col["Metric Unit"]].strip()
        try:
            v = float(r[col["Metric Value"]].replace(",", ""))
        except ValueError:
            continue
        name = r[col["Kernel Name"]].split("(")[0].strip()  # demangled: drop the parameters
        if name.startswith("void "):
            name = name[5:]
        out.append((name, r[col["Grid Size"]] if "Grid Size" in col else "",
                    r[col["Block Size"]] if "Block Size" in col else "", v * UNITS.get(unit, 1.0)))
    return out


def read_trace(path):
    out = []
    for ln in open(path):
        p = ln.split()
        if len(p) >= 6 and p[0] == "kernel" and p[2] == "grid" and p[4] == "block":
            out.append((p[1], "(" + p[3].replace("x", ", ") + ")",
                        "(" + p[5].replace("x", ", ") + ")", None))
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("ncu", "trace"):
        raise SystemExit(__doc__)
    rec = read_ncu(sys.argv[2]) if sys.argv[1] == "ncu" else read_trace(sys.argv[2])
    step_k = sys.argv[3] if len(sys.argv) > 3 else "k_select_block"
    if not rec:
        raise SystemExit(f"{sys.argv[2]}: no kernels")
    by = OrderedDict()
    for name, grid, block, us in rec:
        e = by.setdefault(name, {"n": 0, "t": 0.0, "lo": None, "hi": None, "cfg": set()})
        e["n"] += 1
        e["cfg"].add(f"{grid} x {block}")
        if us is not None:
            e["t"] += us
            e["lo"] = us if e["lo"] is None else min(e["lo"], us)
            e["hi"] = us if e["hi"] is None else max(e["hi"], us)
    steps = by[step_k]["n"] if step_k in by else 0
    total = sum(e["t"] for e in by.values())
    timed = sys.argv[1] == "ncu"
    print(f"{len(rec)} kernels, {len(by)} names; {steps} steps (launches of {step_k})"
          + (f"; device time {total:.1f} us" + (f", {total / steps:.1f} us a step" if steps else "")
             if timed else ""))
    print()
    if timed:
        print("| kernel | launches | per step | total us | share | mean us | min us | max us | grid x block |")
        print("|---|---|---|---|---|---|---|---|---|")
    else:
        print("| kernel | launches | per step | grid x block |")
        print("|---|---|---|---|")
    order = sorted(by.items(), key=lambda kv: -kv[1]["t"]) if timed else by.items()
    for name, e in order:
        ps = f"{e['n'] / steps:.2f}" if steps else ""
        cfg = "; ".join(sorted(e["cfg"]))[:160]
        short = name if len(name) <= 70 else name[:67] + "..."
        if timed:
            print(f"| {short} | {e['n']} | {ps} | {e['t']:.1f} | {100 * e['t'] / total:.1f}% | "
                  f"{e['t'] / e['n']:.2f} | {e['lo']:.2f} | {e['hi']:.2f} | {cfg} |")
        else:
            print(f"| {short} | {e['n']} | {ps} | {cfg} |")


if __name__ == "__main__":
    main()
