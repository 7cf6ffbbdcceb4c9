"""The import structure of python/xjit/_src: no import cycles, and private
modules import private modules only (never xjit.lax, xjit.numpy, ...).

Imports are read from the source with ``ast`` (every import statement,
function-level ones included), so a cycle hidden behind a lazy import fails too.
"""
from __future__ import annotations

import ast
import pathlib

PACKAGE_DIR = pathlib.Path(__file__).resolve().parents[1] / "python" / "xjit"
# Compiled extension modules: leaves of the graph, not public Python modules.
EXTENSIONS = frozenset({"xjit._xjit"})


def module_files(package_dir: pathlib.Path) -> dict:
    """{dotted module name: path} of every .py file under ``package_dir``."""
    root = package_dir.parent
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


def imported_modules(name: str, path: pathlib.Path, is_package: bool, known) -> set:
    """The modules (of ``known`` or extensions) that module ``name`` imports anywhere."""
    out = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known or full in EXTENSIONS else base)
    return {m for m in out if m in known or m in EXTENSIONS}


def import_graph(package_dir: pathlib.Path) -> dict:
    files = module_files(package_dir)
    return {name: imported_modules(name, path, is_pkg, files)
            for name, (path, is_pkg) in files.items()}


def find_cycles(graph: dict, nodes) -> list:
    """One cycle (as a path a -> ... -> a) per strongly connected component of ``nodes``
    with more than one module, or a module importing itself (Tarjan's algorithm)."""
    nodes = set(nodes)
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                cycles.append(_cycle_path(graph, set(component), min(component)))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return cycles


def _cycle_path(graph, component: set, start: str) -> list:
    """A shortest path start -> ... -> start inside ``component`` (breadth first)."""
    parents = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [w, v]
                    while parents[path[-1]] is not None:
                        path.append(parents[path[-1]])
                    return path[::-1]
                if w in component and w not in parents:
                    parents[w] = v
                    nxt.append(w)
        frontier = nxt
    return [start, start]


def private_to_public(graph: dict) -> list:
    """(private module, public module) for each _src module importing a public one."""
    return sorted((src, dst) for src, deps in graph.items() if src.startswith("xjit._src")
                  for dst in deps
                  if not dst.startswith("xjit._src") and dst not in EXTENSIONS)


def test_no_import_cycles_in_src():
    graph = import_graph(PACKAGE_DIR)
    private = [m for m in graph if m.startswith("xjit._src")]
    assert len(private) > 20  # the checker sees the tree
    cycles = find_cycles(graph, private)
    assert not cycles, "import cycles in xjit._src:\n" + "\n".join(
        " -> ".join(c) for c in cycles)


def test_private_modules_import_no_public_module():
    bad = private_to_public(import_graph(PACKAGE_DIR))
    assert not bad, "xjit._src modules importing public xjit modules:\n" + "\n".join(
        f"{a} imports {b}" for a, b in bad)


def _write(root: pathlib.Path, files: dict) -> pathlib.Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "xjit"


def test_checker_finds_a_lazy_import_cycle(tmp_path):
    pkg = _write(tmp_path, {
        "xjit/__init__.py": "",
        "xjit/_src/__init__.py": "",
        "xjit/_src/a.py": "from xjit._src import b\n",
        "xjit/_src/b.py": "def f():\n    from xjit._src.c import g\n",
        "xjit/_src/c.py": "from . import a\nfrom xjit import _xjit\n",
        "xjit/_src/d.py": "import xjit._src.a\n",
    })
    graph = import_graph(pkg)
    assert graph["xjit._src.c"] == {"xjit._src.a", "xjit._xjit"}
    cycles = find_cycles(graph, [m for m in graph if m.startswith("xjit._src")])
    assert cycles == [["xjit._src.a", "xjit._src.b", "xjit._src.c", "xjit._src.a"]]


def test_checker_finds_a_private_to_public_import(tmp_path):
    pkg = _write(tmp_path, {
        "xjit/__init__.py": "",
        "xjit/lax/__init__.py": "",
        "xjit/_src/__init__.py": "",
        "xjit/_src/util.py": "def lax():\n    from xjit import lax as m\n    return m\n",
        "xjit/_src/ok.py": "from xjit import _xjit\nfrom xjit._src import util\n",
    })
    assert private_to_public(import_graph(pkg)) == [("xjit._src.util", "xjit.lax")]


def test_graph_reads_the_real_tree():
    graph = import_graph(PACKAGE_DIR)
    assert {"xjit._src.core", "xjit._xjit"} <= graph["xjit._src.dispatch"]
    assert "xjit._src.lax.elementwise" in graph["xjit.lax"]


def test_array_methods_delegate_to_what_xjit_numpy_exports():
    # array_methods finds the functions in the private numpy modules; they must
    # be the very functions the public xjit.numpy exports under those names.
    import xjit.numpy as jnp
    from xjit._src import array_methods

    names = (list(array_methods._BINARY_OPS.values()) + list(array_methods._COMPARISONS.values())
             + list(array_methods._UNARY_OPS.values()) + list(array_methods._DELEGATED))
    for name in names:
        f = array_methods._jnp_function(name)
        assert f is getattr(jnp, name, None), name
