#!/usr/bin/env bash
# defaults.sh — which method should `genesis generate` use when none is named? Fits each method
# at its default settings on each table, writes as many rows as the table has, and scores them:
# the marginals a user checks first (bench/quality/marginals.py: missing values, rare
# categories, the target's class rates) and `genesis evaluate`'s pair trends, logistic and
# XGBoost detection. One line per (table, method) in OUT/results.tsv, then a table.
#
#   bash bench/quality/defaults.sh OUT "TABLE.csv:TARGET ..." ["ctgan tvae ddpm"] [SEED]
#
# A (table, method) already in OUT/results.tsv is skipped; rows already written by an
# interrupted run (OUT/TAG.csv with an empty log) are scored without fitting again (their
# seconds then read 0).
#
# GENESIS (default build/genesis) is the binary; PYTHON needs pandas (marginals.py). Tables are
# the user's; the measurement in docs/benchmarks.md names the ones used and where they came from.
set -u
HERE=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: defaults.sh OUT "TABLE.csv:TARGET ..." [methods] [seed]}
TABLES=${2:?tables}
METHODS=${3:-ctgan tvae ddpm}
SEED=${4:-0}
GENESIS=${GENESIS:-$HERE/build/genesis}
PYTHON=${PYTHON:-python3}
THREADS=${THREADS:-2}
mkdir -p "$OUT"
[ -f "$OUT/results.tsv" ] || printf 'table\tmethod\tseed\tfit_generate_s\tmissing_failed\tmissing_checked\trare_failed\trare_checked\ttarget_failed\ttarget_gap_points\tworst_ratio\tpair_trends\tdetection_lr\tdetection_xgb\n' >"$OUT/results.tsv"
for spec in $TABLES; do
    t=${spec%%:*}; target=${spec#*:}; name=$(basename "$t" .csv)
    for m in $METHODS; do
        tag="$name.$m.s$SEED"
        if grep -q "^$name	$m	$SEED	" "$OUT/results.tsv"; then continue; fi
        t0=$(date +%s.%N)
        if [ -s "$OUT/$tag.csv" ] && [ ! -s "$OUT/$tag.log" ]; then
            t0=""   # rows from an earlier, interrupted run of this script: kept
        elif ! "$GENESIS" generate -q -i "$t" -o "$OUT/$tag.csv" --method "$m" --seed "$SEED" \
            --threads "$THREADS" >"$OUT/$tag.log" 2>&1; then
            echo "defaults: $tag: generate failed: $(tail -1 "$OUT/$tag.log")" >&2; continue
        fi
        t1=$(date +%s.%N); [ -z "$t0" ] && t0=$t1
        "$GENESIS" evaluate -q --real "$t" --synthetic "$OUT/$tag.csv" --json --skip privacy \
            --threads "$THREADS" >"$OUT/$tag.eval.json" 2>>"$OUT/$tag.log"
        "$PYTHON" "$HERE/bench/quality/marginals.py" "$t" "$OUT/$tag.csv" --target "$target" \
            --json "$OUT/$tag.marg.json" >"$OUT/$tag.marg.txt" 2>>"$OUT/$tag.log"
        "$PYTHON" - "$OUT/$tag.eval.json" "$OUT/$tag.marg.json" "$name" "$m" "$SEED" \
            "$(echo "$t1 - $t0" | bc)" >>"$OUT/results.tsv" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["scores"]; mg = json.load(open(sys.argv[2]))
name, m, seed, secs = sys.argv[3:7]
f = lambda v: "" if v is None else f"{v:.3f}"
print("\t".join([name, m, seed, f"{float(secs):.1f}", str(mg["missing_failed"]), str(mg["missing_checked"]),
                 str(mg["rare_failed"]), str(mg["rare_checked"]), str(mg["target_failed"]),
                 f"{mg['target_max_gap_points']:.2f}", f"{mg['worst_ratio']:.2f}",
                 f(ev.get("column_pair_trends")), f(ev.get("detection")), f(ev.get("detection_xgboost"))]))
PY
        echo "defaults: $tag done: $(tail -1 "$OUT/$tag.marg.txt")"
    done
done
column -t -s $'\t' "$OUT/results.tsv"
