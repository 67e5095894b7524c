#!/usr/bin/env python3
"""summarize.py DIR — the quality.sh runs of DIR/before.jsonl and DIR/after.jsonl side by side:
per table and seed, quality, column shapes, pair trends, logistic and XGBoost detection."""
import json, sys

def load(path):
    dec, out, s = json.JSONDecoder(), [], open(path).read()
    i = 0
    while True:
        while i < len(s) and s[i].isspace():
            i += 1
        if i >= len(s):
            return out
        obj, i = dec.raw_decode(s, i)
        out.append(obj)

d = sys.argv[1]
rows = {}
for lab in ("before", "after"):
    try:
        for r in load(f"{d}/{lab}.jsonl"):
            rows[(r["table"], r["seed"], lab)] = r
    except FileNotFoundError:
        pass
keys = ("quality", "column_shapes", "column_pair_trends", "detection", "detection_xgboost")
print("| table | seed | run | fit s | " + " | ".join(keys) + " |")
print("|---|---|---|---|" + "---|" * len(keys))
for (t, s, lab) in sorted(rows, key=lambda k: (k[0], k[1], k[2] != "before")):
    r = rows[(t, s, lab)]
    sc = r["eval"]["scores"]
    print(f"| {t} | {s} | {lab} | {r['fit_s']:.1f} | " +
          " | ".join(f"{sc[k]:.4f}" if sc.get(k) is not None else "-" for k in keys) + " |")
print()
print("| table | run | " + " | ".join(f"mean {k}" for k in keys) + " |")
print("|---|---|" + "---|" * len(keys))
for t in sorted({k[0] for k in rows}):
    for lab in ("before", "after"):
        rs = [rows[k] for k in rows if k[0] == t and k[2] == lab]
        if not rs:
            continue
        print(f"| {t} | {lab} (n={len(rs)}) | " + " | ".join(
            f"{sum(r['eval']['scores'][k] for r in rs) / len(rs):.4f}" for k in keys) + " |")
