"""stablehlo.while in JAX's pretty form: `(%iterArg = %x, ...) : types cond {...}
do {...}` (recorded from jax.jit(...).lower(...).as_text() of JAX 0.10.2)."""
import numpy as np
import pytest

from xjit import stablehlo

FORI_LOOP = """module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<2xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<2xf32>) -> tensor<2xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<2xf32>
    }
    return %0#1 : tensor<2xf32>
  }
  func.func private @closed_call(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
"""


@pytest.mark.parametrize("device", ["cpu", "reference"])
def test_jax_fori_loop_runs(device):
    m = stablehlo.parse(FORI_LOOP)
    (got,) = stablehlo.run(m, np.array([1.0, -2.0], np.float32), device=device)
    np.testing.assert_array_equal(np.asarray(got), [8.0, -16.0])
    again = stablehlo.parse(m.as_text(pretty=True))
    assert again.as_text() == m.as_text()


def test_body_uses_values_from_outside():
    text = FORI_LOOP.replace("%1 = func.call @closed_call(%iterArg_0)",
                             "%1 = stablehlo.add %iterArg_0, %arg0 : tensor<2xf32>\n      %9 = "
                             "func.call @closed_call(%iterArg_0)")
    (got,) = stablehlo.run(text, np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(np.asarray(got), [4.0, 8.0])  # x + 3x


@pytest.mark.parametrize("bad, message", [
    ("stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>\n",
     "has 2 iteration arguments but 1 types"),
    ("stablehlo.while(iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<2xf32>\n",
     "expected an iteration argument %name"),
    ("stablehlo.while(%iterArg %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<2xf32>\n",
     "expected '=' and the argument's initial value"),
])
def test_malformed(bad, message):
    text = FORI_LOOP.replace(
        "stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<2xf32>\n", bad)
    with pytest.raises(ValueError, match=message):
        stablehlo.parse(text)
    with pytest.raises(ValueError, match="expected 'do' and its region"):
        stablehlo.parse(FORI_LOOP.replace("} do {", "} od {"))
