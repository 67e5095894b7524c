#!/usr/bin/env bash
# setup.sh — installs what Genesis needs to build and test, from Debian packages, only where
# something is missing. Safe to run again. Needs root (or sudo) only when it installs.
set -euo pipefail

PKGS=(build-essential cmake pkg-config libcsv-dev check libsubunit-dev libopenblas-openmp-dev zlib1g-dev libcjson-dev
      libopenmpi-dev openmpi-bin python3-pandas python3-pytest libxgboost-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies are installed"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
