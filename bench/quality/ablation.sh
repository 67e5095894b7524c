#!/usr/bin/env bash
# ablation.sh — which of Genesis's departures from the reference CTGAN/TVAE costs fidelity on
# tables with strongly correlated continuous columns (bench/results/ablation_20261125T174839Z/NOTES.md, "Fidelity ablation
# on correlated tables"). For each table, model and seed it fits Genesis with the defaults and
# with each switch flipped in turn, draws as many rows as the training split, and scores them
# with `genesis evaluate` against the training split (overall quality, column shapes, pair
# trends over all pairs and over the strongly related pairs only, data validity, logistic
# detection).
#
# Switches (docs/api.md, parameter table), default -> flipped:
#   fit time:    --point-masses 1 -> 0, --log-frequency 1 -> 0 (CTGAN),
#                --max-categories 500 -> 1048576 (fitted only when a column has more than 500
#                levels; otherwise the model is the default one by construction)
#   sample time (same fitted model as the default): --clamp-range 1 -> 0,
#                --bn-eval-sample 0 -> 1 (CTGAN), --sample-argmax 0 -> 1 (TVAE)
#   TVAE's decoder layout: apm1 = --alpha-per-mode 1 (one alpha per GMM mode) fitted, and
#                apm1argmax1 = the apm1 fit sampled with --sample-argmax 1
#
# Split: the rows are shuffled with a fixed seed (Python's random.Random(20261125)); the first
# 80% are the training split, capped at MAX_ROWS rows, the last 20% the holdout (written
# beside the runs, not scored here). Each fit runs on one thread under nice; JOBS run at once.
#
#   bash bench/quality/ablation.sh [epochs=50] [seeds="1"] \
#        [tables="california_housing energy_data covertype_sample15k"] [models="ctgan tvae"] \
#        [configs="default pm0 lf0 mc clamp0 bn1 argmax1"] [max_rows=10000] [jobs=2]
#   (configs may add apm1 apm1argmax1; the default list is the one of the first table)
#
# Data: the tables are public (UCI / scikit-learn California housing, UCI appliances energy,
# UCI covertype sample; see docs/benchmarks.md, "Five public tables") and not shipped with the
# repository. They are read from $GENESIS_DATA (default ../shared/data, a sibling folder of the developers' setup);
# a missing table is skipped with a message, and with none present the script exits 0.
# GENESIS_BIN (default build/genesis) is the binary; OUT the result folder
# (default bench/results/ablation_<time>). Results: OUT/runs.jsonl (one line per run),
# OUT/<run>.eval.json (every per-pair score), OUT/table.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATADIR=${GENESIS_DATA:-../shared/data}
EPOCHS=${1:-50}
SEEDS=${2:-1}
TABLES=${3:-california_housing energy_data covertype_sample15k}
MODELS=${4:-ctgan tvae}
CONFIGS=${5:-default pm0 lf0 mc clamp0 bn1 argmax1}
MAX_ROWS=${6:-10000}
JOBS=${7:-2}
GEN=${GENESIS_BIN:-build/genesis}
OUT=${OUT:-bench/results/ablation_$(date -u +%Y%m%dT%H%M%SZ)}
present=""
for t in $TABLES; do
  if [ -f "$DATADIR/$t.csv" ]; then present="$present $t"
  else echo "ablation: $DATADIR/$t.csv not found (set GENESIS_DATA); skipping $t"; fi
done
[ -n "$present" ] || { echo "ablation: no table found; skipping"; exit 0; }
[ -x "$GEN" ] || { echo "ablation: $GEN not found (build it or set GENESIS_BIN)"; exit 1; }
mkdir -p "$OUT"
echo "ablation: $EPOCHS epochs, seeds $SEEDS, tables$present, $MODELS, $CONFIGS -> $OUT"

