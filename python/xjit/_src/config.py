"""Global configuration flags, read and written like JAX's ``jax.config``.

Example:
    >>> import xjit
    >>> xjit.config.update("jax_enable_x64", True)
    >>> xjit.config.jax_enable_x64
    True
"""
from __future__ import annotations

import operator
import os
from typing import Any


class Config:
    """Named flags with defaults; ``update(name, value)`` changes one.

    Setting ``jax_enable_x64`` is forwarded to the C++ jit fast path
    (``_xjit.set_x64``) because it is part of every cache key there.
    """

    _DEFAULTS = {
        "jax_enable_x64": False,
        # "cpu" or "reference" (or "cuda"/"gpu" when built); None means "cpu".
        "jax_platform_name": None,
        # JAX's priority list of platforms, "cuda,cpu" (default from the
        # JAX_PLATFORMS environment variable); None or "" means "cpu".
        "jax_platforms": os.environ.get("JAX_PLATFORMS") or None,
        # A Device (or platform name) new arrays and computations go to.
        "jax_default_device": None,
        # "off" keeps xjit's own frames in tracebacks (for debugging xjit).
        "jax_traceback_filtering": "auto",
        # The most entries each jitted function's cache keeps (least recently
        # used evicted first); JAX's pjit cache holds 4096.
        "jax_jit_cache_size": 4096,
        # Jitted functions run their Python code op by op (disable_jit).
        "jax_disable_jit": False,
    }

    def __init__(self):
        object.__setattr__(self, "_values", dict(self._DEFAULTS))
        object.__setattr__(self, "_observers", {})

    def update(self, name: str, value: Any) -> None:
        """Set flag ``name`` to ``value``.

        Example:
            >>> config.update("jax_enable_x64", False)
        """
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        if name in ("jax_enable_x64", "jax_disable_jit"):
            value = bool(value)
        elif name == "jax_jit_cache_size":
            value = _positive_int(name, value)
        self._values[name] = value
        for observer in self._observers.get(name, ()):
            observer(value)

    def read(self, name: str) -> Any:
        """The current value of flag ``name``.

        Example:
            >>> config.read("jax_enable_x64")
            False
        """
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    def observe(self, name: str, callback) -> None:
        """Call ``callback(value)`` after every update of ``name`` (and once now)."""
        self._observers.setdefault(name, []).append(callback)
        callback(self._values[name])

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"Unrecognized config option: {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("use config.update(name, value) to change a flag")


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {value!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


config = Config()


def x64_enabled() -> bool:
    """Whether 64-bit dtypes are enabled.

    Example:
        >>> x64_enabled()
        False
    """
    return config._values["jax_enable_x64"]
