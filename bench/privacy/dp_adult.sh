#!/bin/sh
# dp_adult.sh — a model (TVAE, or METHOD) on Adult with and without differential privacy
# (docs/privacy.md):
# for each setting (no DP, then --epsilon 1, 3, 8 with delta = 1/n) one fit, 10,000 rows
# sampled, and `genesis evaluate` against the training rows with the UCI test split as the
# holdout (quality, pair trends, detection, DCR, train-on-synthetic AUC for income).
# Training rows: TRAIN_ROWS (default 10000) of adult.csv, the holdout HOLDOUT_ROWS (5000) of
# adult_test.csv, both trimmed and shuffled with seed 20261125 (bench/quality/five_tables.sh's
# cleaning). Fit times are printed side by side (same machine, same run).
# usage: GENESIS_DATA=<folder with UCI Adult's adult.csv and adult_test.csv>
#   bench/privacy/dp_adult.sh [OUT] (default bench/results/dp_<date>); env GENESIS, EPOCHS
#   (30), TRAIN_ROWS, HOLDOUT_ROWS, SEED (1), SETTINGS ("0 1 3 8": 0 = no DP), METHOD (tvae),
#   FIT_ARGS (more fit options, e.g. "--batch-size 2000"), TAG (a prefix of the output files)
set -e
GENESIS=${GENESIS:-build/genesis}
DATA=${GENESIS_DATA:?set GENESIS_DATA to the folder holding UCI Adult (adult.csv and adult_test.csv)}
OUT=${1:-bench/results/dp_$(date -u +%Y%m%d)}
EPOCHS=${EPOCHS:-30}
TRAIN_ROWS=${TRAIN_ROWS:-10000}
HOLDOUT_ROWS=${HOLDOUT_ROWS:-5000}
SEED=${SEED:-1}
SETTINGS=${SETTINGS:-"0 1 3 8"}
METHOD=${METHOD:-tvae}
FIT_ARGS=${FIT_ARGS:-}
TAG=${TAG:-}
mkdir -p "$OUT"
python3 - "$DATA" "$OUT" "$TRAIN_ROWS" "$HOLDOUT_ROWS" <<'PY'
import csv, random, sys
data, out, ntrain, nhold = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def read(p):
    with open(p, newline="") as f:
        rows = list(csv.reader(f))
    return [h.strip() for h in rows[0]], [[v.strip() for v in r] for r in rows[1:] if r]
head, rows = read(f"{data}/adult.csv")
_, test = read(f"{data}/adult_test.csv")
it = head.index("income")
for r in test:
    r[it] = r[it].rstrip(".")
random.Random(20261125).shuffle(rows)
random.Random(20261125).shuffle(test)
for name, part in (("train", rows[:ntrain]), ("holdout", test[:nhold])):
    with open(f"{out}/{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(part)
PY
printf '%-8s %10s %s\n' setting fit_s privacy
for e in $SETTINGS; do
  tag=${TAG}nodp; dp=""
  if [ "$e" != 0 ]; then tag=${TAG}eps$e; dp="--epsilon $e"; fi
  t0=$(date +%s.%N)
  $GENESIS fit -i "$OUT/train.csv" -m "$OUT/$tag.gen" --method "$METHOD" --epochs "$EPOCHS" \
      --seed "$SEED" $FIT_ARGS $dp 2> "$OUT/$tag.fit.log"
  t1=$(date +%s.%N)
  $GENESIS sample -m "$OUT/$tag.gen" -o "$OUT/$tag.syn.csv" -n "$TRAIN_ROWS" --seed "$SEED" 2>> "$OUT/$tag.fit.log"
  $GENESIS inspect -m "$OUT/$tag.gen" --json > "$OUT/$tag.inspect.json"
  $GENESIS evaluate --real "$OUT/train.csv" --synthetic "$OUT/$tag.syn.csv" \
      --holdout "$OUT/holdout.csv" --target income --json > "$OUT/$tag.score.json" 2> "$OUT/$tag.eval.log"
  printf '%-8s %10.2f %s\n' "$tag" "$(echo "$t1 - $t0" | bc)" \
      "$(grep -o '"epsilon":[0-9.e+-]*' "$OUT/$tag.inspect.json" | head -1)"
done
