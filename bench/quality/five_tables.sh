#!/usr/bin/env bash
# five_tables.sh — CTGAN, TVAE and DDPM (TabDDPM) on five public tables, several seeds each,
# scored by `genesis evaluate` against a held-out split (docs/benchmarks.md, "Five public
# tables"). For each table: a deterministic train / holdout split (fixed shuffle; the training
# part is subsampled to TRAIN_ROWS rows to fit a CPU budget), then per seed and model a fit on
# the training rows, as many synthetic rows as training rows, and
#   genesis evaluate --real train --synthetic syn --holdout holdout --target T --json
# (quality in both pair modes, column shapes, pair trends, strong-pair trends, detection,
# TSTR F1 of logistic regression and MLP beside the same models trained on the real rows,
# exact copies, NewRowSynthesis, DCR baseline and overfitting protection). One JSON line per
# run in $OUT/runs.jsonl, then $OUT/results.tsv (every run) and $OUT/table.md (mean per
# table and model, with the seeds' range).
#
#   bash bench/quality/five_tables.sh
#
# Tables (read from $GENESIS_DATA, default ../shared/data, a sibling folder of the developers'
# setup; a table that is absent is skipped with a message) and the column TSTR predicts:
#   adult       adult.csv + adult_test.csv    income (<=50K / >50K); not in the default TABLES:
#                                             training rows from adult.csv, the holdout from
#                                             adult_test.csv (fields trimmed, the label's "."
#                                             dropped), each shuffled with the fixed seed
#   california  california_housing.csv       ocean_proximity (5 classes, macro F1)
#   bank        bank_full.csv                 y (yes / no; F1 of "yes")
#   covertype   covertype_sample15k.csv       Cover_Type (7 classes, macro F1)
#   energy      energy_data.csv               lights (8 levels 0..70 Wh, macro F1)
#   news        news_popularity_partial.csv   popular = shares > 1400 (Fernandes et al. 2015's
#                                             threshold; replaces `shares`; `url` and
#                                             `timedelta` dropped, header spaces trimmed)
# Split: rows shuffled with a fixed seed (Python's random.Random(20261125)); the first
# HOLDOUT_ROWS rows (default 5000, at most a third of the table) are the holdout, the next
# TRAIN_ROWS (default 10000) the training table. Every table is rewritten as a plain
# comma-separated file (bank's `;` and quotes, news' CRLF go).
#
# Settings (environment):
#   TABLES="california bank covertype energy news"   MODELS="ctgan tvae ddpm"   SEEDS="0 1"
#   EPOCHS=50 (CTGAN, TVAE)   DDPM_ITERS=3000   DDPM_BATCH=1024   DDPM_STEPS="100"
#     (DDPM_STEPS lists sample-steps values; each is its own row, "ddpm@S"; 0 = all T steps)
#   DDPM_GUIDANCE="0" (guidance weights sampled for each step count, "ddpm@S/wW"; needs
#     DDPM_TARGET=1 and DDPM_FLAGS with --label-dropout)
#   DDPM_ETA="0" (DDIM noise values `--ddim-eta` sampled for each step count and guidance
#     weight, "ddpm@S/eE"; 0 = deterministic strided steps)
#   DDPM_FLAGS="" (more fit flags for ddpm, e.g. "--ema-decay 0.999")
#   TVAE_FLAGS="" / CTGAN_FLAGS="" (more fit flags for Genesis's tvae / ctgan, e.g.
#     "--alpha-per-mode 1")
#   DDPM_TARGET=0 (1: ddpm is conditioned on the table's TSTR target, `fit --target T`)
#   EVAL_SEEDS=0 (`genesis evaluate --seed` values; with several, every score in the JSON line
#     is the mean over them and per_eval_seed keeps each seed's detection and F1s: the MLP's
#     F1 moves by about 0.02 from one evaluation seed to the next)
#   SAMPLE_DRAWS=1 (Genesis: rows drawn from each model with sampling seeds seed, seed + 100,
#     seed + 200, ...; every draw is evaluated with every EVAL_SEEDS value and the scores are
#     the mean over all of them (per_eval_seed keeps each, draw by draw): on news one model's
#     MLP F1 moves by 0.03 between draws, more than between evaluation seeds)
#   REAL_BASELINE=0 (1: after the runs, each table's rest.csv -- up to TRAIN_ROWS real rows in
#     neither the training nor the holdout part; adult: from adult.csv -- is scored as if
#     synthetic, model "real": what each score gives an ideal generator at this size)
#   REUSE=0 (1: a Genesis model already in OUT from an earlier run with the same settings is
#     sampled and scored again instead of being fitted again)
#   JOBS=1 (runs at once, each on one thread under nice)   TRAIN_ROWS=10000   HOLDOUT_ROWS=5000
#   OUT=bench/results/five_tables_<time>   BUILD=build (holds the genesis binary)
#   ENGINE=genesis | ref | cmd: who fits and samples.
#     ref: the reference CTGAN / TVAE (bench/ref/ref_ctgan.py with $PYTHON, default python3;
#          models ctgan and tvae only), given the table's categorical columns (the same
#          typing Genesis infers), batch 500, the same epochs and seeds; rows with a missing
#          value in a continuous column are left out of its training rows (the ctgan package
#          refuses them). bench/quality/compare_engines.py puts its runs beside Genesis's.
#     cmd: $ENGINE_CMD is run as `$ENGINE_CMD MODEL TRAIN.csv OUT.csv ROWS SEED DISCRETE`
#          (DISCRETE: the categorical columns, comma-separated) and must write OUT.csv.
#   Scoring is always `genesis evaluate`, so every engine is scored alike.
# Seeds run one after the other (all tables and models of the first seed first), so a run
# cut short still has whole seeds.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${GENESIS_DATA:-../shared/data}
TABLES=${TABLES:-california bank covertype energy news}
MODELS=${MODELS:-ctgan tvae ddpm}
SEEDS=${SEEDS:-0 1}
EPOCHS=${EPOCHS:-50}
DDPM_ITERS=${DDPM_ITERS:-3000}
DDPM_BATCH=${DDPM_BATCH:-1024}
DDPM_STEPS=${DDPM_STEPS:-100}
DDPM_GUIDANCE=${DDPM_GUIDANCE:-0}
DDPM_ETA=${DDPM_ETA:-0}
DDPM_FLAGS=${DDPM_FLAGS:-}
TVAE_FLAGS=${TVAE_FLAGS:-}
CTGAN_FLAGS=${CTGAN_FLAGS:-}
DDPM_TARGET=${DDPM_TARGET:-0}
JOBS=${JOBS:-1}
TRAIN_ROWS=${TRAIN_ROWS:-10000}
HOLDOUT_ROWS=${HOLDOUT_ROWS:-5000}
ENGINE=${ENGINE:-genesis}
REUSE=${REUSE:-0}
REAL_BASELINE=${REAL_BASELINE:-0}
EVAL_SEEDS=${EVAL_SEEDS:-0}
SAMPLE_DRAWS=${SAMPLE_DRAWS:-1}
case $SAMPLE_DRAWS in ''|*[!0-9]*|0) echo "five_tables: SAMPLE_DRAWS must be a positive integer" >&2; exit 2 ;; esac
PYTHON=${PYTHON:-python3}
BUILD=${BUILD:-build}
GEN=${GENESIS_BIN:-$BUILD/genesis}
OUT=${OUT:-bench/results/five_tables_$(date -u +%Y%m%dT%H%M%SZ)}
if [ ! -d "$DATA" ]; then echo "five_tables: $DATA not found (set GENESIS_DATA); skipping"; exit 0; fi
[ -x "$GEN" ] || { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" -j"$(nproc)" --target genesis_cli >/dev/null; }
mkdir -p "$OUT"
touch "$OUT/runs.jsonl"   # the summary below reads it even when every table was skipped
echo "five_tables: tables [$TABLES], models [$MODELS], seeds [$SEEDS], engine $ENGINE;" \
     "CTGAN/TVAE $EPOCHS epochs, DDPM $DDPM_ITERS x $DDPM_BATCH, sample-steps [$DDPM_STEPS];" \
     "train <= $TRAIN_ROWS rows, holdout <= $HOLDOUT_ROWS -> $OUT"

# ---- the splits: $OUT/<table>/{train,holdout}.csv, target.txt, discrete.txt -------------
prepare() {
  local name=$1 file=$2 target=$3
  [ -f "$DATA/$file" ] || { echo "five_tables: $DATA/$file not found; skipping $name"; return 1; }
  if [ "$name" = adult ] && [ ! -f "$DATA/adult_test.csv" ]; then
    echo "five_tables: $DATA/adult_test.csv not found; skipping adult"; return 1
  fi
  [ -f "$OUT/$name/train.csv" ] && [ -f "$OUT/$name/rest.csv" ] && return 0
  mkdir -p "$OUT/$name"
  "$PYTHON" - "$DATA/$file" "$OUT/$name" "$name" "$target" "$TRAIN_ROWS" "$HOLDOUT_ROWS" <<'EOF'
import csv, random, sys
src, out, name, target, ntrain, nhold = sys.argv[1:7]
ntrain, nhold = int(ntrain), int(nhold)
with open(src, newline="") as f:
    sample = f.read(4096)
    f.seek(0)
    rows = list(csv.reader(f, delimiter=";" if sample.count(";") > sample.count(",") else ","))
head = [h.strip() for h in rows[0]]
rows = rows[1:]
if name == "news":
    # the usual cleaning: no url (an id), no timedelta (collection date); shares -> popular
    i_sh = head.index("shares")
    keep = [i for i, h in enumerate(head) if h not in ("url", "timedelta", "shares")]
    head = [head[i] for i in keep] + ["popular"]
    rows = [[r[i].strip() for i in keep] + ["1" if float(r[i_sh]) > 1400 else "0"] for r in rows]
if name == "adult":
    # UCI's own split: training rows from adult.csv, the holdout from adult_test.csv (the
    # data README's cleaning: every field trimmed, the test file's trailing "." on the label
    # dropped), each shuffled with the fixed seed and cut to its size
    rows = [[v.strip() for v in r] for r in rows if r]
    with open(src.replace("adult.csv", "adult_test.csv"), newline="") as f:
        test = [[v.strip() for v in r] for r in list(csv.reader(f))[1:] if r]
    i_t = head.index(target)
    for r in test:
        r[i_t] = r[i_t].rstrip(".")
    random.Random(20261125).shuffle(rows)
    random.Random(20261125).shuffle(test)
    hold, train, rest = test[:nhold], rows[:ntrain], rows[ntrain:2 * ntrain]
else:
    random.Random(20261125).shuffle(rows)
    nhold = min(nhold, len(rows) // 3)
    hold, train = rows[:nhold], rows[nhold:nhold + ntrain]
    rest = rows[nhold + ntrain:nhold + 2 * ntrain]
# rest: up to as many real rows again, in neither part (REAL_BASELINE)
for part, rs in (("train", train), ("holdout", hold), ("rest", rest)):
    with open("%s/%s.csv" % (out, part), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        w.writerows(rs)
# categorical columns by the reader's rule: not all numbers, or at most 10 distinct values
disc = []
for j, h in enumerate(head):
    vals = {r[j] for r in train if r[j] != ""}
    try:
        [float(v) for v in vals]
        numeric = True
    except ValueError:
        numeric = False
    if not numeric or len(vals) <= 10:
        disc.append(h)
open(out + "/discrete.txt", "w").write(",".join(disc) + "\n")
open(out + "/target.txt", "w").write(target + "\n")
print("five_tables: %s: %d training rows, %d holdout rows, %d columns (%d categorical), target %s"
      % (name, len(train), len(hold), len(head), len(disc), target))
EOF
}

declare -A FILE=([adult]=adult.csv [california]=california_housing.csv [bank]=bank_full.csv
                 [covertype]=covertype_sample15k.csv [energy]=energy_data.csv
                 [news]=news_popularity_partial.csv)
declare -A TARGET=([adult]=income [california]=ocean_proximity [bank]=y [covertype]=Cover_Type
                   [energy]=lights [news]=popular)
READY=""
for t in $TABLES; do
  [ -n "${FILE[$t]:-}" ] || { echo "five_tables: unknown table $t"; exit 2; }
  if prepare "$t" "${FILE[$t]}" "${TARGET[$t]}"; then READY="$READY $t"; fi
done

# ---- one run: fit, sample (each DDPM_STEPS value for ddpm), evaluate; JSON lines ---------
run_one() {
  local table=$1 model=$2 seed=$3
  local dir="$OUT/$table" tag="$ENGINE-$model-s$seed" target discrete rows t0 t1 fit_s wall_s=""
  target=$(cat "$dir/target.txt"); discrete=$(cat "$dir/discrete.txt")
  rows=$(($(wc -l < "$dir/train.csv") - 1))
  local nice1=(env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10)
  local samples=()   # "label steps csv sample_s"
  t0=$(date +%s.%N)
  case $ENGINE in
    genesis)
      local settings=(--epochs "$EPOCHS")
      # shellcheck disable=SC2206 # the *_FLAGS are lists of flags
      [ "$model" = ddpm ] && settings=(--iterations "$DDPM_ITERS" --batch-size "$DDPM_BATCH" $DDPM_FLAGS)
      # shellcheck disable=SC2206
      [ "$model" = tvae ] && settings+=($TVAE_FLAGS)
      # shellcheck disable=SC2206
      [ "$model" = ctgan ] && settings+=($CTGAN_FLAGS)
      if [ "$model" = ddpm ] && [ "$DDPM_TARGET" = 1 ]; then settings+=(--target "$target"); fi
      if [ "$REUSE" = 1 ] && [ -f "$dir/$tag.gen" ]; then
        # the model of an earlier run into the same OUT; its fit time from then (or, when
        # that run was cut short after the fit, from its log's and model's file times)
        if [ -f "$dir/$tag.fit_s" ]; then fit_s=$(cat "$dir/$tag.fit_s")
        else fit_s=$(( $(stat -c %Y "$dir/$tag.gen") - $(stat -c %Y "$dir/$tag.fit.log") )); fi
      else
        if ! "${nice1[@]}" "$GEN" fit -q --method "$model" -i "$dir/train.csv" -m "$dir/$tag.gen" \
            "${settings[@]}" --seed "$seed" --threads 1 > "$dir/$tag.fit.log" 2>&1; then
          echo "{\"table\":\"$table\",\"model\":\"$model\",\"seed\":$seed,\"failed\":\"fit\"}" >> "$OUT/runs.jsonl"
          return 0
        fi
        t1=$(date +%s.%N); fit_s=$(echo "$t1 - $t0" | bc)
        echo "$fit_s" > "$dir/$tag.fit_s"
      fi
      local steps_list="-"
      [ "$model" = ddpm ] && steps_list=$DDPM_STEPS
      local g_list="-" e_list="-"
      [ "$model" = ddpm ] && g_list=$DDPM_GUIDANCE && e_list=$DDPM_ETA
      for s in $steps_list; do
        for g in $g_list; do
         for e in $e_list; do
          local label=$model extra=() csv="$dir/$tag.csv"
          if [ "$s" != "-" ]; then label="ddpm@$s"; extra=(--sample-steps "$s"); csv="$dir/$tag-$s.csv"; fi
          if [ "$g" != "-" ] && [ "$g" != 0 ]; then
            label="$label/w$g"; extra+=(--guidance "$g"); csv="${csv%.csv}-w$g.csv"
          fi
          if [ "$e" != "-" ] && [ "$e" != 0 ]; then
            label="$label/e$e"; extra+=(--ddim-eta "$e"); csv="${csv%.csv}-e$e.csv"
          fi
          # one CSV per draw; sample s: the first draw's
          local draw csvs="" sample_s=""
          for ((draw = 0; draw < SAMPLE_DRAWS; draw++)); do
            local dcsv=$csv
            [ "$draw" = 0 ] || dcsv="${csv%.csv}-d$draw.csv"
            t0=$(date +%s.%N)
            "${nice1[@]}" "$GEN" sample -q -m "$dir/$tag.gen" -n "$rows" --seed $((seed + 100 * draw)) \
              "${extra[@]}" -o "$dcsv" --threads 1
            t1=$(date +%s.%N)
            [ -n "$sample_s" ] || sample_s=$(echo "$t1 - $t0" | bc)
            csvs="${csvs:+$csvs,}$dcsv"
          done
          samples+=("$label $csvs $sample_s")
         done
        done
      done ;;
    ref)
      # the same split, typing (discrete.txt), epochs, batch size 500 and seed as Genesis;
      # rows with a missing value in a continuous column are dropped from the reference's
      # training rows (the ctgan package refuses them), and the count is logged
      "${nice1[@]}" "$PYTHON" bench/ref/ref_ctgan.py --input "$dir/train.csv" --output "$dir/$tag.csv" \
        --rows "$rows" --epochs "$EPOCHS" --batch-size 500 --model "$model" --discrete "$discrete" \
        --seed "$seed" --drop-missing --json-out "$dir/$tag.ref.json" \
        > "$dir/$tag.fit.log" 2>&1 || { echo "{\"table\":\"$table\",\"model\":\"$model\",\"seed\":$seed,\"failed\":\"ref\"}" >> "$OUT/runs.jsonl"; return 0; }
      t1=$(date +%s.%N)
      # fit s: the reference's own CTGAN.fit / TVAE.fit time; the whole process beside it
      wall_s=$(echo "$t1 - $t0" | bc)
      read -r fit_s sample_s <<< "$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["fit_s"], d["sample_s"])' "$dir/$tag.ref.json")"
      samples+=("$model $dir/$tag.csv $sample_s") ;;
    cmd)
      "${nice1[@]}" $ENGINE_CMD "$model" "$dir/train.csv" "$dir/$tag.csv" "$rows" "$seed" "$discrete" \
        > "$dir/$tag.fit.log" 2>&1 || { echo "{\"table\":\"$table\",\"model\":\"$model\",\"seed\":$seed,\"failed\":\"cmd\"}" >> "$OUT/runs.jsonl"; return 0; }
      t1=$(date +%s.%N); fit_s=$(echo "$t1 - $t0" | bc)
      samples+=("$model $dir/$tag.csv 0") ;;
    *) echo "five_tables: unknown ENGINE $ENGINE"; return 1 ;;
  esac
  local smp label csvs csv sample_s
  for smp in "${samples[@]}"; do
    read -r label csvs sample_s <<< "$smp"
    local es evals=() ok=1 cl=()
    IFS=, read -ra cl <<< "$csvs"
    for csv in "${cl[@]}"; do
      for es in $EVAL_SEEDS; do
        local ej="$csv.eval.json"
        [ "$es" = "${EVAL_SEEDS%% *}" ] || ej="$csv.eval$es.json"
        "${nice1[@]}" "$GEN" evaluate --real "$dir/train.csv" --synthetic "$csv" --seed "$es" \
          --holdout "$dir/holdout.csv" --target "$target" --json -q --threads 1 > "$ej" 2> "$csv.eval.err" \
          || { ok=0; break 2; }
        evals+=("$ej")
      done
    done
    if [ "$ok" = 0 ]; then
      echo "{\"table\":\"$table\",\"model\":\"$label\",\"seed\":$seed,\"failed\":\"evaluate\"}" >> "$OUT/runs.jsonl"; continue
    fi
    EVALS="${evals[*]}" "$PYTHON" - "${evals[0]}" "$table" "$label" "$seed" "$ENGINE" "$fit_s" "$sample_s" "$rows" \
        "$wall_s" >> "$OUT/runs.jsonl" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
