#!/usr/bin/env bash
# Builds xjit with the CUDA backend on the GPU machine and runs its checks.
#
# That machine (H200, 16 cores, CUDA 13 toolkit, Python 3.12 with numpy,
# pybind11, pytest, jax[cuda13]...) has no network and none of abseil,
# GoogleTest, OpenBLAS, LAPACKE, xbyak, oneDNN or ducc0. Make their bundle
# here first, then call the device tool with it:
#
#   bash tools/gpu_bundle.sh          # fills .gpu_deps/ (about 14 MiB)
#   run(carry=[".gpu_deps"], command="bash tools/gpu_check.sh", timeout_s=580)
#
# Steps, each logged under $OUT (./gpu_out if unset), at most 7 files (the
# tool brings back 8):
#   env.log        nvidia-smi, tools and versions, the dependency setup
#   build.log      cmake -S . -B build/gpu -G Ninja -DXJIT_CUDA=ON -DXJIT_BUILD_TESTS=ON ...,
#                  then ninja -C build/gpu (all cores)
#   ctest.log      (cd build/gpu && ctest -j16 --output-on-failure --timeout 240)
#   pytest.log     `import xjit` on the gpu, then pytest tests/test_cuda.py
#   bench.log      python3 benchmarks/cuda_vs_jax.py (skipped if absent; it
#                  also writes $OUT/cuda_vs_jax.json)
#   summary.txt    each step's exit status and seconds, and the result lines
# A failing step does not stop the ones after it (those that need its output
# are skipped). The whole run keeps within XJIT_GPU_BUDGET_S seconds (560):
# each step gets a timeout from what is left. ctest runs in the background
# while pytest runs (its long pole is one 2-minute CPU test); the benchmark
# runs last, on a quiet machine. A second call on a still-warm machine reuses
# /opt/xjit-deps and build/gpu (an incremental build): if the build was cut
# short (summary: "build rc=124"), call again at once and it carries on.
#
# Settings (environment): XJIT_GPU_PREFIX (/opt/xjit-deps: where the bundle is
# unpacked; nothing else outside the tree and /tmp is written),
# XJIT_GPU_BUILD_DIR (build/gpu), XJIT_GPU_BUDGET_S (560), XJIT_GPU_JOBS
# (nproc), XJIT_GPU_CUDA (ON), XJIT_GPU_STOP_AFTER (setup|configure|build: a
# dry run, e.g. on a machine without a GPU), XJIT_GPU_PYTEST_ARGS (extra
# pytest arguments), XJIT_GPU_CMAKE_ARGS (extra cmake arguments),
# XJIT_GPU_SKIP_BUILD=1 (only the tests, on $XJIT_GPU_BUILD_DIR as it is).
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT="$PWD"
START=$(date +%s)
OUT="${OUT:-$ROOT/gpu_out}"
mkdir -p "$OUT"
export OUT
PREFIX="${XJIT_GPU_PREFIX:-/opt/xjit-deps}"
BUILD="${XJIT_GPU_BUILD_DIR:-build/gpu}"
BUDGET="${XJIT_GPU_BUDGET_S:-560}"
JOBS="${XJIT_GPU_JOBS:-$(nproc 2>/dev/null || echo 16)}"
STOP_AFTER="${XJIT_GPU_STOP_AFTER:-}"
SUMMARY="$OUT/summary.txt"
ENVLOG="$OUT/env.log"
: > "$SUMMARY"
: > "$ENVLOG"
rm -f "$OUT"/{build,ctest,pytest,bench}.log "$OUT"/cuda_vs_jax.json

