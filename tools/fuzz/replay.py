"""Runs saved fuzz inputs in this process, as a worker does:
`python tools/fuzz/replay.py crashes/X.mlir` (modules separated by
"// ----- next module" run in order). A .py reproducer runs with plain python."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from worker import run_parser_case  # noqa: E402

for path in sys.argv[1:]:
    with open(path) as f:
        for text in f.read().split("\n// ----- next module\n"):
            print(run_parser_case({"text": text, "seed": 0}), flush=True)
