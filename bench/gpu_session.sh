#!/usr/bin/env bash
# gpu_session.sh — the GPU session in two device-tool calls on one warm machine (issue 34):
# 15 minutes of device time in all, machine start (1-2 min) included, so call 1 runs at most
# 8.5 minutes and call 2, started at once after it, at most 3.
#
#   bash bench/gpu_session.sh --call 1        # build, parity, memcheck, bench_fit, Adult, sizes
#   bash bench/gpu_session.sh --call 2        # DDPM, TimeGAN, precisions, 1M rows, NCCL
#   bash bench/gpu_session.sh --call 1 --phases "build parity"      # some phases only
#   GPU_SESSION_DRY=1 bash bench/gpu_session.sh --call 1           # dry run (below)
#
# Device tool (docs/cuda.md, "What the GPU session must do"):
#   run(command="bash bench/gpu_session.sh --call 1", carry=["bench/debs"], timeout_s=510)
#   run(command="bash bench/gpu_session.sh --call 2", carry=["bench/debs"], timeout_s=180)
#
# Phases, each run as a child process under `timeout` with its own budget (seconds; override
# with BUDGET_<phase>=S). A phase that runs out is stopped, keeps what it wrote, and the script
# goes on; the call as a whole stops starting phases at CALL_BUDGET (call 1: 495 s, call 2:
# 170 s), so that it ends inside the device call's timeout_s. Expected wall time on an
# H100/H200 with a 16-core host, estimated from the first session (bench/results/gpu_20261126/,
# an H200) where a phase was run there, else from the CPU machine's figures:
#
#   call 1 (495 s)  budget  expected  what
#     setup           (*)       3     nvidia-smi, unpack bench/debs, cuDNN/NCCL from PyTorch's
#                                     wheels, the 50-column tables written in the background
#     build           210     60-100  configure (Release, GENESIS_CUDA=ON, sm_90, -Werror,
#                                     cuDNN and NCCL ON where found) and build everything; on a
#                                     failure: every error listed (ninja -k 0), then again
#                                     without -Werror, then with cuDNN and NCCL on AUTO (the
#                                     flags that built are kept for call 2)
#     parity           45       5     test_backend_parity (its tf32 cases counted apart),
#                                     test_model_parity (first session: 2 s together)
#     memcheck         65      60     compute-sanitizer memcheck on test_model_parity, capped
#                                     at 60 s (cases reached and errors reported either way)
#     fitbench         45      15     bench_fit, CTGAN and TVAE on Adult, 20 epochs, CUDA graphs
#                                     on and off (first session: 0.04 / 0.015 s per epoch)
#     kernels          75      50     (only with --phases) per-kernel device times of CTGAN's and
#                                     TVAE's step: ncu on bench_fit, about 5 steps each, summed
#                                     per kernel name (bench/kernel_times.py); kernels_*.csv
#     adult            80      60     3 seeds x 300-epoch CLI fits of CTGAN and TVAE on Adult
#                                     (12.7 s and 5.3 s each in the first session), --threads 12,
#                                     the device that trained read from each log; quality scored
#                                     on the other 4 host cores in the background
#     sizes           rest    ~250    the 50-column table (bench_make_table) at 10K, 100K, 1M
#                                     (10M only if the 1M run projects inside the time left):
#                                     CTGAN, TVAE, DDPM, one epoch at batch 500, on the GPU
#                                     (60% of the phase) then on the 16 host cores; what does
#                                     not fit is projected and labelled so (train_sizes.py)
#   call 2 (170 s)
#     setup/build     (*)/40    5     the same, finding call 1's build (a fresh machine builds,
#                                     with a budget of 210 s, and later phases get what is left)
#     ddpm             35      10     DDPM on Adult (1,000 iterations), then 100K rows sampled
#                                     on the device (sampling capped at 25 s)
#     timegan          65      40     TimeGAN on Sines, 300 iterations per phase, timed per
#                                     phase from time-stamped progress lines, given per 1,000
#                                     (H100, call 3 of 2026-11-28: 6.4 / 3.6 / 42.9 s per 1,000
#                                     with cuda/gru.cu, no graphs); cuda/gru.cu's kernels
#                                     (GENESIS_CUDNN_GRU=0) with CUDA graphs on, then off
#                                     (GENESIS_CUDA_GRAPHS=1/0; the two model files compared),
#                                     then with TG_CUDNN=1 the build's GRU (cuDNN) without
#                                     graphs; each fit capped at TG_CAP (30) s
#     precision        55      35     bench_fit fp32/tf32/bf16/fp16, CTGAN and TVAE, at batch
#                                     500 (10 epochs) and 10,000 (30 epochs)
#     sample1m         20       8     `genesis sample -n 1000000 -o FILE` end to end (process
#                                     start, model load, CSV on disk), CTGAN and TVAE
#     nccl             30      15     mpi_equiv: 1 rank and 2 thread ranks on the GPU
#                                     (host-staged sums), and 2 NCCL ranks on one GPU when the
#                                     NCCL found allows it (>= 2.30), else the refusal recorded
#     widesample       60      55     (only with --phases) writing on the diabetic-like wide
#                                     table (bench/make_wide_table.py, 5,000 rows fitted): DDPM
#                                     (200 iterations) and CTGAN (1 epoch) fitted on the GPU,
#                                     then `genesis sample -n 1000000 --device cuda` to a CSV,
#                                     each capped at WIDE_CAP (20) s; rows/s from the rows
#                                     written (a capped run counts what it wrote)
#   (*) not timed out: the rest of the call needs its environment.
#
# Outputs under $OUT (default $BUILD/out; the device tool brings back at most 8 files):
#   summary_call<N>.md   one line per phase (status, seconds, budget), then each phase's part
#   phases_call<N>.tsv   phase, status, seconds, budget, exit code
#   session_call<N>.log  what this script printed
#   results_call<N>.jsonl every timing as a JSON line (bench_fit, fits, precisions, samples)
#   sizes_call1.jsonl, sizes_call1.md   the size table's runs and projections, and the table
#                        with the guide's figures (bench/gpu_session_table.py)
#   logs_call<N>.tgz     every raw log (configure, build, parity, sanitizer, fits, ...)
# Copy them to bench/results/gpu_<date>/ and unpack the .tgz there.
#
# Dry run (GPU_SESSION_DRY=1): on the CPU machine, against the emulated CUDA runtime
# (<build>/cuemu/libgenesis-cuda.so, built with -DGENESIS_CUDA_EMU=ON; BUILD defaults to
# `build`), so that no flag, path or missing file costs device time: every phase with the same
# commands at tiny sizes (300 rows of Adult's sample, tables of 300 and 600 rows, 1-2 epochs),
# DDPM's sampling group at 256 rows (GENESIS_DDPM_SAMPLE_ROWS), budgets x3
# (GPU_SESSION_DRY_SCALE).
# What needs real hardware is skipped and says so: the nvcc build (only its configure step is
# checked, in build-gpu-dryconf, when nvcc exists), compute-sanitizer, NCCL (not in a build
# without CUDA).
#
# Adult comes from bench/debs/adult.csv (bench/fetch_debs.sh copies it there) or
# $GENESIS_DATA/adult.csv; without it data/adult_sample.csv is used and the summary says so.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
SELF=$ROOT/bench/gpu_session.sh

# ---- the phases ------------------------------------------------------------------------------
# Each runs in a child process (`bash gpu_session.sh --phase NAME`) with the environment the
# parent exported; it writes $LOGS/NAME.log (everything) and $LOGS/NAME.md (its summary part).
# Exit 0 ok, 77 skipped, anything else failed.

md() { echo "$*" >>"$LOGS/$PHASE.md"; }
# inner time caps: --foreground keeps the command in the phase's process group, so that a phase
# stopped at its budget takes it along (a plain timeout would start a group of its own)
tmo() { timeout --foreground "$@"; }
jl() { echo "$*" >>"$RESULTS"; }
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }
wait_quality() { # $1 seconds at most: the background quality scoring of the Adult fits
  local p w=0
  [ -f "$W/quality.pids" ] || return 0
  for p in $(cat "$W/quality.pids"); do
    while kill -0 "$p" 2>/dev/null && [ "$w" -lt "$1" ]; do sleep 1; w=$((w + 1)); done
  done
}

