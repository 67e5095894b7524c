#!/usr/bin/env bash
# mpi_equivalence.sh — the data-parallel equivalence contract (docs/distributed.md):
# `mpirun -np 2` with the global batch B split into two slices of B/2 rows gives, after the
# same steps, the same training state as one rank with batch B, for CTGAN and for TVAE:
#   - the two ranks hold bit-identical state (parameters, batch-norm statistics, Adam
#     moments) after training;
#   - 2 ranks vs 1 rank: per array, |a - b| / |b| (L2) <= 1e-4 and every |a - b| <= 2.5e-3
#     (float rounding: sums are taken in another order; see the doc for why Adam lets a
#     near-zero gradient move a weight by up to ~1.6 lr per step whatever its sign);
#   - CTGAN with 4 ranks (batch 400, 5 steps) against 1 rank, the same checks;
#   - the CLI end to end: `mpirun -np 2 genesis fit` saves (on rank 0 only) a model whose
#     weights match `genesis fit`'s within the same tolerance; `generate` writes one file;
#   - the communicator alone: all-reduce of known values, broadcast, agree, check_same;
#   - a rank that fails (its input is missing) stops every rank with a clear error instead
#     of hanging; ranks with different seeds are refused with a message naming the seed.
# adult_sample.csv has 2000 rows: batch 500 gives 4 steps of CTGAN and of TVAE.
# Skips (77) when mpirun, the mpi_equiv helper or the build's MPI support is missing.
#
#   bash tests/cli/mpi_equivalence.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

HELPER="$BLD/mpi_equiv"
if ! command -v mpirun >/dev/null 2>&1; then echo "skip: no mpirun (install openmpi-bin: scripts/setup.sh)"; exit 77; fi
if [ ! -x "$HELPER" ]; then echo "skip: $HELPER is not built"; exit 77; fi
if ! "$G" info 2>/dev/null | grep -q 'MPI built in'; then echo "skip: this build has no MPI support"; exit 77; fi

# CI runs as root: OpenMPI refuses that unless told; two ranks may share one core.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPIRUN=(mpirun -np 2)
if mpirun --version 2>&1 | grep -qi 'open mpi'; then
    MPIRUN=(mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 2)
    # containers often forbid the cross-memory-attach copy (ptrace): use plain shared memory
    export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
