#!/usr/bin/env bash
# run.sh — builds the libFuzzer harnesses (fuzz/fuzz_*.c) with clang, ASan and UBSan, and runs
# each for a while from its seed corpus (fuzz/corpus/<target>/) and regression corpus
# (fuzz/regress/<target>/). `make fuzz` and `make sanitize` call it; docs/fuzzing.md.
#
#   bash fuzz/run.sh [SECONDS]     seconds per target (default 60)
#   FUZZ_TARGETS="csv model"       which harnesses (default: csv model evaluate)
#   FUZZ_BUILD=build-fuzz          the clang build folder; the work corpus (new inputs found)
#                                  goes to $FUZZ_BUILD/corpus/<target>, crashing inputs to
#                                  $FUZZ_BUILD/artifacts/, logs to $FUZZ_BUILD/logs/
#   FUZZ_JOBS=2                    build jobs
#   FUZZ_RUNS=N                    stop each target after N executions instead (with SECONDS
#                                  still the upper bound)
# Without clang it says so and exits 0 (the step is skipped). Exit 1 when a target finds a
# crash, a leak, a timeout or an out-of-memory input (the input is in artifacts/).
set -u
cd "$(dirname "$0")/.."
SECS=${1:-60}
TARGETS=${FUZZ_TARGETS:-csv model evaluate}
BUILD=${FUZZ_BUILD:-build-fuzz}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

CC_FUZZ=${CC_FUZZ:-}
if [ -z "$CC_FUZZ" ]; then
    for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
        if command -v "$c" >/dev/null 2>&1; then CC_FUZZ=$(command -v "$c"); break; fi
    done
fi
if [ -z "$CC_FUZZ" ]; then
    echo "fuzz: clang not found — the libFuzzer harnesses need clang (apt-get install clang); skipped"
    exit 0
fi
# libFuzzer ships with clang's runtime; some distributions package it separately
probe=$(mktemp -d "${TMPDIR:-/tmp}/genesis-fuzz-probe.XXXXXX")
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$CC_FUZZ" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "fuzz: $CC_FUZZ cannot link libFuzzer (-fsanitize=fuzzer; install libclang-rt-dev or the compiler-rt package); skipped"
    exit 0
fi
rm -rf "$probe"

echo "fuzz: building the harnesses with $CC_FUZZ in $BUILD"
mkdir -p "$BUILD"
CC="$CC_FUZZ" cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGENESIS_FUZZ=ON \
    -DGENESIS_BUILD_TESTS=OFF -DGENESIS_BUILD_BENCH=OFF -DGENESIS_CUDA_EMU=OFF \
    -DGENESIS_CUDA=OFF -DGENESIS_MPI=OFF >"$BUILD/configure.log" 2>&1 ||
    { cat "$BUILD/configure.log"; echo "fuzz: configure failed"; exit 1; }
targets=""
for t in $TARGETS; do targets="$targets fuzz_$t"; done
cmake --build "$BUILD" -j "$JOBS" --target $targets || { echo "fuzz: build failed"; exit 1; }

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# the harnesses write their inputs to files: tmpfs when there is one
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
mkdir -p "$BUILD/artifacts" "$BUILD/logs"
status=0
for t in $TARGETS; do
    case $t in
        csv) maxlen=4096 ;;
        model) maxlen=16384 ;;
        evaluate) maxlen=8192 ;;
        *) maxlen=4096 ;;
    esac
    mkdir -p "$BUILD/corpus/$t"
    log="$BUILD/logs/$t.log"
    runs=()
    if [ -n "${FUZZ_RUNS:-}" ]; then runs=(-runs="$FUZZ_RUNS"); fi
    echo "fuzz: $t for ${SECS}s (log $log)"
    "$BUILD/fuzz_$t" -max_total_time="$SECS" "${runs[@]}" -max_len=$maxlen -timeout=30 \
        -rss_limit_mb=2560 -malloc_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$BUILD/artifacts/$t-" \
        "$BUILD/corpus/$t" "fuzz/corpus/$t" "fuzz/regress/$t" >"$log" 2>&1
    rc=$?
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | sed "s/^/fuzz: $t: /"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed "s/^/fuzz: $t: /"
    if [ $rc -ne 0 ]; then
        echo "fuzz: $t FOUND A PROBLEM (exit $rc); the input is in $BUILD/artifacts/, the report:"
        grep -E -A30 'ERROR: |runtime error:|==[0-9]+==|Test unit written' "$log" | head -60
        status=1
    fi
done
exit $status
