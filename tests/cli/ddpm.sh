#!/usr/bin/env bash
# ddpm.sh — the CLI's DDPM path (docs/ddpm.md): generate and fit/sample with --method ddpm,
# the same seed giving the same bytes (also with another thread count), sample from the saved
# model = generate's output, --sample-steps changing on a fitted model, a class-conditional fit
# (--target) with the weights' moving average (--ema-decay), the quantile normalisation (the
# default: round trip, inspect; --quantile 0; bad values), the method's help
# listing its settings and defaults, estimate and evaluate on its output, and the settings of other methods refused
# by the parameter table (usage error, exit 2).
#
#   bash tests/cli/ddpm.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

FAST=(-q --threads 1 --method ddpm --iterations 30 --generator-dim 32 --embedding-dim 16 --diffusion-steps 40)
cd "$W" || exit 1

section "generate, fit and sample"
run gen "$G" generate "${FAST[@]}" -i "$ADULT" -n 300 -o "$OUT/a.csv" --seed 4 --save "$OUT/a.gen"
if expect_ok; then
    n=$(nrecords "$OUT/a.csv")
    [ "$n" = 300 ] && pass "[gen] 300 rows" || fail "[gen] $n rows, expected 300"
    head -1 "$OUT/a.csv" | cmp -s - <(head -1 "$ADULT") && pass "[gen] the real header" || fail "[gen] header differs"
fi
run gen_again "$G" generate "${FAST[@]}" -i "$ADULT" -n 300 -o "$OUT/b.csv" --seed 4
expect_ok && { cmp -s "$OUT/a.csv" "$OUT/b.csv" && pass "[gen] same seed, same bytes" || fail "[gen] same seed gave different output"; }
run gen_threads "$G" generate "${FAST[@]}" -i "$ADULT" -n 300 -o "$OUT/t.csv" --seed 4 --threads 2
expect_ok && { cmp -s "$OUT/a.csv" "$OUT/t.csv" && pass "[gen] --threads 2 gives the --threads 1 bytes" || fail "[gen] the thread count changed the output"; }
GENESIS_DDPM_HOST_BATCH=1 run gen_host "$G" generate "${FAST[@]}" -i "$ADULT" -n 300 -o "$OUT/h.csv" --seed 4
expect_ok && { cmp -s "$OUT/a.csv" "$OUT/h.csv" && pass "[gen] batches gathered on the host (the fallback) give the same bytes" \
    || fail "[gen] the host-gathered batches changed the output"; }
run sample "$G" sample -q -m "$OUT/a.gen" -n 300 -o "$OUT/c.csv" --seed 4
expect_ok && { cmp -s "$OUT/a.csv" "$OUT/c.csv" && pass "[sample] the saved model samples generate's rows" \
    || fail "[sample] the saved model samples differently"; }
# FAST's 40 diffusion steps are fewer than the default 100 sample steps: a.csv is the full chain
run strided "$G" sample -q -m "$OUT/a.gen" -n 300 -o "$OUT/d.csv" --seed 4 --sample-steps 5
if expect_ok; then
    n=$(nrecords "$OUT/d.csv")
    [ "$n" = 300 ] && ! cmp -s "$OUT/a.csv" "$OUT/d.csv" && pass "[sample] --sample-steps 5 on a fitted model" \
        || fail "[sample] --sample-steps 5: $n rows or the same bytes as the full chain"
