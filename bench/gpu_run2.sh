#!/usr/bin/env bash
# gpu_run2.sh — the GPU session's second call, on the machine bench/gpu_run.sh left warm (it
# reuses build-gpu and the libraries unpacked there). Steps, in the order STEPS names them
# (default "ncu nccl gen100m"), each only while the budget (GPU_RUN_BUDGET, 170 s) allows:
#   ncu      per-kernel GPU time of a few CTGAN and TVAE training steps on Adult (Nsight Compute,
#            one metric, gpu__time_duration; --clock-control none), summed by kernel: where a
#            step's time goes (kernels_<model>.txt);
#   nccl     bench/nccl_run.sh (data-parallel equivalence on the GPU, the all-reduce cost);
#   gen100m  bench/gen_sizes.sh on the GPU at 100M rows.
# Writes $OUT/summary2.md, $OUT/run2.log and $OUT/logs2.tgz.
#
#   device tool, right after gpu_run.sh: run(command="bash bench/gpu_run2.sh", carry=[...])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run2.log") 2>&1
T0=$(date +%s)
BUDGET=${GPU_RUN_BUDGET:-170}
BUILD=${BUILD:-$ROOT/build-gpu}
LOGS=$BUILD/logs2
STEPS=${STEPS:-ncu nccl gen100m}
mkdir -p "$LOGS"
elapsed() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( BUDGET - $(elapsed) )); }
say() { echo "[gpu_run2 +$(elapsed)s] $*"; }
SUMMARY=$OUT/summary2.md
: >"$SUMMARY"
sum() { echo "$*" >>"$SUMMARY"; }
pack() { tar czf "$OUT/logs2.tgz" -C "$LOGS" . 2>/dev/null || true; }
MA=x86_64-linux-gnu
DEPS=$BUILD/deps
PYNV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])" 2>/dev/null || true)
export LD_LIBRARY_PATH="$DEPS/usr/lib/$MA:$DEPS/usr/lib/$MA/openblas-openmp:$DEPS/lib/$MA${PYNV:+:$PYNV/cudnn/lib:$PYNV/nccl/lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$BUILD/genesis" ] || { say "no build in $BUILD: run bench/gpu_run.sh first"; sum "- no build"; exit 1; }
ADULT=$ROOT/bench/debs/adult.csv
[ -f "$ADULT" ] || ADULT=$ROOT/data/adult_sample.csv
sum "# Genesis GPU run, second call"
sum ""

for step in $STEPS; do
  case $step in
  ncu)
    NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    [ -n "$NCU" ] || { sum "- ncu: not found"; continue; }
    for M in ctgan tvae; do
      [ "$(left)" -gt 60 ] || { sum "- ncu $M: skipped (budget)"; continue; }
      say "ncu: kernels of a few $M steps (after 1,500 launches)"
      GENESIS_CUDA_GRAPHS=0 timeout 70 "$NCU" --clock-control none --metrics gpu__time_duration.sum \
          --launch-skip 1500 --launch-count 400 --csv --page raw \
          "$BUILD/bench_fit" "$ADULT" 1 1000 0 /dev/null "$M" >"$LOGS/ncu_$M.csv" 2>"$LOGS/ncu_$M.err"
      python3 - "$LOGS/ncu_$M.csv" "$M" >"$LOGS/kernels_$M.txt" <<'PY'
import csv, io, sys, collections
lines = [l for l in open(sys.argv[1], errors="replace") if l.startswith('"')]
rows = list(csv.DictReader(io.StringIO("".join(lines))))
t = collections.Counter(); n = collections.Counter()
for r in rows[1:]:   # the first data row holds the units
    try:
        v = float(r["gpu__time_duration.sum"].replace(",", ""))
    except (KeyError, ValueError):
        continue
    k = r.get("Kernel Name", "?")[:70]
    t[k] += v; n[k] += 1
tot = sum(t.values())
print(f"{sys.argv[2]}: {sum(n.values())} kernels, {tot / 1e3:.1f} us of GPU time")
for k, v in t.most_common(15):
    print(f"  {v / tot * 100:5.1f}%  {v / n[k] / 1e3:8.2f} us x {n[k]:4d}  {k}")
PY
      cat "$LOGS/kernels_$M.txt"
      sum '```'; cat "$LOGS/kernels_$M.txt" >>"$SUMMARY"; sum '```'
    done ;;
  nccl)
    [ "$(left)" -gt 90 ] || { sum "- nccl: skipped (budget)"; continue; }
    say "bench/nccl_run.sh"
    OUT=$LOGS/nccl BUILD=$BUILD timeout $(( $(left) - 30 )) bash bench/nccl_run.sh >"$LOGS/nccl.log" 2>&1
    sum "- nccl_run.sh: exit $?"
    [ -f "$LOGS/nccl/summary.md" ] && cat "$LOGS/nccl/summary.md" >>"$SUMMARY" ;;
  gen100m)
    [ "$(left)" -gt 100 ] || { sum "- 100M rows: skipped (budget)"; continue; }
    say "100M rows on the GPU"
    BUILD=$BUILD ADULT=$ADULT RESULTS=$LOGS/gen100m.jsonl OUTDIR=$BUILD EPOCHS=5 \
      timeout $(( $(left) - 15 )) bash bench/gen_sizes.sh cuda "100000000" >"$LOGS/gen100m.log" 2>&1
    sum "- 100M rows: exit $?; $(cat "$LOGS/gen100m.jsonl" 2>/dev/null)" ;;
  esac
  pack
done
sum "Total: $(elapsed) s"
pack
cat "$SUMMARY"
