#!/usr/bin/env bash
# dist_threads.sh — the equivalence contract with ranks that are threads of one process
# (genesis_team, src/comm/comm_threads.c; no MPI needed, so it runs on every CI machine):
#   - CTGAN, 4 ranks x 100 rows vs 1 rank x 400 rows (5 steps);
#   - TVAE, 3 ranks on batches of 600 rows (uneven slices of 200/200/200 and, in the last
#     batch of 200 rows, 66/67/67) vs 1 rank; and with alpha-per-mode 1 on batches of 500
#     (167/167/166);
#   - every rank ends bit-identical to rank 0; vs 1 rank: per array |a - b| / |b| <= 1e-4 and
#     |a - b| <= 2.5e-3 (docs/distributed.md);
#   - CTGAN (4 ranks) and TVAE (3) with gradient checkpointing: the bits of the team without it;
#   - threads and MPI give the same bits for 2 ranks (when mpirun is there: see
#     mpi_equivalence.sh for the MPI runs themselves).
#
#   bash tests/cli/dist_threads.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

HELPER="$BLD/mpi_equiv"
if [ ! -x "$HELPER" ]; then echo "skip: $HELPER is not built"; exit 77; fi
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
ATOL=2.5e-3
RTOL=1e-4
cd "$W" || exit 1

check() { # METHOD BATCH EPOCHS K
    local method=$1 batch=$2 epochs=$3 k=$4 tag="$1.b$2.k$4"
    section "$method: $k thread ranks vs 1 rank, global batch $batch, $epochs epoch(s)${MPI_EQUIV_ALPHA_PER_MODE:+, alpha-per-mode $MPI_EQUIV_ALPHA_PER_MODE}"
    run ${tag}_1 timeout 120 "$HELPER" fit "$method" "$ADULT" "$batch" "$epochs" "$W/$tag.one"
    expect_ok
    run ${tag}_k timeout 120 "$HELPER" team "$method" "$ADULT" "$batch" "$epochs" "$W/$tag.team" "$k" threads
    expect_ok
    local r same=1
    for ((r = 1; r < k; r++)); do
        cmp -s "$W/$tag.team.rank0.bin" "$W/$tag.team.rank$r.bin" || same=0
    done
    if [ "$same" = 1 ]; then pass "$method: all $k ranks hold bit-identical state"; else fail "$method: ranks differ"; fi
    run ${tag}_cmp "$HELPER" compare "$W/$tag.team.rank0.bin" "$W/$tag.one.rank0.bin" $ATOL $RTOL
    sed 's/^mpi_equiv: /      | /' "$W/${tag}_cmp.out"
    if [ "$RC" = 0 ]; then pass "$method: $k ranks match 1 rank within tolerance"; else fail "$method: $k ranks differ from 1 rank beyond tolerance"; fi
}

check ctgan 400 1 4
check tvae 600 1 3
export MPI_EQUIV_ALPHA_PER_MODE=1
check tvae 500 1 3
unset MPI_EQUIV_ALPHA_PER_MODE

# gradient checkpointing (docs/memory.md): with ranks, CTGAN's recomputed block 1 repeats the
# synchronised batch norm's all-reduces; each rank's state is the bits of the team without it
section "gradient checkpointing with thread ranks: the state of the team without it"
for spec in "ctgan 400 4" "tvae 600 3"; do
    set -- $spec
    run ck_$1 env MPI_EQUIV_GRADIENT_CHECKPOINTING=1 timeout 120 "$HELPER" team "$1" "$ADULT" "$2" 1 "$W/ck_$1.team" "$3" threads
    if expect_ok; then
        same=1
        for ((r = 0; r < $3; r++)); do
            cmp -s "$W/ck_$1.team.rank$r.bin" "$W/$1.b$2.k$3.team.rank$r.bin" || same=0
        done
        [ "$same" = 1 ] && pass "$1: $3 ranks with checkpointing hold the bits of the team without it" || fail "$1: $3 ranks with checkpointing differ from the team without it"
    fi
done

finish
