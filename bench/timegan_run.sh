#!/usr/bin/env bash
# timegan_run.sh — TimeGAN on Stocks (and Sines) end to end through the CLI: fit, generate,
# evaluate --sequences (discriminative and predictive scores, 10 repeats, and the real-data
# predictive baseline), with the wall time of each step, into $OUT/timegan_<data>.md.
# Defaults are the reference's (docs/algorithms.md §S1: seq-len 24, hidden 24, 3 layers, batch
# 128, 50,000 iterations per phase), which is a GPU-sized job; ITERS lowers it for a CPU run.
#
#   bash bench/timegan_run.sh                         # reference settings, Stocks + Sines
#   ITERS=1000 DATA=stock DEVICE=cpu bash bench/timegan_run.sh
#
# Environment: GENESIS (binary; default build-tg/genesis, then build/genesis), ITERS (50000),
# DATA ("stock sine"), DEVICE (auto), THREADS (0 = all), REPEATS (10), SEED (0), OUT (bench/results).
# Stocks (TimeGAN's stock_data.csv, GOOG daily prices; not shipped with the repository) is read
# from $GENESIS_DATA/stock_data.csv, GENESIS_DATA defaulting to ../shared/data, a sibling folder
# of the developers' setup; without it Stocks is skipped with a message. Sines is
# generated as the reference does (10,000 samples, 5 features, freq and phase ~ U(0, 0.1)).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
G=${GENESIS:-}
for c in "$ROOT/build-tg/genesis" "$ROOT/build/genesis" "$ROOT/build-gpu/genesis"; do
    if [ -z "$G" ] && [ -x "$c" ]; then G=$c; fi
done
[ -x "${G:-}" ] || { echo "timegan_run.sh: no genesis binary (set GENESIS=...)" >&2; exit 1; }
ITERS=${ITERS:-50000}
DATA=${DATA:-"stock sine"}
DEVICE=${DEVICE:-auto}
THREADS=${THREADS:-0}
REPEATS=${REPEATS:-10}
SEED=${SEED:-0}
OUT=${OUT:-$ROOT/bench/results}
mkdir -p "$OUT"
W=$(mktemp -d "${TMPDIR:-/tmp}/timegan-run.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

for d in $DATA; do
    case $d in
    stock)
        REAL=${GENESIS_DATA:-$ROOT/../shared/data}/stock_data.csv
        if [ ! -r "$REAL" ]; then echo "timegan_run.sh: $REAL not found (set GENESIS_DATA); skipping Stocks"; continue; fi
        FLAGS=()
        EVAL=()
        ;;
    sine)
        REAL=$W/sines.csv
        awk -v seed="$SEED" 'BEGIN { srand(seed + 1); print "id,t,f0,f1,f2,f3,f4";
            for (i = 1; i <= 10000; i++) { for (k = 0; k < 5; k++) { fr[k] = 0.1 * rand(); ph[k] = 0.1 * rand() }
                for (j = 0; j < 24; j++) { printf "%d,%d", i, j; for (k = 0; k < 5; k++) printf ",%.6f", (sin(fr[k] * j + ph[k]) + 1) / 2; printf "\n" } } }' >"$REAL"
        FLAGS=(--entity id --time t)
        EVAL=(--entity id --time t)
        ;;
    *) echo "timegan_run.sh: unknown data '$d' (stock, sine)" >&2; continue ;;
    esac
    MD=$OUT/timegan_${d}_${ITERS}.md
    LOG=$W/$d.log
    echo "== $d: $ITERS iterations per phase on $DEVICE ($(nproc) cores)"
    t0=$(now)
    "$G" fit --method timegan -i "$REAL" "${FLAGS[@]}" --seq-len 24 --hidden-dim 24 --num-layers 3 \
        --batch-size 128 --iterations "$ITERS" --seed "$SEED" --device "$DEVICE" --threads "$THREADS" \
        --progress -m "$W/$d.gen" 2>&1 | tee "$LOG" || { echo "fit failed"; continue; }
    t1=$(now)
    N=$( [ "$d" = sine ] && echo 10000 || echo $(( $(wc -l <"$REAL") - 1 - 24 )) )
    "$G" sample -q -m "$W/$d.gen" -n "$N" --seed "$SEED" --device "$DEVICE" -o "$W/$d.syn.csv" || { echo "sample failed"; continue; }
    t2=$(now)
    "$G" evaluate --sequences --real "$REAL" --synthetic "$W/$d.syn.csv" "${EVAL[@]}" --seq-len 24 \
        --repeats "$REPEATS" --real-baseline --seed "$SEED" --threads "$THREADS" | tee "$W/$d.eval" || { echo "evaluate failed"; continue; }
    t3=$(now)
    {
        echo "# TimeGAN on $d: $ITERS iterations per phase"
        echo
        echo "- binary: $G ($("$G" --version))"
        echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), device $DEVICE, threads $THREADS"
        echo "- settings: seq-len 24, hidden 24, 3 layers, batch 128, seed $SEED, $REPEATS metric repeats"
        echo "- fit $(secs "$t0" "$t1") s, sample $N sequences $(secs "$t1" "$t2") s, evaluate $(secs "$t2" "$t3") s"
        echo
        echo '```'
        grep -E '^phase [0-9]/3' "$LOG" | tail -6
        cat "$W/$d.eval"
        echo '```'
    } >"$MD"
    echo "wrote $MD"
done
