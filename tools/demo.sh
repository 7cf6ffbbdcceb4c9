#!/usr/bin/env bash
# One command: install xjit and run the main demo (an MLP trained on digits).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install.sh scikit-learn
python3 examples/mlp_digits.py
