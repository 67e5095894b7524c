#!/usr/bin/env bash
# SUPERSEDED by bench/gpu_session.sh (docs/cuda.md, "What the GPU session must do"); kept as the
# record of how the first session (bench/results/gpu_20261126/) was run.
# gpu_run.sh — the ONE script of a GPU session's first call (H100/H200, CUDA 13, nvcc + CMake +
# ninja, PyTorch in python3, no Debian -dev packages, no network). In one call of under 10
# minutes it:
#   1. starts the Python reference (ctgan, carried as wheels in .whl) on its own CPU cores: its
#      data transformer (CPU only) runs while this script builds; its epoch loop waits for a
#      go-file (GENESIS_REF_WAIT, bench/ref/ref_ctgan.py) so that it is timed on a quiet GPU;
#   2. unpacks bench/debs (bench/fetch_debs.sh) into the build tree, finds cuDNN and NCCL
#      (the toolkit's, else the ones PyTorch's wheels carry), configures with -DGENESIS_CUDA=ON
#      -DCMAKE_CUDA_ARCHITECTURES=90 -DGENESIS_WERROR=ON and builds (again without cuDNN and
#      NCCL if that build fails);
#   3. the CUDA parity tests on the device (test_backend_parity, test_model_parity);
#   4. at the same time: compute-sanitizer memcheck then racecheck on test_backend_parity
#      (time-capped), and the whole CTest suite (the model tests train on the GPU: AUTO);
#   5. Adult: the reference's CTGAN and TVAE epochs on the quiet GPU, then Genesis's: bench_fit
#      (seconds per epoch), and the 300-epoch fits through the CLI (wall time, read and
#      transformer included) with the quality score computed on spare cores;
#   6. generation: `genesis estimate` on the GPU and bench/gen_sizes.sh at 1M and 10M rows
#      (time, peak device memory from cudaMemGetInfo beside the estimate);
#   7. with the time left: TimeGAN (cuDNN GRU) and DDPM seconds per 1,000 iterations;
#   8. writes $OUT/summary.md, $OUT/run.log, $OUT/bench.jsonl and $OUT/logs.tgz (every other
#      log; the device tool brings back at most 8 files), refreshed after each phase.
# Every step has a timeout and the optional ones check the clock first (GPU_RUN_BUDGET, 560 s).
#
# Adult and Stocks (not shipped with the repository) come from bench/debs (fetch_debs.sh copies
# them there) or $GENESIS_DATA (default ../shared/data, a sibling folder of the developers'
# setup); without Adult, data/adult_sample.csv is used and the summary says so.
#
#   On this (CPU) machine, once:   bash bench/fetch_debs.sh; the reference's wheels in .whl
#                                  (bench/README.md, "GPU session")
#   On the GPU machine (device tool run, carry ["bench/debs", ".whl"]):   bash bench/gpu_run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
BUDGET=${GPU_RUN_BUDGET:-560}
BUILD=${BUILD:-$ROOT/build-gpu}
DEPS=$BUILD/deps
LOGS=$BUILD/logs
REF_EPOCHS=${REF_EPOCHS:-8}
NPROC=$(nproc)
JOBS=$(( NPROC > 4 ? NPROC - 2 : NPROC ))
REF_CPUS=$(( NPROC - 2 ))-$(( NPROC - 1 ))        # the reference's transformer: the last two cores
[ "$NPROC" -gt 4 ] || REF_CPUS=0-$(( NPROC - 1 ))
mkdir -p "$LOGS"
elapsed() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( BUDGET - $(elapsed) )); }
say() { echo "[gpu_run +$(elapsed)s] $*"; }
SUMMARY=$OUT/summary.md
BJ=$OUT/bench.jsonl
: >"$SUMMARY"
: >"$BJ"
sum() { echo "$*" >>"$SUMMARY"; }
pack() { tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null || true; }
secs() { python3 -c "print(f'{$2-$1:.2f}')"; }

sum "# Genesis GPU run"
sum ""
sum "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(git status --porcelain 2>/dev/null | grep -q . && echo '(with local changes)')"
sum "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
GPU_LINE=$(nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)
sum "- GPU: ${GPU_LINE:-nvidia-smi not available}"
sum "- CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $NPROC cores; nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
say "GPU: ${GPU_LINE:-?}"
nvidia-smi >"$LOGS/nvidia-smi.txt" 2>&1

