"""StableHLO interpreter test files: cases split at ``// -----`` lines, every
function without arguments run, and the ``check`` dialect evaluated
(``python -m xjit.stablehlo test``).

The parser turns each check op of the function under test into two extra
results (the actual and the expected value); the comparison happens here:

* ``expect_eq``, ``expect_eq_const``: equal element by element (NaN equals
  NaN; for floats the values, so -0.0 equals 0.0);
* ``expect_almost_eq``, ``expect_almost_eq_const``: floats and complex within
  ``|a - e| <= 1e-4 + 1e-4 * |e|`` (or ``|a - e| <= tolerance`` when the check
  gives ``tolerance = ...``), anything else equal;
* ``expect_close``: floats at most ``max_ulp_difference`` (default 4) and at
  least ``min_ulp_difference`` (default 0) units in the last place apart.
"""
from __future__ import annotations

import dataclasses
import re

import ml_dtypes
import numpy as np

from xjit import _xjit
from xjit._src import dispatch

_SEPARATOR = re.compile(r"^\s*// -----\s*$", re.MULTILINE)
# A function with no arguments that is not private: a test case.
_TEST_FUNC = re.compile(r"func\.func\s+(?:public\s+)?@([\w$.\-]+)\s*\(\s*\)")
_ALMOST_EQ_TOLERANCE = 1e-4


@dataclasses.dataclass
class CaseResult:
    name: str
    passed: bool
    reason: str = ""


def split_cases(text: str) -> list:
    """The file's cases: ``text`` split at ``// -----`` lines, each padded with
    the newlines before it so that messages give the file's line numbers."""
    cases, start, line = [], 0, 0
    for m in _SEPARATOR.finditer(text):
        cases.append("\n" * line + text[start:m.start()])
        line += text.count("\n", start, m.end())
        start = m.end()
    cases.append("\n" * line + text[start:])
    return [c for c in cases if c.strip()]


def test_functions(case: str) -> list:
    """Names of the functions of ``case`` that take no arguments."""
    return _TEST_FUNC.findall(case)


def _is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt in (np.dtype(ml_dtypes.bfloat16),) or (
        dt.kind == "V" and "float" in dt.name)


def _ordered_bits(x: np.ndarray) -> np.ndarray:
    """Floats mapped to integers whose difference counts ULPs."""
    bits = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    i = x.view(bits).astype(np.int64)
    sign = np.int64(1) << (8 * x.dtype.itemsize - 1)
    return np.where(i < 0, -(i + sign) if x.dtype.itemsize < 8 else -(i & ~sign), i)


def _first_difference(ok: np.ndarray, actual, expected) -> str:
    bad = np.argwhere(~ok)
    idx = tuple(int(i) for i in bad[0])
    where = f"[{', '.join(map(str, idx))}]" if idx else ""
    return (f"element{where} is {actual[idx].tolist()!r}, expected {expected[idx].tolist()!r} "
            f"({len(bad)} of {ok.size} elements differ)")


def compare(kind: str, options: dict, actual: np.ndarray, expected: np.ndarray) -> str:
    """'' when the check holds, else why not."""
    with np.errstate(all="ignore"):
        return _compare(kind, options, actual, expected)


def _compare(kind, options, actual, expected):
    dt = actual.dtype
    if kind == "expect_eq" or not (_is_float(dt) or dt.kind == "c"):
        if _is_float(dt) or dt.kind == "c":
            a, e = actual.astype(np.complex128), expected.astype(np.complex128)
            ok = (a == e) | (np.isnan(a) & np.isnan(e))
        else:
            ok = actual == expected
    elif kind == "expect_almost_eq":
        a = actual.astype(np.complex128 if dt.kind == "c" else np.float64)
        e = expected.astype(a.dtype)
        if "tolerance" in options:
            near = np.abs(a - e) <= options["tolerance"]
        else:
            near = np.abs(a - e) <= _ALMOST_EQ_TOLERANCE * (1 + np.abs(e))
        ok = near | (np.isnan(a) & np.isnan(e)) | (a == e)
    elif kind == "expect_close":
        if dt.kind == "c":
            raise NotImplementedError("check.expect_close on complex values")
        hi = int(options.get("max_ulp_difference", 4))
        lo = int(options.get("min_ulp_difference", 0))
        both_nan = np.isnan(actual.astype(np.float64)) & np.isnan(expected.astype(np.float64))
        ulps = np.abs(_ordered_bits(actual) - _ordered_bits(expected))
        ok = both_nan | ((ulps <= hi) & (ulps >= lo))
    else:
        raise NotImplementedError(f"check.{kind}")
    ok = np.asarray(ok)
    if ok.all():
        return ""
    return _first_difference(ok, actual, expected)


def run_case(case: str, name: str, device) -> CaseResult:
    """Runs function ``name`` of one case; never raises."""
    try:
        module, num_results, checks = _xjit.parse_test_function(case, name)
        exe = _xjit.compile(module, device)
        outs = [np.asarray(o) for o in exe.execute([])]
        failures = []
        for i, (kind, location, options) in enumerate(checks):
            actual, expected = outs[num_results + 2 * i], outs[num_results + 2 * i + 1]
            why = compare(kind, options, actual, expected)
            if why:
                failures.append(f"check.{kind} at {location}: {why}")
        if failures:
            return CaseResult(name, False, "; ".join(failures))
        return CaseResult(name, True, "" if checks else "no checks")
    except Exception as e:  # noqa: BLE001 (a case fails; the run goes on)
        message = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return CaseResult(name, False, f"{type(e).__name__}: {message}")


def run_file(text: str, device=None) -> list:
    """Every test function of every case of a test file's ``text``."""
    if device is None:
        device = dispatch.default_device()
    elif isinstance(device, str):
        device = dispatch.devices_for(device)[0]
    results = []
    for case in split_cases(text):
        for name in test_functions(case):
            results.append(run_case(case, name, device))
    return results
