#!/usr/bin/env bash
# steps.sh — does DDPM keep its quality with 50 strided reverse steps instead of 100? For each
# TABLE.csv:TARGET, fits DDPM at its defaults once (seed 0), then samples the table's row count
# at 100 and at 50 steps with sampling seeds 1..SEEDS, and scores each sample: `genesis
# evaluate` (quality: column shapes, pair trends; logistic detection) and the marginal criteria
# of bench/quality/marginals.py. The spread between sampling seeds at one step count is the
# noise a difference between step counts is read against. One line per sample in OUT/steps.tsv.
# Usage: steps.sh OUT "TABLE.csv:TARGET ..." (GENESIS, PYTHON with pandas, THREADS, SEEDS)
set -u
OUT=${1:?usage: steps.sh OUT "TABLE.csv:TARGET ..."}; SPECS=${2:?tables}
G=${GENESIS:-build/genesis}; PY=${PYTHON:-python3}; THREADS=${THREADS:-1}; SEEDS=${SEEDS:-2}
HERE=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$OUT"
[ -f "$OUT/steps.tsv" ] || printf 'table\tsteps\tseed\tsample_s\tquality\tshapes\tpair_trends\tdetection_lr\tmissing_failed\trare_failed\ttarget_failed\ttarget_gap_points\tworst_ratio\n' >"$OUT/steps.tsv"
for spec in $SPECS; do
    t=${spec%%:*}; target=${spec#*:}; name=$(basename "$t" .csv)
    [ -f "$OUT/$name.gen" ] || "$G" fit -q -i "$t" -m "$OUT/$name.gen" --method ddpm --seed 0 \
        --threads "$THREADS" || { echo "steps: $name: fit failed" >&2; continue; }
    n=$(($(wc -l <"$t") - 1))
    for seed in $(seq 1 "$SEEDS"); do
        for steps in 100 50; do
            tag="$name.$steps.s$seed"
            grep -q "^$name	$steps	$seed	" "$OUT/steps.tsv" && continue
            t0=$(date +%s.%N)
            "$G" sample -q -m "$OUT/$name.gen" -o "$OUT/$tag.csv" -n "$n" --seed "$seed" \
                --sample-steps "$steps" --threads "$THREADS" || { echo "steps: $tag: sample failed" >&2; continue; }
            t1=$(date +%s.%N)
            "$G" evaluate -q --real "$t" --synthetic "$OUT/$tag.csv" --json --skip privacy,usefulness \
                --threads "$THREADS" >"$OUT/$tag.eval.json" 2>"$OUT/$tag.log"
            "$PY" "$HERE/bench/quality/marginals.py" "$t" "$OUT/$tag.csv" --target "$target" \
                --json "$OUT/$tag.marg.json" >"$OUT/$tag.marg.txt" 2>>"$OUT/$tag.log"
            "$PY" - "$OUT/$tag.eval.json" "$OUT/$tag.marg.json" "$name" "$steps" "$seed" \
                "$(echo "$t1 - $t0" | bc)" >>"$OUT/steps.tsv" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["scores"]; mg = json.load(open(sys.argv[2]))
name, steps, seed, secs = sys.argv[3:7]
f = lambda v: "" if v is None else f"{v:.4f}"
print("\t".join([name, steps, seed, f"{float(secs):.1f}", f(ev.get("quality")), f(ev.get("column_shapes")),
                 f(ev.get("column_pair_trends")), f(ev.get("detection")), str(mg["missing_failed"]),
                 str(mg["rare_failed"]), str(mg["target_failed"]), f"{mg['target_max_gap_points']:.2f}",
                 f"{mg['worst_ratio']:.2f}"]))
PY
            rm -f "$OUT/$tag.csv"
        done
    done
done
column -t -s $'\t' "$OUT/steps.tsv"
