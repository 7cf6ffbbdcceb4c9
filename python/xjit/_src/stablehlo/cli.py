"""``python -m xjit.stablehlo``:

    python -m xjit.stablehlo run FILE.mlir [--args A.npy ...] [--device cpu]
    python -m xjit.stablehlo test FILE.mlir ... [--device cpu]

``run`` runs the entry function (@main, or the only function) on the .npy
arguments and prints each result. ``test`` runs every function without
arguments of each file, split at ``// -----`` lines, evaluating the check
dialect; it prints ``PASS name`` or ``FAIL name: reason`` per case and a
total, and exits with 1 when any case fails.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from xjit._src.stablehlo import module as module_lib
from xjit._src.stablehlo import testing


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m xjit.stablehlo",
                                description="Run StableHLO modules and test files on xjit.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a module's entry function and print its results")
    run.add_argument("file")
    run.add_argument("--args", nargs="*", default=[], metavar="NPY",
                     help=".npy files holding the arguments, in order")
    run.add_argument("--device", default=None, help="platform: cpu (default) or reference")
    test = sub.add_parser("test", help="run StableHLO interpreter test files")
    test.add_argument("files", nargs="+")
    test.add_argument("--device", default=None, help="platform: cpu (default) or reference")
    test.add_argument("-q", "--quiet", action="store_true", help="print failures and the total only")
    return p


def _run(args, out) -> int:
    with open(args.file) as f:
        text = f.read()
    inputs = [np.load(path) for path in args.args]
    results = module_lib.run(text, *inputs, device=args.device)
    for i, r in enumerate(results):
        a = np.asarray(r)
        print(f"result {i}: {a.dtype.name}[{','.join(map(str, a.shape))}]", file=out)
        print(np.array2string(a, threshold=1000), file=out)
    return 0


def _test(args, out) -> int:
    passed = failed = 0
    for path in args.files:
        with open(path) as f:
            text = f.read()
        prefix = f"{path}: " if len(args.files) > 1 else ""
        for r in testing.run_file(text, args.device):
            if r.passed:
                passed += 1
                if not args.quiet:
                    print(f"PASS {prefix}{r.name}", file=out)
            else:
                failed += 1
                print(f"FAIL {prefix}{r.name}: {r.reason}", file=out)
    print(f"{passed} passed, {failed} failed, {passed + failed} total", file=out)
    return 1 if failed else 0


def main(argv=None, out=None) -> int:
    args = _parser().parse_args(argv)
    out = out or sys.stdout
    if args.command == "run":
        return _run(args, out)
    return _test(args, out)
