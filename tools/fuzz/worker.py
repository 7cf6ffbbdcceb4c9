"""Fuzz worker: reads one JSON case per line on stdin, answers one JSON line.

`parser` cases ({"text", "seed"}): parse -> print -> reparse (the printed text
must be a fixed point) -> compile and run on the reference and cpu backends
with random inputs -> compare. `api` cases ({"code"}): a self-contained Python
snippet that calls xjit and asserts its result against numpy; an
AssertionError is a wrong result, any other exception a clean rejection.
Answers: {"status": "ok" | "rejected" | "mismatch" | "disagree", "detail"}.
"""
import json
import os
import sys
import traceback

import numpy as np

MAX_RUN_ELEMENTS = 1 << 20  # inputs bigger than this are parsed but not run


def _random_input(rng, dtype, dims):
    import ml_dtypes  # noqa: F401  (registers bfloat16 etc. with numpy)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(dims) < 0.5
    if dt.kind == "u":
        return rng.integers(0, 20, dims).astype(dt)
    if dt.kind == "i":
        return rng.integers(-10, 11, dims).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(dt)
    return (rng.standard_normal(dims) * 3).astype(dt)


def _same(a, b):
    """NaN-aware; floats to a tolerance (backends may differ in the last ulps
    and in the order of reductions, docs/semantics.md)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "biu" or a.dtype == np.bool_:
        return np.array_equal(a, b)
    a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    b64 = b.astype(a64.dtype)
    return np.allclose(a64, b64, rtol=2e-3, atol=1e-3, equal_nan=True)


def run_parser_case(case):
    from xjit import _xjit
    try:
        module = _xjit.parse_module(case["text"])
    except Exception as e:  # a clean rejection
        return {"status": "rejected", "detail": f"parse: {type(e).__name__}"}
    printed = module.as_text()
    try:
        again = _xjit.parse_module(printed)
    except Exception as e:
        return {"status": "mismatch", "detail": f"printed text does not reparse: {e}"}
    if again.as_text() != printed:
        return {"status": "mismatch", "detail": "printed text is not a fixed point"}
    outs = {}
    for platform in ("reference", "cpu"):
        try:
            outs[platform] = _xjit.compile(again, _xjit.devices(platform)[0])
        except Exception as e:
            outs[platform] = e
    errs = [p for p, v in outs.items() if isinstance(v, Exception)]
    if len(errs) == 2:
        return {"status": "rejected", "detail": f"compile: {type(outs['cpu']).__name__}"}
    if errs:
        return {"status": "disagree", "detail": f"only {errs[0]} rejects: {outs[errs[0]]}"}
    shapes = again.parameter_shapes
    if any(int(np.prod(d, dtype=np.float64)) > MAX_RUN_ELEMENTS for _, d in shapes):
        return {"status": "ok", "detail": "too big to run"}
    rng = np.random.default_rng(case.get("seed", 0))
    try:
        args = [_random_input(rng, dt, d) for dt, d in shapes]
    except TypeError:
        return {"status": "ok", "detail": "no random inputs for this type"}
    results = {}
    for platform, exe in outs.items():
        try:
            results[platform] = [np.asarray(o) for o in exe.execute(args)]
        except Exception as e:
            results[platform] = e
    ref, cpu = results["reference"], results["cpu"]
    if isinstance(ref, Exception) or isinstance(cpu, Exception):
        if isinstance(ref, Exception) and isinstance(cpu, Exception):
            return {"status": "rejected", "detail": f"execute: {type(cpu).__name__}"}
        return {"status": "disagree", "detail": f"execute: reference {ref!r:.200} cpu {cpu!r:.200}"}
    for i, (a, b) in enumerate(zip(ref, cpu)):
        if not _same(a, b):
            return {"status": "mismatch",
                    "detail": f"result {i}: reference {a!r:.300} vs cpu {b!r:.300}"}
    return {"status": "ok", "detail": ""}


def run_api_case(case):
    try:
        exec(compile(case["code"], "<case>", "exec"), {"__name__": "__fuzz__"})
    except AssertionError as e:
        detail = str(e)
        if not detail:  # a bare assert: name the line that failed
            line = traceback.extract_tb(e.__traceback__)[-1].lineno
            detail = case["code"].splitlines()[line - 1].strip()
        return {"status": "mismatch", "detail": detail[:600]}
    except Exception as e:
        return {"status": "rejected", "detail": f"{type(e).__name__}: {str(e)[:200]}"}
    return {"status": "ok", "detail": ""}


def main():
    kind = sys.argv[1]
    # Answers go to the original stdout; anything the code under test prints
    # goes to stderr instead, so it can never corrupt the protocol.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    import faulthandler
    import resource
    faulthandler.enable()
    # A declared size the parser or a kernel allocates for real fails fast
    # (MemoryError or a crash) instead of swapping the machine.
    limit = int(os.environ.get("XJIT_FUZZ_MEMORY_LIMIT", 8 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import xjit  # noqa: F401  (import once, before the first case)
    run = run_parser_case if kind == "parser" else run_api_case
    for line in sys.stdin:
        case = json.loads(line)
        try:
            answer = run(case)
        except Exception:  # a bug in the worker itself, never in xjit's answer
            answer = {"status": "mismatch", "detail": "worker: " + traceback.format_exc()[-600:]}
        answers.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