phase_build() {
  local FL=$BUILD/gpu_session.flags
  if [ "$DRY" = 1 ]; then
    md "- dry run: the nvcc build is not run here; the emulator build $BUILD is brought up to date"
    if [ "${GPU_SESSION_DRY_CONFIGURE:-1}" = 1 ] && [ -x /usr/local/cuda/bin/nvcc ]; then
      local D=$ROOT/build-gpu-dryconf
      if cmake -S . -B "$D" "${GENOPT[@]}" "${REAL_FLAGS[@]}" -DGENESIS_WERROR=ON >"$LOGS/configure_check.log" 2>&1; then
        md "- the real configure line (nvcc, -Werror, cuDNN $CUDNN_MODE, NCCL $NCCL_MODE) is accepted here (configure only, $D)"
      else
        md "- FAILED: the real configure line (configure_check.log)"; tail -20 "$LOGS/configure_check.log"; return 1
      fi
      grep -E "CUDA backend|cuDNN|NCCL" "$LOGS/configure_check.log" | sed 's/^/  /' >>"$LOGS/$PHASE.md"
    fi
    cmake --build "$BUILD" -j"$JOBS" >"$LOGS/build.log" 2>&1 || { md "- FAILED: cmake --build $BUILD"; tail -30 "$LOGS/build.log"; return 1; }
  else
    local t0 tries try tag ok=0
    t0=$(now)
    # -Werror with cuDNN and NCCL as found; then without -Werror; then cuDNN and NCCL on AUTO.
    # A build that fell back in call 1 keeps its flags: call 2 must not rebuild everything.
    tries="ON,$CUDNN_MODE,$NCCL_MODE OFF,$CUDNN_MODE,$NCCL_MODE OFF,AUTO,AUTO"
    [ -f "$FL" ] && tries=$(cat "$FL")
    local keep=(-- -k)                      # make: go on after errors, to list them all
    [ "${GENOPT[*]}" = "-G Ninja" ] && keep=(-- -k 0)
    local seen=""
    for try in $tries; do
      case " $seen " in *" $try "*) continue ;; esac
      seen="$seen $try"
      IFS=, read -r werror cudnn nccl <<<"$try"
      tag=${werror}_${cudnn}_${nccl}
      if cmake -S . -B "$BUILD" "${GENOPT[@]}" "${REAL_FLAGS[@]}" -DGENESIS_WERROR="$werror" \
           -DGENESIS_CUDNN="$cudnn" -DGENESIS_NCCL="$nccl" >"$LOGS/configure_$tag.log" 2>&1 &&
         tmo "${BUILD_CAP:-170}" cmake --build "$BUILD" -j"$JOBS" "${keep[@]}" >"$LOGS/build_$tag.log" 2>&1; then
        md "- build: OK with -DGENESIS_WERROR=$werror -DGENESIS_CUDNN=$cudnn -DGENESIS_NCCL=$nccl after $(secs "$t0" "$(now)") s ($JOBS jobs)"
        ok=1; break
      fi
      md "- build with -DGENESIS_WERROR=$werror -DGENESIS_CUDNN=$cudnn -DGENESIS_NCCL=$nccl FAILED (configure_$tag.log, build_$tag.log):"
      grep -hE "error:|CMake Error|FAILED:" "$LOGS/configure_$tag.log" "$LOGS/build_$tag.log" 2>/dev/null |
        head -20 | cut -c1-240 | sed 's/^/  - /' >>"$LOGS/$PHASE.md"
      grep -hA3 "CMake Error" "$LOGS/configure_$tag.log" 2>/dev/null | head -8 | cut -c1-240 | sed 's/^/    /' >>"$LOGS/$PHASE.md"
    done
    [ "$ok" = 1 ] || { tail -30 "$LOGS/configure_$tag.log" "$LOGS/build_$tag.log" 2>/dev/null; return 1; }
    echo "$try" >"$FL"
    grep -E "CUDA backend|cuDNN|NCCL|MPI|-Werror" "$LOGS/configure_$tag.log" | sed 's/^/  /' >>"$LOGS/$PHASE.md"
  fi
  "$BUILD/genesis" info >"$LOGS/info.txt" 2>&1
  cp "$LOGS/info.txt" "$W/info.txt"
  grep -E "cuda:0|driver|training device|data parallel" "$LOGS/info.txt" | sed 's/^ */  - /' >>"$LOGS/$PHASE.md"
  local t
  for t in genesis bench_fit bench_make_table test_backend_parity test_model_parity mpi_equiv; do
    [ -x "$BUILD/$t" ] || { md "- MISSING after the build: $BUILD/$t"; return 1; }
  done
}

phase_parity() {
  local rb rm
  cd "$BUILD" || return 1
  export GEN_SOURCE_DIR=$ROOT
  tmo 60 ./test_backend_parity >"$LOGS/parity_backend.log" 2>&1; rb=$?
  tmo 60 ./test_model_parity >"$LOGS/parity_model.log" 2>&1; rm=$?
  local ok fail tok tfail
  ok=$(grep -c ' ok$' "$LOGS/parity_backend.log"); fail=$(grep -c ' FAIL' "$LOGS/parity_backend.log")
  tok=$(grep -E '^parity [a-z_]*_mixed .*= 1 ' "$LOGS/parity_backend.log" | grep -c ' ok$')
  tfail=$(grep -E '^parity [a-z_]*_mixed .*= 1 ' "$LOGS/parity_backend.log" | grep -c ' FAIL')
  md "- test_backend_parity: exit $rb; $(grep -E 'Checks:' "$LOGS/parity_backend.log" | tail -1); $ok cases ok, $fail FAIL; of them TF32 (prec 1): $tok ok, $tfail FAIL"
  grep ' FAIL' "$LOGS/parity_backend.log" | head -10 | cut -c1-200 | sed 's/^/  - /' >>"$LOGS/$PHASE.md"
  md "- test_model_parity: exit $rm; $(grep -E 'Checks:' "$LOGS/parity_model.log" | tail -1)"
  grep -E "after 5 steps|through the API" "$LOGS/parity_model.log" | head -16 | sed 's/^/  - /' >>"$LOGS/$PHASE.md"
  [ "$rb" = 0 ] && [ "$rm" = 0 ]
}

phase_memcheck() {
  local SAN cap=${MEMCHECK_CAP:-60} rc
  SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ "$DRY" = 1 ]; then
    md "- dry run: skipped (compute-sanitizer needs a GPU); would run \`timeout $cap $SAN --tool memcheck --leak-check no --error-exitcode 9 ./test_model_parity\` in $BUILD"
    return 77
  fi
  [ -x "$SAN" ] || { md "- compute-sanitizer not found"; return 1; }
  cd "$BUILD" || return 1
  GEN_SOURCE_DIR=$ROOT tmo "$cap" "$SAN" --tool memcheck --leak-check no --error-exitcode 9 \
    ./test_model_parity >"$LOGS/memcheck_model.log" 2>&1
  rc=$?
  md "- compute-sanitizer memcheck on test_model_parity (cap $cap s): exit $rc (124 = stopped at the cap, 9 = errors found); $(grep -m1 'ERROR SUMMARY' "$LOGS/memcheck_model.log"); $(grep -cE 'after 5 steps|through the API' "$LOGS/memcheck_model.log") model checks printed; $(grep -E 'Checks:' "$LOGS/memcheck_model.log" | tail -1)"
  [ "$rc" = 0 ] || [ "$rc" = 124 ]
}