fi
# AddressSanitizer build: keep leak checking for our code, suppress Open MPI's own
# allocations that it keeps until exit (tests/mpi/lsan_mpi.supp explains)
if [ "$IS_ASAN" = 1 ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SRC/tests/mpi/lsan_mpi.supp:print_suppressions=0"
fi
TMO=(timeout 120)
ATOL=2.5e-3
RTOL=1e-4
cd "$W" || exit 1

section "the communicator on 2 ranks"
run comm "${TMO[@]}" "${MPIRUN[@]}" "$HELPER" comm
if [ "$RC" = 0 ] && grep -q ': ok' "$W/comm.out"; then pass "$(grep -m1 'ranks:' "$W/comm.out" | sed 's/^mpi_equiv comm: //')"; else fail "communicator test (exit $RC)"; cat "$W/comm.out"; show_err; fi

for method in ctgan tvae; do
    section "$method: 2 ranks x 250 rows vs 1 rank x 500 rows (4 steps)"
    run ${method}_np1 "${TMO[@]}" "$HELPER" fit $method "$ADULT" 500 1 "$W/$method.np1"
    expect_ok
    run ${method}_np2 "${TMO[@]}" "${MPIRUN[@]}" "$HELPER" fit $method "$ADULT" 500 1 "$W/$method.np2"
    expect_ok
    if cmp -s "$W/$method.np2.rank0.bin" "$W/$method.np2.rank1.bin"; then
        pass "$method: rank 0 and rank 1 hold bit-identical state"
    else
        fail "$method: rank 0 and rank 1 differ ($(cmp "$W/$method.np2.rank0.bin" "$W/$method.np2.rank1.bin" 2>&1 | head -1))"
    fi
    run ${method}_cmp "$HELPER" compare "$W/$method.np2.rank0.bin" "$W/$method.np1.rank0.bin" $ATOL $RTOL
    sed 's/^mpi_equiv: /      | /' "$W/${method}_cmp.out"
    if [ "$RC" = 0 ]; then pass "$method: 2 ranks match 1 rank within tolerance"; else fail "$method: 2 ranks differ from 1 rank beyond tolerance"; fi
done

section "ctgan: 4 ranks x 100 rows vs 1 rank x 400 rows (5 steps)"
MPIRUN4=("${MPIRUN[@]}")
MPIRUN4[${#MPIRUN4[@]}-1]=4
run ctgan4_np1 "${TMO[@]}" "$HELPER" fit ctgan "$ADULT" 400 1 "$W/ctgan4.np1"
expect_ok
run ctgan4_np4 "${TMO[@]}" "${MPIRUN4[@]}" "$HELPER" fit ctgan "$ADULT" 400 1 "$W/ctgan4.np4"
expect_ok
same4=1
for r in 1 2 3; do cmp -s "$W/ctgan4.np4.rank0.bin" "$W/ctgan4.np4.rank$r.bin" || same4=0; done
if [ "$same4" = 1 ]; then pass "ctgan: all 4 ranks hold bit-identical state"; else fail "ctgan: the 4 ranks differ"; fi
run ctgan4_cmp "$HELPER" compare "$W/ctgan4.np4.rank0.bin" "$W/ctgan4.np1.rank0.bin" $ATOL $RTOL
sed 's/^mpi_equiv: /      | /' "$W/ctgan4_cmp.out"
if [ "$RC" = 0 ]; then pass "ctgan: 4 ranks match 1 rank within tolerance"; else fail "ctgan: 4 ranks differ from 1 rank beyond tolerance"; fi

section "CLI: mpirun -np 2 genesis fit / generate"
run cli_np1 "$G" fit -q --method ctgan --epochs 1 --seed 3 -i "$ADULT" -m "$OUT/np1.gen"
expect_ok
run cli_np2 "${TMO[@]}" "${MPIRUN[@]}" "$G" fit --method ctgan --epochs 1 --seed 3 -i "$ADULT" -m "$OUT/np2.gen"
expect_ok
if [ "$(grep -c 'saved model' "$W/cli_np2.err")" = 1 ] && grep -q 'data parallel over 2 ranks' "$W/cli_np2.err"; then
    pass "fit: one rank reports and saves ($(grep -m1 'all-reduce calls' "$W/cli_np2.err" | sed 's/^genesis: note: //'))"
else
    fail "fit: expected one 'saved model' line and the data-parallel notes"; show_err
fi
run cli_models "$HELPER" models "$OUT/np2.gen" "$OUT/np1.gen" $ATOL $RTOL
sed 's/^mpi_equiv: /      | /' "$W/cli_models.out"
if [ "$RC" = 0 ]; then pass "fit: the saved generator matches one rank's"; else fail "fit: the saved generator differs from one rank's"; fi
run cli_gen "${TMO[@]}" "${MPIRUN[@]}" "$G" generate -q --method tvae --epochs 1 -i "$ADULT" -o "$OUT/syn.csv" -n 123
expect_ok
rows=$(nrecords "$OUT/syn.csv")
if [ "$rows" = 123 ] && [ "$(ls "$OUT" | grep -c syn)" = 1 ]; then pass "generate: rank 0 wrote the 123 rows"; else fail "generate: expected one file of 123 rows, got '$rows' rows, files: $(ls "$OUT")"; fi

section "failures stop every rank"
# MPMD launch: rank 1 gets a file that does not exist; rank 0 is waiting for it in fit
ONE=(--oversubscribe --mca mpi_yield_when_idle 1 -np 1)
mpirun --version 2>&1 | grep -qi 'open mpi' || ONE=(-np 1)
run fail_rank1 "${TMO[@]}" mpirun "${ONE[@]}" "$G" fit -q --method ctgan --epochs 1 -i "$ADULT" -m "$W/f.gen" : "${ONE[@]}" "$G" fit -q --method ctgan --epochs 1 -i "$W/missing.csv" -m "$W/f.gen"
if [ "$RC" != 0 ] && [ "$RC" != 124 ] && grep -q 'missing.csv' "$W/fail_rank1.err" && grep -q 'stopping all 2 ranks' "$W/fail_rank1.err"; then
    pass "a rank that cannot read its input stops the job (exit $RC): $(grep -m1 'missing.csv' "$W/fail_rank1.err")"
else
    fail "missing input on rank 1: exit $RC (124 = hung until the timeout)"; show_err
fi
run fail_seed "${TMO[@]}" mpirun "${ONE[@]}" "$G" fit -q --method ctgan --epochs 1 --seed 1 -i "$ADULT" -m "$W/s.gen" : "${ONE[@]}" "$G" fit -q --method ctgan --epochs 1 --seed 2 -i "$ADULT" -m "$W/s.gen"
if [ "$RC" != 0 ] && [ "$RC" != 124 ] && grep -q 'seed' "$W/fail_seed.err"; then
    pass "ranks with different seeds are refused: $(grep -m1 'genesis: error' "$W/fail_seed.err")"
else
    fail "different seeds: exit $RC"; show_err
fi
run fail_batch "${TMO[@]}" "${MPIRUN[@]}" "$G" fit -q --method ctgan --epochs 1 --batch-size 510 -i "$ADULT" -m "$W/b.gen"
if [ "$RC" != 0 ] && [ "$RC" != 124 ] && grep -q 'multiple of ranks x --pac = 20' "$W/fail_batch.err"; then
    pass "a batch that does not split is refused: $(grep -m1 'genesis: error' "$W/fail_batch.err")"
else
    fail "batch 510 on 2 ranks: exit $RC"; show_err
fi

finish
