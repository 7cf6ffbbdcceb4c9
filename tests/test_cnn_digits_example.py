"""examples/cnn_digits.py, shortened: the loss falls over a few SGD steps and
the per-example gradient norms from vmap(grad) agree with a loop of grads."""
import importlib.util
import os

import numpy as np
import pytest

import xjit

pytest.importorskip("sklearn")

_PATH = os.path.join(os.path.dirname(__file__), "..", "examples", "cnn_digits.py")
_spec = importlib.util.spec_from_file_location("cnn_digits", _PATH)
cnn_digits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cnn_digits)


@pytest.fixture(scope="module")
def data():
    return cnn_digits.load_data()


def test_a_few_steps_lower_the_loss(data):
    x_train, _, y_train, _ = data
    _, losses, _ = cnn_digits.train(cnn_digits.Model(xjit), x_train, y_train, max_steps=30)
    assert len(losses) == 30
    assert np.mean(losses[-5:]) < 0.6 * np.mean(losses[:5]), losses


def test_per_example_gradient_norms_match_a_loop_of_grads(data):
    _, x_test, _, y_test = data
    model = cnn_digits.Model(xjit)
    params = model.init(1)
    x, y = x_test[:8], y_test[:8]
    got = np.asarray(model.per_example_grad_norms(params, x, y))
    want = []
    for xi, yi in zip(x, y):
        g = xjit.grad(model.loss)(params, xi[None], yi[None])
        want.append(np.sqrt(sum(np.sum(np.asarray(l) ** 2)
                                for l in xjit.tree_util.tree_leaves(g))))
    np.testing.assert_allclose(got, want, rtol=1e-4)
    assert len(set(np.round(got, 4))) > 1  # the examples differ


def test_same_init_as_jax():
    jax = pytest.importorskip("jax")
    ours = cnn_digits.Model(xjit).init(0)
    theirs = cnn_digits.Model(jax).init(0)
    for a, b in zip(xjit.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
