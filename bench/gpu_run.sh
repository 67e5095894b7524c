#!/usr/bin/env bash
# gpu_run.sh — the ONE script to run on the GPU machine (H100/H200, CUDA 13, nvcc + CMake +
# ninja, no Debian -dev packages, no network). It:
#   1. unpacks the .deb files that bench/fetch_debs.sh downloaded (bench/debs)
#      into the build tree with dpkg -x (never into /), points CMake and pkg-config at them,
#      configures with -DGENESIS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 and builds;
#   2. runs the CUDA parity tests (test_backend_parity, test_model_parity), then
#      test_backend_parity under compute-sanitizer memcheck (time-capped), then the whole
#      CTest suite (every model test now trains on the GPU: the default device AUTO picks it);
#   3. times CTGAN and TVAE on Adult with bench_fit (3 epochs; AUTO = the GPU; with CUDA
#      graphs, the default, and with GENESIS_CUDA_GRAPHS=0 while time allows) and the same
#      fits on the CPU through the CLI (--device cpu, all cores), and, while the time budget
#      allows, a full 300-epoch CTGAN and TVAE fit on the GPU with sampling and the SDMetrics
#      quality score from `genesis evaluate`;
#   4. with the time left, training across dataset sizes (bench/gpu_sizes.sh; it is also
#      the next command to run, with its own budget, when little time was left here);
#   5. writes everything under $OUT (at most 8 files: summary.md, run.log, parity.log,
#      sanitizer.log, ctest.log, bench.jsonl, train_sizes_gpu.jsonl).
# The whole run stays under 10 minutes: every step has a timeout and the optional steps
# check the clock first.
#
# Adult (not shipped with the repository) is taken from bench/debs/adult.csv (fetch_debs.sh
# copies it there) or $GENESIS_DATA/adult.csv (GENESIS_DATA defaults to ../shared/data, a
# sibling folder of the developers' setup); without it the timings are skipped with a note.
#
#   On this (CPU) machine, once:   bash bench/fetch_debs.sh
#   On the GPU machine (device tool run, carry ["bench/debs"]):   bash bench/gpu_run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
BUDGET=${GPU_RUN_BUDGET:-540}       # seconds for the whole script (the run limit is 600)
BUILD=${BUILD:-$ROOT/build-gpu}
DEPS=$BUILD/deps
JOBS=$(nproc)
elapsed() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( BUDGET - $(elapsed) )); }
say() { echo "[gpu_run +$(elapsed)s] $*"; }
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
sum() { echo "$*" >>"$SUMMARY"; }

sum "# Genesis GPU run"
sum ""
sum "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(git status --porcelain 2>/dev/null | grep -q . && echo '(with local changes)')"
sum "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
GPU_LINE=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)
sum "- GPU: ${GPU_LINE:-nvidia-smi not available}"
sum "- CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $JOBS cores"
say "GPU: ${GPU_LINE:-?}"
nvidia-smi 2>/dev/null | head -20

# ---- 1. dependencies from .deb files, configure, build -----------------------------------------
. "$ROOT/bench/gpu_deps.sh"
if ! gpu_deps_setup; then
  say "no .deb files in bench/debs: run bench/fetch_debs.sh on the CPU machine and carry bench/debs"
  sum "- FAILED: no .deb files (run bench/fetch_debs.sh, carry bench/debs)"
  exit 1
fi
DEBDIR=$(dirname "$(ls "$ROOT"/bench/debs/*.deb 2>/dev/null | head -1)")
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
say "configure"
if ! cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DGENESIS_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DGENESIS_WERROR=ON "${CMAKE_EXTRA[@]}"; then
  sum "- FAILED: cmake configure (see run.log)"
  exit 1
fi
say "build ($JOBS jobs)"
if ! timeout 300 cmake --build "$BUILD" -j"$JOBS"; then
  sum "- FAILED: build (see run.log)"
  exit 1
fi
sum "- build: OK in $(elapsed) s (Release, sm_90, -Werror)"
"$BUILD/genesis" info || true