phase_fitbench() {
  local E=${FITBENCH_EPOCHS:-20} NS=${FITBENCH_SAMPLE:-100000} M G line
  [ "$DRY" = 1 ] && E=2 NS=200
  # FITBENCH_LT="1 0" also times each with GENESIS_CUDA_LT=0 (no cuBLASLt epilogues)
  local LT
  md "| model | CUDA graphs | cuBLASLt | epochs | s/epoch | steps/s | prep s | device | sampling rows/s |"
  md "|---|---|---|---|---|---|---|---|---|"
  for M in ctgan tvae; do
    for LT in ${FITBENCH_LT:-1}; do
    for G in 1 0; do
      line=$(GENESIS_CUDA_LT=$LT GENESIS_CUDA_GRAPHS=$G tmo 60 "$BUILD/bench_fit" "$ADULT" "$E" "$NS" 0 /dev/null "$M" 2>>"$LOGS/fitbench.err" | tail -1)
      if [ -z "$line" ]; then md "| $M | $G | $LT | $E | failed (fitbench.err) | | | | |"; continue; fi
      jl "{\"bench\":\"fitbench\",\"graphs\":$G,\"lt\":$LT,${line#\{}"
      python3 - "$line" "$G" "$LT" >>"$LOGS/$PHASE.md" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
onoff = lambda v: 'on' if v == '1' else 'off'
print(f"| {r['model']} | {onoff(sys.argv[2])} | {onoff(sys.argv[3])} | {r['epochs']} | {r['s_per_epoch']:.4f} | "
      f"{r['steps_per_s']:.0f} | {r['prep_s']:.2f} | {r['device']} | {r['sample_rows_per_s']:.0f} |")
PY
    done
    done
  done
}

# Per-kernel device times of a training step (Nsight Compute, `ncu`; Nsight Systems is not on
# the GPU machine): bench_fit on Adult, 2 epochs, CUDA graphs off (each kernel a launch of its
# own; KERNELS_GRAPHS=1 profiles the graph's kernel nodes instead), NCU_SKIP kernels skipped
# (the preparation and the first steps) and NCU_COUNT profiled (about 5 steps), one metric
# (gpu__time_duration.sum) with the clocks as they are; bench/kernel_times.py sums them per
# kernel name. The dry run has no ncu: it says so and lists the same step's kernels with their
# launch configurations from the emulator's trace (GENESIS_CUEMU_TRACE) instead.
phase_kernels() {
  local M skip count f G=${KERNELS_GRAPHS:-0} any=0
  for M in ctgan tvae; do
    if [ "$M" = ctgan ]; then skip=${NCU_SKIP_CTGAN:-3000} count=${NCU_COUNT_CTGAN:-400}
    else skip=${NCU_SKIP_TVAE:-2000} count=${NCU_COUNT_TVAE:-250}; fi
    f=$LOGS/kernels_$M
    [ -x /usr/local/cuda/bin/ncu ] && ! command -v ncu >/dev/null 2>&1 && PATH=$PATH:/usr/local/cuda/bin
    if [ "$DRY" = 1 ] || ! command -v ncu >/dev/null 2>&1; then
      md "- $M: ncu not found$( [ "$DRY" = 1 ] && echo ' (dry run)'): no device times; instead the kernels of bench_fit (one epoch, 200 rows sampled) from the emulator's trace, with their launch configurations"
      rm -f "$f.trace"
      GENESIS_CUEMU_TRACE=$f.trace GENESIS_CUDA_GRAPHS=$G tmo 120 "$BUILD/bench_fit" "$ADULT" 1 200 0 /dev/null "$M" \
        >"$f.fit.log" 2>&1 || { md "- $M: bench_fit FAILED ($f.fit.log)"; return 1; }
      if [ -s "$f.trace" ]; then
        { echo ""; python3 "$ROOT/bench/kernel_times.py" trace "$f.trace"; echo ""; } >>"$LOGS/$PHASE.md" || return 1
      else
        md "- $M: no trace (not the emulated runtime)"
      fi
      continue
    fi
    any=1
    # --cache-control none: by default ncu flushes the caches before every kernel, and the
    # times of a first run (gpu3_20261128, call 1) summed to more than the step's wall time
    GENESIS_CUDA_GRAPHS=$G tmo 50 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum \
      --csv --launch-skip "$skip" --launch-count "$count" \
      "$BUILD/bench_fit" "$ADULT" 2 1000 0 /dev/null "$M" >"$f.csv" 2>"$f.err"
    local rc=$?
    md "- $M: \`GENESIS_CUDA_GRAPHS=$G ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip $skip --launch-count $count bench_fit ADULT 2 1000 0 /dev/null $M\`: exit $rc"
    { echo ""; python3 "$ROOT/bench/kernel_times.py" ncu "$f.csv" || tail -5 "$f.err"; echo ""; } >>"$LOGS/$PHASE.md"
    cp "$f.csv" "$OUT/kernels_$M.csv" 2>/dev/null
  done
  [ "$any" = 1 ] || [ "$DRY" = 1 ] || return 77
  return 0
}

phase_adult() {
  local EP=${ADULT_EPOCHS:-300} seed M t1 t2 s on
  [ "$DRY" = 1 ] && EP=2
  : >"$W/quality.pids"
  # the host threads fixed: the quality scoring runs beside the fits on the last 4 cores
  local FIT_THREADS=$(( NPROC > 8 ? NPROC - 4 : NPROC ))
  md "Adult ($ADULT_ROWS rows${ADULT_NOTE}), $EP epochs, default settings, \`genesis fit --threads $FIT_THREADS --progress\` wall time (read, transformer, training, model file); quality scored beside them on cores $EVAL_CPUS"
  md ""
  md "| model | seed | epochs | wall s | trained on |"
  md "|---|---|---|---|---|"
  for seed in 0 1 2; do
    for M in ctgan tvae; do
      t1=$(now)
      if tmo 120 "$BUILD/genesis" fit -i "$ADULT" -m "$W/adult_${M}_s$seed.gen" --method "$M" \
           --epochs "$EP" --seed "$seed" --threads "$FIT_THREADS" --progress 2>"$LOGS/adult_${M}_s$seed.log"; then
        t2=$(now); s=$(secs "$t1" "$t2")
        on=$(sed -n 's/.*training [A-Z]* for .* on \(.*\)$/\1/p' "$LOGS/adult_${M}_s$seed.log" | tail -1)
        jl "{\"bench\":\"adult_fit\",\"model\":\"$M\",\"seed\":$seed,\"epochs\":$EP,\"rows\":$ADULT_ROWS,\"wall_s\":$s,\"trained_on\":\"$on\"}"
        md "| $M | $seed | $EP | $s | $on |"
        # quality on 4 host cores while the GPU goes on (sampled on the CPU: the model is the same)
        ( taskset -c "$EVAL_CPUS" timeout --foreground 150 "$BUILD/genesis" sample -m "$W/adult_${M}_s$seed.gen" \
              -o "$W/adult_${M}_s$seed.csv" -n "$ADULT_ROWS" --seed 1 --device cpu --threads 2 -q &&
          taskset -c "$EVAL_CPUS" timeout --foreground 150 "$BUILD/genesis" evaluate --real "$ADULT" \
              --synthetic "$W/adult_${M}_s$seed.csv" --json --skip privacy,detection,validity,usefulness \
              --threads 2 -q >"$LOGS/quality_${M}_s$seed.json"
          rm -f "$W/adult_${M}_s$seed.csv" ) 2>>"$LOGS/quality.err" &
        echo $! >>"$W/quality.pids"
      else
        md "| $M | $seed | $EP | failed or stopped (adult_${M}_s$seed.log) | |"
      fi
    done
  done
}

