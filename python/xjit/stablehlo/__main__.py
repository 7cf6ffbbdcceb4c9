"""``python -m xjit.stablehlo run|test ...``."""
import sys

from xjit._src.stablehlo.cli import main

if __name__ == "__main__":
    sys.exit(main())
