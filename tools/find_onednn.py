"""Prints the folder holding oneDNN's dnnl-config.cmake, found through pip's
record of the onednn-devel-cpu-gomp distribution (works in isolated build
environments, virtualenvs and --user installs alike)."""
import importlib.metadata as metadata
import sys

for dist_name in ("onednn-devel-cpu-gomp", "onednn-devel"):
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        continue
    for f in dist.files or ():
        if f.name == "dnnl-config.cmake":
            print(dist.locate_file(f).resolve().parent)
            sys.exit(0)
sys.exit("oneDNN CMake config not found: pip install onednn-devel-cpu-gomp==2023.2.0")