s = d["scores"]
# several evaluation seeds: every score is their mean (quality is the same for every seed;
# detection and the TSTR / TRTR F1s are not), each seed's kept under "per_eval_seed"
files = os.environ["EVALS"].split()
if len(files) > 1:
    each = [json.load(open(f))["scores"] for f in files]
    for k, v in s.items():
        vals = [e.get(k) for e in each]
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            s[k] = sum(vals) / len(vals)
    d["per_eval_seed"] = each
r = {"table": sys.argv[2], "model": sys.argv[3], "seed": int(sys.argv[4]),
     "engine": sys.argv[5], "fit_s": round(float(sys.argv[6]), 1),
     "sample_s": round(float(sys.argv[7]), 1), "rows": int(sys.argv[8]),
     "strong_pairs": d["quality"]["threshold"]["pairs_counted"],
     "pairs": d["quality"]["pairs"], "scores": s}
if int(os.environ["SAMPLE_DRAWS"]) > 1:
    r["sample_draws"] = int(os.environ["SAMPLE_DRAWS"])  # per_eval_seed: draw by draw
if len(files) > 1:
    r["eval_seeds"] = [int(x) for x in os.environ["EVAL_SEEDS"].split()]
    r["per_eval_seed"] = {k: [e.get(k) for e in d["per_eval_seed"]]
                          for k in ("detection", "tstr_logistic_regression", "tstr_mlp",
                                    "trtr_logistic_regression", "trtr_mlp")}
