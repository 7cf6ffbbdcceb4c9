#!/usr/bin/env python3
"""Writes docs/ops.md from the op schema (``_xjit.op_schema()``, which reads
csrc/xjit/ir/opcode.h, ir/attributes.h and each backend's supported_ops.cc).

Usage: python tools/gen_ops_md.py            # rewrite docs/ops.md
       python tools/gen_ops_md.py --check    # exit 1 if docs/ops.md is stale

Python entry points are found two ways: an ``xjit.lax`` function binds the op
when its body, or a private helper of its module it calls, passes the op's name
to ``bind`` (or to the helpers that call it: ``_unary``, ``_binary``,
``_make_unary``, ``_make_binary``, ``_make_compare``);
an ``xjit.numpy`` function binds it when, called on small float32 (or int32)
arrays, the op computes its result (the last op it binds).
"""
from __future__ import annotations

import ast
import inspect
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ops.md"
FLAGS = ("elementwise", "commutative", "multiple_results", "side_effects",
         "declares_result_type", "calls_function")

# helper name -> index of the argument that names the op
_OP_ARG = {"bind": 0, "_unary": 1, "_binary": 1, "_make_unary": 1, "_make_binary": 2}


def _ops_named_in(node) -> set[str]:
    ops = set()
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        fn = call.func
        name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
        if name == "_make_compare":
            ops.add("compare")
        i = _OP_ARG.get(name)
        if i is not None and len(call.args) > i and isinstance(call.args[i], ast.Constant) \
                and isinstance(call.args[i].value, str):
            ops.add(call.args[i].value)
    return ops


def _private_calls(node) -> set[str]:
    return {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call)
            and isinstance(c.func, ast.Name) and c.func.id.startswith("_")}


def lax_entry_points() -> dict[str, set[str]]:
    """op name -> public xjit.lax functions that bind it, directly or through a
    private helper of their own module."""
    import xjit.lax
    public = {n: getattr(xjit.lax, n) for n in dir(xjit.lax) if not n.startswith("_")}
    direct: dict[tuple[str, str], set[str]] = {}  # (module, name) -> ops
    helpers: dict[tuple[str, str], set[str]] = {}  # (module, name) -> private callees
    for path in sorted((ROOT / "python/xjit/_src/lax").glob("*.py")):
        module = f"xjit._src.lax.{path.stem}"
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef):
                key, body = (module, node.name), node
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                key, body = (module, node.targets[0].id), node.value
            else:
                continue
            direct[key] = _ops_named_in(body)
            helpers[key] = _private_calls(body)

    def ops_of(key, seen) -> set[str]:
        if key in seen:
            return set()
        seen.add(key)
        ops = set(direct.get(key, ()))
        for h in helpers.get(key, ()):
            ops |= ops_of((key[0], h), seen)
        return ops

    out: dict[str, set[str]] = {}
    for name, fn in public.items():
        key = (getattr(fn, "__module__", ""), getattr(fn, "__name__", name))
        for op in ops_of(key, set()):
            out.setdefault(op, set()).add(f"lax.{name}")
    return out


def numpy_entry_points() -> dict[str, set[str]]:
    """op name -> public xjit.numpy functions whose result that op computes."""
    import numpy as np
    import xjit.numpy as jnp
    from xjit._src import dispatch
    f = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    i = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    tries = [(f,), (f, f), (i,), (i, i), (f, f, f)]
    bound: list[str] = []
    real_bind = dispatch.bind

    def recording_bind(name, *args, **kwargs):
        bound.append(name)
        return real_bind(name, *args, **kwargs)

    # Modules that imported `bind` by name get the recording one too.
    holders = [m for n, m in sorted(sys.modules.items())
               if n.startswith("xjit.") and getattr(m, "bind", None) is real_bind]
    out: dict[str, set[str]] = {}
    for m in holders:
        m.bind = recording_bind
    try:
        for name in sorted(dir(jnp)):
            fn = getattr(jnp, name)
            if name.startswith("_") or not inspect.isfunction(fn):
                continue
            for args in tries:
                bound.clear()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fn(*args)
                except Exception:  # wrong arguments for this function: try the next ones
                    continue
                if bound:
                    out.setdefault(bound[-1], set()).add(f"numpy.{name}")
                break
    finally:
        for m in holders:
            m.bind = real_bind
    return out


def _field_text(field, prefix="") -> list[str]:
    if field["kind"] == "struct":
        parts = []
        for sub in field["fields"]:
            parts += _field_text(sub, prefix=f"{field['name']}.")
        return parts
    t = field["type"]
    if field["kind"] == "enum":
        t = f"{t} ({'/'.join(field['enum_values'])})"
    use = "" if field["use"] == "required" else f", {field['use']}"
    return [f"`{prefix}{field['name']}`: {t}{use}"]


def render() -> str:
    from xjit import _xjit
    schema = _xjit.op_schema()
    lax_eps, np_eps = lax_entry_points(), numpy_entry_points()
    lines = [
        "# Ops",
        "",
        "<!-- Generated by tools/gen_ops_md.py from _xjit.op_schema(); do not edit. -->",
        "",
        "Every op of `csrc/xjit/ir/opcode.h`, with its traits, its attribute struct",
        "(`csrc/xjit/ir/attributes.h`; field names are the StableHLO attribute names and",
        "the keys of `ComputationBuilder.op`), the Python functions that bind it, and the",
        "backends (`backends/*/supported_ops.cc`) and transforms that implement it.",
        "A nested struct's fields (`dot_dimension_numbers.x`) are keys of their own (`x`).",
        "Ops that declare their result type take `shape`/`dtype` in Python instead.",
        "`xjit.lax` entry points bind the op themselves; `xjit.numpy` ones compute",
        "their result with it (on small float32/int32 arrays).",
        "Transforms names the rule tables of `csrc/xjit/transforms/` with a rule for",
        "the op: `jvp` (forward mode; reverse mode is the JVP transposed), `transpose`",
        "(only ops the JVP rules apply to tangents need one: the linear ones), `vmap`.",
        "",
        "| op | family | arity | regions | traits | attributes | Python | backends | transforms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for op in schema:
        traits = ", ".join(f for f in FLAGS if op[f]) or "-"
        fields = []
        for field in op["fields"]:
            fields += _field_text(field)
        attrs = op["attrs"] if op["attrs"] != "NoAttrs" else "-"
        if fields:
            attrs += ": " + "; ".join(fields)
        eps = sorted(lax_eps.get(op["name"], ())) + sorted(np_eps.get(op["name"], ()))
        lines.append("| " + " | ".join([
            f"`{op['name']}`", op["family"], op["arity"], str(op["regions"]), traits, attrs,
            ", ".join(f"`{e}`" for e in eps) or "-", ", ".join(op["backends"]) or "-",
            ", ".join(op["transforms"]) or "none"]) + " |")
    return "\n".join(lines) + "\n"


def main(argv) -> int:
    text = render()
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC} is stale: run `python tools/gen_ops_md.py`", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
