"""Inputs the fuzzers (tools/fuzz/) found, each run in a subprocess: a
reproducer must finish without a signal or a hang (a Python exception is a
clean rejection). `.mlir` files go through the parser fuzzer's pipeline
(parse, print, reparse, compile, run on reference and cpu); `.py` files run
as they are. A first line `// xfail: REASON` or `# xfail: REASON` marks an
input that still crashes (strict: the test flips when it is fixed)."""
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = sorted((HERE / "fuzz_regressions").glob("*.[mp][ly]*"))

# What the fuzzer's worker does to a module, in a fresh interpreter.
RUN_MODULE = r'''
import sys
import numpy as np
from xjit import _xjit
text = open(sys.argv[1], encoding="utf-8").read()
try:
    module = _xjit.parse_module(text)
except Exception as e:
    print("rejected:", type(e).__name__); sys.exit(0)
printed = module.as_text()
again = _xjit.parse_module(printed)
assert again.as_text() == printed, "printed text is not a fixed point"
rng = np.random.default_rng(0)
for platform in ("reference", "cpu"):
    try:
        exe = _xjit.compile(again, _xjit.devices(platform)[0])
        if all(np.prod(d, dtype=np.float64) <= 1 << 20 for _, d in again.parameter_shapes):
            args = [rng.standard_normal(d).astype(t) for t, d in again.parameter_shapes]
            [np.asarray(o) for o in exe.execute(args)]
    except Exception as e:
        print(platform, "rejected:", type(e).__name__)
'''

# An address-space limit turns "allocates a declared 16 GiB" into a
# MemoryError instead of a swapping machine.
LIMIT = r'''
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
'''


def _params():
    for path in INPUTS:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        marks = []
        if "xfail:" in first:
            marks.append(pytest.mark.xfail(strict=True, reason=first.split("xfail:", 1)[1].strip()))
        yield pytest.param(path, id=path.name, marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_fuzz_input_does_not_crash(path, tmp_path):
    if path.suffix == ".mlir":
        script = tmp_path / "run_module.py"
        script.write_text(RUN_MODULE)
        cmd = [sys.executable, "-c", LIMIT, str(script), str(path)]
    else:
        cmd = [sys.executable, "-c", LIMIT, str(path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{path.name}: hangs (over 60 s)")
    assert proc.returncode >= 0, f"{path.name}: killed by signal {-proc.returncode}\n{proc.stderr[-2000:]}"
    # A Python exception is a clean rejection; only the reproducer's own
    # assertions (a wrong value) fail.
    assert "AssertionError" not in proc.stderr, proc.stderr[-2000:]


def test_the_corpus_is_there():
    assert INPUTS, "tests/fuzz_regressions/ holds the fuzzers' inputs"