note() { echo "$*"; echo "$*" >> "$ENVLOG"; }
left() { echo $((START + BUDGET - $(date +%s))); }
record() {  # name rc seconds [remark]
  printf '%-10s rc=%-4s %5ss  %s\n' "$1" "$2" "$3" "${4:-}" >> "$SUMMARY"
  echo ">> $1: rc=$2 in $3s ${4:-}"
}
# step NAME LOG CAP_SECONDS COMMAND...: runs COMMAND with its output appended
# to LOG, under a timeout of CAP_SECONDS or what is left of the budget.
step() {
  local name="$1" log="$2" cap="$3"; shift 3
  local t l; l=$(left); t=$cap; [ "$l" -lt "$t" ] && t=$l
  if [ "$t" -lt 10 ]; then
    record "$name" - 0 "skipped: budget of ${BUDGET}s spent"
    echo "== $name skipped: budget spent" >> "$log"
    return 125
  fi
  echo "== $name (timeout ${t}s): $*" | tee -a "$log"
  local s rc remark=""; s=$(date +%s)
  timeout -k 10 "$t" "$@" >> "$log" 2>&1
  rc=$?
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && remark="timed out after ${t}s"
  record "$name" "$rc" $(( $(date +%s) - s )) "$remark"
  return "$rc"
}
finish() {
  {
    echo "---"
    grep -E 'error:|FAILED: ' "$OUT/build.log" 2>/dev/null | head -15
    grep -E 'tests passed|tests failed' "$OUT/ctest.log" 2>/dev/null | tail -1
    grep -E '^[0-9]+/[0-9]+ Test +#[0-9]+: .*(Failed|Timeout|Exception|Not Run)' "$OUT/ctest.log" 2>/dev/null | head -30
    grep -E '^(FAILED|ERROR) ' "$OUT/pytest.log" 2>/dev/null | head -30
    grep -E '(passed|failed|error|skipped)[^=]* in [0-9.]+s' "$OUT/pytest.log" 2>/dev/null | tail -1
    echo "total ${1:-?}: $(( $(date +%s) - START ))s of a ${BUDGET}s budget"
  } >> "$SUMMARY"
  echo "== summary ($SUMMARY)"; cat "$SUMMARY"
  exit 0
}

# ---- the machine ----------------------------------------------------------
s=$(date +%s)
{ echo "== nvidia-smi"; nvidia-smi; } >> "$ENVLOG" 2>&1
rc=$?
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >> "$ENVLOG" 2>&1
record nvidia-smi "$rc" $(( $(date +%s) - s ))
{
  echo "== machine"; date -u; uname -a; (. /etc/os-release && echo "$PRETTY_NAME")
  echo "cores: $(nproc)  jobs: $JOBS  budget: ${BUDGET}s  prefix: $PREFIX  build: $BUILD"
  echo "python3: $(command -v python3) $(python3 --version 2>&1)"
  for t in c++ g++ cmake ninja nvcc ccache xz; do
    printf '%-6s %s  %s\n' "$t" "$(command -v "$t" || echo MISSING)" "$("$t" --version 2>/dev/null | head -1)"
  done
  python3 - <<'EOF'
import importlib.metadata as m
for d in ("numpy", "ml_dtypes", "pybind11", "pytest", "scipy", "jax", "jaxlib", "jax-cuda13-plugin",
          "jax-cuda13-pjrt", "opt_einsum"):
    try:
        print(f"{d}: {m.version(d)}")
    except m.PackageNotFoundError:
        print(f"{d}: not installed")
EOF
} >> "$ENVLOG" 2>&1

# ---- dependencies: the carried bundle, unpacked under $PREFIX ---------------
s=$(date +%s)
setup_rc=0
BUNDLE="$ROOT/.gpu_deps/deps.tar.xz"
if [ ! -f "$BUNDLE" ]; then
  note "error: $BUNDLE is missing: run tools/gpu_bundle.sh on the build machine and" \
       "call the device tool with carry [\".gpu_deps\"]"
  setup_rc=1
else
  want="$(sha256sum "$BUNDLE" | cut -d' ' -f1)"
  if [ "$(cat "$PREFIX/.bundle-sha256" 2>/dev/null)" = "$want" ]; then
    note "dependencies: $PREFIX already holds bundle $want"
  else
    note "dependencies: unpacking $BUNDLE into $PREFIX"
    case "$PREFIX" in /|/usr|/usr/*|"") note "error: refusing prefix $PREFIX"; setup_rc=1 ;;
      *) rm -rf "${PREFIX:?}" && mkdir -p "$PREFIX" || setup_rc=1 ;;
    esac
    if [ "$setup_rc" = 0 ]; then
      if command -v xz >/dev/null; then
        xz -dc "$BUNDLE" | tar -C "$PREFIX" -xf - >> "$ENVLOG" 2>&1 || setup_rc=1
      else  # no xz program: Python's lzma
        python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1], "r:xz")
t.extractall(sys.argv[2], **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))' \
          "$BUNDLE" "$PREFIX" >> "$ENVLOG" 2>&1 || setup_rc=1
      fi
    fi
    # Debian's OpenBLASConfig.cmake names absolute /usr paths: point them into $PREFIX.
    obcfg="$(ls "$PREFIX"/usr/lib/*/openblas-openmp/cmake/openblas/OpenBLASConfig.cmake 2>/dev/null | head -1)"
    if [ "$setup_rc" = 0 ] && [ -n "$obcfg" ]; then
      sed -i "s# /usr/# $PREFIX/usr/#g" "$obcfg" && echo "$want" > "$PREFIX/.bundle-sha256"
    else
      note "error: unpacking the bundle failed (see above)"; setup_rc=1
    fi
  fi
  [ -f "$PREFIX/MANIFEST.txt" ] && cat "$PREFIX/MANIFEST.txt" >> "$ENVLOG"
