#!/usr/bin/env bash
# Packs, into the ignored folder .gpu_deps/, every build dependency of xjit that
# the GPU machine's image lacks (it has no network: see tools/gpu_check.sh):
#   abseil (libabsl-dev + libabsl20220623), GoogleTest (libgtest-dev,
#   libgmock-dev), OpenBLAS's OpenMP build (libopenblas-openmp-dev +
#   libopenblas0-openmp), lapack.h (liblapacke-dev), xbyak (libxbyak-dev),
#   Eigen's headers and CMake config (libeigen3-dev),
#   libgfortran5/libquadmath0 (OpenBLAS needs them; used there only where the
#   image lacks them), oneDNN 2023.2.0 from its PyPI wheels, the ducc0 0.38.0
#   sources from its PyPI sdist, and CPython 3.12's headers as a fallback.
# Run it here (Debian 12, with apt and PyPI). Downloads are cached in
# ${XJIT_GPU_BUNDLE_CACHE:-~/.cache/xjit/gpu_bundle}; what is carried is one
# pruned tree, xz-compressed: the .debs unpacked (no static libraries but
# gtest's, no docs), oneDNN as `pip install --prefix` lays it out with its
# three identical 54 MB copies of libdnnl made symlinks (the wheel alone is
# 39 MB), and ducc0's src/ only. Result:
#   .gpu_deps/deps.tar.xz   the tree, unpacked by tools/gpu_check.sh
#   .gpu_deps/MANIFEST.txt  versions and checksums of what went in
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
ARCH=x86_64-linux-gnu
CACHE="${XJIT_GPU_BUNDLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xjit/gpu_bundle}"
OUTDIR="$ROOT/.gpu_deps"
LIMIT_MIB=60   # the device tool carries at most 64 MiB: tracked tree + .gpu_deps

# The packages' versions are the ones installed here (tools/install_deps.sh),
# so the GPU build uses exactly what this machine builds and tests with.
DEBS="libabsl-dev libabsl20220623 libgtest-dev libgmock-dev libopenblas-openmp-dev
      libopenblas0-openmp liblapacke-dev libxbyak-dev libeigen3-dev libgfortran5 libquadmath0"
ONEDNN_VERSION=2023.2.0   # pyproject.toml, tools/install_deps.sh
DUCC0_VERSION=0.38.0      # CMakeLists.txt XJIT_DUCC0_VERSION, tools/install_deps.sh
DUCC0_SHA256=a27a6f2cdb816cc0be543a91e9f8ac8e19793e314fa519efa127db411fae589f
PY312_INCLUDE="${XJIT_PY312_INCLUDE:-$HOME/.pyenv/versions/3.12.1/include/python3.12}"

# .gpu_deps/ stays out of git (and so out of the device tool's plain copy).
exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qxF '/.gpu_deps/' "$exclude" 2>/dev/null || echo '/.gpu_deps/' >> "$exclude"

mkdir -p "$CACHE/debs" "$CACHE/wheels" "$CACHE/sdist"

echo "== Debian packages"
specs=""
for p in $DEBS; do
  v="$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)"
  if [ -z "$v" ]; then
    echo "error: $p is not installed here; run tools/install_deps.sh first" >&2
    exit 1
  fi
  specs="$specs $p=$v"
done
# apt-get download needs the package lists; refresh them once if it fails.
(cd "$CACHE/debs" && for s in $specs; do
   p="${s%%=*}"; v="${s#*=}"
   ls "${p}_${v#*:}_"*.deb >/dev/null 2>&1 ||
     apt-get download -q -o APT::Sandbox::User=root "$s" || { apt-get update -qq && apt-get download -q -o APT::Sandbox::User=root "$s"; }
 done)

echo "== oneDNN $ONEDNN_VERSION wheels (CPython 3.12, manylinux x86_64)"
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$CACHE/wheels" \
  "onednn-devel-cpu-gomp==$ONEDNN_VERSION" "onednn-cpu-gomp==$ONEDNN_VERSION"

