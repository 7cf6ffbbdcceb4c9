"""The layering of csrc/xjit (tools/check_layering.py): the tree obeys it, and
the check names the file, line and include that break it."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "check_layering.py"

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="needs the source tree")


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_tree_obeys_the_layering():
    result = run()
    assert result.returncode == 0, result.stderr


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_include_of_a_higher_layer_is_reported(tmp_path):
    write(tmp_path, "ir/graph.h", '#include "xjit/ir/shape.h"\n')
    write(tmp_path, "runtime/buffer.cc", '#include "xjit/ir/graph.h"\n')
    write(tmp_path, "backends/cpu/compiler.cc",
          '#include "xjit/runtime/buffer.h"\n#include "xjit/passes/dce.h"\n')
    assert run("--root", str(tmp_path)).returncode == 0

    write(tmp_path, "ir/graph.h", '#include "xjit/ir/shape.h"\n#include "xjit/runtime/buffer.h"\n')
    write(tmp_path, "runtime/device.cc", '  #include "xjit/backends/cpu/program.h"\n')
    result = run("--root", str(tmp_path))
    assert result.returncode == 1
    assert 'csrc/xjit/ir/graph.h:2: layer \'ir\' may not include "xjit/runtime/buffer.h"' \
        in result.stderr
    assert 'csrc/xjit/runtime/device.cc:1: layer \'runtime\' may not include ' \
        '"xjit/backends/cpu/program.h"' in result.stderr


def test_backends_may_not_include_each_other_or_python(tmp_path):
    write(tmp_path, "backends/reference/evaluator.cc", '#include "xjit/backends/cpu/thunk.h"\n')
    write(tmp_path, "text/printer.cc", '#include "xjit/python/py_array.h"\n')
    result = run("--root", str(tmp_path))
    assert result.returncode == 1
    assert "backends/reference/evaluator.cc:1" in result.stderr
    assert "text/printer.cc:1" in result.stderr


def test_files_outside_every_layer_are_reported(tmp_path):
    write(tmp_path, "misc/helper.cc", "int x;\n")
    result = run("--root", str(tmp_path))
    assert result.returncode == 1
    assert "csrc/xjit/misc/helper.cc: in no layer" in result.stderr


def test_layer_table_is_printed_for_cmake():
    result = run("--print-layers")
    assert result.returncode == 0
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()}
    assert rows["ir"] == ["ir", "-"]
    assert rows["runtime"] == ["runtime", "ir"]
    assert "runtime" in rows["backends_cpu"][1].split(",")
