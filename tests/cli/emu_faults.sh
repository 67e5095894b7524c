#!/usr/bin/env bash
# emu_faults.sh — what a user sees when the GPU fails (docs/cuda.md, "Errors"), on the
# emulated CUDA runtime with its failure injection:
#   - a GPU the build has no kernels for (GENESIS_CUEMU_NO_KERNEL_IMAGE=1): the backend's
#     start-up check fails with the GPU, its compute capability, the architectures built and
#     the CMake flag to use; --device cuda falls back to the CPU and the run succeeds;
#   - a kernel that faults during training (GENESIS_CUEMU_FAULT=NAME:N): fit fails with the
#     CUDA error and the operation it was found in, not as a diverged model, and writes no
#     model file.
# Before these were fixed the first run failed later as "training diverged" and the second
# said "CTGAN diverged at ... step". Skips (77) when the emulated module is not built.
#
#   bash tests/cli/emu_faults.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

MOD="$BLD/cuemu/libgenesis-cuda.so"
if [ ! -r "$MOD" ]; then echo "skip: $MOD is not built"; exit 77; fi
if [ "$IS_ASAN" = 1 ]; then echo "skip: CLI fits on the emulator run in the Release suite"; exit 77; fi
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 GENESIS_CUDA_EMULATOR=1 GENESIS_CUDA_MODULE="$MOD"
unset GENESIS_CUEMU_FAULT GENESIS_CUEMU_NO_KERNEL_IMAGE
cd "$W" || exit 1
head -n 301 "$ADULT" > "$W/small.csv" # 300 rows: quick

section "no kernel image for the GPU: a clear reason, then the CPU"
run noimg env GENESIS_CUEMU_NO_KERNEL_IMAGE=1 "$G" generate -i "$W/small.csv" -o "$OUT/a.csv" \
    -n 20 --epochs 1 --batch-size 100 --seed 1 --device cuda
expect_ok
for p in "cannot run on Genesis CUDA emulator" "compute capability 9.0" \
         "no kernel image is available" "CMAKE_CUDA_ARCHITECTURES" "falling back to the CPU"; do
    grep -qF "$p" "$W/noimg.err" && pass "start-up check says: $p" \
        || fail "start-up check does not say '$p': $(grep -i 'cuda\|gpu' "$W/noimg.err" | head -3)"
done
[ "$(wc -l < "$OUT/a.csv")" = 21 ] && pass "the run went on on the CPU" || fail "a.csv has $(wc -l < "$OUT/a.csv") lines"
rm -f "$OUT/a.csv"

section "a kernel faults during training: the CUDA error, not a divergence"
# (kernels a step runs: the fused step, docs/cuda.md "Kernels per step")
for spec in "k_relu_bn_backward:3" "k_adam:2" "k_gather:1"; do
    label=fault_${spec%%:*}
    run "$label" env GENESIS_CUEMU_FAULT="$spec" "$G" fit -i "$W/small.csv" -m "$OUT/m.gen" \
        --method ctgan --epochs 2 --batch-size 100 --seed 1 --device cuda
    expect_error 1 "failed in operation" "an illegal memory access was encountered"
    grep -qi "diverged" "$W/$label.err" && fail "[$label] reported as a divergence" \
        || pass "[$label] not reported as a divergence"
done
for spec in "k_act_backward_bias:2"; do
    run fault_tvae env GENESIS_CUEMU_FAULT="$spec" "$G" fit -i "$W/small.csv" -m "$OUT/m.gen" \
        --method tvae --epochs 2 --batch-size 100 --seed 1 --device cuda
    expect_error 1 "failed in operation" "an illegal memory access was encountered"
done

section "GENESIS_CUDA_SYNC=1 charges the fault to its own operation"
run fault_sync env GENESIS_CUEMU_FAULT=k_relu_bn_backward:3 GENESIS_CUDA_SYNC=1 "$G" fit \
    -i "$W/small.csv" -m "$OUT/m.gen" --method ctgan --epochs 2 --batch-size 100 --seed 1 --device cuda
expect_error 1 "failed in operation relu_bn_backward" "an illegal memory access was encountered"
finish
