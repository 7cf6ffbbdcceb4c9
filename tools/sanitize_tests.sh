#!/usr/bin/env bash
# Builds the C++ unit tests with AddressSanitizer + UndefinedBehaviorSanitizer
# (XJIT_SANITIZE=ON, no Python module) in build/asan and runs them; any
# sanitizer report fails the run. Incremental (ninja, ccache): only the test
# target is built.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
cmake -S . -B build/asan -G Ninja \
  -DXJIT_SANITIZE=ON -DXJIT_BUILD_PYTHON=OFF -DXJIT_BUILD_TESTS=ON \
  -DPython_EXECUTABLE="$(command -v python3)" > build/asan.configure.log
ninja -C build/asan -j "$jobs" xjit_cc_tests
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
ctest --test-dir build/asan --output-on-failure -j "$jobs"
echo "sanitizer build + tests: $(( $(date +%s) - start )) s"