# ---- 2. tests ---------------------------------------------------------------------------------------
export GEN_SOURCE_DIR=$ROOT
say "parity tests"
( cd "$BUILD" && timeout 240 ./test_backend_parity; echo "test_backend_parity exit $?";
  timeout 240 ./test_model_parity; echo "test_model_parity exit $?" ) >"$OUT/parity.log" 2>&1
grep -E "exit|Checks|FAIL|nmse|step" "$OUT/parity.log" | grep -vE "^parity .* ok$" | head -60
BP=$(grep -c "^parity .* ok$" "$OUT/parity.log")
BF=$(grep -c "^parity .* FAIL$" "$OUT/parity.log")
sum "- test_backend_parity: $(grep 'test_backend_parity exit' "$OUT/parity.log" | sed 's/.*exit/exit/'), $BP cases ok, $BF failed"
sum "- test_model_parity: $(grep 'test_model_parity exit' "$OUT/parity.log" | sed 's/.*exit/exit/')"
grep -E "^(ctgan|tvae) " "$OUT/parity.log" | grep -E "nmse|through" | sed 's/^/  - /' >>"$SUMMARY"

SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$SAN" ] && [ "$(left)" -gt 330 ]; then
  say "compute-sanitizer memcheck on test_backend_parity (capped at 100 s)"
  ( cd "$BUILD" && timeout 100 "$SAN" --tool memcheck --leak-check no \
      --error-exitcode 9 ./test_backend_parity; echo "memcheck exit $?" ) >"$OUT/sanitizer.log" 2>&1
  tail -5 "$OUT/sanitizer.log"
  sum "- compute-sanitizer memcheck: $(tail -1 "$OUT/sanitizer.log") (124 = stopped at its time cap; 9 = errors found)"
fi

say "whole CTest suite"
( cd "$BUILD" && timeout 240 ctest -j8 --output-on-failure --timeout 200 ) >"$OUT/ctest.log" 2>&1
tail -25 "$OUT/ctest.log"
sum "- ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Skipped" "$OUT/ctest.log" | sed 's/^/  - /' >>"$SUMMARY"

# ---- 3. Adult timings ----------------------------------------------------------------------------
ADULT=""
for f in "$DEBDIR/adult.csv" "${GENESIS_DATA:-$ROOT/../shared/data}/adult.csv" "$ROOT/bench/debs/adult.csv"; do
  [ -f "$f" ] && { ADULT=$f; break; }
done
BJ=$OUT/bench.jsonl
: >"$BJ"
if [ -z "$ADULT" ]; then
  say "no adult.csv (bench/debs or GENESIS_DATA): timings skipped"
  sum "- Adult timings: skipped (no adult.csv)"
else
  sum ""
  sum "## Adult ($ADULT)"
  sum ""
  sum "| model | device | epochs | fit s | s/epoch | steps/s | notes |"
  sum "|---|---|---|---|---|---|---|"
  for M in ctgan tvae; do
    # with CUDA graphs (the default: one graph launch per step) and without (every kernel
    # launched from the host), docs/cuda.md "CUDA graphs"
    for GR in 1 0; do
      [ "$GR" = 1 ] || [ "$(left)" -gt 200 ] || { say "time budget: skipping $M without graphs"; continue; }
      say "bench_fit $M, 3 epochs, default device (the GPU), GENESIS_CUDA_GRAPHS=$GR"
      line=$(GENESIS_CUDA_GRAPHS=$GR timeout 150 "$BUILD/bench_fit" "$ADULT" 3 100000 0 /dev/null "$M" | tail -1)
      echo "$line"
      if [ -n "$line" ]; then
        echo "{\"device\":\"auto\",\"cuda_graphs\":$GR,${line#\{}" >>"$BJ"
        python3 - "$line" "$M" "$GR" >>"$SUMMARY" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
g = "graphs" if sys.argv[3] == "1" else "no graphs"
print(f"| {sys.argv[2]} | auto (GPU, {g}) | {r['epochs']} | {r['fit_s']:.2f} | {r['s_per_epoch']:.3f} | "
      f"{r['steps_per_s']:.1f} | prep {r['prep_s']:.2f} s, sampling {r['sample_rows_per_s']:.0f} rows/s |")