fi
ARCHDIR="$(cd "$PREFIX/usr/lib" 2>/dev/null && ls -d *-linux-gnu 2>/dev/null | head -1)"
LIBDIR="$PREFIX/usr/lib/${ARCHDIR:-x86_64-linux-gnu}"
OBDIR="$LIBDIR/openblas-openmp"
DNNL="$PREFIX/onednn"
DUCC0="$(ls -d "$PREFIX"/ducc0-* 2>/dev/null | head -1)"
export CMAKE_PREFIX_PATH="$PREFIX/usr:$DNNL${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export LD_LIBRARY_PATH="$LIBDIR:$OBDIR:$DNNL/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# OpenBLAS needs libgfortran.so.5 (and libquadmath.so.0); Debian's copies are
# used only where the image has none.
if ! ldconfig -p 2>/dev/null | grep -q 'libgfortran\.so\.5 '; then
  note "libgfortran.so.5 not in the image: using the bundle's ($PREFIX/fallback-lib)"
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$PREFIX/fallback-lib"
fi
# The onednn wheels' metadata (tools/find_onednn.py, xjit's libdnnl preload).
export PYTHONPATH="$DNNL/lib/python3.12/site-packages${PYTHONPATH:+:$PYTHONPATH}"
export XJIT_DUCC0_DIR="$DUCC0"
PYBIND11_DIR="$(python3 -m pybind11 --cmakedir 2>>"$ENVLOG")" ||
  note "error: python3 -m pybind11 --cmakedir failed (is pybind11 installed?)"
CMAKE_ARGS=(
  -DXJIT_CUDA="${XJIT_GPU_CUDA:-ON}" -DXJIT_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release
  -DPython_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$PYBIND11_DIR"
  -Dabsl_DIR="$LIBDIR/cmake/absl" -DGTest_DIR="$LIBDIR/cmake/GTest"
  -DXJIT_OPENBLAS_CONFIG="$OBDIR/cmake/openblas/OpenBLASConfig.cmake"
  -DXJIT_LAPACKE_INCLUDE_DIR="$PREFIX/usr/include" -DXJIT_XBYAK_INCLUDE_DIR="$PREFIX/usr/include"
  -Ddnnl_DIR="$DNNL/lib/cmake/dnnl" -DXJIT_DUCC0_DIR="$DUCC0"
)
# CPython's headers: the bundle has 3.12's for an image without python3-dev.
pyinc="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)"
pyver="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)"
if [ ! -f "$pyinc/Python.h" ]; then
  if [ "$pyver" = 3.12 ] && [ -f "$PREFIX/python3.12-include/python3.12/Python.h" ]; then
    note "Python.h not in $pyinc: using the bundle's CPython 3.12 headers"
    CMAKE_ARGS+=(-DPython_INCLUDE_DIR="$PREFIX/python3.12-include/python3.12")
  else
    note "error: Python.h not in $pyinc and no bundled headers for Python $pyver"
  fi
fi
# shellcheck disable=SC2206
CMAKE_ARGS+=(${XJIT_GPU_CMAKE_ARGS:-})
{ echo "== environment"; env | grep -E '^(CMAKE_PREFIX_PATH|LD_LIBRARY_PATH|PYTHONPATH|XJIT_DUCC0_DIR)='; } >> "$ENVLOG"
record setup "$setup_rc" $(( $(date +%s) - s ))
[ "$STOP_AFTER" = setup ] && finish setup

# ---- configure and build -------------------------------------------------------
built=skipped
if [ "${XJIT_GPU_SKIP_BUILD:-0}" = 1 ]; then
  record configure - 0 "skipped: XJIT_GPU_SKIP_BUILD=1, $BUILD used as it is"
  record build - 0 "skipped: XJIT_GPU_SKIP_BUILD=1"