phase_sizes() {
  local SZ=${SIZES:-10000 100000 1000000 10000000} MODELS=${SIZES_MODELS:-ctgan tvae ddpm}
  local J=$LOGS/sizes.jsonl B=$PHASE_BUDGET t0 bg bc
  [ "$DRY" = 1 ] && SZ=${SIZES:-300 600}
  t0=$(date +%s)
  bg=$(( (B - 15) * 6 / 10 ))
  export SIZES_DATA=$W/sizes SIZES_PLOT=0
  md "- the 50-column table (bench_make_table, seed 1) at $SZ rows; $MODELS; one epoch at batch 500 (DDPM: ceil(rows / 500) iterations); --threads $NPROC; budget ${bg} s on the GPU, the rest on the host's cores"
  # --threads: all the host's cores, not Genesis' default (the cores the load average leaves
  # free), which the work just before would lower
  BUILD=$BUILD bash bench/train_sizes.sh --device cuda --no-ref --models "$MODELS" --sizes "$SZ" \
    --epochs 1 --batch-size 500 --threads "$NPROC" --budget "$bg" --keep-tables --out "$J" >"$LOGS/sizes_gpu.log" 2>&1
  md "- GPU part: exit $? after $(( $(date +%s) - t0 )) s"
  wait_quality 45   # the Adult fits' scoring must not share the cores with the CPU column
  bc=$(( B - ($(date +%s) - t0) - 12 ))
  if [ "$bc" -gt 20 ]; then
    BUILD=$BUILD bash bench/train_sizes.sh --device cpu --no-ref --models "$MODELS" --sizes "$SZ" \
      --epochs 1 --batch-size 500 --threads "$NPROC" --budget "$bc" --keep-tables --out "$J" >"$LOGS/sizes_cpu.log" 2>&1
    md "- CPU part (--threads $NPROC, all the host's cores): exit $? in a budget of $bc s"
  else
    md "- CPU part: no time left (${bc} s)"
  fi
  python3 bench/gpu_session_table.py "$J" --md "$LOGS/sizes.md" >/dev/null 2>>"$LOGS/sizes_gpu.log"
  cat "$LOGS/sizes.md" >>"$LOGS/$PHASE.md" 2>/dev/null
  rm -f "$W"/sizes/*.csv
}

phase_ddpm() {
  local IT=${DDPM_ITERS:-1000} N=${DDPM_ROWS:-100000} t1 t2 t3 s1 s2 rc
  [ "$DRY" = 1 ] && IT=20 N=300
  t1=$(now)
  tmo 40 "$BUILD/genesis" fit --method ddpm -i "$ADULT" -m "$W/ddpm.gen" --iterations "$IT" --seed 0 \
    --progress 2>"$LOGS/ddpm_fit.log" || { md "- DDPM fit failed (ddpm_fit.log)"; return 1; }
  t2=$(now); s1=$(secs "$t1" "$t2")
  tmo "${DDPM_SAMPLE_CAP:-25}" "$BUILD/genesis" sample -m "$W/ddpm.gen" -n "$N" -o "$W/ddpm_rows.csv" \
    --seed 1 2>"$LOGS/ddpm_sample.log"
  rc=$?; t3=$(now); s2=$(secs "$t2" "$t3")
  local lines; lines=$(( $(wc -l <"$W/ddpm_rows.csv" 2>/dev/null || echo 1) - 1 ))
  local on; on=$(sed -n 's/.*training [A-Z]* for .* on \(.*\)$/\1/p' "$LOGS/ddpm_fit.log" | tail -1)
  jl "{\"bench\":\"ddpm\",\"iterations\":$IT,\"fit_wall_s\":$s1,\"trained_on\":\"$on\",\"sample_rows\":$N,\"sample_exit\":$rc,\"sample_wall_s\":$s2,\"rows_written\":$lines}"
  md "- DDPM on Adult ($ADULT_ROWS rows${ADULT_NOTE}): $IT iterations in $s1 s wall on $on"
  md "- sampling $N rows (default 100 strided steps) to CSV: exit $rc (124 = stopped at the cap), $s2 s wall, $lines rows written; $(grep -E 'sampling in|wrote' "$LOGS/ddpm_sample.log" | tr '\n' ' ')"
  rm -f "$W/ddpm_rows.csv"
  [ "$rc" = 0 ]
}

phase_timegan() {
  local IT=${TG_ITERS:-300} S=${TG_SERIES:-2000} BS=${TG_BATCH:-128} CAP=${TG_CAP:-30} rc=0 r v log desc
  # the emulator on a loaded 2-core machine: about 3 s per joint iteration
  [ "$DRY" = 1 ] && IT=10 S=40 BS=8 CAP=${TG_CAP:-120}
  awk -v S="$S" 'BEGIN { srand(1); print "id,t,f0,f1,f2,f3,f4";
      for (i = 1; i <= S; i++) { for (k = 0; k < 5; k++) { fr[k] = 0.1 * rand(); ph[k] = 0.1 * rand() }
          for (j = 0; j < 24; j++) { printf "%d,%d", i, j; for (k = 0; k < 5; k++) printf ",%.6f", (sin(fr[k] * j + ph[k]) + 1) / 2; printf "\n" } } }' \
      >"$W/sines.csv"
  # cuda/gru.cu's kernels (GENESIS_CUDNN_GRU=0) with one recorded iteration per phase
  # (GENESIS_CUDA_GRAPHS=1) and without (=0), then (TG_CUDNN=1) the build's GRU (cuDNN) without
  # graphs (a recorded iteration runs gru.cu's kernels, docs/timegan.md §9): each progress
  # line stamped with the wall clock as it arrives, per-phase rates without the set-up
  local variants="own_graphs own_nographs"
  [ "${TG_CUDNN:-0}" = 1 ] && variants="$variants cudnn_nographs"
  for v in $variants; do
    log=$LOGS/timegan_$v.log
    local pre=(env GENESIS_CUDNN_GRU=0 GENESIS_CUDA_GRAPHS=1)
    desc="cuda/gru.cu's kernels (GENESIS_CUDNN_GRU=0), CUDA graphs on (GENESIS_CUDA_GRAPHS=1)"
    if [ "$v" = own_nographs ]; then
      pre=(env GENESIS_CUDNN_GRU=0 GENESIS_CUDA_GRAPHS=0)
      desc="cuda/gru.cu's kernels (GENESIS_CUDNN_GRU=0), CUDA graphs off (GENESIS_CUDA_GRAPHS=0)"
    elif [ "$v" = cudnn_nographs ]; then
      pre=(env GENESIS_CUDA_GRAPHS=0)
      desc="the build's choice (cuDNN: $(grep -o 'cuDNN [0-9.]*' "$W/info.txt" 2>/dev/null | head -1)), CUDA graphs off"
    fi
    "${pre[@]}" timeout --foreground "$CAP" "$BUILD/genesis" fit --method timegan -i "$W/sines.csv" --entity id --time t --seq-len 24 \
      --hidden-dim 24 --num-layers 3 --batch-size "$BS" --iterations "$IT" --seed 0 --progress \
      -m "$W/tg_$v.gen" 2>&1 >/dev/null | while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done >"$log"
    r=${PIPESTATUS[0]}
    [ "$r" = 0 ] || rc=$r
    md "- TimeGAN on Sines ($S series x 24 steps x 5 features; hidden 24, 3 layers, batch $BS), $IT iterations per phase, GRU: $desc: exit $r (124 = stopped at the cap of $CAP s); $(grep -m1 -o 'on cuda[:0-9]*\|on cpu' "$log" | head -1)"
    python3 - "$log" "$IT" "$v" "$r" "$RESULTS" >>"$LOGS/$PHASE.md" <<'PY'
import json, re, sys
pts = {}
for l in open(sys.argv[1]):
    m = re.match(r"([0-9.]+) phase (\d)/3 .*iteration (\d+)/(\d+)", l)
    if m:
        pts.setdefault(int(m.group(2)), []).append((float(m.group(1)), int(m.group(3))))
rec = {"bench": "timegan", "variant": sys.argv[3], "iterations": int(sys.argv[2]), "exit": int(sys.argv[4])}
for p in sorted(pts):
    a, b = pts[p][0], pts[p][-1]
    if b[1] > a[1]:
        s = (b[0] - a[0]) / (b[1] - a[1]) * 1000
        rec[f"phase{p}_s_per_1000"] = round(s, 2)
        print(f"  - phase {p}: {s:.1f} s per 1,000 iterations "
              f"(measured over iterations {a[1]}-{b[1]})")
    else:
        print(f"  - phase {p}: too few progress points")
with open(sys.argv[5], "a") as f:
    f.write(json.dumps(rec) + "\n")
PY
  done
  # the two own-GRU fits must end with the same model: a recorded iteration replays the
  # same numbers (cmp of the model files; both must have finished)
  if [ -f "$W/tg_own_graphs.gen" ] && [ -f "$W/tg_own_nographs.gen" ]; then
    if cmp -s "$W/tg_own_graphs.gen" "$W/tg_own_nographs.gen"; then
      md "- the model files of the fits with and without graphs are identical"
    else
      md "- the model files of the fits with and without graphs DIFFER"
    fi
  fi
  rm -f "$W"/tg_*.gen
  [ "$rc" = 0 ]
}

phase_precision() {
  local LB=${PREC_LARGE_BATCH:-10000} E1=${PREC_EPOCHS:-10} E2=${PREC_EPOCHS_LARGE:-30} M B E P line
  [ "$DRY" = 1 ] && LB=1000 E1=2 E2=2
  md "| model | batch | precision | epochs | s/epoch | steps/s | device |"
  md "|---|---|---|---|---|---|---|"
  for M in ctgan tvae; do
    for B in 500 "$LB"; do
      E=$E1; [ "$B" = 500 ] || E=$E2
      for P in fp32 tf32 bf16 fp16; do
        line=$(tmo 40 "$BUILD/bench_fit" "$ADULT" "$E" 1000 0 /dev/null "$M" "$B" "$P" 2>>"$LOGS/precision.err" | tail -1)
        if [ -z "$line" ]; then md "| $M | $B | $P | $E | failed (precision.err) | | |"; continue; fi
        jl "{\"bench\":\"precision\",${line#\{}"
        python3 - "$line" >>"$LOGS/$PHASE.md" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(f"| {r['model']} | {r['batch']} | {r['precision']} | {r['epochs']} | {r['s_per_epoch']:.4f} | {r['steps_per_s']:.0f} | {r['device']} |")
PY
      done
    done
  done
}

phase_sample1m() {
  local N=${SAMPLE_ROWS:-1000000} M model t1 t2 t3 rc lines bytes
  [ "$DRY" = 1 ] && N=1000
  for M in ctgan tvae; do
    model=$W/adult_${M}_s0.gen
    if [ ! -f "$model" ]; then   # a fresh machine: call 1's model is gone
      tmo 30 "$BUILD/genesis" fit -i "$ADULT" -m "$model" --method "$M" --epochs 5 --seed 0 -q 2>>"$LOGS/sample1m.err"
      md "- $M: call 1's 300-epoch model not on this machine; a 5-epoch one was fitted for this"
    fi
    t1=$(now)
    tmo 60 "$BUILD/genesis" sample -m "$model" -n "$N" -o "$W/s1m_$M.csv" --seed 1 2>"$LOGS/sample1m_$M.log"
    rc=$?; t2=$(now)
    sync "$W/s1m_$M.csv" 2>/dev/null; t3=$(now)
    lines=$(( $(wc -l <"$W/s1m_$M.csv" 2>/dev/null || echo 1) - 1 ))
    bytes=$(stat -c %s "$W/s1m_$M.csv" 2>/dev/null || echo 0)
    jl "{\"bench\":\"sample_cli\",\"model\":\"$M\",\"rows\":$N,\"exit\":$rc,\"wall_s\":$(secs "$t1" "$t2"),\"wall_with_sync_s\":$(secs "$t1" "$t3"),\"rows_written\":$lines,\"bytes\":$bytes}"
    md "- $M: \`genesis sample -n $N -o FILE\`: exit $rc, $(secs "$t1" "$t2") s wall ($(secs "$t1" "$t3") s with the file synced to disk), $lines rows, $(( bytes / 1048576 )) MiB; $(grep -E 'sampling in|wrote' "$LOGS/sample1m_$M.log" | tr '\n' ' ')"
    rm -f "$W/s1m_$M.csv"
  done
}

phase_widesample() {
  # writing on the diabetic-like wide table (bench/make_wide_table.py: encoded width 1,777,
  # three columns of ~700 codes): DDPM (100 strided steps per row, the CPU's slow case,
  # docs/ddpm.md §5) and CTGAN, each fitted briefly on the GPU, then `genesis sample -n N
  # --device cuda` to a CSV, capped at WIDE_CAP s each; rows/s from the rows written
  local N=${WIDE_SAMPLE_ROWS:-1000000} FIT=${WIDE_FIT_ROWS:-5000} CAP=${WIDE_CAP:-20} M len t1 t2 rc lines
  [ "$DRY" = 1 ] && N=600 FIT=300 CAP=${WIDE_CAP:-120}
  local T=$W/diabetic_$FIT.csv
  [ -s "$T" ] || python3 bench/make_wide_table.py diabetic "$FIT" >"$T" ||
    { md "- make_wide_table.py failed"; return 1; }
  for M in ddpm ctgan; do
    if [ "$M" = ddpm ]; then len="--iterations ${WIDE_DDPM_ITERS:-200}"; else len="--epochs 1"; fi
    [ "$DRY" = 1 ] && { [ "$M" = ddpm ] && len="--iterations 5" || len="--epochs 1"; }
    # shellcheck disable=SC2086 # $len is two words
    tmo 30 "$BUILD/genesis" fit -i "$T" -m "$W/wide_$M.gen" --method "$M" $len --seed 1 \
      --device cuda --progress >"$LOGS/widesample_${M}_fit.log" 2>&1 ||
      { md "- $M: fit failed (widesample_${M}_fit.log)"; continue; }
    t1=$(now)
    tmo "$CAP" "$BUILD/genesis" sample -m "$W/wide_$M.gen" -n "$N" -o "$W/wide_$M.csv" --seed 3 \
      --device cuda 2>"$LOGS/widesample_$M.log"
    rc=$?; t2=$(now)
    lines=$(( $(wc -l <"$W/wide_$M.csv" 2>/dev/null || echo 1) - 1 ))
    local rate; rate=$(python3 -c "import sys; print(f'{int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2])):.0f}')" "$lines" "$t1" "$t2")
    jl "{\"bench\":\"widesample\",\"model\":\"$M\",\"fit_rows\":$FIT,\"rows\":$N,\"exit\":$rc,\"wall_s\":$(secs "$t1" "$t2"),\"rows_written\":$lines,\"rows_per_s\":$rate}"
    md "- $M on the diabetic-like table ($FIT rows fitted, $len, $(grep -m1 -o 'on cuda[:0-9]*\|on cpu' "$LOGS/widesample_${M}_fit.log")): \`genesis sample -n $N --device cuda -o FILE\`: exit $rc (124 = stopped at the cap of $CAP s), $(secs "$t1" "$t2") s wall, $lines rows written, $rate rows/s; $(grep -E 'sampling in|wrote' "$LOGS/widesample_$M.log" | tr '\n' ' ')"
    rm -f "$W/wide_$M.csv"
  done
}

phase_nccl() {
  local E=$BUILD/mpi_equiv DATA=$ROOT/data/adult_sample.csv NV built=1 M rc S=$W/nccl
  mkdir -p "$S"
  NV=$(grep -o 'NCCL [0-9][0-9.]*' "$W/info.txt" 2>/dev/null | head -1 | cut -d' ' -f2)
  grep -q "NCCL not built in" "$W/info.txt" 2>/dev/null && built=0
  md "- NCCL: ${NV:-no version found}; $( [ "$built" = 1 ] && echo 'built in' || echo 'not built in (genesis info)')"
  cmpst() { "$E" compare "$1" "$2" 2.5e-3 1e-4 >"$LOGS/nccl_cmp_$3.log" 2>&1; echo "exit $? ($(tail -1 "$LOGS/nccl_cmp_$3.log" | sed 's/^mpi_equiv: //'))"; }
  for M in ctgan tvae; do
    MPI_EQUIV_DEVICE=cuda tmo 30 "$E" fit "$M" "$DATA" 500 1 "$S/$M.gpu1" >"$LOGS/nccl_${M}_gpu1.log" 2>&1
    md "- $M, 1 rank on the GPU (batch 500, 1 epoch of data/adult_sample.csv): exit $?"
    MPI_EQUIV_DEVICE=cuda tmo 40 "$E" team "$M" "$DATA" 500 1 "$S/$M.thr" 2 threads >"$LOGS/nccl_${M}_threads.log" 2>&1
    rc=$?
    md "- $M, 2 thread ranks on one GPU, host-staged sums: exit $rc; ranks $(cmp -s "$S/$M.thr.rank0.bin" "$S/$M.thr.rank1.bin" && echo bit-identical || echo DIFFER); against 1 rank: $(cmpst "$S/$M.thr.rank0.bin" "$S/$M.gpu1.rank0.bin" "${M}_thr")"
  done
  if [ "$built" = 0 ]; then
    md "- 2 NCCL ranks: not run (this build has no NCCL)"; return 0
  fi
  if python3 -c "import sys; v = [int(x) for x in sys.argv[1].split('.')[:2]]; sys.exit(0 if v >= [2, 30] else 1)" "${NV:-0.0}"; then
    for M in ctgan tvae; do
      NCCL_MULTI_RANK_GPU_ENABLE=1 NCCL_NVLS_ENABLE=0 MPI_EQUIV_GPUS=1 NCCL_DEBUG=WARN tmo 40 \
        "$E" team "$M" "$DATA" 500 1 "$S/$M.nccl" 2 nccl >"$LOGS/nccl_${M}_nccl.log" 2>&1
      rc=$?
      md "- $M, 2 NCCL ranks on one GPU (NCCL_MULTI_RANK_GPU_ENABLE=1): exit $rc; ranks $(cmp -s "$S/$M.nccl.rank0.bin" "$S/$M.nccl.rank1.bin" && echo bit-identical || echo DIFFER); against 1 rank: $(cmpst "$S/$M.nccl.rank0.bin" "$S/$M.gpu1.rank0.bin" "${M}_nccl")"
    done
  else
    md "- 2 NCCL ranks on one GPU: NCCL $NV found; several ranks per GPU need NCCL 2.30 or later (NCCL_MULTI_RANK_GPU_ENABLE; older versions refuse with \"Duplicate GPU detected\"). Tried once for the record:"
    NCCL_MULTI_RANK_GPU_ENABLE=1 NCCL_NVLS_ENABLE=0 MPI_EQUIV_GPUS=1 NCCL_DEBUG=WARN tmo 20 \
      "$E" team ctgan "$DATA" 500 1 "$S/ctgan.nccl" 2 nccl >"$LOGS/nccl_ctgan_nccl.log" 2>&1
    md "  - exit $?: $(grep -m2 -iE 'duplicate|error|fail' "$LOGS/nccl_ctgan_nccl.log" | cut -c1-200 | tr '\n' ' ')"
  fi
}

phase_dp() {
  # DP-SGD's cost on the device (docs/privacy.md): TVAE (DP_EPOCHS) and DDPM (DP_ITERS) on
  # Adult, each without DP and with --epsilon 3, side by side; wall time of `genesis fit`
  local E=${DP_EPOCHS:-30} I=${DP_ITERS:-1000} EPS=${DP_EPSILON:-3} M dp t1 t2 a b len on
  # the dry run's 300 rows: every category would be below the noisy histogram's threshold at 3
  [ "$DRY" = 1 ] && E=1 I=5 EPS=1000
  md "Adult ($ADULT_ROWS rows), \`genesis fit --seed 1 --threads 4\`, without and with \`--epsilon $EPS\` (DP-SGD: Poisson batches, per-row clipping, noise)"
  md ""
  md "| method | length | plain s | DP s | ratio | trained on |"
  md "|---|---|---|---|---|---|"
  for M in tvae ddpm; do
    len="--epochs $E"; [ "$M" = ddpm ] && len="--iterations $I"
    a="" b=""
    for dp in 0 1; do
      t1=$(now)
      # shellcheck disable=SC2086 # len is two words
      if tmo 90 "$BUILD/genesis" fit -i "$ADULT" -m "$W/dp_${M}_$dp.gen" --method "$M" $len --seed 1 --threads 4 \
           $( [ "$dp" = 1 ] && echo "--epsilon $EPS" ) --progress 2>"$LOGS/dp_${M}_$dp.log"; then
        t2=$(now)
        if [ "$dp" = 0 ]; then a=$(secs "$t1" "$t2"); else b=$(secs "$t1" "$t2"); fi
      fi
    done
    on=$(sed -n 's/.*training [A-Z]* for .* on \(.*\)$/\1/p' "$LOGS/dp_${M}_1.log" | tail -1)
    md "| $M | $len | ${a:-failed} | ${b:-failed} | $( [ -n "$a" ] && [ -n "$b" ] && python3 -c "print(f'{float(\"$b\") / float(\"$a\"):.2f}')" ) | $on |"
    jl "{\"bench\":\"dp\",\"model\":\"$M\",\"plain_s\":\"$a\",\"dp_s\":\"$b\"}"
  done
}

phase_papers() {
  # DDPM on the whole of Adult (32,561 training rows, UCI's test file as the holdout) at the
  # leaders' budgets, scored by the papers' metrics (`genesis evaluate` with --holdout and
  # --target: trend, XGBoost detection, alpha/beta, DCR share, TSTR AUC). PAPERS_CONFIGS:
  # "name|iterations|batch|flags;..."; the fits share the GPU, each run's evaluation goes to the
  # host cores as soon as its rows are written. The synthetic CSVs come back compressed. A
  # config's optional fifth field is the seed of its fit, sampling and evaluation (default 0),
  # e.g. the GPU default over three seeds and the second-order sampler:
  #   PAPERS_CONFIGS="g0|30000|4096||0;g1|30000|4096||1;g2|30000|4096||2;o2|30000|4096|--sample-order 2|0"
  local CONFIGS=${PAPERS_CONFIGS:-"d5k|5000|256|;t30k|30000|4096|;w30k|30000|4096|--generator-dim 1024 --num-layers 4"}
  local P=$W/papers D=${PAPERS_DATA:-$ROOT/bench/debs/tables} n it bs fl sd ET=${PAPERS_EVAL_THREADS:-4}
  mkdir -p "$P"
  [ -f "$D/adult_test.csv" ] || { md "- $D/adult_test.csv not found (bench/fetch_debs.sh copies it)"; return 1; }
  python3 - "$D/adult.csv" "$D/adult_test.csv" "$P" "$DRY" <<'PY' || return 1
import csv, sys
def load(p, dot):
    rows = [[c.strip() for c in r] for r in csv.reader(open(p, newline="")) if r]
    if dot:  # the test file's labels end with '.'
        rows = [rows[0]] + [r[:-1] + [r[-1].rstrip(".")] for r in rows[1:]]
    return rows
tr, ho = load(sys.argv[1], False), load(sys.argv[2], True)
if sys.argv[4] == "1":
    tr, ho = tr[:601], ho[:301]
csv.writer(open(sys.argv[3] + "/train.csv", "w", newline="")).writerows(tr)
csv.writer(open(sys.argv[3] + "/holdout.csv", "w", newline="")).writerows(ho)
PY
  local rows=$(( $(wc -l <"$P/train.csv") - 1 ))
  md "DDPM on Adult ($rows training rows, holdout $(( $(wc -l <"$P/holdout.csv") - 1 )) rows of adult_test.csv), --target income, fits on the device side by side; \`genesis evaluate --holdout --target income --threads $ET\` on the host"
  md ""
  md "| run | seed | iterations x batch | flags | fit s | sample s | trained on | Trend | C2ST-XGB | alpha | beta | TSTR AUC (real) | DCR share, equal sizes (whole tables) | shapes |"
  md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  local pids=() IFS_OLD=$IFS cfg
  IFS=';'; local cfgs=($CONFIGS); IFS=$IFS_OLD
  for cfg in "${cfgs[@]}"; do
    IFS='|' read -r n it bs fl sd <<<"$cfg"
    sd=${sd:-0}
    [ "$DRY" = 1 ] && it=20 && bs=64
    (
      t1=$(now)
      # shellcheck disable=SC2086 # fl is a list of flags
      tmo $(( PHASE_BUDGET - 20 )) "$BUILD/genesis" fit -i "$P/train.csv" -m "$P/$n.gen" --method ddpm --iterations "$it" \
        --batch-size "$bs" --target income $fl --seed "$sd" --threads 2 --progress 2>"$LOGS/papers_$n.fit.log" || exit 1
      t2=$(now)
      tmo 120 "$BUILD/genesis" sample -m "$P/$n.gen" -n "$rows" --seed "$sd" -o "$P/$n.csv" --threads 2 -q 2>"$LOGS/papers_$n.sample.log" || exit 1
      t3=$(now)
      echo "$(secs "$t1" "$t2") $(secs "$t2" "$t3")" >"$P/$n.times"
      tmo $(( PHASE_BUDGET - 10 )) "$BUILD/genesis" evaluate --real "$P/train.csv" --synthetic "$P/$n.csv" \
        --holdout "$P/holdout.csv" --target income --json -q --seed "$sd" --threads "$ET" >"$P/$n.eval.json" 2>"$LOGS/papers_$n.eval.log"
    ) &
    pids+=($!)
  done
  local p; for p in "${pids[@]}"; do wait "$p"; done
  for cfg in "${cfgs[@]}"; do
    IFS='|' read -r n it bs fl sd <<<"$cfg"
    python3 - "$P" "$n" "$it x $bs" "$fl" "${sd:-0}" "$(sed -n 's/.*training [A-Z]* for .* on \(.*\)$/\1/p' "$LOGS/papers_$n.fit.log" | tail -1)" >>"$LOGS/$PHASE.md" <<'PY'
import json, sys
P, n, ib, fl, sd, on = sys.argv[1:7]
try:
    fs, ss = open(f"{P}/{n}.times").read().split()
except (OSError, ValueError):
    fs = ss = "failed"
try:
    s = json.load(open(f"{P}/{n}.eval.json"))["scores"]
except (OSError, ValueError, KeyError):
    s = {}
g = lambda k: "–" if s.get(k) is None else "%.3f" % s[k]
print(f"| {n} | {sd} | {ib} | {fl or '(defaults)'} | {fs} | {ss} | {on} | {g('column_pair_trends')} | {g('detection_xgboost')} | "
      f"{g('alpha_precision')} | {g('beta_recall')} | {g('tstr_xgboost_auc')} ({g('trtr_xgboost_auc')}) | {g('dcr_share_equal_size')} ({g('dcr_share')}) | {g('column_shapes')} |")
PY
    jl "{\"bench\":\"papers\",\"run\":\"$n\",\"seed\":${sd:-0},\"iterations\":$it,\"batch\":$bs,\"flags\":\"$fl\"}"
  done
  md ""
  md "TabDiff (published, arXiv 2603.23016): Trend 0.985, C2ST-XGB 0.841, alpha 0.986, beta 0.526, AUC 0.913, DCR 0.549; TabSyn: 0.980, 0.794, 0.990, 0.480, 0.910, 0.507"
  ( cd "$P" && tar czf "$OUT/papers_call$CALL.tgz" ./*.csv ./*.json ./*.times ) 2>/dev/null || true
}

if [ "${1:-}" = "--phase" ]; then   # child: one phase, in the environment the parent exported
  PHASE=$2
  # shellcheck disable=SC1090
  . "$GEN_FLAGS_FILE"                # the arrays GENOPT and REAL_FLAGS
  : >"$LOGS/$PHASE.md"
  "phase_$PHASE"
  exit $?
fi

# ---- the parent ------------------------------------------------------------------------------
CALL=1
PHASES=""
while [ $# -gt 0 ]; do
  case $1 in
    --call) CALL=$2; shift 2 ;;
    --phases) PHASES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --dry) GPU_SESSION_DRY=1; shift ;;
    -h|--help) sed -n '2,80p' "$0"; exit 0 ;;
    *) echo "gpu_session: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $CALL in
  1) PHASES=${PHASES:-build parity memcheck fitbench adult sizes}; CALL_BUDGET=${CALL_BUDGET:-495} ;;
  2) PHASES=${PHASES:-build ddpm timegan precision sample1m nccl}; CALL_BUDGET=${CALL_BUDGET:-170} ;;
  *) echo "gpu_session: --call 1 or 2" >&2; exit 2 ;;
esac
export DRY=${GPU_SESSION_DRY:-0} CALL
# the dry run checks flags and paths, not budgets: the emulator on a shared 2-core machine gets
# GPU_SESSION_DRY_SCALE (3) times every budget
SCALE=1
[ "$DRY" = 1 ] && SCALE=${GPU_SESSION_DRY_SCALE:-3}
CALL_BUDGET=$(( CALL_BUDGET * SCALE ))
if [ "$DRY" = 1 ]; then BUILD=${BUILD:-$ROOT/build}; else BUILD=${BUILD:-$ROOT/build-gpu}; fi
export BUILD OUT=${OUT:-$BUILD/out}
export W=$BUILD/session           # work files that call 2 reuses (models, info)
export LOGS=$BUILD/session_logs/call$CALL
export RESULTS=$LOGS/results.jsonl
rm -rf "$LOGS"
mkdir -p "$OUT" "$W" "$LOGS"
: >"$RESULTS"
exec > >(tee -a "$OUT/session_call$CALL.log") 2>&1
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
say() { echo "[gpu_session call $CALL +$(elapsed)s] $*"; }
export NPROC; NPROC=$(nproc)
export JOBS=$(( NPROC > 4 ? NPROC - 2 : NPROC ))
export EVAL_CPUS=$(( NPROC > 8 ? NPROC - 4 : 0 ))-$(( NPROC - 1 ))

# ---- setup (in the parent: every phase needs its environment) ----------------------------------
say "setup (dry run: $DRY)"
nvidia-smi >"$LOGS/nvidia-smi.txt" 2>&1
GPU_LINE=$(nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)
export ADULT=${ADULT:-} ADULT_NOTE=""
for f in "$ROOT/bench/debs/adult.csv" "${GENESIS_DATA:+$GENESIS_DATA/adult.csv}"; do
  [ -z "$ADULT" ] && [ -n "$f" ] && [ -f "$f" ] && ADULT=$f
done
[ -n "$ADULT" ] || { ADULT=$ROOT/data/adult_sample.csv; ADULT_NOTE=", data/adult_sample.csv: the full Adult was not carried"; }
if [ "$DRY" = 1 ]; then   # the emulator runs about 0.3 us per GPU thread: 300 rows
  head -n 301 "$ADULT" >"$W/adult_dry.csv"; ADULT=$W/adult_dry.csv; ADULT_NOTE=", its first 300 rows (dry run)"
fi
export ADULT_ROWS=$(( $(wc -l <"$ADULT") - 1 ))
GENOPT=()
command -v ninja >/dev/null 2>&1 && GENOPT=(-G Ninja)
REAL_FLAGS=()
CUDNN_MODE=AUTO NCCL_MODE=AUTO
if [ "$DRY" = 1 ]; then
  export GENESIS_CUDA_EMULATOR=1 GENESIS_CUDA_MODULE=$BUILD/cuemu/libgenesis-cuda.so
  # DDPM samples on a GPU in groups of at least 16,384 rows: far too slow on the emulator
  export GENESIS_DDPM_SAMPLE_ROWS=256
  [ -f "$GENESIS_CUDA_MODULE" ] || say "no emulated module at $GENESIS_CUDA_MODULE: configure $BUILD with -DGENESIS_CUDA_EMU=ON"
else
  export DEPS=$BUILD/deps
  . "$ROOT/bench/gpu_deps.sh"
  gpu_deps_setup || say "no .deb files in bench/debs: the build dependencies must be installed"
  REAL_FLAGS+=("${CMAKE_EXTRA[@]}")
fi
# cuDNN and NCCL: the toolkit's, else the ones PyTorch's wheels carry
PYNV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])" 2>/dev/null || true)
mkdir -p "$BUILD/pylibs"
for lib in cudnn nccl; do
  U=$(echo $lib | tr a-z A-Z)
  if [ -f /usr/local/cuda/include/$lib.h ]; then
    eval "${U}_MODE=ON"
  elif [ -n "$PYNV" ] && [ -f "$PYNV/$lib/include/$lib.h" ] && ls "$PYNV"/$lib/lib/lib$lib.so.* >/dev/null 2>&1; then
    ln -sfn "$(ls "$PYNV"/$lib/lib/lib$lib.so.* | head -1)" "$BUILD/pylibs/lib$lib.so"
    REAL_FLAGS+=("-D${U}_INCLUDE_DIR=$PYNV/$lib/include" "-D${U}_LIBRARY=$BUILD/pylibs/lib$lib.so")
    export LD_LIBRARY_PATH="$PYNV/$lib/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    eval "${U}_MODE=ON"
    say "$lib from PyTorch's wheel: $PYNV/$lib"
  fi
done
# GPU_SESSION_CUDA=OFF only to test this script's build path on a machine without nvcc
REAL_FLAGS=(-DCMAKE_BUILD_TYPE=Release "-DGENESIS_CUDA=${GPU_SESSION_CUDA:-ON}" -DCMAKE_CUDA_ARCHITECTURES=90
            "-DGENESIS_CUDNN=$CUDNN_MODE" "-DGENESIS_NCCL=$NCCL_MODE" "${REAL_FLAGS[@]}")
[ "$DRY" = 1 ] && [ -x /usr/local/cuda/bin/nvcc ] && REAL_FLAGS+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
export CUDNN_MODE NCCL_MODE
# arrays do not cross into the child process: it reads them from this file
declare -p GENOPT REAL_FLAGS >"$LOGS/flags.sh"
export GEN_FLAGS_FILE=$LOGS/flags.sh
# the size table's inputs, written in the background while the build runs (one core)
if [ "$CALL" = 1 ] && [[ " $PHASES " == *" sizes "* ]]; then
  mkdir -p "$W/sizes"
  if ${CC:-cc} -O2 -o "$W/make_table" bench/bench_make_table.c -lm 2>"$LOGS/make_table_cc.log"; then
    SZ=${SIZES:-10000 100000 1000000}; [ "$DRY" = 1 ] && SZ=${SIZES:-300 600}
    ( for n in $SZ; do
        [ "$n" -le 1000000 ] || continue
        f=$W/sizes/table50_${n}_seed1.csv
        [ -f "$f" ] || { nice "$W/make_table" "$n" 1 "$f.pre" && mv "$f.pre" "$f"; }
      done ) >/dev/null 2>&1 &
  fi
fi
SETUP_S=$(elapsed)

# ---- the phases, each under its budget -----------------------------------------------------------
declare -A DEF=([build]=210 [parity]=45 [memcheck]=65 [fitbench]=45 [kernels]=75 [adult]=80 [sizes]=400
                [ddpm]=35 [timegan]=65 [precision]=55 [sample1m]=20 [nccl]=30 [papers]=240 [dp]=60
                [widesample]=60)
# call 2 finds call 1's build; on a fresh machine (call 1 failed, or the machine went back) it
# builds from scratch first
[ "$CALL" = 2 ] && [ -x "$BUILD/genesis" ] && DEF[build]=40
SUMMARY=$OUT/summary_call$CALL.md
TSV=$OUT/phases_call$CALL.tsv
printf 'phase\tstatus\tseconds\tbudget\texit\n' >"$TSV"
printf 'setup\tok\t%s\t-\t0\n' "$SETUP_S" >>"$TSV"
pack() { tar czf "$OUT/logs_call$CALL.tgz" -C "$LOGS" . 2>/dev/null || true
         cp "$RESULTS" "$OUT/results_call$CALL.jsonl" 2>/dev/null
         [ -f "$LOGS/sizes.jsonl" ] && cp "$LOGS/sizes.jsonl" "$OUT/sizes_call$CALL.jsonl"
         [ -f "$LOGS/sizes.md" ] && cp "$LOGS/sizes.md" "$OUT/sizes_call$CALL.md"; }
for ph in $PHASES; do
  if ! declare -F "phase_$ph" >/dev/null; then
    say "unknown phase $ph"; printf '%s\tunknown\t0\t-\t-\n' "$ph" >>"$TSV"; continue
  fi
  var=BUDGET_$ph
  b=$(( ${!var:-${DEF[$ph]}} * SCALE ))
  left=$(( CALL_BUDGET - $(elapsed) - 5 ))
  [ "$b" -gt "$left" ] && b=$left
  if [ "$b" -lt 10 ]; then
    say "$ph: skipped, ${left} s left in the call"
    printf '%s\tskipped (call budget)\t0\t%s\t-\n' "$ph" "$b" >>"$TSV"; continue
  fi
  say "$ph (budget $b s)"
  t1=$(date +%s.%N)
  PHASE_BUDGET=$b timeout -k 5 "$b" bash "$SELF" --phase "$ph" >"$LOGS/$ph.log" 2>&1
  rc=$?
  t2=$(date +%s.%N)
  case $rc in
    0) st=ok ;; 77) st=skipped ;; 124|137) st="timeout (stopped at its budget)" ;; *) st="FAILED" ;;
  esac
  s=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t1" "$t2")
  printf '%s\t%s\t%s\t%s\t%s\n' "$ph" "$st" "$s" "$b" "$rc" >>"$TSV"
  say "$ph: $st in $s s"
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || tail -n 15 "$LOGS/$ph.log"
  pack
done

# ---- the summary -------------------------------------------------------------------------------------
{
  echo "# Genesis GPU session, call $CALL$( [ "$DRY" = 1 ] && echo ' (DRY RUN on the emulated CUDA runtime: no figure here is a GPU figure)')"
  echo ""
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain 2>/dev/null | grep -q . && echo ' (with local changes)')"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- GPU: ${GPU_LINE:-none (nvidia-smi not available)}"
  echo "- host: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $NPROC cores; nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  echo "- Adult: $ADULT ($ADULT_ROWS rows)$ADULT_NOTE"
  [ "$DRY" = 1 ] && echo "- dry run: budgets x $SCALE; tiny sizes and epochs; DDPM's sampling group 256 rows"
  echo ""
  echo "| phase | status | seconds | budget |"
  echo "|---|---|---|---|"
  tail -n +2 "$TSV" | awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
  echo ""
  for ph in $PHASES; do
    [ -s "$LOGS/$ph.md" ] || continue
    echo "## $ph"; echo ""; cat "$LOGS/$ph.md"; echo ""
  done
} >"$SUMMARY"
if [ "$CALL" = 1 ] && [[ " $PHASES " == *" adult "* ]]; then
  fw=$(( CALL_BUDGET + 5 - $(elapsed) )); [ "$fw" -gt 30 ] && fw=30
  [ "$fw" -gt 0 ] && wait_quality "$fw"
  {
    echo "## adult: quality of the fits (sampled on the CPU to Adult's size, \`genesis evaluate\`)"
    echo ""
    python3 - "$LOGS" <<'PY'
import glob, json, os, re, sys
rows = []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "quality_*_s*.json"))):
    m = re.search(r"quality_(\w+)_s(\d+)\.json$", p)
    try:
        s = json.load(open(p))["scores"]
    except (OSError, ValueError, KeyError):
        continue
    rows.append((m.group(1), int(m.group(2)), s))
if not rows:
    print("no quality scores (the scoring did not finish)")
else:
    print("| model | seed | quality | column shapes | pair trends | strong pairs |")
    print("|---|---|---|---|---|---|")
    for model, seed, s in rows:
        print(f"| {model} | {seed} | {s['quality']:.4f} | {s['column_shapes']:.4f} | "
              f"{s['column_pair_trends']:.4f} | {s['column_pair_trends_threshold']:.4f} |")
PY
  } >>"$SUMMARY"
  pack
fi
echo "" >>"$SUMMARY"
echo "Total: $(elapsed) s (call budget $CALL_BUDGET s)." >>"$SUMMARY"
pack
say "done in $(elapsed) s"
cat "$SUMMARY"
# 1 when a phase failed (a phase stopped at its budget, or skipped, is not a failure)
! tail -n +2 "$TSV" | cut -f2 | grep -qx FAILED