echo "== ducc0 $DUCC0_VERSION sdist"
sdist="$CACHE/sdist/ducc0-$DUCC0_VERSION.tar.gz"
if ! echo "$DUCC0_SHA256  $sdist" | sha256sum -c --quiet >/dev/null 2>&1; then
  rm -f "$sdist"
  python3 -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    --no-build-isolation "ducc0==$DUCC0_VERSION" -d "$CACHE/sdist"
  echo "$DUCC0_SHA256  $sdist" | sha256sum -c --quiet
fi

echo "== staging the pruned tree"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
T="$STAGE/tree"
mkdir -p "$T"
for s in $specs; do
  p="${s%%=*}"; v="${s#*=}"
  dpkg-deb -x "$(ls "$CACHE/debs/${p}_${v#*:}_"*.deb | head -1)" "$T"
done
L="$T/usr/lib/$ARCH"
# /usr/share goes but for Eigen's CMake config (Eigen3Config.cmake finds the
# headers relative to itself); Eigen's unsupported/ modules are not used.
mv "$T/usr/share/eigen3" "$STAGE/eigen3-share"
rm -rf "${T:?}/usr/share" "$L/pkgconfig" "$L/openblas-openmp/pkgconfig"
mkdir -p "$T/usr/share" && mv "$STAGE/eigen3-share" "$T/usr/share/eigen3"
rm -rf "$T/usr/include/eigen3/unsupported"
# Static libraries: only gtest/gmock's are linked (abseil links its .so files,
# OpenBLASConfig.cmake names libopenblas.so).
find "$T" -name '*.a' ! -name 'libgtest*.a' ! -name 'libgmock*.a' -delete
# OpenBLAS's libblas/liblapack (alternatives for other programs) are not linked:
# libopenblas holds BLAS and LAPACK. LAPACKE's library is not linked either
# (only lapack.h is used), so its runtime package is not bundled.
rm -f "$L"/openblas-openmp/libblas.so* "$L"/openblas-openmp/liblapack.so* "$L"/liblapacke.so*
# libgfortran5/libquadmath0 go to a folder of their own: gpu_check.sh puts it on
# LD_LIBRARY_PATH only where the image has no libgfortran.so.5.
mkdir -p "$T/fallback-lib"
mv "$L"/libgfortran.so.5* "$L"/libquadmath.so.0* "$T/fallback-lib/"
find "$T" -xtype l -delete    # links left dangling by the pruning
# The image's g++ may be 13 or newer, whose standard headers no longer bring in
# <cstdint>; abseil 20220623 relies on that in some headers (fixed upstream
# later). Include it explicitly there: nothing else changes.
grep -rlE '\b(u?int(8|16|32|64|ptr|max)_t)\b' --include='*.h' "$T/usr/include/absl" |
  xargs grep -LE '#include <(cstdint|stdint\.h)>' |
  while read -r h; do sed -i '1i #include <cstdint>  // xjit gpu_bundle.sh: for g++ >= 13' "$h"; done
find "$T" -depth -type d -empty -delete

# oneDNN: laid out as `pip install --prefix` does (gpu_check.sh puts its
# site-packages on PYTHONPATH so tools/find_onednn.py and importlib.metadata
# see the distributions), the duplicate libraries made links.
python3 -m pip install -q --disable-pip-version-check --no-deps --no-index --no-compile --ignore-installed \
  --prefix "$STAGE/onednn" "$CACHE/wheels/onednn_cpu_gomp-$ONEDNN_VERSION-"*.whl \
  "$CACHE/wheels/onednn_devel_cpu_gomp-$ONEDNN_VERSION-"*.whl
mv "$STAGE/onednn" "$T/onednn"
mkdir -p "$T/onednn/lib/python3.12/site-packages"
for d in "$T"/onednn/lib/python3.*/site-packages; do
  [ "$d" = "$T/onednn/lib/python3.12/site-packages" ] && continue
  mv "$d"/* "$T/onednn/lib/python3.12/site-packages/"
  rm -rf "$(dirname "$d")"
done
rm -f "$T"/onednn/lib/python3.12/site-packages/*/direct_url.json  # names this machine's cache
real="$(cd "$T/onednn/lib" && ls libdnnl.so.*.* | head -1)"
for l in libdnnl.so libdnnl.so.3; do
  cmp -s "$T/onednn/lib/$l" "$T/onednn/lib/$real"
  ln -sf "$real" "$T/onednn/lib/$l"
done
test -f "$T/onednn/lib/cmake/dnnl/dnnl-config.cmake"

# ducc0: the C++ sources only (CMakeLists.txt compiles src/ducc0/infra/*.cc and
# includes src/ducc0/fft/*), with the licence.
tar -xzf "$sdist" -C "$STAGE"
mkdir -p "$T/ducc0-$DUCC0_VERSION"
cp -r "$STAGE/ducc0-$DUCC0_VERSION/src" "$T/ducc0-$DUCC0_VERSION/"
cp "$STAGE/ducc0-$DUCC0_VERSION"/LICENSE* "$T/ducc0-$DUCC0_VERSION/" 2>/dev/null || true
rm -rf "$T/ducc0-$DUCC0_VERSION/src/ducc0/bindings" "$T/ducc0-$DUCC0_VERSION/src/ducc0/"*/*.py
test -f "$T/ducc0-$DUCC0_VERSION/src/ducc0/fft/fft.h"

# CPython 3.12's headers, used there only if the image has no Python.h.
if [ -f "$PY312_INCLUDE/Python.h" ]; then
  mkdir -p "$T/python3.12-include"
  cp -r "$PY312_INCLUDE" "$T/python3.12-include/python3.12"
else
  echo "note: no CPython 3.12 headers at $PY312_INCLUDE; the bundle has no fallback for them"
fi

{
  echo "xjit GPU dependency bundle, made $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release; echo "$PRETTY_NAME")"
  echo "debian:"; for s in $specs; do echo "  $s"; done
  echo "wheels:"; (cd "$CACHE/wheels" && ls onednn_*"$ONEDNN_VERSION"*.whl | sed 's/^/  /')
  echo "ducc0: $DUCC0_VERSION sdist sha256 $DUCC0_SHA256 (src/ only)"
  [ -d "$T/python3.12-include" ] && echo "python3.12-include: from $PY312_INCLUDE"
  echo "unpacked: $(du -sb "$T" | cut -f1) bytes"
} > "$STAGE/MANIFEST.txt"
cp "$STAGE/MANIFEST.txt" "$T/MANIFEST.txt"

echo "== compressing (xz; a minute or two)"
tar -C "$T" --owner=0 --group=0 --numeric-owner -cf - . | xz -T0 -6 > "$STAGE/deps.tar.xz"
echo "deps.tar.xz sha256 $(sha256sum "$STAGE/deps.tar.xz" | cut -d' ' -f1)" >> "$STAGE/MANIFEST.txt"

rm -rf "$OUTDIR"
mkdir -p "$OUTDIR"
mv "$STAGE/deps.tar.xz" "$STAGE/MANIFEST.txt" "$OUTDIR/"

bundle=$(du -cb "$OUTDIR"/* | tail -1 | cut -f1)
tracked=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | awk '/\ttotal$/ {s += $1} END {print s}')
total=$((bundle + tracked))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
cat "$OUTDIR/MANIFEST.txt"
echo "bundle .gpu_deps: $(mib "$bundle"); tracked tree: $(mib "$tracked"); together: $(mib "$total")"
if [ "$total" -gt $((LIMIT_MIB * 1048576)) ]; then
  echo "error: over $LIMIT_MIB MiB; the device tool carries at most 64 MiB" >&2
  exit 1
fi
echo "device tool: carry [\".gpu_deps\"], command \"bash tools/gpu_check.sh\", timeout_s 580"
