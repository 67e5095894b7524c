#!/usr/bin/env bash
# emu_nccl.sh — NCCL data parallel (cuda/comm_nccl.cu) on the emulated CUDA runtime and its
# emulated NCCL (tests/cuemu/nccl.cc; docs/cuda.md, "The emulated CUDA runtime"): ranks that
# are threads of one process, all on emulated GPU 0, against 1 rank on the CPU:
#   - TVAE, 3 NCCL ranks, global batch 600; CTGAN, 2 NCCL ranks, global batch 400;
#   - every rank ends bit-identical to rank 0; vs 1 rank: per array |a - b| / |b| <= 1e-4
#     and |a - b| <= 2.5e-3 (the contract of docs/distributed.md);
#   - a rank whose GPU fails (a refused launch on one rank, GENESIS_CUEMU_LAUNCH_ERROR) does
#     not leave the others waiting in a collective: every rank returns (the failed one with
#     its CUDA error, the others with the non-finite sums), where before its peers waited
#     forever (docs/cuda.md, "NCCL when a rank fails");
#   - no run made a device-wide synchronisation while a peer's all-reduce waited for it
#     (the emulator refuses and reports it: docs/cuda.md, "NCCL and device-wide
#     synchronisation").
# Skips (77) when the emulated module is not built or the library has no NCCL support.
#
#   bash tests/cli/emu_nccl.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

HELPER="$BLD/mpi_equiv"
MOD="$BLD/cuemu/libgenesis-cuda.so"
if [ ! -x "$HELPER" ] || [ ! -r "$MOD" ]; then echo "skip: $HELPER or $MOD is not built"; exit 77; fi
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 GENESIS_CUDA_EMULATOR=1 GENESIS_CUDA_MODULE="$MOD"
if ! "$G" info 2>/dev/null | grep -q "NCCL built in"; then echo "skip: this build has no NCCL support"; exit 77; fi
ATOL=2.5e-3
RTOL=1e-4
cd "$W" || exit 1

check() { # METHOD BATCH K
    local method=$1 batch=$2 k=$3 tag="$1.k$3"
    section "$method: $k NCCL ranks on the emulated GPU vs 1 rank on the CPU, global batch $batch"
    run ${tag}_1 timeout 120 "$HELPER" fit "$method" "$ADULT" "$batch" 1 "$W/$tag.one"
    expect_ok
    run ${tag}_k timeout 300 "$HELPER" team "$method" "$ADULT" "$batch" 1 "$W/$tag.nccl" "$k" nccl
    expect_ok
    grep -q "(cuda:0)" "$W/${tag}_k.out" && pass "$method: the ranks ran on the emulated GPU" \
        || fail "$method: the ranks did not run on cuda:0: $(head -3 "$W/${tag}_k.out")"
    local r same=1
    for ((r = 1; r < k; r++)); do
        cmp -s "$W/$tag.nccl.rank0.bin" "$W/$tag.nccl.rank$r.bin" || same=0
    done
    if [ "$same" = 1 ]; then pass "$method: all $k ranks hold bit-identical state"; else fail "$method: ranks differ"; fi
    run ${tag}_cmp "$HELPER" compare "$W/$tag.nccl.rank0.bin" "$W/$tag.one.rank0.bin" $ATOL $RTOL
    sed 's/^mpi_equiv: /      | /' "$W/${tag}_cmp.out"
    if [ "$RC" = 0 ]; then pass "$method: $k NCCL ranks match 1 rank within tolerance"; else fail "$method: $k NCCL ranks differ from 1 rank beyond tolerance"; fi
}

check tvae 600 3
check ctgan 400 2

fails() { # METHOD BATCH K SPEC
    local method=$1 batch=$2 k=$3 spec=$4 tag="fail.$1.k$3"
    section "$method: one of $k NCCL ranks fails ($spec); nobody waits forever"
    run $tag env MPI_EQUIV_NO_ABORT=1 GENESIS_CUEMU_LAUNCH_ERROR="$spec" timeout 120 "$HELPER" team \
        "$method" "$ADULT" "$batch" 1 "$W/$tag" "$k" nccl
    [ "$RC" = 1 ] && pass "$method: every rank returned (exit 1)" || fail "$method: exit $RC (124: a rank waited forever)"
    local nf nd
    nf=$(grep -c "failed in operation" "$W/$tag.err")
    nd=$(grep -c "diverged in epoch 1" "$W/$tag.err")
    [ "$nf" = 1 ] && pass "$method: one rank reports its CUDA error" || fail "$method: $nf ranks report a CUDA error"
    [ "$nd" = $((k - 1)) ] && pass "$method: the other $((k - 1)) stop with the non-finite sums" \
        || fail "$method: $nd ranks report the divergence: $(cat "$W/$tag.err")"
}
fails ctgan 400 2 k_relu_backward:7
fails tvae 600 3 k_act_backward_bias:4

# No rank synchronised the whole device while a peer's all-reduce waited for it: the
# emulator refuses that call (it would hang on a GPU, and hung here in some interleavings
# before the backend grew its buffers in stream order).
section "no device-wide synchronisation while a collective waits"
nh=$(cat "$W"/*.err 2>/dev/null | grep -c "on a GPU this waits forever")
[ "$nh" = 0 ] && pass "no refused cudaFree/cudaDeviceSynchronize in any run" \
    || fail "$nh refused device-wide synchronisation(s): $(cat "$W"/*.err | grep -m1 "waits forever")"
finish
