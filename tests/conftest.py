"""Fixtures shared by the test modules."""
import pytest

import numpy_checks


@pytest.fixture
def x64():
    """Runs the test with jax_enable_x64 on (64-bit types), then restores it."""
    with numpy_checks.x64(True):
        yield