if sys.argv[9]:
    r["wall_s"] = round(float(sys.argv[9]), 1)  # ref: the whole process (import, fit, sample, write)
print(json.dumps(r))
EOF
    rm -f "${cl[@]}"
  done
}
export -f run_one
export GEN OUT EPOCHS DDPM_ITERS DDPM_BATCH DDPM_STEPS DDPM_GUIDANCE DDPM_ETA DDPM_FLAGS TVAE_FLAGS CTGAN_FLAGS \
    DDPM_TARGET ENGINE ENGINE_CMD PYTHON REUSE EVAL_SEEDS SAMPLE_DRAWS

# seed by seed; within a seed, table by table
for seed in $SEEDS; do for t in $READY; do for m in $MODELS; do
  echo "$t $m $seed"
done; done; done | xargs -r -P "$JOBS" -L 1 bash -c 'run_one "$0" "$1" "$2"'

# ---- REAL_BASELINE=1: real rows in neither part (rest.csv) scored as if synthetic, model "real":
# each score's value for an ideal generator at this size (fit_s and sample_s 0) ---------------
if [ "$REAL_BASELINE" = 1 ]; then
  for t in $READY; do
    dir="$OUT/$t"
    [ "$(wc -l < "$dir/rest.csv")" -gt 1 ] || { echo "five_tables: $t: no rows left for REAL_BASELINE"; continue; }
    env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 "$GEN" evaluate --real "$dir/train.csv" \
      --synthetic "$dir/rest.csv" --seed "${EVAL_SEEDS%% *}" --holdout "$dir/holdout.csv" \
      --target "$(cat "$dir/target.txt")" --json -q --threads 1 > "$dir/real.eval.json" 2> "$dir/real.eval.err" \
      || { echo "{\"table\":\"$t\",\"model\":\"real\",\"seed\":0,\"failed\":\"evaluate\"}" >> "$OUT/runs.jsonl"; continue; }
    "$PYTHON" - "$dir/real.eval.json" "$t" "$(($(wc -l < "$dir/rest.csv") - 1))" >> "$OUT/runs.jsonl" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps({"table": sys.argv[2], "model": "real", "seed": 0, "engine": "real", "fit_s": 0,
                  "sample_s": 0, "rows": int(sys.argv[3]),
                  "strong_pairs": d["quality"]["threshold"]["pairs_counted"],
                  "pairs": d["quality"]["pairs"], "scores": d["scores"]}))
