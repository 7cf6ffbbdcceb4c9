"""docs/ops.md is generated from the op schema; this fails when it is stale."""
import pathlib
import subprocess
import sys

import pytest

try:
    import _xjit
except ImportError:
    from xjit import _xjit

ROOT = pathlib.Path(__file__).resolve().parent.parent
GEN = ROOT / "tools" / "gen_ops_md.py"


def test_ops_md_is_up_to_date():
    r = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True,
                       cwd=pathlib.Path(__file__).parent)
    assert r.returncode == 0, (
        f"{r.stderr}\ndocs/ops.md is stale: regenerate it with `python tools/gen_ops_md.py` "
        "(after installing the package) and commit the result.")


def test_op_schema_lists_every_op_with_its_attributes():
    schema = {op["name"]: op for op in _xjit.op_schema()}
    assert len(schema) == len(_xjit.op_schema()) > 50
    assert schema["add"]["family"] == "elementwise_binary" and schema["add"]["commutative"]
    assert schema["subtract"]["commutative"] is False
    assert schema["reduce"]["regions"] == 1 and schema["reduce"]["multiple_results"]
    assert schema["call"]["calls_function"]
    assert schema["reshape"]["declares_result_type"] and schema["reshape"]["attrs"] == "NoAttrs"
    assert [f["name"] for f in schema["slice"]["fields"]] == [
        "start_indices", "limit_indices", "strides"]
    assert schema["compare"]["fields"][0]["enum_values"] == ["EQ", "NE", "GE", "GT", "LE", "LT"]
    for op in schema.values():
        assert set(op["backends"]) <= {"cpu", "reference"}
        assert op["transforms"] == [r for r in ("jvp", "transpose", "vmap")
                                    if r in op["transforms"]]
    assert schema["add"]["transforms"] == ["jvp", "transpose", "vmap"]
    assert schema["exponential"]["transforms"] == ["jvp", "vmap"]  # not linear
    assert schema["parameter"]["transforms"] == []


def test_every_schema_key_is_accepted_by_the_builder():
    """The keys docs/ops.md lists are what ComputationBuilder.op accepts."""
    def keys(fields):
        for f in fields:
            yield from (keys(f["fields"]) if f["kind"] == "struct" else [f["name"]])
    mb = _xjit.ModuleBuilder("m")
    cb = mb.computation("main")
    x = cb.parameter("float32", (2,))
    for op in _xjit.op_schema():
        if op["name"] in ("parameter", "constant"):
            continue
        for key in keys(op["fields"]):
            try:
                cb.op(op["name"], [x], {key: object()})
            except TypeError as e:  # the key is known, the value's type is wrong
                assert key in str(e)
            except ValueError as e:
                pytest.fail(f"{op['name']} rejected its own key {key}: {e}")
