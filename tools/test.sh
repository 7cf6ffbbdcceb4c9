#!/usr/bin/env bash
# One command: install everything, build xjit with its C++ unit tests, and run
# the whole suite (GoogleTest through ctest, then pytest), then the slow
# checks: the C++ tests under ASan+UBSan and the two fuzzers for a bounded
# time each (tools/fuzz/ci.sh). XJIT_SKIP_SLOW_CHECKS=1 leaves both out
# locally; XJIT_RUN_FUZZERS=0 leaves out only the fuzzers. JAX (CPU), scipy and
# opt_einsum are pinned test oracles: the differential tests compare with them;
# scikit-learn gives the examples' digits data (tests/test_cnn_digits_example.py).
set -euo pipefail
cd "$(dirname "$0")/.."
XJIT_CMAKE_DEFINES="-C cmake.define.XJIT_BUILD_TESTS=ON" bash tools/install.sh "pytest>=7" \
  "jax==0.10.2" "jaxlib==0.10.2" "scipy==1.17.1" "opt_einsum==3.4.0" \
  "scikit-learn==1.9.1"
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build/py --output-on-failure -j "$jobs"
# From outside the source tree so `import xjit` is the installed package.
(cd tests && python3 -m pytest -q -p no:cacheprovider .)
if [ "${XJIT_SKIP_SLOW_CHECKS:-0}" = 1 ]; then
  echo "XJIT_SKIP_SLOW_CHECKS=1: sanitizer build skipped"
  exit 0
fi
bash tools/sanitize_tests.sh
if [ "${XJIT_RUN_FUZZERS:-1}" = 1 ]; then
  bash tools/fuzz/ci.sh
fi
