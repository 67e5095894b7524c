#!/usr/bin/env bash
# emu_sample_devices.sh — `genesis sample --devices 0,1,2` / `--multi-gpu` on the emulated CUDA
# runtime with three emulated GPUs (tests/cuemu/, GENESIS_CUEMU_DEVICES=3; docs/memory.md,
# "Several devices"): the rows are spread over the GPUs batch by batch, and
#   - DDPM, 200,000 rows: three GPUs (batches of 20,000) write the bytes one GPU writes
#     (one batch of 200,000); each GPU's peak device memory (the emulator's
#     GENESIS_CUEMU_MEMORY_REPORT) is the same at 50,000 and 200,000 rows on three GPUs:
#     flat in n; 20,000 rows (two batches) use two GPUs and are the first 20,000 of them;
#   - CTGAN with and without a condition, and TVAE: --devices 2,0,1, --devices 0,1 and
#     --multi-gpu write the bytes of one GPU;
#   - a GPU that is not there is a clear error (exit 2) and no output.
# Skips (77) when the emulated module is not built or under the sanitizers (slow there; the
# lanes themselves run under them in test_sample_devices, on CPU streams).
#
#   bash tests/cli/emu_sample_devices.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

MOD="$BLD/cuemu/libgenesis-cuda.so"
if [ ! -r "$MOD" ]; then echo "skip: $MOD is not built"; exit 77; fi
if [ "$IS_ASAN" = 1 ]; then echo "skip: the emulator is slow under the sanitizers"; exit 77; fi
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 GENESIS_CUDA_EMULATOR=1 GENESIS_CUDA_MODULE="$MOD"
export GENESIS_CUEMU_DEVICES=3
cd "$W" || exit 1

# tiny networks fitted on the CPU: the sampling path, not the quality
section "fit three small models on the CPU"
run fit_ddpm "$G" fit --method ddpm -i "$ADULT" -m "$W/ddpm.gen" --device cpu -q --iterations 5 \
    --sample-steps 5 --embedding-dim 8 --generator-dim 16 --batch-size 100 --target income
expect_ok
run fit_ctgan "$G" fit --method ctgan -i "$ADULT" -m "$W/ctgan.gen" --device cpu -q --epochs 1 --embedding-dim 8 \
    --generator-dim 16 --discriminator-dim 16 --batch-size 500
expect_ok
run fit_tvae "$G" fit --method tvae -i "$ADULT" -m "$W/tvae.gen" --device cpu -q --epochs 1 \
    --embedding-dim 8 --generator-dim 16 --batch-size 500
expect_ok

# peak device memory of every emulated GPU after a run: "P0 P1 P2"
peaks() { awk '{printf "%s%s", (NR > 1 ? " " : ""), $4}' "$1"; }

section "DDPM, 200,000 rows: three GPUs write the bytes of one"
run ddpm_one env GENESIS_CUEMU_MEMORY_REPORT="$W/mem_one" "$G" sample -m "$W/ddpm.gen" \
    -n 200000 -o "$W/ddpm_one.csv" --device cuda:0 --seed 4
expect_ok
run ddpm_three env GENESIS_CUEMU_MEMORY_REPORT="$W/mem_200k" "$G" sample -m "$W/ddpm.gen" \
    -n 200000 -o "$W/ddpm_three.csv" --devices 0,1,2 --seed 4 --sample-batch 20000
expect_ok
[ "$(wc -l < "$W/ddpm_three.csv")" = 200001 ] && pass "200,000 rows written" \
    || fail "ddpm_three.csv has $(wc -l < "$W/ddpm_three.csv") lines"
cmp -s "$W/ddpm_one.csv" "$W/ddpm_three.csv" && pass "3 GPUs = 1 GPU, byte for byte" \
    || fail "3 GPUs differ from 1 GPU: $(cmp "$W/ddpm_one.csv" "$W/ddpm_three.csv" | head -1)"
grep -q "sampling on 3 GPUs" "$W/ddpm_three.err" && pass "the run says it used 3 GPUs" \
    || fail "no 'sampling on 3 GPUs' note: $(tail -2 "$W/ddpm_three.err")"
