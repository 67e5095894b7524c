#!/bin/sh
# gpu_dp.sh — the differential-privacy checks that need a GPU, in one call (docs/privacy.md):
# the backend parity test on the real device (every family, the privacy family's 14 cases
# among them), then TVAE, DDPM and CTGAN fitted with and without --epsilon 3 on Adult's
# training file, side by side (bench/privacy/dp_speed.sh), on the GPU.
# usage: bench/privacy/gpu_dp.sh BUILD_DIR ADULT_CSV — BUILD_DIR configured with
#   -DGENESIS_CUDA=ON (e.g. -DCMAKE_CUDA_ARCHITECTURES=90-real) and built; ADULT_CSV UCI
#   Adult's adult.csv
set -e
B=${1:?usage: gpu_dp.sh BUILD_DIR ADULT_CSV}
ADULT=${2:?usage: gpu_dp.sh BUILD_DIR ADULT_CSV}
"$B/test_backend_parity"
GENESIS="$B/genesis" THREADS=16 EPOCHS=${EPOCHS:-30} ITERS=${ITERS:-1000} REPEATS=1 \
    METHODS=${METHODS:-tvae ddpm ctgan} \
    "$(dirname "$0")/dp_speed.sh" "$ADULT"
