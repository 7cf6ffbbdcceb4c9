#!/usr/bin/env bash
# Builds and installs xjit into the current Python environment. The build
# folder is kept (build/py) so a second run only recompiles what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh "$@"
python3 -m pip install -q --disable-pip-version-check --no-build-isolation \
  -C build-dir=build/py ${XJIT_CMAKE_DEFINES:-} .
