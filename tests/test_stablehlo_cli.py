"""xjit.stablehlo's Python API and command line: parse/run/compile, and
`python -m xjit.stablehlo run|test` on StableHLO interpreter test files with
the check dialect, including the spec's worked examples."""
import io
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import xjit
from xjit import stablehlo
from xjit._src.stablehlo import cli, testing

HERE = pathlib.Path(__file__).resolve().parent

TEST_FILE = """// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @add_op_test_i32() {
  %0 = stablehlo.constant dense<[1, 2, -3]> : tensor<3xi32>
  %1 = stablehlo.constant dense<4> : tensor<3xi32>
  %2 = stablehlo.add %0, %1 : tensor<3xi32>
  check.expect_eq_const %2, dense<[5, 6,
                                   1]> : tensor<3xi32>
  func.return
}

// -----

func.func @hex_and_bool() {
  %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %2 = stablehlo.compare NE, %1, %1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  check.expect_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %2, dense<true> : tensor<i1>
  func.return
}

// -----

func.func @sort_two_results() {
  %k = stablehlo.constant dense<[3.0, 1.0, 2.0]> : tensor<3xf32>
  %v = stablehlo.constant dense<[0, 1, 2]> : tensor<3xi32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %sa = stablehlo.add %a, %zero : tensor<f32>
    %lt = stablehlo.compare LT, %sa, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_almost_eq_const %r#0, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  check.expect_eq_const %r#1, dense<[1, 2, 0]> : tensor<3xi32>
  func.return
}

// -----

func.func @close_and_almost() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[1.00000012, 2.0]> : tensor<2xf32>
  %2 = stablehlo.sqrt %0 : tensor<2xf32>
  %3 = stablehlo.constant dense<[1.0, 1.41421354]> : tensor<2xf32>
  check.expect_close %0, %1, max_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  check.expect_almost_eq %2, %3 : tensor<2xf32>
  "check.expect_eq"(%2, %2) : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}

// -----

func.func @tolerances() {
  %0 = stablehlo.constant dense<5.0> : tensor<f64>
  %1 = stablehlo.constant dense<5.05> : tensor<f64>
  %2 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %3 = stablehlo.constant dense<[1.0, 2.0039]> : tensor<2xf16>
  check.expect_almost_eq%0, %1, tolerance = 0.1 : tensor<f64>
  check.expect_almost_eq_const %0, dense<5.05> : tensor<f64> {tolerance = 0.1 : f64}
  check.expect_close %2, %3, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf16>, tensor<2xf16>
  func.return
}

// -----

func.func @wrong_expectation() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi64>
  func.return
}

// -----

func.func @too_far() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.constant dense<1.00000036> : tensor<f32>
  check.expect_close %0, %1, max_ulp_difference = 2 : tensor<f32>, tensor<f32>
  func.return
}

// -----

func.func @missing_op() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.collective_permute %0, source_target_pairs = [] : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %1, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @malformed() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0 %0 : tensor<2xf32>
  func.return
}
"""

def _at(text):
    """line:column of `text` in TEST_FILE."""
    before = TEST_FILE[:TEST_FILE.index(text)]
    return f"{before.count(chr(10)) + 1}:{len(before) - before.rfind(chr(10))}"


EXPECTED = {
    "add_op_test_i32": "PASS",
    "hex_and_bool": "PASS",
    "sort_two_results": "PASS",
    "close_and_almost": "PASS",
    "tolerances": "FAIL tolerances: check.expect_close at "
                  f"{_at('check.expect_close %2, %3')}: element[0] is 1.0, expected 1.0 (1 of 2 "
                  "elements differ)",
    "wrong_expectation": f"FAIL wrong_expectation: check.expect_eq at "
                         f"{_at('check.expect_eq_const %0, dense<[1, 3]>')}: element[1] is 2, "
                         "expected 3 (1 of 2 elements differ)",
    "too_far": f"FAIL too_far: check.expect_close at {_at('check.expect_close %0, %1, max_ulp_difference = 2')}:",
    "missing_op": f"FAIL missing_op: NotImplementedError: {_at('%1 = stablehlo.collective_permute')}: op "
                  "'stablehlo.collective_permute' is not supported by xjit",
    "malformed": "FAIL malformed: ValueError: " + _at("%0 : tensor<2xf32>\n  func.return")
                 + ": expected ':' and the type of stablehlo.add, got '%0'",
}


