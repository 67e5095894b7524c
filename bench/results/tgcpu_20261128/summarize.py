#!/usr/bin/env python3
"""summarize.py — means and ratios of side_by_side.txt (bench_timegan --iters 0 runs of the
base, main and this tree, alternated): CPU seconds per 1,000 iterations of each phase, GFLOP/s
per CPU second, and the joint phase's breakdown (GRU forward, backward, linear forward,
backward, the rest)."""
import re
import sys
from collections import defaultdict

txt = open(sys.argv[1] if len(sys.argv) > 1 else "side_by_side.txt").read()
d = defaultdict(lambda: defaultdict(list))
for r in re.split(r"^== ", txt, flags=re.M)[1:]:
    name = r.split()[0]
    for ph, cpu, gf in re.findall(r"phase (\d) .*?\(([\d.]+) CPU s; [\d.]+ GFLOP per iteration, "
                                  r"[\d.]+ GFLOP/s wall, ([\d.]+) per CPU s", r):
        d[name][ph].append((float(cpu), float(gf)))
    brk = re.findall(r"CPU s per 1,000: GRU forward ([\d.]+), backward ([\d.]+), linear forward "
                     r"([\d.]+), backward ([\d.]+), the rest ([\d.]+)", r)
    if len(brk) == 3:
        d[name]["brk"].append(tuple(map(float, brk[2])))
mean = lambda v: sum(v) / len(v)
for n in d:
    for ph in "123":
        v = d[n][ph]
        print(f"{n:7s} phase {ph}: CPU s {[x for x, _ in v]} mean {mean([x for x, _ in v]):.1f}; "
              f"GFLOP/s per CPU s {[g for _, g in v]}")
    b = d[n]["brk"]
    print(f"{n:7s} joint breakdown (GRU fwd, bwd, linear fwd, bwd, rest) means",
          [round(mean([x[i] for x in b]), 1) for i in range(5)])
for ph in "123":
    mb, mm, mr = (mean([x for x, _ in d[k][ph]]) for k in ("base", "main", "branch"))
    pp = ["%.2f" % (a[0] / b[0]) for a, b in zip(d["base"][ph], d["branch"][ph])]
    print(f"phase {ph}: base/branch {mb / mr:.2f} (per pair {pp}), main/branch {mm / mr:.2f}")
