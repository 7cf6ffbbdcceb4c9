#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test xjit:
# system packages through apt-get, build requirements through pip.
set -euo pipefail

SYSTEM_PACKAGES="g++ cmake ninja-build ccache libabsl-dev libgtest-dev"
# Linear algebra: OpenBLAS (OpenMP build) with LAPACK, and lapack.h (docs/dependencies.md).
SYSTEM_PACKAGES="$SYSTEM_PACKAGES libopenblas-openmp-dev liblapacke-dev"
missing=""
for p in $SYSTEM_PACKAGES; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

python3 -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.8" "pybind11>=2.11" "numpy>=1.22" "ml_dtypes>=0.2" \
  "onednn-devel-cpu-gomp==2023.2.0" "onednn-cpu-gomp==2023.2.0" "$@"