# deterministic split; prints the largest number of distinct levels of a non-numeric column
split_table() {
  python3 - "$DATADIR/$1.csv" "$OUT/$1.train.csv" "$OUT/$1.holdout.csv" "$MAX_ROWS" <<'EOF'
import csv, random, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
random.Random(20261125).shuffle(body)
ntr = int(0.8 * len(body))
train, hold = body[:ntr][:int(sys.argv[4])], body[ntr:]
for path, part in ((sys.argv[2], train), (sys.argv[3], hold)):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        w.writerows(part)
def num(x):
    try: float(x); return True
    except ValueError: return x.strip() == ""
levels = [len(set(c)) for c in zip(*train) if not all(num(x) for x in c)]
print(max(levels, default=0))
EOF
}
for t in $present; do
  [ -f "$OUT/$t.train.csv" ] || split_table "$t" > "$OUT/$t.maxlevels"
done

# fit_flags CONFIG MODEL -> flags for fit ("-" when the configuration needs no fit of its
# own, "skip" when it does not apply to the model)
fit_flags() {
  case $1 in
    default) echo "" ;;
    pm0) echo "--point-masses 0" ;;
    lf0) [ "$2" = ctgan ] && echo "--log-frequency 0" || echo skip ;;
    mc) echo "--max-categories 1048576" ;;
    clamp0) echo "-" ;;
    bn1) [ "$2" = ctgan ] && echo "-" || echo skip ;;
    argmax1) [ "$2" = tvae ] && echo "-" || echo skip ;;
    apm1) [ "$2" = tvae ] && echo "--alpha-per-mode 1" || echo skip ;;
    apm1argmax1) [ "$2" = tvae ] && echo "-" || echo skip ;;
  esac
}
# the fit a sample-time configuration draws from
base_of() {
  case $1 in
    apm1argmax1) echo apm1 ;;
    *) echo default ;;
  esac
}
sample_flags() {
  case $1 in
    clamp0) echo "--clamp-range 0" ;;
    bn1) echo "--bn-eval-sample 1" ;;
    argmax1|apm1argmax1) echo "--sample-argmax 1" ;;
    *) echo "" ;;
  esac
}

# score TABLE MODEL CONFIG SEED FIT_S NOTE: evaluate OUT/<tag>.csv and append a JSON line
score() {
  local t=$1 m=$2 c=$3 s=$4 tag="$1_$2_$3_s$4"
  OMP_NUM_THREADS=1 nice -n 10 "$GEN" evaluate --real "$OUT/$t.train.csv" \
    --synthetic "$OUT/$tag.csv" --skip privacy,usefulness --json -q --threads 1 \
    > "$OUT/$tag.eval.json"
  python3 - "$OUT/$tag.eval.json" "$t" "$m" "$c" "$s" "$EPOCHS" "$5" "$6" >> "$OUT/runs.jsonl" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
sc = d["scores"]
pairs = d["quality"]["column_pair_trends"]
strong_cc = [p for p in pairs if p["meets_threshold"] and p["metric"] == "CorrelationSimilarity"]
gap = [abs(p["real_correlation"] - p["synthetic_correlation"]) for p in strong_cc
       if p.get("real_correlation") is not None and p.get("synthetic_correlation") is not None]
print(json.dumps({"table": sys.argv[2], "model": sys.argv[3], "config": sys.argv[4],
                  "seed": int(sys.argv[5]), "epochs": int(sys.argv[6]),
                  "fit_s": float(sys.argv[7]) if sys.argv[7] else None, "note": sys.argv[8] or None,
                  "rows": d["real"]["rows"],
                  "quality": sc["quality"], "column_shapes": sc["column_shapes"],
                  "pair_trends": sc["column_pair_trends"],
                  "pair_trends_threshold": sc["column_pair_trends_threshold"],
                  "strong_pairs": d["quality"]["threshold"]["pairs_counted"],
                  "strong_corr_pairs": len(strong_cc),
                  "strong_corr_mean_abs_gap": round(sum(gap) / len(gap), 4) if gap else None,
                  "data_validity": sc["data_validity"], "detection": sc["detection"]}))
EOF
}