PY
      else
        sum "| $M | auto (GPU, GENESIS_CUDA_GRAPHS=$GR) | 3 | failed | | | see run.log |"
      fi
    done
    for dev in cpu cuda; do
      [ "$(left)" -gt 200 ] || { say "time budget: skipping the $dev CLI fit of $M"; continue; }
      say "CLI fit $M --device $dev, 3 epochs"
      t1=$(date +%s.%N)
      if timeout 150 "$BUILD/genesis" fit -i "$ADULT" -m "$BUILD/bench_$M.gen" --method "$M" \
          --epochs 3 --device "$dev" -q; then
        t2=$(date +%s.%N)
        s=$(python3 -c "print(f'{$t2-$t1:.2f}')")
        echo "{\"engine\":\"genesis-cli\",\"model\":\"$M\",\"device\":\"$dev\",\"epochs\":3,\"wall_s\":$s}" >>"$BJ"
        sum "| $M | $dev (CLI) | 3 | $s (wall, incl. read + transformer) | | | |"
      else
        sum "| $M | $dev (CLI) | 3 | failed | | | see run.log |"
      fi
    done
  done
  # full 300-epoch fits on the GPU with quality, while the budget allows
  for M in ctgan tvae; do
    spe=$(grep "\"model\":\"$M\"" "$BJ" | grep '"device":"auto"' | python3 -c \
      "import json,sys; r=[json.loads(l) for l in sys.stdin]; print(r[0]['s_per_epoch'] if r else 1e9)")
    need=$(python3 -c "print(int(300*$spe + 40))")   # + reading, transformer, sampling
    if [ "$need" -lt "$(( $(left) - 120 ))" ]; then   # keep room for sampling and evaluate
      say "300-epoch $M fit on the GPU (predicted ${need}s), sample 32561 rows, evaluate"
      t1=$(date +%s.%N)
      if timeout $(( $(left) - 100 )) "$BUILD/genesis" fit -i "$ADULT" -m "$BUILD/full_$M.gen" --method "$M" -q; then
        t2=$(date +%s.%N)
        s=$(python3 -c "print(f'{$t2-$t1:.2f}')")
        q="?"
        if timeout 60 "$BUILD/genesis" sample -m "$BUILD/full_$M.gen" -o "$BUILD/full_$M.csv" -n 32561 &&
           timeout 90 "$BUILD/genesis" evaluate --real "$ADULT" --synthetic "$BUILD/full_$M.csv" --json \
             --skip privacy,detection,validity,usefulness -q >"$BUILD/full_$M.json"; then
          q=$(python3 - "$BUILD/full_$M.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))["quality"]
print(f"{q['all_pairs']['score']:.4f} (strong pairs {q['threshold']['score']:.4f})")
PY
)
        fi
        echo "{\"engine\":\"genesis-cli\",\"model\":\"$M\",\"device\":\"auto\",\"epochs\":300,\"wall_s\":$s,\"quality\":\"$q\"}" >>"$BJ"
        sum "| $M | auto (GPU, CLI) | 300 | $s (wall) | | | quality $q |"
      else
        sum "| $M | auto (GPU, CLI) | 300 | failed or stopped at the time budget (~${need}s predicted) | | | |"
      fi
    else
      say "time budget: skipping the 300-epoch $M fit (needs ~${need}s, $(left)s left)"
      sum "| $M | auto (GPU) | 300 | skipped: ~${need}s predicted, $(left)s left | | | |"
    fi
  done
fi
# ---- 4. training across dataset sizes (bench/gpu_sizes.sh) -----------------------------------
if [ "$(left)" -gt 90 ]; then
  say "training across dataset sizes with the $(( $(left) - 15 )) s left (bench/gpu_sizes.sh)"
  GPU_SIZES_BUDGET=$(( $(left) - 15 )) OUT=$OUT BUILD=$BUILD bash bench/gpu_sizes.sh || true
else
  say "time budget: training across dataset sizes not run here; run bash bench/gpu_sizes.sh next"
  sum "- training across dataset sizes: not run (budget); run bash bench/gpu_sizes.sh next"
fi
sum ""
sum "Total script time: $(elapsed) s. Logs: run.log, parity.log, sanitizer.log, ctest.log, bench.jsonl."
say "done in $(elapsed) s"
cat "$SUMMARY"
