#!/usr/bin/env bash
# grad_ckpt.sh — gradient checkpointing measured (docs/memory.md, "Gradient checkpointing"):
# for CTGAN, TVAE and DDPM, one fit without and one with --gradient-checkpointing, each in
# its own process (bench_memory: the estimate, the peak resident set or, on a GPU, the peak
# device memory, and the seconds per training step), one JSON line per fit, then a summary:
# the measured saving against the estimate's, and the step-time ratio.
#
#   bash bench/grad_ckpt.sh BUILD_DIR TABLE.csv [BATCH=10000] [EPOCHS=2] [ITERATIONS=200] [OUT=grad_ckpt.jsonl]
#   GENESIS_DEVICE=cuda bash bench/grad_ckpt.sh ...   (the GPU; default cpu)
#
# EPOCHS (CTGAN, TVAE) must be 2 or more and ITERATIONS (DDPM) 200 or more for a step time
# (bench_memory times the steps between the first and the last progress report).
set -u
B=${1:?usage: grad_ckpt.sh BUILD_DIR TABLE.csv [BATCH] [EPOCHS] [ITERATIONS] [OUT]}
T=${2:?usage: grad_ckpt.sh BUILD_DIR TABLE.csv [BATCH] [EPOCHS] [ITERATIONS] [OUT]}
BATCH=${3:-10000}
EPOCHS=${4:-2}
ITERS=${5:-200}
OUT=${6:-grad_ckpt.jsonl}
DEV=${GENESIS_DEVICE:-cpu}
: >"$OUT"
for method in tvae ctgan ddpm; do
    n=$EPOCHS
    [ "$method" = ddpm ] && n=$ITERS
    for ck in 0 1; do
        BENCH_GRADIENT_CHECKPOINTING=$ck GENESIS_DEVICE=$DEV \
            "$B/bench_memory" fit "$T" "$method" "$n" "$BATCH" >>"$OUT" ||
            echo "grad_ckpt.sh: $method checkpointing=$ck failed" >&2
    done
done
python3 - "$OUT" "$DEV" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
gpu = sys.argv[2] == "cuda"
key = "peak_device" if gpu else "peak_host"
est = "estimate_device" if gpu else "estimate_host"
print(f"{'method':6} {'est. saving MiB':>15} {'measured MiB':>13} {'ratio':>6} {'peak off MiB':>12} {'peak on MiB':>11} {'step off s':>10} {'step on s':>9} {'time x':>6}")
for i in range(0, len(rows) - 1, 2):
    off, on = rows[i], rows[i + 1]
    if off["ckpt"] != 0 or on["ckpt"] != 1:
        continue
    es = (off[est] - on[est]) / 2**20
    ms = (off[key] - on[key]) / 2**20
    tx = on["step_seconds"] / off["step_seconds"] if off["step_seconds"] else float("nan")
    name = ["tvae", "ctgan", "ddpm"][i // 2] if i // 2 < 3 else "?"
    print(f"{name:6} {es:15.1f} {ms:13.1f} {ms / es if es else float('nan'):6.3f} "
          f"{off[key] / 2**20:12.1f} {on[key] / 2**20:11.1f} {off['step_seconds']:10.4f} "
          f"{on['step_seconds']:9.4f} {tx:6.3f}")
EOF
