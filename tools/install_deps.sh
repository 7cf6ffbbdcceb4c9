#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test xjit:
# system packages through apt-get, build requirements through pip.
set -euo pipefail

SYSTEM_PACKAGES="g++ cmake ninja-build ccache libabsl-dev libgtest-dev"
# Linear algebra: OpenBLAS (OpenMP build) with LAPACK, and lapack.h (docs/dependencies.md).
SYSTEM_PACKAGES="$SYSTEM_PACKAGES libopenblas-openmp-dev liblapacke-dev"
# The x86-64 assembler of the generated element-wise kernels (docs/dependencies.md).
SYSTEM_PACKAGES="$SYSTEM_PACKAGES libxbyak-dev"
# Eigen (headers): float64 and complex GEMMs on AVX-512 builds (docs/dependencies.md).
SYSTEM_PACKAGES="$SYSTEM_PACKAGES libeigen3-dev"
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

# ducc0's C++ FFT sources (issue 11, docs/dependencies.md): the sdist from
# PyPI, pinned and checked, unpacked into a cache folder CMake looks in.
DUCC0_VERSION=0.38.0
DUCC0_SHA256=a27a6f2cdb816cc0be543a91e9f8ac8e19793e314fa519efa127db411fae589f
DUCC0_PARENT="${XJIT_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xjit}"
if [ ! -f "$DUCC0_PARENT/ducc0-$DUCC0_VERSION/src/ducc0/fft/fft.h" ]; then
  tmp="$(mktemp -d)"
  # --no-build-isolation: pip only reads the sdist's metadata, with the
  # scikit-build-core installed above; nothing is built or installed.
  python3 -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    --no-build-isolation "ducc0==$DUCC0_VERSION" -d "$tmp"
  echo "$DUCC0_SHA256  $tmp/ducc0-$DUCC0_VERSION.tar.gz" | sha256sum -c --quiet
  mkdir -p "$DUCC0_PARENT"
  tar -xzf "$tmp/ducc0-$DUCC0_VERSION.tar.gz" -C "$DUCC0_PARENT"
  rm -rf "$tmp"
fi
