#!/usr/bin/env bash
# checkpoint.sh — resumable training from the command line (docs/checkpoints.md):
#   - CTGAN, TVAE, TimeGAN and DDPM: a fit with --checkpoint-every is killed with kill -9 once a
#     checkpoint exists, then `fit --resume` continues it: the model file and rows sampled
#     with one seed are byte-identical to an uninterrupted run's;
#   - Ctrl-C (SIGINT) writes a checkpoint, prints where it is and the command that
#     continues it, exits 130; that command gives the uninterrupted bytes too;
#   - a checkpoint is a model file `sample` reads;
#   - refused: a resume on another table, with a changed setting or another method, and
#     --checkpoint-every without --checkpoint.
#
#   bash tests/cli/checkpoint.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

cd "$W" || exit 1
CK="$W/ck"   # fits, checkpoints and samples; $OUT stays empty for the refusals
mkdir -p "$CK"
# TimeGAN needs complete numeric series: the adult sample's numeric columns, 400 rows
cut -d, -f1,3,5,11,12,13 "$ADULT" | head -401 >"$W/series.csv"
# another table: the adult sample without its 8th row
sed '9d' "$ADULT" >"$W/other.csv"

CTGAN=(--method ctgan --threads 1 --seed 3 --epochs 10 --batch-size 100 --embedding-dim 16 --generator-dim 32 --discriminator-dim 32)
TVAE=(--method tvae --threads 1 --seed 3 --epochs 12 --batch-size 50 --embedding-dim 16 --generator-dim 32)
DDPM=(--method ddpm --threads 1 --seed 3 --iterations 300 --batch-size 100 --embedding-dim 16 --generator-dim 32 --diffusion-steps 50)
TIMEGAN=(--method timegan --threads 1 --seed 3 --iterations 100 --batch-size 16 --seq-len 6 --hidden-dim 8 --num-layers 2)

same() { # LABEL A B
    if cmp -s "$2" "$3"; then pass "$1: byte-identical"; else fail "$1: outputs differ ($(cmp "$2" "$3" 2>&1 | head -1))"; fi
}

# wait_for FILE PID [PATTERN LOG] — until FILE exists (and LOG holds PATTERN), or the
# process ended, or 120 s
wait_for() {
    local i
    for ((i = 0; i < 6000; i++)); do
        if [ -f "$1" ] && { [ -z "${3:-}" ] || grep -q "$3" "$4" 2>/dev/null; }; then return 0; fi
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.02
    done
    return 1
}

# killed_then_resumed NAME INPUT EVERY FLAGS... — the uninterrupted fit, a fit killed with
# kill -9 after its first checkpoint, the resume; model files and samples compared
killed_then_resumed() {
    local name=$1 input=$2 every=$3
    shift 3
    section "$name: kill -9 after a checkpoint, then --resume: the uninterrupted bytes"
    run ${name}_full "$G" fit -q -i "$input" -m "$CK/$name.full.gen" "$@"
    expect_ok || return
    run ${name}_full_s "$G" sample -q -m "$CK/$name.full.gen" -o "$CK/$name.full.csv" -n 100 --seed 9
    expect_ok

    "$G" fit -q -i "$input" -m "$CK/$name.part.gen" "$@" --checkpoint "$CK/$name.ck" \
        --checkpoint-every "$every" >"$W/${name}_killed.err" 2>&1 </dev/null &
    local pid=$!
    if wait_for "$CK/$name.ck" $pid; then
        kill -9 $pid 2>/dev/null
        wait $pid
        local rc=$?
        if [ "$rc" = 137 ]; then pass "[$name] killed with kill -9 after a checkpoint"
        else echo "  note: [$name] the fit ended (exit $rc) before kill -9; resuming from its last checkpoint"; fi
    else
        wait $pid
        fail "[$name] no checkpoint was written ($(head -3 "$W/${name}_killed.err"))"
        return
    fi
    if [ -f "$CK/$name.part.gen" ] && [ "$rc" = 137 ]; then fail "[$name] the killed fit saved its model"; fi
    run ${name}_ck_sample "$G" sample -q -m "$CK/$name.ck" -o "$CK/$name.ck.csv" -n 20 --seed 1
    expect_ok && pass "[$name] sample reads the checkpoint as a model file"
    run ${name}_resume "$G" fit -i "$input" -m "$CK/$name.part.gen" "$@" --resume "$CK/$name.ck"
    expect_ok || return
    if grep -q "continuing from" "$W/${name}_resume.err"; then pass "[$name] resume says where it continues"
    else fail "[$name] resume did not say where it continues"; fi
    same "[$name] model file, resumed vs uninterrupted" "$CK/$name.full.gen" "$CK/$name.part.gen"
    run ${name}_part_s "$G" sample -q -m "$CK/$name.part.gen" -o "$CK/$name.part.csv" -n 100 --seed 9
    expect_ok
    same "[$name] sampled CSV (seed 9), resumed vs uninterrupted" "$CK/$name.full.csv" "$CK/$name.part.csv"
}