# batches of the DDPM's GPU group (16,384 rows): 50,000 rows are 4 batches, every GPU works
run ddpm_small env GENESIS_CUEMU_MEMORY_REPORT="$W/mem_50k" "$G" sample -m "$W/ddpm.gen" \
    -n 50000 -o "$W/ddpm_small.csv" --devices 0,1,2 --seed 4 --sample-batch 16384
expect_ok
run ddpm_big env GENESIS_CUEMU_MEMORY_REPORT="$W/mem_200k_b" "$G" sample -m "$W/ddpm.gen" \
    -n 200000 -o "$W/ddpm_big.csv" --devices 0,1,2 --seed 4 --sample-batch 16384 -q
expect_ok
p50=$(peaks "$W/mem_50k") p200=$(peaks "$W/mem_200k_b")
echo "      | peak device memory per GPU (bytes), batches of 16,384: 50,000 rows: $p50; 200,000 rows: $p200"
echo "      | (batches of 20,000, 200,000 rows: $(peaks "$W/mem_200k"); one GPU, one batch: $(peaks "$W/mem_one"))"
[ -n "$p50" ] && [ "$p50" = "$p200" ] && pass "each GPU's peak is the same at 50,000 and 200,000 rows" \
    || fail "per-GPU peaks grow with n: '$p50' vs '$p200'"
set -- $p50
[ "$#" = 3 ] && [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && pass "all three GPUs held a generator" \
    || fail "not every GPU was used: $p50"
cmp -s "$W/ddpm_one.csv" "$W/ddpm_big.csv" && pass "batches of 16,384 on 3 GPUs = one batch on 1 GPU" \
    || fail "batches of 16,384 on 3 GPUs differ from 1 GPU"
run ddpm_two "$G" sample -m "$W/ddpm.gen" -n 20000 -o "$W/ddpm_two.csv" --devices 0,1,2 --seed 4 \
    --sample-batch 16384
expect_ok
grep -q "sampling on 2 GPUs" "$W/ddpm_two.err" && pass "two batches use two of the three GPUs (no idle copy)" \
    || fail "20,000 rows in batches of 16,384: $(grep -m1 sampling "$W/ddpm_two.err")"
cmp -s "$W/ddpm_two.csv" <(head -n 20001 "$W/ddpm_one.csv") && pass "20,000 rows: the first 20,000 of 200,000" \
    || fail "20,000 rows are not the first 20,000 of the 200,000"

section "CTGAN (with and without a condition) and TVAE"
for model in ctgan tvae; do
    run ${model}_one "$G" sample -m "$W/$model.gen" -n 3000 -o "$W/${model}_one.csv" --device cuda:0 --seed 9
    expect_ok
    run ${model}_three "$G" sample -m "$W/$model.gen" -n 3000 -o "$W/${model}_three.csv" \
        --devices 2,0,1 --seed 9 --sample-batch 500
    expect_ok
    cmp -s "$W/${model}_one.csv" "$W/${model}_three.csv" && pass "$model: --devices 2,0,1 = 1 GPU" \
        || fail "$model: --devices 2,0,1 differs from 1 GPU"
    run ${model}_multi "$G" sample -m "$W/$model.gen" -n 3000 -o "$W/${model}_multi.csv" \
        --multi-gpu --seed 9 --sample-batch 1000
    expect_ok
    cmp -s "$W/${model}_one.csv" "$W/${model}_multi.csv" && pass "$model: --multi-gpu = 1 GPU" \
        || fail "$model: --multi-gpu differs from 1 GPU"
done
run cond_one "$G" sample -m "$W/ctgan.gen" -n 2000 -o "$W/cond_one.csv" --device cuda:0 --seed 2 \
    --condition "sex=Female" --condition "income=>50K"
expect_ok
run cond_two "$G" sample -m "$W/ctgan.gen" -n 2000 -o "$W/cond_two.csv" --devices 0,1 --seed 2 \
    --condition "sex=Female" --condition "income=>50K" --sample-batch 500
expect_ok
cmp -s "$W/cond_one.csv" "$W/cond_two.csv" && pass "ctgan with conditions: 2 GPUs = 1 GPU" \
    || fail "ctgan with conditions: 2 GPUs differ from 1 GPU"

section "a GPU that is not there"
run missing "$G" sample -m "$W/ctgan.gen" -n 10 -o "$OUT/x.csv" --devices 0,3
expect_error 2 "GPU 3 not found"

finish