fi
run eval "$G" evaluate --real "$ADULT" --synthetic "$OUT/a.csv"
expect_ok && { grep -q "overall, all pairs" "$W/eval.out" && pass "[evaluate] scores the output" || fail "[evaluate] no quality line"; }
run est "$G" estimate -q --method ddpm -i "$ADULT" --batch-size 256
expect_ok && { grep -qi "param" "$W/est.out" && pass "[estimate] memory terms for ddpm" || fail "[estimate] $(head -3 "$W/est.out")"; }
run est_model "$G" estimate -q -m "$OUT/a.gen"
expect_ok && pass "[estimate] from a ddpm model file"
rm -f "$OUT"/*

section "class-conditional fit (--target) with the weights' moving average"
run tgt "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/t.gen" --seed 2 --target income --ema-decay 0.9
expect_ok && pass "[target] fit --target income --ema-decay 0.9"
run tgt_sample "$G" sample -q -m "$OUT/t.gen" -n 400 -o "$OUT/t.csv" --seed 2
if expect_ok; then
    n=$(grep -c ">50K" "$OUT/t.csv")
    [ "$n" -gt 50 ] && [ "$n" -lt 150 ] && pass "[target] >50K in $n of 400 rows (the real share is 25%)" \
        || fail "[target] >50K in $n of 400 rows"
fi
rm -f "$OUT"/*
run tgt_cont "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/x.gen" --target age
expect_error 2 "'age' is continuous"
run tgt_tvae "$G" fit -q --method tvae --epochs 1 -i "$ADULT" -m "$OUT/x.gen" --target income
expect_error 1 "applies to ddpm"
rm -f "$OUT"/*

section "quantile normalisation (the default) and --quantile 0"
run quant "$G" generate "${FAST[@]}" -i "$ADULT" -n 300 -o "$OUT/q.csv" --seed 3 --save "$OUT/q.gen"
if expect_ok; then
    run quant_sample "$G" sample -q -m "$OUT/q.gen" -n 300 -o "$OUT/q2.csv" --seed 3
    expect_ok && { cmp -s "$OUT/q.csv" "$OUT/q2.csv" && pass "[quantile] the saved model samples generate's rows" \
        || fail "[quantile] the saved model samples differently"; }
    run quant_inspect "$G" inspect -m "$OUT/q.gen"
    expect_ok && { grep -Eq "^ +1  age +continuous.*; [0-9]+ quantiles from 1[78] to 90" "$W/quant_inspect.out" \
        && grep -Eq "^  quantile +1$" "$W/quant_inspect.out" \
        && pass "[quantile] inspect shows the default setting and age's quantile map" \
        || fail "[quantile] inspect: $(grep -E ' age |quantile' "$W/quant_inspect.out" | tr '\n' ' ')"; }
fi
run modes "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/m.gen" --seed 3 --quantile 0
if expect_ok; then
    run modes_inspect "$G" inspect -m "$OUT/m.gen"
    expect_ok && { grep -Eq "^ +1  age +continuous.*; [0-9]+ modes?" "$W/modes_inspect.out" \
        && grep -Eq "^  quantile +0 +\(default 1\)" "$W/modes_inspect.out" \
        && pass "[quantile 0] inspect shows mixture modes and the changed setting" \
        || fail "[quantile 0] inspect: $(grep -E ' age |quantile' "$W/modes_inspect.out" | tr '\n' ' ')"; }
fi
rm -f "$OUT"/*
run quant_bad "$G" generate "${FAST[@]}" -i "$ADULT" --quantile 2 -o "$OUT/o.csv"
expect_error 2 "--quantile"
run quant_ctgan "$G" generate -q --method ctgan --epochs 1 -i "$ADULT" --quantile 1 -o "$OUT/o.csv"
expect_error 2 "--quantile" "ddpm"
rm -f "$OUT"/*

section "help"
run help "$G" generate --method ddpm --help
if expect_ok; then
    for s in diffusion-steps sample-steps noise-schedule iterations num-layers; do
        grep -q -- "--$s" "$W/help.out" && pass "[help] lists --$s" || fail "[help] no --$s"
    done
    grep -Eq -- "--sample-steps +100 " "$W/help.out" && pass "[help] sample-steps defaults to 100" \
        || fail "[help] sample-steps default: $(grep -- --sample-steps "$W/help.out")"
    grep -q -- "--pac" "$W/help.out" && fail "[help] lists CTGAN's --pac" || pass "[help] no CTGAN settings"
fi

section "--epochs: passes over the rows, as iterations"
# 2 passes over 2000 rows at batch 300: ceil(4000 / 300) = 14 iterations, the same fit (the
# same model file) as --iterations 14
EP=(--threads 1 --method ddpm --generator-dim 32 --embedding-dim 16 --diffusion-steps 40 --seed 2 --batch-size 300)
run epochs_fit "$G" fit "${EP[@]}" -i "$ADULT" -m "$W/e.gen" --epochs 2
if expect_ok; then
    grep -q "training DDPM for 14 iterations" "$W/epochs_fit.err" && pass "[epochs] 2 epochs of 2000 rows at batch 300 = 14 iterations" \
        || fail "[epochs] summary: $(head -2 "$W/epochs_fit.err")"
    grep -q "^genesis: --epochs 2 = 14 iterations at batch 300 (ddpm trains by iterations)$" "$W/epochs_fit.err" \
        && pass "[epochs] says what --epochs became" || fail "[epochs] no conversion line: $(cat "$W/epochs_fit.err")"
    run iters_fit "$G" fit -q "${EP[@]}" -i "$ADULT" -m "$W/i.gen" --iterations 14
    expect_ok && { cmp -s "$W/e.gen" "$W/i.gen" && pass "[epochs] the model of --iterations 14, byte for byte" \
        || fail "[epochs] --epochs 2 and --iterations 14 gave different models"; }
fi
# a batch larger than the table is the table: 4 passes over 3 rows are 4 iterations
printf 'x,y\n1,a\n2,b\n3,a\n' >three.csv
run epochs_small "$G" fit --threads 1 --method ddpm --generator-dim 16 --embedding-dim 8 -i three.csv -m "$W/s.gen" --epochs 4
expect_ok && { grep -q "^genesis: --epochs 4 = 4 iterations at batch 3 " "$W/epochs_small.err" && pass "[epochs] batch capped at the rows" \
    || fail "[epochs] small table: $(cat "$W/epochs_small.err")"; }

section "settings of other methods (usage error)"
run epochs "$G" generate "${FAST[@]}" -i "$ADULT" --epochs 3 -o "$OUT/o.csv"
expect_error 2 "give --epochs or --iterations, not both" "ddpm trains by iterations"
run pac "$G" generate "${FAST[@]}" -i "$ADULT" --pac 5 -o "$OUT/o.csv"
expect_error 2 "--pac" "ddpm"
run steps_tvae "$G" generate -q --method tvae -i "$ADULT" --diffusion-steps 50 -o "$OUT/o.csv"
expect_error 2 "--diffusion-steps" "ddpm"
run bad_schedule "$G" generate "${FAST[@]}" -i "$ADULT" --noise-schedule 3 -o "$OUT/o.csv"
expect_error 2 "--noise-schedule"
run cond "$G" generate "${FAST[@]}" -i "$ADULT" --condition sex=" Male" -o "$OUT/o.csv"
expect_error 2 "--condition"

finish
