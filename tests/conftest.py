"""Fixtures shared by the test modules."""
import pytest

import numpy_checks
import xjit


@pytest.fixture
def x64():
    """Runs the test with jax_enable_x64 on (64-bit types), then restores it."""
    with numpy_checks.x64(True):
        yield


@pytest.fixture(params=["cpu", "reference"])
def default_platform(request):
    """The test runs once per platform, as the default device."""
    xjit.config.update("jax_platform_name", request.param)
    try:
        yield request.param
    finally:
        xjit.config.update("jax_platform_name", None)
