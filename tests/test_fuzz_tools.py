"""tools/fuzz/: the worker pool catches crashes and hangs and keeps going,
the seeds parse, the fuzzers' command lines report their totals."""
import os
import pathlib
import random
import subprocess
import sys

import pytest

from xjit import _xjit

FUZZ = pathlib.Path(__file__).resolve().parent.parent / "tools" / "fuzz"
sys.path.insert(0, str(FUZZ))

import api_fuzz  # noqa: E402
import parser_fuzz  # noqa: E402
import pool  # noqa: E402


def _run(cases, timeout=10):
    answers = []
    it = iter(cases)
    pool.run_pool("api", lambda: next(it, None), lambda c, a: answers.append(a["status"]),
                  jobs=1, seconds=60, max_execs=len(cases), timeout=timeout)
    return answers


def test_pool_survives_a_crash_and_a_hang():
    segv = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    answers = _run([{"code": "x = 1\n"}, {"code": segv}, {"code": "import time\ntime.sleep(60)\n"},
                    {"code": "assert 1 == 2, 'wrong'\n"}, {"code": "raise ValueError('bad')\n"},
                    {"code": "y = 2\n"}], timeout=3)
    assert answers == ["ok", "crash", "crash", "mismatch", "rejected", "ok"]


def test_spec_and_lowered_seeds_parse():
    seeds = parser_fuzz.spec_seeds() + parser_fuzz.lowered_seeds()
    parsed = 0
    for text in seeds:
        try:
            _xjit.parse_module(text)
            parsed += 1
        except Exception:
            pass
    assert parsed >= 50, parsed


def test_mutations_are_seeded():
    text = parser_fuzz.lowered_seeds()[0]
    a = [parser_fuzz.mutate(random.Random(7), text) for _ in range(3)]
    b = [parser_fuzz.mutate(random.Random(7), text) for _ in range(3)]
    assert a == b and any(m != text for m in a)
    assert api_fuzz.make_case(random.Random(3)) == api_fuzz.make_case(random.Random(3))


@pytest.mark.parametrize("fuzzer", ["parser_fuzz.py", "api_fuzz.py"])
def test_command_line_prints_totals(fuzzer, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(FUZZ / fuzzer), "--seed", "5", "--max-execs", "40", "--jobs", "1",
         "--crash-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert "seed 5: 40 executions" in proc.stdout, proc.stdout + proc.stderr
    # Exit 1 exactly when something was saved (a crash or a wrong result).
    assert proc.returncode == (1 if os.listdir(tmp_path) else 0), proc.stdout


def _oracle():
    """The check() every API-fuzzer case starts with, as a namespace."""
    ns = {}
    exec(api_fuzz.HEADER, ns)
    return ns["check"]


def test_oracle_wraps_narrow_integer_results_and_accepts_overflow_edges():
    import numpy as np
    check = _oracle()
    # numpy's int64 product against JAX's int32 one: equal modulo 2**32.
    check(np.int32(113115136), np.int64(382365204480), 0.01)
    # A finite value near float32's max against numpy's inf (operation order).
    check(np.array([1.0e38, 2.0], np.float32), np.array([np.inf, 2.0]), 0.01)
    # Complex values keep their imaginary part.
    with pytest.raises(AssertionError):
        check(np.array([1 + 1j], np.complex64), np.array([1 - 1j]), 0.01)
    with pytest.raises(AssertionError):
        check(np.array([-1.0e38], np.float32), np.array([np.inf]), 0.01)


def test_reproducer_of_a_multi_line_message_runs():
    text = api_fuzz.reproducer({"code": "x = 1\n"}, "mismatch: values differ:\narray([1,\n 2])")
    compile(text, "<reproducer>", "exec")