def _run_cli(*argv):
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


@pytest.mark.parametrize("platform", ["cpu", "reference"])
def test_test_command_reports_each_case(tmp_path, platform):
    path = tmp_path / "cases.mlir"
    path.write_text(TEST_FILE)
    code, out = _run_cli("test", str(path), "--device", platform)
    lines = out.splitlines()
    assert code == 1
    assert lines[-1] == "4 passed, 5 failed, 9 total"
    for name, want in EXPECTED.items():
        (line,) = [l for l in lines if l.split(":")[0].split()[-1] == name]
        if want == "PASS":
            assert line == f"PASS {name}"
        else:
            assert line.startswith(want), line


def test_test_command_exits_zero_when_all_pass(tmp_path):
    path = tmp_path / "ok.mlir"
    path.write_text(TEST_FILE.split("// -----\n\nfunc.func @tolerances")[0])
    proc = subprocess.run([sys.executable, "-m", "xjit.stablehlo", "test", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "4 passed, 0 failed, 4 total"


def test_split_cases_keeps_file_line_numbers():
    cases = testing.split_cases("a\n// -----\nb\nc\n  // -----  \nd\n")
    assert [c.strip() for c in cases] == ["a", "b\nc", "d"]
    assert [c.split("\n").index(c.strip()[0]) for c in cases] == [0, 2, 5]
    assert testing.test_functions("func.func @t() {\nfunc.func private @h() {\n"
                                  "func.func public @u() {\nfunc.func @v(%a: tensor<f32>)") == [
        "t", "u"]


def test_run_command_prints_results(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text((HERE / "data" / "stablehlo_jax" / "mlp.mlir").read_text())
    data = np.load(HERE / "data" / "stablehlo_jax" / "mlp.npz")
    npys = []
    for i in range(5):
        npys.append(str(tmp_path / f"x{i}.npy"))
        np.save(npys[-1], data[f"x{i}"])
    code, out = _run_cli("run", str(path), "--args", *npys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "result 0: float32[4,3]"
    printed = np.array(eval(",".join(" ".join(lines[1:]).replace("[ ", "[").split())))
    np.testing.assert_allclose(printed, data["y0"], rtol=1e-4, atol=1e-5)


def test_run_command_with_wrong_arguments_fails_clearly(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text((HERE / "data" / "stablehlo_jax" / "mlp.mlir").read_text())
    proc = subprocess.run([sys.executable, "-m", "xjit.stablehlo", "run", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "TypeError: xjit.stablehlo: @main takes 5 argument(s), got 0" in proc.stderr


SPEC_KNOWN_FAILURES = {
    # Spec defects (SEEDS-GUIDE §5.4; tests/cc/conformance_test.cc lists them too).
    "divide_0", "tan_0", "negate_1", "is_finite_0", "get_tuple_element_0", "power_0",
    "while_0",  # the loop gives 9, not the 10 the example states
    "log_plus_one_0", "scatter_0",
    "cholesky_0",  # typed f32 -> f64: its inputs cannot be typed (h-linalg)
    # xjit limitation: tuple-typed values as inputs (and a tuple literal).
    "tuple_0",
    # Spec defect: uses %input0 and calls @foo, neither defined, and checks nothing.
    "custom_call_0",
    # issue 11 (h-fft): the dynamic_conv example's dimension numbers repeat
    # dimension 0 (spec defect); rng's values are implementation-defined; the
    # composite example has no inputs and no decomposition function.
    "dynamic_conv_0", "rng_0", "composite_0",
}


@pytest.mark.parametrize("platform", ["cpu", "reference"])
def test_spec_examples_through_the_test_command(platform, tmp_path):
    # Written afresh: which examples get typed inputs depends on the ops xjit has.
    sys.path.insert(0, str(HERE / "conformance"))
    try:
        import spec_examples_to_mlir as conv
    finally:
        sys.path.pop(0)
    path = tmp_path / "spec_examples.mlir"
    path.write_text(conv.convert((HERE / "conformance" / "stablehlo_spec_examples.txt")
                                 .read_text()))
    code, out = _run_cli("test", str(path), "--device", platform)
    lines = out.splitlines()
    results = [l for l in lines[:-1] if l.startswith(("PASS", "FAIL"))]
    assert len(results) == len(lines) - 1  # every case reports, none crashes
    passed = sum(l.startswith("PASS") for l in results)
    unexpected = [l for l in results if l.startswith("FAIL")
                  and "not supported by xjit" not in l
                  and l.split(":")[0].split()[1] not in SPEC_KNOWN_FAILURES]
    assert not unexpected, "\n".join(unexpected)
    assert passed >= 85, out  # docs/stablehlo.md lists the rest
    assert code == 1  # ops xjit lacks fail, naming the op


def test_module_api_types_and_errors():
    text = (HERE / "data" / "stablehlo_jax" / "argminmax.mlir").read_text()
    m = stablehlo.parse(text)
    assert [a.str_short() for a in m.in_avals] == ["float32[4,5]"]
    assert [a.str_short() for a in m.out_avals] == ["int64[4]", "int64[5]", "int64[]"]
    assert "func.func @main" in m.as_text()
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    outs = stablehlo.run(m, x)
    assert all(isinstance(o, xjit.Array) for o in outs)
    np.testing.assert_array_equal(np.asarray(outs[0]), np.argmax(x, axis=1))
    with pytest.raises(TypeError, match=r"argument 0 is float64\[4,5\], the entry function "
                                        r"expects float32\[4,5\]"):
        stablehlo.run(m, x.astype(np.float64))
    with pytest.raises(TypeError, match="takes 1 argument"):
        stablehlo.run(m)
    with pytest.raises(TypeError, match="expected the module's text as a str"):
        stablehlo.parse(b"module {}")
    with pytest.raises(ValueError, match="the module has no function @nope"):
        stablehlo.parse(text, entry="nope")


def test_compile_reuses_its_executable():
    text = (HERE / "data" / "stablehlo_jax" / "softmax.mlir").read_text()
    f = stablehlo.compile(text, device="reference")
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    a = f(x)
    b = f(x + 1)
    assert len(f.module._executables) == 1
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(np.asarray(a[0]), e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(b[0]), np.asarray(a[0]), rtol=1e-5)
    assert f.in_avals == f.module.in_avals


def test_the_issue_example_parses():
    # What failed before with "3:46: expected an operand %name, got 'contracting_dims'".
    text = """module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<4x5xf32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32> loc(#loc3)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32>
    return %1 : tensor<5xf32>
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("jit(f)/dot_general"("x.py":3:4 to :20))
"""
    x = np.ones((3, 4), np.float32)
    y = np.arange(20, dtype=np.float32).reshape(4, 5)
    (out,) = stablehlo.run(text, x, y)
    np.testing.assert_allclose(np.asarray(out), (x @ y).sum(0))


JAX_TESTDATA_STYLE = """// RUN: stablehlo-opt -inline %s | stablehlo-translate --interpret
module @jit_testcase {
  func.func public @main() -> (tensor<2x3xf32> {jax.result_info = ""}) {
    %0 = call @inputs() : () -> tensor<2x3xf32>
    %1 = call @expected() : () -> tensor<3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    "stablehlo.custom_call"(%2, %1) <{call_target_name = "check.expect_eq", has_side_effect = true}> : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %0 : tensor<2x3xf32>
  }
  func.func private @inputs() -> (tensor<2x3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    return %cst : tensor<2x3xf32>
  }
  func.func private @expected() -> (tensor<3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[5.0, 7.0, 9.0]> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
}
"""


def test_jax_testdata_style_custom_call_checks(tmp_path):
    path = tmp_path / "testdata.mlir"
    path.write_text(JAX_TESTDATA_STYLE)
    code, out = _run_cli("test", str(path))
    assert out.splitlines() == ["PASS main", "1 passed, 0 failed, 1 total"], out
    path.write_text(JAX_TESTDATA_STYLE.replace("[5.0, 7.0, 9.0]", "[5.0, 7.5, 9.0]"))
    code, out = _run_cli("test", str(path))
    assert code == 1
    assert out.startswith("FAIL main: check.expect_close at 8:5: element[1] is 7.0, expected 7.5"
                          ), out
    other = JAX_TESTDATA_STYLE.replace("@check.expect_close", "@my_kernel")
    # Any other target is a custom_call, which runs the host function
    # registered under that name: none here, so the run fails naming it.
    path.write_text(other)
    code, out = _run_cli("test", str(path))
    assert code == 1
    assert "no target named 'my_kernel'" in out, out
