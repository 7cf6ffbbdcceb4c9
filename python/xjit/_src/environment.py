"""``print_environment_info``: versions and devices, for bug reports.

Example:
    >>> import xjit
    >>> xjit.print_environment_info()  # doctest: +SKIP
    xjit:    0.1.0
    ...
"""
from __future__ import annotations

import importlib.metadata as metadata
import platform
import sys

import numpy as np

from xjit import _xjit


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def environment_info() -> str:
    """The text ``print_environment_info`` prints."""
    lines = [f"xjit:    {_version('xjit')}",
             f"python:  {sys.version.split()[0]} ({platform.platform()})",
             f"numpy:   {np.__version__}",
             f"ml_dtypes: {_version('ml_dtypes')}",
             f"oneDNN (onednn-cpu-gomp): {_version('onednn-cpu-gomp')}"]
    info = getattr(_xjit, "version_info", None)
    if info is not None:
        details = info()
        if isinstance(details, dict):
            for k, v in details.items():
                if k not in ("xjit", "backends"):  # printed below / above
                    lines.append(f"{k}: {v}")
        else:
            lines.append(f"build: {details}")
    platforms = list(_xjit.platforms())
    lines.append(f"backends: {', '.join(platforms)}")
    for p in platforms:
        try:
            devs = list(_xjit.devices(p))
        except Exception as e:  # a backend compiled in but unusable here
            lines.append(f"  {p}: unavailable ({e})")
            continue
        lines.append(f"  {p}: {', '.join(repr(d) for d in devs) or 'no devices'}")
    return "\n".join(lines)


def print_environment_info(return_string: bool = False):
    """Print (or return) versions of xjit and its dependencies and the devices found.

    Example:
        >>> text = print_environment_info(return_string=True)
        >>> "numpy" in text
        True
    """
    text = environment_info()
    if return_string:
        return text
    print(text)
