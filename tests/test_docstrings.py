"""Runs the examples in every docstring (``>>>`` lines) as doctests, with the
module's own names plus those the examples use (``jax``/``xjit``, ``jnp``,
``lax``, ``np``)."""
import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax


def _modules():
    names = ["xjit"]
    for info in pkgutil.walk_packages(xjit.__path__, "xjit."):
        names.append(info.name)
    return sorted(n for n in names if not n.endswith("._xjit"))


@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples(module_name):
    module = importlib.import_module(module_name)
    globs = dict(vars(module))  # examples may use the module's own names
    globs.update({"jax": xjit, "xjit": xjit, "jnp": jnp, "lax": lax, "np": np})
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, module_name, globs=globs):
        if not test.examples:
            continue
        try:
            runner.run(test)
        finally:  # some examples switch x64 on; each docstring starts clean
            xjit.config.update("jax_enable_x64", False)
            xjit.config.update("jax_platform_name", None)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} docstring examples failed in {module_name}"