EOF
  done
fi

# ---- tables --------------------------------------------------------------------------------
"$PYTHON" - "$OUT" <<'EOF'
import json, sys, statistics as st
out = sys.argv[1]
runs = [json.loads(l) for l in open(out + "/runs.jsonl") if l.strip()]
ok = [r for r in runs if "failed" not in r]
cols = [("quality", "overall"), ("column_shapes", "shapes"), ("column_pair_trends", "pair trends"),
        ("column_pair_trends_threshold", "strong pairs"), ("detection", "detection"),
        ("tstr_logistic_regression", "TSTR LR"), ("tstr_mlp", "TSTR MLP"),
        ("trtr_logistic_regression", "real LR"), ("trtr_mlp", "real MLP"),
        ("exact_copy_rate", "exact copies"), ("new_row_synthesis", "new rows"),
        ("dcr_baseline_protection", "DCR baseline"), ("dcr_overfitting_protection", "DCR overfitting"),
        ("detection_xgboost", "XGB detection"), ("alpha_precision", "α-precision"),
        ("beta_recall", "β-recall"), ("dcr_share_equal_size", "DCR share (equal sizes)"),
        ("tstr_xgboost_auc", "TSTR XGB AUC"), ("trtr_xgboost_auc", "real XGB AUC")]