# ---- data --------------------------------------------------------------------------------------
ADULT=${ADULT:-}
for f in "$ROOT/bench/debs/adult.csv" "${GENESIS_DATA:-$ROOT/../shared/data}/adult.csv"; do
  [ -z "$ADULT" ] && [ -f "$f" ] && ADULT=$f
done
[ -n "$ADULT" ] || { ADULT=$ROOT/data/adult_sample.csv; sum "- Adult not carried: timings on data/adult_sample.csv"; }
ADULT_ROWS=$(( $(wc -l <"$ADULT") - 1 ))

# ---- 1. the reference's transformer, in the background -------------------------------------------
REF_OK=0
if [ -d "$ROOT/.whl" ] && ls "$ROOT"/.whl/*.whl >/dev/null 2>&1; then
  if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
       --target /tmp/site "$ROOT"/.whl/*.whl >"$LOGS/pip.log" 2>&1; then
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    REF_OK=1
  else
    sum "- reference: pip install of the carried wheels failed (logs.tgz: pip.log)"
  fi
fi
if [ "$REF_OK" = 1 ]; then
  for M in ctgan tvae; do
    rm -f "$LOGS/go_$M"
    ( exec env GENESIS_REF_WAIT="$LOGS/go_$M" timeout 420 taskset -c "$REF_CPUS" python3 \
        "$ROOT/bench/ref/ref_ctgan.py" --input "$ADULT" --model "$M" --epochs "$REF_EPOCHS" \
        --timing-only --device cuda --json-out "$LOGS/ref_$M.json" >"$LOGS/ref_$M.out" 2>"$LOGS/ref_$M.log" ) &
    eval "REF_PID_$M=$!"
  done
  say "reference started on cores $REF_CPUS (its epochs wait for the go-files)"
fi

# ---- 2. dependencies, configure, build -----------------------------------------------------------
. "$ROOT/bench/gpu_deps.sh"
gpu_deps_setup || say "no .deb files in bench/debs: the build dependencies must be installed"
GPULIB=()
PYNV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])" 2>/dev/null || true)
mkdir -p "$BUILD/pylibs"
if [ ! -f /usr/local/cuda/include/cudnn.h ] && [ -n "$PYNV" ] && [ -f "$PYNV/cudnn/include/cudnn.h" ]; then
  ln -sfn "$(ls "$PYNV"/cudnn/lib/libcudnn.so.* | head -1)" "$BUILD/pylibs/libcudnn.so"
  GPULIB+=("-DCUDNN_INCLUDE_DIR=$PYNV/cudnn/include" "-DCUDNN_LIBRARY=$BUILD/pylibs/libcudnn.so")
  export LD_LIBRARY_PATH="$PYNV/cudnn/lib:$LD_LIBRARY_PATH"
  say "cuDNN from PyTorch's wheel: $PYNV/cudnn"
fi
if [ ! -f /usr/local/cuda/include/nccl.h ] && [ -n "$PYNV" ] && [ -f "$PYNV/nccl/include/nccl.h" ]; then
  ln -sfn "$(ls "$PYNV"/nccl/lib/libnccl.so.* | head -1)" "$BUILD/pylibs/libnccl.so"
  GPULIB+=("-DNCCL_INCLUDE_DIR=$PYNV/nccl/include" "-DNCCL_LIBRARY=$BUILD/pylibs/libnccl.so")
  export LD_LIBRARY_PATH="$PYNV/nccl/lib:$LD_LIBRARY_PATH"
  say "NCCL from PyTorch's wheel: $PYNV/nccl"
fi
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
build() {   # the settings are all named: a cache left by an earlier call must not decide
  cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DGENESIS_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 "${CMAKE_EXTRA[@]}" "$@" >"$LOGS/configure.log" 2>&1 &&
  timeout 300 cmake --build "$BUILD" -j"$JOBS" >"$LOGS/build.log" 2>&1
}
say "configure and build ($JOBS jobs)"
if build -DGENESIS_WERROR=ON -DGENESIS_CUDNN=AUTO -DGENESIS_NCCL=AUTO "${GPULIB[@]}"; then
  sum "- build: OK in $(elapsed) s (Release, sm_90, -Werror)"
elif cp "$LOGS/build.log" "$LOGS/build_werror.log" &&
     build -DGENESIS_WERROR=OFF -DGENESIS_CUDNN=AUTO -DGENESIS_NCCL=AUTO "${GPULIB[@]}"; then
  grep -m3 "error:" "$LOGS/build_werror.log"
  sum "- build: FAILED with -Werror (logs.tgz: build_werror.log: $(grep -m1 -o '[a-z_/]*\.c[u]*:[0-9]*:[0-9]*: error: .*' "$LOGS/build_werror.log" | cut -c1-160)); OK without it in $(elapsed) s"
else
  tail -n 30 "$LOGS/configure.log" "$LOGS/build.log"
  say "build failed: again without cuDNN and NCCL"
  rm -rf "$BUILD/CMakeCache.txt" "$BUILD/CMakeFiles"
  if build -DGENESIS_WERROR=OFF -DGENESIS_CUDNN=OFF -DGENESIS_NCCL=OFF; then
    sum "- build: the first builds FAILED (logs.tgz: build_werror.log, build.log); OK without -Werror, cuDNN and NCCL in $(elapsed) s"
  else
    tail -40 "$LOGS/build.log"
    sum "- FAILED: build (logs.tgz: configure.log, build.log)"
    pack; exit 1
  fi
fi
grep -E "cuDNN|NCCL|CUDA" "$LOGS/configure.log" | head -8 | sed 's/^/  /' >>"$SUMMARY"
"$BUILD/genesis" info >"$LOGS/info.txt" 2>&1
head -20 "$LOGS/info.txt"
pack

# ---- 3. parity tests -----------------------------------------------------------------------------
export GEN_SOURCE_DIR=$ROOT
say "parity tests"
( cd "$BUILD" && timeout 150 ./test_backend_parity; echo "test_backend_parity exit $?";
  timeout 150 ./test_model_parity; echo "test_model_parity exit $?" ) >"$LOGS/parity.log" 2>&1
grep -E "exit|Checks|FAIL|skip" "$LOGS/parity.log" | head -40
BP=$(grep -c "^parity .* ok$" "$LOGS/parity.log")
BF=$(grep -c "FAIL" "$LOGS/parity.log")
sum "- test_backend_parity: $(grep 'test_backend_parity exit' "$LOGS/parity.log" | sed 's/.*exit/exit/'), $BP cases ok, $BF lines with FAIL"
sum "- test_model_parity: $(grep 'test_model_parity exit' "$LOGS/parity.log" | sed 's/.*exit/exit/')"
grep -E "^(ctgan|tvae|ddpm|timegan) " "$LOGS/parity.log" | grep -E "nmse|through" | head -12 | sed 's/^/  - /' >>"$SUMMARY"
pack

# ---- 4. sanitizers and the whole suite, side by side ---------------------------------------------
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
CAP4=$(( $(left) - 300 ))                      # keep 300 s for phases 5 and 6
[ "$CAP4" -gt 200 ] && CAP4=200
[ "$CAP4" -lt 60 ] && CAP4=60
say "memcheck + racecheck, and ctest, side by side (cap ${CAP4} s)"
(
  cd "$BUILD" || exit
  if [ -x "$SAN" ]; then
    timeout $(( CAP4 * 6 / 10 )) "$SAN" --tool memcheck --leak-check no --error-exitcode 9 \
        ./test_backend_parity >"$LOGS/memcheck.log" 2>&1
    echo "memcheck exit $?" >>"$LOGS/memcheck.log"
    timeout $(( CAP4 * 4 / 10 - 5 )) "$SAN" --tool racecheck --error-exitcode 9 \
        ./test_backend_parity >"$LOGS/racecheck.log" 2>&1
    echo "racecheck exit $?" >>"$LOGS/racecheck.log"
  fi
) &
SANPID=$!
( cd "$BUILD" && timeout "$CAP4" ctest -j6 --output-on-failure --timeout 150 -E "parity" ) >"$LOGS/ctest.log" 2>&1
wait "$SANPID"
tail -n 3 "$LOGS/memcheck.log" "$LOGS/racecheck.log" 2>/dev/null
sum "- compute-sanitizer memcheck on test_backend_parity: $(tail -1 "$LOGS/memcheck.log" 2>/dev/null) ($(grep -c '^parity .* ok$' "$LOGS/memcheck.log" 2>/dev/null) cases reached; 124 = stopped at its time cap, 9 = errors); $(grep -m1 'ERROR SUMMARY' "$LOGS/memcheck.log" 2>/dev/null)"
sum "- racecheck: $(tail -1 "$LOGS/racecheck.log" 2>/dev/null) ($(grep -c '^parity .* ok$' "$LOGS/racecheck.log" 2>/dev/null) cases reached); $(grep -m1 'RACECHECK SUMMARY\|ERROR SUMMARY' "$LOGS/racecheck.log" 2>/dev/null)"
tail -15 "$LOGS/ctest.log"
sum "- ctest (all but the parity tests, run above): $(grep -E 'tests passed|tests failed' "$LOGS/ctest.log" | tail -1)"
grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Not Run|\*\*\*Skipped| Skipped" "$LOGS/ctest.log" | head -20 | sed 's/^/  - /' >>"$SUMMARY"
pack

# ---- 5. Adult: the reference, then Genesis --------------------------------------------------------
sum ""
sum "## Adult ($ADULT_ROWS rows)"
sum ""
sum "| engine | model | epochs | fit s (wall) | s/epoch | notes |"
sum "|---|---|---|---|---|---|"
ref_epochs() {   # $1 model: the reference's epoch loop on the quiet GPU
  local M=$1 pid cap w=0
  pid=$(eval echo "\${REF_PID_$M:-}")
  [ -n "$pid" ] || return
  while ! grep -q "waiting for" "$LOGS/ref_$M.log" 2>/dev/null && kill -0 "$pid" 2>/dev/null && [ "$w" -lt 60 ]; do
    sleep 1; w=$((w + 1))
  done
  cap=$(( $(left) - 230 )); [ "$cap" -gt 90 ] && cap=90
  if ! grep -q "waiting for" "$LOGS/ref_$M.log" 2>/dev/null || [ "$cap" -lt 15 ]; then
    say "reference $M: transformer not done or no time (cap $cap s); skipped"
    sum "| reference | $M | - | not timed | | transformer not done in time or no time left |"
    kill "$pid" 2>/dev/null; return
  fi
  say "reference $M: $REF_EPOCHS epochs on the GPU (cap $cap s)"
  touch "$LOGS/go_$M"
  w=0
  while kill -0 "$pid" 2>/dev/null && [ "$w" -lt "$cap" ]; do sleep 1; w=$((w + 1)); done
  kill "$pid" 2>/dev/null
  python3 - "$LOGS/ref_$M.log" "$LOGS/ref_$M.json" "$M" >>"$SUMMARY" <<'PY'
import json, os, re, sys
ends = [float(m.group(1)) for m in re.finditer(r"ends at ([0-9.]+) s", open(sys.argv[1]).read())]
tr = ""
if os.path.exists(sys.argv[2]):
    r = json.load(open(sys.argv[2]))
    tr = f", transformer {r['transform_s']:.1f} s, torch {r['torch_version']}, ctgan {r['ctgan_version']}"
if len(ends) >= 2:
    later = (ends[-1] - ends[0]) / (len(ends) - 1)
    print(f"| reference | {sys.argv[3]} | {len(ends)} | {ends[-1]:.2f} (epoch loop only) | {later:.4f} | "
          f"first epoch {ends[0]:.2f} s; 300 epochs ~ {ends[0] + 299 * later:.0f} s of loop{tr} |")
else:
    print(f"| reference | {sys.argv[3]} | {len(ends)} | failed or too slow | | see ref_{sys.argv[3]}.log |")
PY
}
if [ "$REF_OK" = 1 ]; then ref_epochs ctgan; ref_epochs tvae; fi
pack
EVAL_PIDS=()
for M in ctgan tvae; do
  [ "$(left)" -gt 150 ] || { say "time budget: skipping Genesis $M on Adult"; sum "| genesis | $M | | skipped (budget) | | |"; continue; }
  say "bench_fit $M, 5 epochs on the GPU"
  line=$(timeout 90 "$BUILD/bench_fit" "$ADULT" 5 100000 0 /dev/null "$M" 2>>"$LOGS/bench_fit.log" | tail -1)
  spe=1000
  if [ -n "$line" ]; then
    echo "{\"device\":\"auto\",${line#\{}" >>"$BJ"
    spe=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['s_per_epoch'])" "$line")
    python3 - "$line" "$M" >>"$SUMMARY" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(f"| genesis (bench_fit) | {sys.argv[2]} | {r['epochs']} | {r['fit_s']:.2f} | {r['s_per_epoch']:.4f} | "
      f"{r['steps_per_s']:.0f} steps/s, prep {r['prep_s']:.2f} s, sampling {r['sample_rows_per_s']:.0f} rows/s |")
PY
  else
    sum "| genesis (bench_fit) | $M | 5 | failed | | logs.tgz: bench_fit.log |"
  fi
  need=$(python3 -c "print(int(300 * $spe + 15))")
  if [ "$need" -lt "$(( $(left) - 120 ))" ]; then
    say "300-epoch $M fit through the CLI (predicted ${need} s)"
    t1=$(date +%s.%N)
    if timeout $(( need * 2 + 20 )) "$BUILD/genesis" fit -i "$ADULT" -m "$BUILD/full_$M.gen" --method "$M" \
         --epochs 300 --seed 0 -q 2>>"$LOGS/fit_$M.log"; then
      t2=$(date +%s.%N); s=$(secs "$t1" "$t2")
      echo "{\"engine\":\"genesis-cli\",\"model\":\"$M\",\"device\":\"auto\",\"epochs\":300,\"wall_s\":$s}" >>"$BJ"
      sum "| genesis (CLI) | $M | 300 | $s | | read + transformer + training + model file |"
      # quality on spare cores while the GPU goes on
      ( taskset -c "$REF_CPUS" timeout 200 "$BUILD/genesis" sample -m "$BUILD/full_$M.gen" -o "$BUILD/full_$M.csv" \
          -n "$ADULT_ROWS" --seed 1 --device cpu -q &&
        taskset -c "$REF_CPUS" timeout 200 "$BUILD/genesis" evaluate --real "$ADULT" --synthetic "$BUILD/full_$M.csv" \
          --json --skip privacy,detection,validity,usefulness --threads 2 -q >"$LOGS/quality_$M.json" ) \
          2>>"$LOGS/quality.log" &
      EVAL_PIDS+=($!)
    else
      sum "| genesis (CLI) | $M | 300 | failed or stopped (~${need} s predicted) | | logs.tgz: fit_$M.log |"
    fi
  else
    sum "| genesis (CLI) | $M | 300 | skipped: ~${need} s predicted, $(left) s left | | |"
  fi
done
pack

# ---- 6. generation ----------------------------------------------------------------------------------
if [ "$(left)" -gt 70 ]; then
  say "estimate and generation at 1M and 10M rows on the GPU"
  "$BUILD/genesis" estimate -i "$ADULT" --device cuda >"$LOGS/estimate.txt" 2>&1
  BUILD=$BUILD ADULT=$ADULT RESULTS=$LOGS/gen_sizes.jsonl OUTDIR=$BUILD EPOCHS=5 \
    timeout $(( $(left) - 40 )) bash bench/gen_sizes.sh cuda "1000000 10000000" >"$LOGS/gen_sizes.log" 2>&1 ||
    say "generation stopped (time or error)"
  cat "$LOGS/gen_sizes.jsonl" >>"$BJ" 2>/dev/null
  sum ""
  sum "## Generation (CTGAN of Adult, 5 epochs, CSV to the local disk)"
  sum ""
  python3 - "$LOGS/gen_sizes.jsonl" >>"$SUMMARY" <<'PY'
import json, sys
print("| rows | s | rows/s | batch | device in use, peak MiB | before the context MiB | process share MiB | estimate device MiB | peak host MiB | estimate host MiB |")
print("|---|---|---|---|---|---|---|---|---|---|")
try:
    for l in open(sys.argv[1]):
        r = json.loads(l); mb = lambda x: f"{x / 2**20:.0f}" if x else "-"
        print(f"| {r['rows']} | {r['seconds']:.2f} | {r['rows_per_s']} | {r['batch_rows']} | {mb(r['peak_device'])} | "
              f"{mb(r.get('device_before', 0))} | {mb(r.get('process_device', 0))} | "
              f"{mb(r['estimate_device'])} | {mb(r['peak_host'])} | {mb(r['estimate_host'])} |")
except OSError:
    print("| no results | | | | | | | |")
PY
else
  sum "- generation: skipped (budget)"
fi
pack

# ---- 7. TimeGAN and DDPM per 1,000 iterations -------------------------------------------------------
sum ""
if [ "$(left)" -gt 50 ]; then
  awk 'BEGIN { srand(1); print "id,t,f0,f1,f2,f3,f4";
      for (i = 1; i <= 2000; i++) { for (k = 0; k < 5; k++) { fr[k] = 0.1 * rand(); ph[k] = 0.1 * rand() }
          for (j = 0; j < 24; j++) { printf "%d,%d", i, j; for (k = 0; k < 5; k++) printf ",%.6f", (sin(fr[k] * j + ph[k]) + 1) / 2; printf "\n" } } }' \
      >"$BUILD/sines.csv"
  say "TimeGAN: 1,000 iterations per phase on the GPU (sines, 2,000 series)"
  t1=$(date +%s.%N)
  if timeout $(( $(left) - 30 )) "$BUILD/genesis" fit --method timegan -i "$BUILD/sines.csv" --entity id --time t \
       --seq-len 24 --hidden-dim 24 --num-layers 3 --batch-size 128 --iterations 1000 --seed 0 \
       --progress -m "$BUILD/tg.gen" >"$LOGS/timegan.log" 2>&1; then
    t2=$(date +%s.%N)
    sum "- TimeGAN (hidden 24, 3 layers, batch 128): 3 phases x 1,000 iterations in $(secs "$t1" "$t2") s wall; genesis info: $(grep -iE 'cudnn|gru' "$LOGS/info.txt" | head -1)"
  else
    sum "- TimeGAN: failed or stopped (logs.tgz: timegan.log)"
  fi
fi
if [ "$(left)" -gt 40 ]; then
  say "DDPM: 1,000 iterations on Adult on the GPU, then 1M rows"
  t1=$(date +%s.%N)
  if timeout $(( $(left) - 20 )) "$BUILD/genesis" fit --method ddpm -i "$ADULT" -m "$BUILD/ddpm.gen" \
       --iterations 1000 --seed 0 -q >"$LOGS/ddpm.log" 2>&1; then
    t2=$(date +%s.%N)
    sum "- DDPM (defaults): 1,000 iterations on Adult in $(secs "$t1" "$t2") s wall (read + transformer included)"
    if [ "$(left)" -gt 25 ]; then
      t1=$(date +%s.%N)
      if timeout $(( $(left) - 10 )) "$BUILD/genesis" sample -m "$BUILD/ddpm.gen" -n 1000000 -o "$BUILD/ddpm_1m.csv" -q \
           >>"$LOGS/ddpm.log" 2>&1; then
        t2=$(date +%s.%N)
        sum "- DDPM sampling (100 strided steps, the default): 1M rows to CSV in $(secs "$t1" "$t2") s wall"
      fi
      rm -f "$BUILD/ddpm_1m.csv"
    fi
  else
    sum "- DDPM: failed or stopped (logs.tgz: ddpm.log)"
  fi
fi

# ---- quality of the 300-epoch fits ------------------------------------------------------------------
for p in "${EVAL_PIDS[@]}"; do
  w=0; while kill -0 "$p" 2>/dev/null && [ "$(left)" -gt 3 ]; do sleep 1; done
done
for M in ctgan tvae; do
  [ -s "$LOGS/quality_$M.json" ] || continue
  python3 - "$LOGS/quality_$M.json" "$M" >>"$SUMMARY" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["scores"]
print(f"- {sys.argv[2]} 300 epochs on the GPU (seed 0; sampled on the CPU): quality {s['quality']:.4f}, column shapes "
      f"{s['column_shapes']:.4f}, pair trends {s['column_pair_trends']:.4f}, strong pairs {s['column_pair_trends_threshold']:.4f}")
PY
done
sum ""
sum "Total script time: $(elapsed) s."
say "done in $(elapsed) s"
pack
cat "$SUMMARY"