killed_then_resumed ctgan "$ADULT" 1 "${CTGAN[@]}"
killed_then_resumed tvae "$ADULT" 1 "${TVAE[@]}"
killed_then_resumed timegan "$W/series.csv" 10 "${TIMEGAN[@]}"
killed_then_resumed ddpm "$ADULT" 20 "${DDPM[@]}"
# DDPM counts iterations: the resume says so (its training unit, genesis_model_kind_get_info)
grep -Eq "continuing from .*: [0-9]+ of 300 iterations done" "$W/ddpm_resume.err" \
    && pass "[ddpm] resume counts iterations" \
    || fail "[ddpm] resume: $(grep "continuing from" "$W/ddpm_resume.err")"
# FP16: the loss-scaling state (scale, clean-step run, skipped steps) is part of the training
# state; the test hook makes the 7th backward pass of each network overflow (one skip)
export GENESIS_FP16_INJECT_INF=7
killed_then_resumed ctgan_fp16 "$ADULT" 1 "${CTGAN[@]}" --precision fp16
killed_then_resumed tvae_fp16 "$ADULT" 1 "${TVAE[@]}" --precision fp16
unset GENESIS_FP16_INJECT_INF

# ---------------------------------------------------------------------------------------
section "--checkpoint-every in minutes"

# 0.0001 minutes (6 ms): due at every epoch boundary of this fit but the last
run minutes "$G" fit -i "$ADULT" -m "$CK/min.gen" "${TVAE[@]}" --checkpoint "$CK/min.ck" --checkpoint-every 0.0001m
expect_ok
grep -q "checkpoints to $CK/min.ck every 0.0001 minutes" "$W/minutes.err" && pass "[minutes] announced" \
    || fail "[minutes] no announcement: $(head -3 "$W/minutes.err")"
if [ -f "$CK/min.ck" ]; then
    pass "[minutes] a checkpoint was written by time"
    run minutes_resume "$G" fit -q -i "$ADULT" -m "$CK/min2.gen" "${TVAE[@]}" --resume "$CK/min.ck"
    expect_ok
    same "[minutes] resumed from the last timed checkpoint vs uninterrupted" "$CK/tvae.full.gen" "$CK/min2.gen"
else
    fail "[minutes] no checkpoint written"
fi

# ---------------------------------------------------------------------------------------
section "Ctrl-C: a checkpoint, exit 130, and the command that continues"

rm -f "$CK/int.ck"
"$G" fit --progress -i "$ADULT" -m "$CK/int.gen" "${TVAE[@]}" --checkpoint "$CK/int.ck" \
    >"$W/int.out" 2>"$W/int.err" </dev/null &
pid=$!
if wait_for "$W/int.err" $pid "epoch 1/" "$W/int.err"; then
    kill -INT $pid
    wait $pid
    rc=$?
    if grep -q "interrupted at epoch" "$W/int.err"; then
        [ "$rc" = 130 ] && pass "[sigint] exit 130" || fail "[sigint] exit $rc, expected 130"
        [ -f "$CK/int.ck" ] && pass "[sigint] checkpoint written" || fail "[sigint] no checkpoint"
        [ -f "$CK/int.gen" ] && fail "[sigint] a model was saved by an interrupted fit"
        if grep -q -- "to continue: genesis fit --resume $CK/int.ck " "$W/int.err"; then
            pass "[sigint] prints the command that continues"
        else fail "[sigint] no resume command: $(cat "$W/int.err")"; fi
        # the printed command, run as printed
        cmdline=$(grep -m1 "to continue: genesis fit" "$W/int.err" | sed 's/^genesis: to continue: genesis //')
        run sigint_resume bash -c "\"$G\" $cmdline"
        expect_ok
        same "[sigint] resumed model vs uninterrupted" "$CK/tvae.full.gen" "$CK/int.gen"
    else
        echo "  note: [sigint] the fit ended (exit $rc) before SIGINT arrived"
    fi
else
    wait $pid
    fail "[sigint] no progress line before the fit ended: $(head -3 "$W/int.err")"
fi

# ---------------------------------------------------------------------------------------
section "refused resumes"

run other_table "$G" fit -q -i "$W/other.csv" -m "$OUT/x.gen" "${CTGAN[@]}" --resume "$CK/ctgan.ck"
expect_error 1 "not the table the checkpoint" "2000 rows x 15 columns then, 1999 x 15 now"
run other_setting "$G" fit -q -i "$ADULT" -m "$OUT/x.gen" "${CTGAN[@]}" --epochs 11 --resume "$CK/ctgan.ck"
expect_error 1 "--epochs" "resumed fit keeps the checkpoint's settings"
run other_method "$G" fit -q -i "$ADULT" -m "$OUT/x.gen" --resume "$CK/tvae.ck"
expect_error 2 "holds a tvae fit" "--method tvae"
run plain_model "$G" fit -q -i "$ADULT" -m "$OUT/x.gen" "${CTGAN[@]}" --resume "$CK/ctgan.full.gen"
expect_error 1 "not a checkpoint"
run every_alone "$G" fit -q -i "$ADULT" -m "$OUT/x.gen" --checkpoint-every 5
expect_error 2 "--checkpoint-every needs --checkpoint"
run ckpt_stdout "$G" fit -q -i "$ADULT" -m "$OUT/x.gen" --checkpoint -
expect_error 2 "--checkpoint: a checkpoint is a file"
run every_bad "$G" fit -q -i "$ADULT" -m "$OUT/x.gen" --checkpoint "$OUT/c" --checkpoint-every 0
expect_error 2 "--checkpoint-every must be"

finish