# one fit (and every sampling configuration that reuses it)
run_fit() {
  local t=$1 m=$2 c=$3 s=$4 flags tag="$1_$2_$3_s$4"
  flags=$(fit_flags "$c" "$m")
  local n; n=$(($(wc -l < "$OUT/$t.train.csv") - 1))
  if [ "$c" = mc ] && [ "$(cat "$OUT/$t.maxlevels")" -le 500 ]; then
    echo "{\"table\":\"$t\",\"model\":\"$m\",\"config\":\"mc\",\"seed\":$s,\"note\":\"no column over 500 levels: the default model\"}" >> "$OUT/runs.jsonl"
    return 0
  fi
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  if ! OMP_NUM_THREADS=1 nice -n 10 "$GEN" fit --method "$m" -i "$OUT/$t.train.csv" \
      -m "$OUT/$tag.gen" --epochs "$EPOCHS" --seed "$s" --threads 1 $flags \
      > "$OUT/$tag.fit.log" 2>&1; then
    echo "{\"table\":\"$t\",\"model\":\"$m\",\"config\":\"$c\",\"seed\":$s,\"failed\":\"fit\"}" >> "$OUT/runs.jsonl"
    return 0
  fi
  t1=$(date +%s.%N)
  local fit_s; fit_s=$(python3 -c "print(round($t1 - $t0, 1))")
  # the default fit (apm1: its own) also serves the sample-time configurations
  local sc list="$c"
  for sc in $CONFIGS; do
    [ "$(fit_flags "$sc" "$m")" = "-" ] && [ "$(base_of "$sc")" = "$c" ] && list="$list $sc"
  done
  for sc in $list; do
    local stag="$1_$2_${sc}_s$4"
    # shellcheck disable=SC2046
    OMP_NUM_THREADS=1 nice -n 10 "$GEN" sample -m "$OUT/$tag.gen" -n "$n" --seed "$s" \
      -o "$OUT/$stag.csv" -q --threads 1 $(sample_flags "$sc")
    if [ "$sc" = "$c" ]; then score "$t" "$m" "$sc" "$s" "$fit_s" ""
    else score "$t" "$m" "$sc" "$s" "" "sampled from the $c fit"; fi
    rm -f "$OUT/$stag.csv"
  done
}
export -f run_fit score fit_flags sample_flags base_of
export GEN OUT EPOCHS CONFIGS

for s in $SEEDS; do for t in $present; do for m in $MODELS; do for c in $CONFIGS; do
  f=$(fit_flags "$c" "$m")
  [ "$f" = skip ] || [ "$f" = "-" ] && continue
  echo "$t $m $c $s"
done; done; done; done | xargs -P "$JOBS" -L 1 bash -c 'run_fit "$0" "$1" "$2" "$3"'

python3 - "$OUT/runs.jsonl" <<'EOF' | tee "$OUT/table.md"
import json, sys, statistics as st
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
runs = [r for r in runs if "failed" not in r and "quality" in r]
order = ["default", "pm0", "lf0", "mc", "clamp0", "bn1", "argmax1", "apm1", "apm1argmax1"]
print("| table | model | config | seeds | quality | column shapes | pair trends (all) | strong-pair trends | mean \\|Δcorr\\| strong | data validity | detection | fit s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
keys = sorted({(r["table"], r["model"], r["config"]) for r in runs},
              key=lambda k: (k[0], k[1], order.index(k[2]) if k[2] in order else 99))
def m(rs, k, nd=4):
    v = [r[k] for r in rs if r.get(k) is not None]
    return f"{st.mean(v):.{nd}f}" if v else "—"
for k in keys:
    rs = [r for r in runs if (r["table"], r["model"], r["config"]) == k]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {len(rs)} | {m(rs,'quality')} | {m(rs,'column_shapes')} | "
          f"{m(rs,'pair_trends')} | {m(rs,'pair_trends_threshold')} | {m(rs,'strong_corr_mean_abs_gap')} | "
          f"{m(rs,'data_validity')} | {m(rs,'detection')} | {m(rs,'fit_s',0)} |")
EOF
