#!/usr/bin/env python3
"""csvcheck.py — CSV assertions for the CLI shell tests (parses quoting properly).

Each command prints what it found; on a failed assertion it prints a reason on stdout and
exits 1 (2 for bad usage / unreadable files).

  count SYN                         number of data records; every record must have as many
                                    fields as the header
  same-header REAL SYN              the two files have the same header
  only SYN COL VALUE [VALUE ...]    every value of COL is one of the VALUEs (exact text)
  missing SYN COL                   every value of COL is a missing-value token
  subset REAL SYN [COL ...]         values of each COL in SYN all occur in REAL's COL; without
                                    COLs: every categorical-looking column of REAL (a value
                                    that is not a number, or at most 10 distinct values)
  integers REAL SYN [COL ...]       each COL (default: every integer-valued column of REAL
                                    with more than 10 distinct values) has only whole numbers
                                    (or missing values) inside REAL's [min, max]
  numbers REAL SYN COL              COL has only numbers (or missing values) inside REAL's
                                    [min, max]
"""
import csv
import math
import re
import sys

MISSING = {"", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None"}
INT_RE = re.compile(r"^[+-]?\d+$")


def read(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {path}: {e}")
        sys.exit(2)
    if not rows:
        print(f"{path}: empty file (no header)")
        sys.exit(1)
    return rows[0], rows[1:]


def column(path, name):
    head, rows = read(path)
    if name not in head:
        print(f"{path}: no column {name!r} in header {head}")
        sys.exit(1)
    i = head.index(name)
    return [r[i] for r in rows if len(r) == len(head)]


def is_missing(v):
    return v.strip() in MISSING


def as_float(v):
    try:
        x = float(v.strip())
    except ValueError:
        return None
    return x


def categorical_like(vals):
    nm = [v for v in vals if not is_missing(v)]
    if any(as_float(v) is None or not math.isfinite(as_float(v)) for v in nm):
        return True
    return len(set(nm)) <= 10


def integer_like(vals):
    nm = [v for v in vals if not is_missing(v)]
    return bool(nm) and all(INT_RE.match(v.strip()) for v in nm) and len(set(nm)) > 10


def fail(msg):
    print(msg)
    sys.exit(1)


def cmd_count(syn):
    head, rows = read(syn)
    bad = [i + 2 for i, r in enumerate(rows) if len(r) != len(head)]
    if bad:
        fail(f"{syn}: {len(bad)} records do not have {len(head)} fields (first at record {bad[0]})")
    print(len(rows))


def cmd_same_header(real, syn):
    h1, _ = read(real)
    h2, _ = read(syn)
    if h1 != h2:
        fail(f"header differs:\n  real: {h1}\n  syn:  {h2}")
    print("header ok:", len(h1), "columns")


def cmd_only(syn, col, values):
    vals = column(syn, col)
    bad = sorted({v for v in vals if v not in values})
    if bad:
        fail(f"{col}: {len(bad)} unexpected values, e.g. {bad[:5]} (allowed: {values})")
    if not vals:
        fail(f"{col}: no values")
    print(f"{col}: all {len(vals)} values in {values}")


def cmd_missing(syn, col):
    vals = column(syn, col)
    bad = sorted({v for v in vals if not is_missing(v)})
    if bad:
        fail(f"{col}: non-missing values {bad[:5]}")
    print(f"{col}: all {len(vals)} values missing")


def cmd_subset(real, syn, cols):
    head, _ = read(real)
    if not cols:
        cols = [c for c in head if categorical_like(column(real, c))]
    if not cols:
        fail("no categorical-looking columns to check")
    for c in cols:
        allowed = set(column(real, c))
        out = column(syn, c)
        bad = sorted({v for v in out if v not in allowed})
        if bad:
            fail(f"{c}: {len(bad)} values never seen in the input, e.g. {bad[:5]}")
    print(f"categories ok in {len(cols)} columns: {cols}")


def num_range(real, c):
    xs = [as_float(v) for v in column(real, c) if not is_missing(v)]
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    if not xs:
        fail(f"{c}: no finite numbers in the input")
    return min(xs), max(xs)


def cmd_integers(real, syn, cols):
    head, _ = read(real)
    if not cols:
        cols = [c for c in head if integer_like(column(real, c))]
    if not cols:
        fail("no integer-valued columns to check")
    for c in cols:
        lo, hi = num_range(real, c)
        for v in column(syn, c):
            if is_missing(v):
                continue
            if not INT_RE.match(v.strip()):
                fail(f"{c}: {v!r} is not a whole number")
            if not (lo <= int(v) <= hi):
                fail(f"{c}: {v} is outside the input's range [{lo:g}, {hi:g}]")
    print(f"integers ok in {len(cols)} columns: {cols}")


def cmd_numbers(real, syn, c):
    lo, hi = num_range(real, c)
    n = 0
    for v in column(syn, c):
        if is_missing(v):
            continue
        x = as_float(v)
        if x is None or not math.isfinite(x):
            fail(f"{c}: {v!r} is not a finite number")
        if not (lo <= x <= hi):
            fail(f"{c}: {v} is outside the input's range [{lo:g}, {hi:g}]")
        n += 1
    print(f"{c}: {n} numbers inside [{lo:g}, {hi:g}]")


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, a = argv[1], argv[2:]
    if cmd == "count" and len(a) == 1:
        cmd_count(a[0])
    elif cmd == "same-header" and len(a) == 2:
        cmd_same_header(a[0], a[1])
    elif cmd == "only" and len(a) >= 3:
        cmd_only(a[0], a[1], a[2:])
    elif cmd == "missing" and len(a) == 2:
        cmd_missing(a[0], a[1])
    elif cmd == "subset" and len(a) >= 2:
        cmd_subset(a[0], a[1], a[2:])
    elif cmd == "integers" and len(a) >= 2:
        cmd_integers(a[0], a[1], a[2:])
    elif cmd == "numbers" and len(a) == 3:
        cmd_numbers(a[0], a[1], a[2])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
