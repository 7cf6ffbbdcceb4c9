#!/usr/bin/env bash
# The fuzzers' CI step: each fuzzer runs with a fixed seed (reproducible) and
# then with a random seed (new ground every run; the seed is in the log:
# rerun with --seed N). Fails on a crash, a hang or a wrong result; the
# inputs are saved under tools/fuzz/crashes/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${XJIT_FUZZ_SECONDS:-45}"
status=0
for fuzzer in parser api; do
  python3 "tools/fuzz/${fuzzer}_fuzz.py" --seed 1 --seconds "$seconds" || status=1
  python3 "tools/fuzz/${fuzzer}_fuzz.py" --seconds "$seconds" || status=1
done
if [ $status != 0 ] && [ -d tools/fuzz/crashes ]; then
  # CI keeps only the log: print each saved input so it can be replayed.
  for f in tools/fuzz/crashes/*; do
    echo "----- $f"
    head -c 4000 "$f"
    echo
  done
fi
exit $status