with open(out + "/results.tsv", "w") as f:
    f.write("\t".join(["table", "engine", "model", "seed", "rows", "fit_s", "sample_s"] + [k for k, _ in cols]) + "\n")
    for r in ok:
        f.write("\t".join([r["table"], r["engine"], r["model"], str(r["seed"]), str(r["rows"]),
                           str(r["fit_s"]), str(r["sample_s"])] +
                          ["%.4f" % r["scores"][k] if r["scores"].get(k) is not None else "" for k, _ in cols]) + "\n")
def cell(v):
    v = [x for x in v if x is not None]
    if not v:
        return ""
    return "%.3f" % st.mean(v) + (" (%.3f–%.3f)" % (min(v), max(v)) if len(v) > 1 else "")
lines = ["| table | model | seeds | fit s | sample s | " + " | ".join(n for _, n in cols) + " |",
         "|" + "---|" * (5 + len(cols))]
order = {t: i for i, t in enumerate(["adult", "california", "bank", "covertype", "energy", "news"])}
for key in sorted({(r["table"], r["engine"], r["model"]) for r in ok}, key=lambda k: (order.get(k[0], 9), k[1], k[2])):
    rs = sorted((r for r in ok if (r["table"], r["engine"], r["model"]) == key), key=lambda r: r["seed"])
    name = key[2] if key[1] == "genesis" else key[1] + " " + key[2]
    lines.append("| %s | %s | %s | %.0f | %.0f | %s |" % (
        key[0], name, ",".join(str(r["seed"]) for r in rs), st.mean(r["fit_s"] for r in rs),
        st.mean(r["sample_s"] for r in rs), " | ".join(cell([r["scores"].get(k) for r in rs]) for k, _ in cols)))
for r in runs:
    if "failed" in r:
        lines.append("\nfailed: %s %s seed %s (%s)" % (r["table"], r["model"], r["seed"], r["failed"]))
open(out + "/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
