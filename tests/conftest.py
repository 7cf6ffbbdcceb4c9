"""Fixtures shared by the test modules."""
import pytest

import xjit


@pytest.fixture
def x64():
    """jax_enable_x64 on for one test."""
    xjit.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        xjit.config.update("jax_enable_x64", False)


@pytest.fixture(params=["cpu", "reference"])
def default_platform(request):
    """The test runs once per platform, as the default device."""
    xjit.config.update("jax_platform_name", request.param)
    try:
        yield request.param
    finally:
        xjit.config.update("jax_platform_name", None)
