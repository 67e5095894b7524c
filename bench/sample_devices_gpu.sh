#!/usr/bin/env bash
# sample_devices_gpu.sh — sampling spread over GPUs on a real GPU machine (docs/memory.md,
# "Several devices"), in one call of about 3 minutes:
#   1. fits a small CTGAN and a small DDPM on the CPU (seconds);
#   2. on cuda:0, N rows with the automatic batch and with --sample-batch 100000: the same
#      bytes (the row-numbered draws on a real GPU);
#   3. with two or more GPUs: --multi-gpu writes the bytes of one GPU, and each GPU's
#      memory in use is sampled every 0.2 s (nvidia-smi) during the run.
# Prints PASS/FAIL lines and timings; writes raw outputs to OUT (default ./sample_devices_out).
#
#   bash bench/sample_devices_gpu.sh [build-dir] [N]     (default build, 2000000)
set -u
B=${1:-build}
N=${2:-2000000}
G="$B/genesis"
OUT=${OUT:-./sample_devices_out}
mkdir -p "$OUT"
DATA="$(dirname "$0")/../data/adult_sample.csv"
fail=0
ngpu=$("$G" info 2>/dev/null | grep -c "^  cuda:[0-9]")
echo "GPUs: $ngpu"
"$G" info 2>&1 | grep "^  cuda:" | sed 's/^/  /'
"$G" fit --method ctgan -i "$DATA" -m "$OUT/ctgan.gen" --device cpu -q --epochs 2 || exit 1
"$G" fit --method ddpm -i "$DATA" -m "$OUT/ddpm.gen" --device cpu -q --iterations 50 --sample-steps 20 || exit 1
gpu_mem() { # samples memory.used per GPU into $1 until killed
    while :; do nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits 2>/dev/null | tr '\n' ' '; echo; sleep 0.2; done > "$1"
}
for m in ctgan ddpm; do
    t0=$(date +%s.%N)
    "$G" sample -m "$OUT/$m.gen" -n "$N" -o "$OUT/$m.one.csv" --device cuda:0 --seed 1 2> "$OUT/$m.one.err"
    t1=$(date +%s.%N)
    "$G" sample -m "$OUT/$m.gen" -n "$N" -o "$OUT/$m.b100k.csv" --device cuda:0 --seed 1 --sample-batch 100000 2> "$OUT/$m.b100k.err"
    t2=$(date +%s.%N)
    echo "$m: $N rows on cuda:0: $(echo "$t1 - $t0" | bc) s (automatic batch), $(echo "$t2 - $t1" | bc) s (batches of 100000)"
    if cmp -s "$OUT/$m.one.csv" "$OUT/$m.b100k.csv"; then echo "PASS $m: batch size does not change the bytes on the GPU"; else echo "FAIL $m: batches of 100000 differ"; fail=1; fi
    if [ "$ngpu" -ge 2 ]; then
        gpu_mem "$OUT/$m.multi.mem" & mp=$!
        t3=$(date +%s.%N)
        "$G" sample -m "$OUT/$m.gen" -n "$N" -o "$OUT/$m.multi.csv" --multi-gpu --seed 1 --sample-batch 100000 2> "$OUT/$m.multi.err"
        t4=$(date +%s.%N)
        kill $mp 2>/dev/null
        echo "$m: $N rows on $ngpu GPUs: $(echo "$t4 - $t3" | bc) s; peak memory.used per GPU (MiB):" \
             "$(awk '{for (i = 1; i <= NF; i += 2) { g = $i; sub(",", "", g); if ($(i+1) > p[g]) p[g] = $(i+1) } } END {for (g in p) printf "%s:%s ", g, p[g]}' "$OUT/$m.multi.mem")"
        if cmp -s "$OUT/$m.one.csv" "$OUT/$m.multi.csv"; then echo "PASS $m: --multi-gpu = one GPU, byte for byte"; else echo "FAIL $m: --multi-gpu differs from one GPU"; fail=1; fi
    else
        echo "SKIP $m: one GPU, --multi-gpu needs two"
    fi
    rm -f "$OUT"/$m.*.csv
done
exit $fail
