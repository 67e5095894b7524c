#!/usr/bin/env bash
# fetch_debs.sh — run on the CPU development machine (Debian 12, with network) before a GPU
# session: downloads the .deb files the GPU machine lacks (it has nvcc, CMake and ninja but
# no libcsv, Check, OpenBLAS, cJSON, zlib headers or pkg-config, and reaches no package
# registry) into bench/debs/, and copies the Adult table beside them and the five public tables
# of five_tables.sh into bench/debs/tables/, so that one carried folder holds everything
# bench/gpu_run.sh and bench/gpu_ddpm_tstr.sh need. bench/debs/ is in .gitignore: the .deb
# files are never committed.
#
#   bash bench/fetch_debs.sh [adult.csv]
# adult.csv defaults to $GENESIS_DATA/adult.csv (GENESIS_DATA defaults to ../shared/data, a
# sibling folder of the developers' setup); without it the .deb files are still fetched and
# gpu_run.sh skips the Adult timings.
# Then give the device run `carry: ["bench/debs"]` and run `bash bench/gpu_run.sh` there.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=bench/debs
ADULT=${1:-${GENESIS_DATA:-../shared/data}/adult.csv}
# runtime + -dev of every library CMakeLists.txt needs (XGBoost for evaluate's detection and TSTR AUC), and their runtime dependencies that a
# CUDA image may miss (OpenBLAS's Fortran runtime), plus pkg-config itself
PKGS="libcsv3 libcsv-dev check libsubunit0 libsubunit-dev
      libopenblas0-openmp libopenblas-openmp-dev libgfortran5 libquadmath0
      libcjson1 libcjson-dev zlib1g zlib1g-dev
      pkgconf pkgconf-bin libpkgconf3
      libxgboost0 libxgboost-dev libdmlc0"
mkdir -p "$DEST"
cd "$DEST"
rm -f ./*.deb
# apt-get download fetches the exact versions this machine's apt knows (Debian 12), which
# unpack and run on the GPU machine's newer glibc.
# shellcheck disable=SC2086
apt-get download $PKGS
cd - >/dev/null
if [ -f "$ADULT" ]; then
  cp "$ADULT" "$DEST/adult.csv"
else
  echo "fetch_debs: $ADULT not found; gpu_run.sh will skip the Adult timings" >&2
fi
# the five public tables of bench/quality/five_tables.sh, for bench/gpu_ddpm_tstr.sh (23 MB)
mkdir -p "$DEST/tables"
# and Adult with UCI's test file, for gpu_session.sh's `papers` phase
for f in california_housing.csv bank_full.csv covertype_sample15k.csv energy_data.csv \
         news_popularity_partial.csv adult.csv adult_test.csv; do
  src=$(dirname "$ADULT")/$f
  if [ -f "$src" ]; then cp "$src" "$DEST/tables/"; else echo "fetch_debs: $src not found" >&2; fi
done
ls -l "$DEST"
du -sh "$DEST"
