#!/usr/bin/env python3
"""The layers of csrc/xjit and the check that no file includes a higher one.

LAYERS is the one place the layering is written down: CMakeLists.txt reads
it (``--print-layers``) to make one object library per layer linking only
its dependencies, and the build runs this check before compiling anything
(as does tests/test_layering.py), so an include of a higher layer fails the
build with the file, the line and the forbidden include.

    python tools/check_layering.py            # check the tree, exit 1 on a violation
    python tools/check_layering.py --print-layers   # "name dir dep,dep" per line (CMake)
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

# name -> (directory under csrc/xjit, the layers it may include directly).
# Data flows one way: Python -> builder -> graph -> passes -> backend -> buffers.
LAYERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ir": ("ir", ()),
    "builder": ("builder", ("ir",)),
    "text": ("text", ("ir", "builder")),
    "passes": ("passes", ("ir", "builder")),
    "transforms": ("transforms", ("ir", "builder", "passes")),
    "runtime": ("runtime", ("ir",)),
    "backends_common": ("backends/common", ("ir",)),
    "backends_reference": ("backends/reference", ("ir", "runtime", "passes", "backends_common")),
    "backends_cpu": ("backends/cpu", ("ir", "runtime", "passes", "backends_common")),
    # LAPACK custom_call targets (issue 11): registered with the runtime.
    "backends_lapack": ("backends/lapack", ("ir", "runtime")),
    # The CUDA backend (issue 13): built only where CMake finds the toolkit.
    "backends_cuda": ("backends/cuda", ("ir", "runtime", "passes", "backends_common")),
    "python": ("python", ("ir", "builder", "text", "passes", "transforms", "runtime",
                          "backends_common",
                          "backends_reference", "backends_cpu", "backends_lapack",
                          "backends_cuda")),
}

_INCLUDE = re.compile(r'^\s*#\s*include\s+"xjit/([^"]+)"')
_SOURCE_SUFFIXES = {".h", ".cc", ".inc"}


def allowed_layers(name: str) -> set[str]:
    """`name` and everything below it (dependencies are transitive)."""
    seen = {name}
    todo = [name]
    while todo:
        for dep in LAYERS[todo.pop()][1]:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def layer_of(relative: str) -> str | None:
    """The layer a path under csrc/xjit belongs to (the longest matching directory)."""
    best = None
    for name, (directory, _) in LAYERS.items():
        if relative == directory or relative.startswith(directory + "/"):
            if best is None or len(directory) > len(LAYERS[best][0]):
                best = name
    return best


def check(root: pathlib.Path) -> list[str]:
    """Violations under `root` (a csrc/xjit directory), one message each."""
    problems = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in _SOURCE_SUFFIXES or not path.is_file():
            continue
        relative = path.relative_to(root).as_posix()
        layer = layer_of(relative)
        if layer is None:
            problems.append(f"csrc/xjit/{relative}: in no layer; add its directory to "
                            f"LAYERS in tools/check_layering.py")
            continue
        allowed = allowed_layers(layer)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = _INCLUDE.match(line)
            if not m:
                continue
            target = layer_of(m.group(1))
            if target is None or target not in allowed:
                problems.append(
                    f"csrc/xjit/{relative}:{number}: layer '{layer}' may not include "
                    f"\"xjit/{m.group(1)}\" (layer '{target}'); '{layer}' may include "
                    f"only {sorted(allowed)}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent / "csrc" / "xjit")
    parser.add_argument("--print-layers", action="store_true")
    parser.add_argument("--stamp", type=pathlib.Path, help="touched when the check passes")
    args = parser.parse_args(argv)
    if args.print_layers:
        for name, (directory, deps) in LAYERS.items():
            print(name, directory, ",".join(deps) or "-")
        return 0
    problems = check(args.root)
    if problems:
        print("Layering violations (lower layers never include higher ones):", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    if args.stamp:
        args.stamp.touch()
    return 0


if __name__ == "__main__":
    sys.exit(main())
