#!/usr/bin/env bash
# timegan_protocol.sh — TimeGAN at the paper's protocol (Yoon et al., NeurIPS 2019; the official
# code's settings, docs/algorithms.md §S1): Sines, Stocks and Energy, seq-len 24, hidden 24,
# 3 layers, batch 128, 50,000 iterations per phase, then the discriminative and predictive
# scores (evaluate --sequences, 10 repeats, and the real-data predictive baseline), for each
# seed. Built to be split across sessions: every fit writes a checkpoint every CK_EVERY
# iterations into a persistent folder and a later call continues it (--resume); STOP_AFTER
# seconds stops a fit cleanly (SIGINT: a checkpoint is written, exit 130) so that a session
# ends on time. A finished fit is not run again; a finished evaluation is not either.
#
#   bash bench/timegan_protocol.sh                     # all three data sets, seeds 0 1 2
#   STOP_AFTER=3000 DATA=sine SEEDS=0 bash bench/timegan_protocol.sh   # 50 minutes, then stop
#   ITERS=200 CK_EVERY=50 DATA="sine stock energy" SEEDS=0 bash bench/timegan_protocol.sh  # smoke run
#
# Environment: GENESIS (binary; default build/genesis), ITERS (50000), DATA ("sine stock
# energy"), SEEDS ("0 1 2"), DEVICE (auto), THREADS (1), REPEATS (10), CK_EVERY (1000
# iterations, counted over the three phases), STOP_AFTER (seconds per fit call; empty = no
# limit), RUN (the persistent folder; default bench/results/timegan_protocol), GENESIS_DATA
# (Stocks and Energy: stock_data.csv and energy_data.csv, the official code's files; default
# ../shared/data, else data/). Sines is generated as the reference does (10,000 samples, 5
# features, freq and phase ~ U(0, 0.1)) from the seed. Results: $RUN/<data>_s<seed>/eval.txt,
# and one line per finished run in $RUN/results.tsv. Exit 0 when every run is finished, 3
# when some were stopped (run the same command again to continue), 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
G=${GENESIS:-$ROOT/build/genesis}
[ -x "$G" ] || { echo "timegan_protocol.sh: no genesis binary at $G (set GENESIS=...)" >&2; exit 1; }
ITERS=${ITERS:-50000}
DATA=${DATA:-"sine stock energy"}
SEEDS=${SEEDS:-"0 1 2"}
DEVICE=${DEVICE:-auto}
THREADS=${THREADS:-1}
REPEATS=${REPEATS:-10}
CK_EVERY=${CK_EVERY:-1000}
STOP_AFTER=${STOP_AFTER:-}
RUN=${RUN:-$ROOT/bench/results/timegan_protocol}
mkdir -p "$RUN"
TSV=$RUN/results.tsv
[ -f "$TSV" ] || printf 'data\tseed\titers\tdiscriminative\tpredictive\treal_predictive\tfit_calls\n' >"$TSV"

find_data() { # name -> path of the official code's file, or nothing
    local f
    for f in "${GENESIS_DATA:-$ROOT/../shared/data}/$1" "$ROOT/data/$1"; do
        [ -r "$f" ] && { echo "$f"; return; }
    done
}

status=0
for d in $DATA; do
    for seed in $SEEDS; do
        D=$RUN/${d}_s$seed
        mkdir -p "$D"
        case $d in
        sine)
            REAL=$D/sines.csv
            [ -f "$REAL" ] || awk -v seed="$seed" 'BEGIN { srand(seed + 1); print "id,t,f0,f1,f2,f3,f4";
                for (i = 1; i <= 10000; i++) { for (k = 0; k < 5; k++) { fr[k] = 0.1 * rand(); ph[k] = 0.1 * rand() }
                    for (j = 0; j < 24; j++) { printf "%d,%d", i, j; for (k = 0; k < 5; k++) printf ",%.6f", (sin(fr[k] * j + ph[k]) + 1) / 2; printf "\n" } } }' >"$REAL"
            FLAGS=(--entity id --time t); N=10000 ;;
        stock | energy)
            REAL=$(find_data "${d}_data.csv")
            if [ -z "$REAL" ]; then
                echo "timegan_protocol.sh: ${d}_data.csv not found (set GENESIS_DATA); skipping $d"
                continue
            fi
            FLAGS=(); N=$(( $(wc -l <"$REAL") - 1 - 24 )) ;; # the reference's windows: rows - 24
        *) echo "timegan_protocol.sh: unknown data '$d' (sine, stock, energy)" >&2; status=1; continue ;;
        esac
        if [ -f "$D/eval.txt" ]; then echo "== $d seed $seed: finished ($D/eval.txt)"; continue; fi
        if [ ! -f "$D/model.gen" ]; then
            calls=$(( $(cat "$D/fit_calls" 2>/dev/null || echo 0) + 1 ))
            echo "$calls" >"$D/fit_calls"
            if [ -f "$D/run.ckpt" ]; then
                echo "== $d seed $seed: continuing $D/run.ckpt (fit call $calls)"
                ARGS=(--resume "$D/run.ckpt")
            else
                echo "== $d seed $seed: $ITERS iterations per phase, checkpoints every $CK_EVERY iterations"
                ARGS=(--checkpoint "$D/run.ckpt" --checkpoint-every "$CK_EVERY" --seq-len 24
                      --hidden-dim 24 --num-layers 3 --batch-size 128 --iterations "$ITERS" --seed "$seed")
            fi
            LIM=()
            [ -n "$STOP_AFTER" ] && LIM=(timeout -s INT "$STOP_AFTER")
            t0=$(date +%s)
            "${LIM[@]}" "$G" fit --method timegan -i "$REAL" "${FLAGS[@]}" "${ARGS[@]}" \
                --device "$DEVICE" --threads "$THREADS" --progress -m "$D/model.gen" \
                2>>"$D/fit.log" </dev/null
            rc=$?
            echo "fit call $calls: exit $rc after $(( $(date +%s) - t0 )) s on $(nproc) cores ($(date -u +%FT%TZ))" >>"$D/fit.log"
            if [ "$rc" = 130 ] || [ "$rc" = 124 ]; then
                echo "   stopped after ${STOP_AFTER} s; $(grep -E '^phase [0-9]/3' "$D/fit.log" | tail -1)"
                status=3; continue
            fi
            [ "$rc" = 0 ] || { echo "   fit failed (exit $rc): $(tail -2 "$D/fit.log")"; status=1; continue; }
        fi
        "$G" sample -q -m "$D/model.gen" -n "$N" --seed "$seed" --device "$DEVICE" -o "$D/synthetic.csv" ||
            { echo "   sample failed"; status=1; continue; }
        "$G" evaluate --sequences --real "$REAL" --synthetic "$D/synthetic.csv" "${FLAGS[@]}" --seq-len 24 \
            --repeats "$REPEATS" --real-baseline --seed "$seed" --threads "$THREADS" >"$D/eval.part" ||
            { echo "   evaluate failed"; status=1; continue; }
        mv "$D/eval.part" "$D/eval.txt"
        cat "$D/eval.txt"
        num() { grep -i "^ *$1" "$D/eval.txt" | grep -oE '[0-9]+\.[0-9]+' | head -1; }
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$seed" "$ITERS" "$(num 'discriminative score')" \
            "$(num 'predictive score')" "$(num 'predictive, real data')" \
            "$(cat "$D/fit_calls" 2>/dev/null || echo 0)" >>"$TSV"
    done
done
exit $status