else
  step configure "$OUT/build.log" 180 \
    cmake -S . -B "$BUILD" -G Ninja "${CMAKE_ARGS[@]}"
  configured=$?
  grep -E '^-- (CUDA backend|OpenBLAS|oneDNN|ducc0|Found (GTest|Python|OpenMP|CUDAToolkit))' \
    "$OUT/build.log" >> "$SUMMARY" 2>/dev/null
  [ "$STOP_AFTER" = configure ] && finish configure
  if [ "$configured" = 0 ]; then
    # Everything at once (the library's long files overlap with the tests');
    # at least 150 s are kept for the tests.
    cap=$(( $(left) - 150 )); [ "$cap" -lt 60 ] && cap=60
    # -k 0: a file that fails to compile does not stop the other targets.
    touch "$BUILD/.gpu-build-start"
    step build "$OUT/build.log" "$cap" ninja -C "$BUILD" -j "$JOBS" -k 0
    built=$?
  else
    record build - 0 "skipped: configure failed"
  fi
fi
[ "$STOP_AFTER" = build ] && finish build

# ---- tests -----------------------------------------------------------------
# A target is tested only if it is up to date (a failed or cut-short build
# leaves a previous call's binaries, which would test old sources): the build
# succeeded, or the target was linked by it, or a short ninja call on that
# target alone succeeds. (`ninja -n` cannot tell: CONFIGURE_DEPENDS globs make
# every dry run want to re-run CMake.)
current() {  # target file
  [ "${XJIT_GPU_SKIP_BUILD:-0}" = 1 ] || [ "$built" = 0 ] && return 0
  [ "$built" = skipped ] || [ -z "$2" ] || [ ! -e "$2" ] && return 1
  [ "$2" -nt "$BUILD/.gpu-build-start" ] && return 0
  [ "$built" = 124 ] || [ "$built" = 137 ] && return 1  # cut short: not rebuilt
  step "build:$1" "$OUT/build.log" 45 ninja -C "$BUILD" -j "$JOBS" "$1"
}
so="$(ls "$BUILD"/_xjit*.so 2>/dev/null | head -1)"
current _xjit "$so" || so=""
ctest_pid=""
if [ -x "$BUILD/xjit_cc_tests" ] && current xjit_cc_tests "$BUILD/xjit_cc_tests"; then
  # (cd, not --test-dir: that needs CMake 3.20)
  step ctest "$OUT/ctest.log" 300 bash -c 'cd "$1" && exec ctest -j "$2" --output-on-failure --timeout 240' \
    ctest "$BUILD" "$JOBS" &
  ctest_pid=$!
else
  record ctest - 0 "skipped: $BUILD/xjit_cc_tests not built (or not up to date)"
fi

OVERLAY="${TMPDIR:-/tmp}/xjit-gpu-overlay"   # python/xjit with the built module inside
if [ -n "$so" ]; then
  rm -rf "$OVERLAY" && mkdir -p "$OVERLAY" && cp -r python/xjit "$OVERLAY/" && cp "$so" "$OVERLAY/xjit/"
  step import "$OUT/pytest.log" 120 env PYTHONPATH="$OVERLAY:$PYTHONPATH" python3 -c '
import xjit
print("xjit from", xjit.__file__)
print("devices:", xjit.devices())
try:
    print("gpu devices:", xjit.devices("gpu"))
except RuntimeError as e:
    print("no gpu device:", e)'
  # shellcheck disable=SC2086
  step pytest "$OUT/pytest.log" 240 env PYTHONPATH="$OVERLAY:$PYTHONPATH" bash -c \
    'cd tests && exec python3 -m pytest -q -rfEs -p no:cacheprovider --durations=10 test_cuda.py "$@"' \
    pytest ${XJIT_GPU_PYTEST_ARGS:-}
else
  record pytest - 0 "skipped: $BUILD/_xjit*.so not built (or not up to date)"
fi
[ -n "$ctest_pid" ] && wait "$ctest_pid"

if [ ! -f benchmarks/cuda_vs_jax.py ]; then
  record bench - 0 "skipped: benchmarks/cuda_vs_jax.py absent"
elif [ -z "$so" ]; then
  record bench - 0 "skipped: $BUILD/_xjit*.so not built (or not up to date)"
else
  step bench "$OUT/bench.log" 240 env PYTHONPATH="$OVERLAY:$PYTHONPATH" \
    python3 benchmarks/cuda_vs_jax.py
fi
finish all
