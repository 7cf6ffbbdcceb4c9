"""_xjit.parse_module: text printed by lowering parses back into a module
that compiles and computes what numpy computes."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import _xjit


def _roundtrip_run(f, *args, platform="cpu"):
    text = xjit.jit(f).lower(*args).as_text()
    module = _xjit.parse_module(text)
    assert module.as_text() == text  # print(parse(text)) is the identity
    device = _xjit.devices(platform)[0]
    exe = _xjit.compile(module, device)
    return [np.asarray(o) for o in exe.execute([np.asarray(a) for a in args])]


CASES = [
    ("elementwise", lambda x, y: jnp.exp(x) * y - jnp.maximum(x, y),
     lambda x, y: np.exp(x) * y - np.maximum(x, y)),
    ("reduce", lambda x, y: jnp.sum(x * y, axis=1), lambda x, y: np.sum(x * y, axis=1)),
    ("matmul_transpose", lambda x, y: jnp.matmul(x, y.T), lambda x, y: x @ y.T),
    ("select_compare", lambda x, y: jnp.where(x > y, x, -y), lambda x, y: np.where(x > y, x, -y)),
    ("reshape_concat", lambda x, y: jnp.concatenate([x.reshape(3, 2), y.reshape(3, 2)], axis=0),
     lambda x, y: np.concatenate([x.reshape(3, 2), y.reshape(3, 2)], axis=0)),
    # while with an if inside, both capturing values: regions print and parse back
    ("control_flow", lambda x, y: xjit.lax.fori_loop(
        0, 3, lambda i, v: xjit.lax.cond(i % 2 == 0, lambda a: a * y, lambda a: a + x, v), x),
     lambda x, y: (x * y + x) * y),
]


@pytest.mark.parametrize("platform", ["cpu", "reference"])
@pytest.mark.parametrize("name,f,ref", CASES, ids=[c[0] for c in CASES])
def test_parsed_module_runs_like_numpy(name, f, ref, platform):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    (out,) = _roundtrip_run(f, x, y, platform=platform)
    np.testing.assert_allclose(out, ref(x, y), rtol=1e-5, atol=1e-6)


def test_integer_and_multiple_results():
    def f(a, b):
        return a // 1 + b, jnp.sum(a, axis=0)
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.full((2, 3), 7, np.int32)
    outs = _roundtrip_run(f, a, b)
    np.testing.assert_array_equal(outs[0], a + b)
    np.testing.assert_array_equal(outs[1], a.sum(axis=0))


def test_malformed_text_raises_value_error_with_location():
    text = ('module @m {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n'
            '    "func.return"(%b) : (tensor<2xf32>) -> ()\n  }\n}\n')
    with pytest.raises(ValueError, match=r"^3:19: use of undefined value %b"):
        _xjit.parse_module(text)
    with pytest.raises(ValueError, match=r"^2:35: expected '>' closing the type's '<'"):
        _xjit.parse_module('module @m {\n  func.func @main(%a: tensor<2xf32) -> () {\n'
                           '    "func.return"() : () -> ()\n  }\n}\n')


def test_unsupported_op_raises_not_implemented():
    text = ('module @m {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n'
            '    %0 = "stablehlo.collective_permute"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
            '    "func.return"(%0) : (tensor<2xf32>) -> ()\n  }\n}\n')
    with pytest.raises(NotImplementedError, match="stablehlo.collective_permute"):
        _xjit.parse_module(text)
