#!/usr/bin/env bash
# memory.sh — batched sampling sized from memory: `genesis estimate` (text and --json, from a
# table and from a model), --memory-limit / --memory-fraction / --sample-batch parsing,
# a small --memory-limit makes sampling use smaller batches instead of failing and gives the
# same bytes, a limit too small for one batch or for training is a clear error, and the
# sampling progress line reports rows/s and memory; --gradient-checkpointing shows its saving
# in estimate and fits the same model bytes (CTGAN, TVAE, DDPM).
#
#   bash tests/cli/memory.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

# the CPU backend on every machine: host memory is what these checks read (the GPU's device
# memory is bench/gpu_generate.sh's job)
FAST=(-q --threads 1 --method ctgan --epochs 1 --device cpu)  # memory planning, measured on CTGAN (one pass per row)
cd "$W" || exit 1

section "estimate"
run est_table "$G" estimate --device cpu -i "$ADULT"
if expect_ok; then
    for want in "training" "generation" "parameters" "optimizer state" "activations" \
                "encoded data" "output buffers" "host memory" "memory budget" \
                "largest training batch that fits" "sampling batch" "upper bound"; do
        grep -q "$want" "$W/est_table.out" && pass "[estimate -i] mentions '$want'" || fail "[estimate -i] no '$want' in: $(head -3 "$W/est_table.out")"
    done
fi
run est_json "$G" estimate --device cpu -i "$ADULT" --method tvae --json --memory-limit 1GB
if expect_ok && [ -n "$PY" ]; then
    r=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["method"]=="tvae"; assert d["budget"]<=1<<30; assert len(d["host_total"])==2 and all(v>0 for v in d["host_total"]); assert d["workloads"]==["fit","sample"]; print("ok")' "$W/est_json.out" 2>&1)
    [ "$r" = ok ] && pass "[estimate --json] valid JSON with both workloads under the limit" || fail "[estimate --json] $r"
fi

run fit "$G" fit "${FAST[@]}" -i "$ADULT" -m "$W/m.gen" --seed 4
expect_ok
run est_model "$G" estimate --device cpu -m "$W/m.gen" --sample-batch 1000
if expect_ok; then
    grep -q "sampling batch: 1000 rows" "$W/est_model.out" && pass "[estimate -m --sample-batch 1000] batch reported" || fail "[estimate -m] $(tail -2 "$W/est_model.out")"
    grep -q "upper bound" "$W/est_model.out" && fail "[estimate -m] a fitted model's widths are exact, not bounds" || pass "[estimate -m] exact widths"
fi
run est_both "$G" estimate --device cpu -i "$ADULT" -m "$W/m.gen"
expect_error 2 "give the table"
run est_neither "$G" estimate
expect_error 2 "give the table"

section "flags"
run bad_limit "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/x.csv" -n 10 --memory-limit lots
expect_error 2 "--memory-limit" "8GB"
run zero_limit "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/x.csv" -n 10 --memory-limit 0
expect_error 2 "--memory-limit"
run bad_frac "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/x.csv" -n 10 --memory-fraction 1.5
expect_error 2 "--memory-fraction"
run bad_batch "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/x.csv" -n 10 --sample-batch -3
expect_error 2 "--sample-batch"
run batch_on_fit "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/y.gen" --sample-batch 100
expect_error 2 "--sample-batch"

section "a small memory limit: smaller batches, same bytes"
run big "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/big.csv" -n 20000 --seed 5 --threads 1
expect_ok
grep -q "sampling in batches of 20000 rows" "$W/big.err" && pass "[default] one batch for 20000 rows" || fail "[default] $(grep batches "$W/big.err")"
base=$("$G" estimate --device cpu -m "$W/m.gen" --sample-batch 500 --json | grep -o '"host_total":\[[0-9]*' | grep -o '[0-9]*$')
limit=$((base + 3000000))
run small "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/small.csv" -n 20000 --seed 5 --threads 1 --memory-limit "$limit" --progress
if expect_ok; then
    b=$(grep -o 'sampling in batches of [0-9]*' "$W/small.err" | grep -o '[0-9]*$')
    if [ -n "$b" ] && [ "$b" -lt 20000 ] && [ "$b" -ge 500 ]; then pass "[--memory-limit $limit] batches shrank to $b rows"; else fail "[--memory-limit] batch '$b': $(head -3 "$W/small.err")"; fi
    grep -q "rows/s  host memory" "$W/small.err" && pass "[--progress] rows/s and memory reported" || fail "[--progress] no progress line: $(tail -2 "$W/small.err")"
    cmp -s "$OUT/big.csv" "$OUT/small.csv" && pass "[--memory-limit] same bytes as one big batch" || fail "[--memory-limit] output differs: $(cmp "$OUT/big.csv" "$OUT/small.csv" | head -1)"
fi
run batch700 "$G" sample --device cpu -q -m "$W/m.gen" -o "$OUT/b700.csv" -n 20000 --seed 5 --sample-batch 700
expect_ok && { cmp -s "$OUT/big.csv" "$OUT/b700.csv" && pass "[--sample-batch 700 (rounded to 1000)] same bytes" || fail "[--sample-batch 700] output differs"; }
run threads2 "$G" sample --device cpu -q -m "$W/m.gen" -o "$OUT/t2.csv" -n 20000 --seed 5 --threads 2 --sample-batch 3000
expect_ok && { cmp -s "$OUT/big.csv" "$OUT/t2.csv" && pass "[--threads 2 --sample-batch 3000] same bytes" || fail "[--threads 2] output differs"; }
rm -f "$OUT"/*

section "gradient checkpointing: the saving in estimate, the same model"
run est_ck "$G" estimate --device cpu -i "$ADULT" --method tvae --batch-size 2000 --gradient-checkpointing
if expect_ok; then
    grep -q "gradient checkpointing saves" "$W/est_ck.out" && pass "[estimate --gradient-checkpointing] the saving shown" || fail "[estimate --gradient-checkpointing] $(tail -6 "$W/est_ck.out")"
fi
for meth in ctgan tvae ddpm; do
    steps=(--epochs 1)
    [ $meth = ddpm ] && steps=(--iterations 20 --diffusion-steps 50)
    run ck_off_$meth "$G" fit -q --threads 1 --device cpu --method $meth "${steps[@]}" -i "$ADULT" -m "$W/ck0_$meth.gen" --seed 5
    expect_ok
    run ck_on_$meth "$G" fit -q --threads 1 --device cpu --method $meth "${steps[@]}" -i "$ADULT" -m "$W/ck1_$meth.gen" --seed 5 --gradient-checkpointing
    expect_ok && { cmp -s "$W/ck0_$meth.gen" "$W/ck1_$meth.gen" && pass "[fit --method $meth --gradient-checkpointing] the same model bytes" || fail "[fit --method $meth --gradient-checkpointing] the model differs"; }
done
run ck_sample "$G" sample -q -m "$W/ck0_tvae.gen" -n 10 -o "$W/x.csv" --gradient-checkpointing
expect_error 2 "training setting"

section "limits that cannot be met"
run tiny "$G" sample --device cpu -m "$W/m.gen" -o "$OUT/t.csv" -n 100 --memory-limit 1MB
expect_error 1 "memory budget" "--memory-limit"
run tiny_fit "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/t.gen" --memory-limit 2MB
expect_error 1 "memory budget"
run fit_batch "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/t.gen" --batch-size 2000 --memory-limit 45MB
expect_error 1 "--batch-size"

finish
