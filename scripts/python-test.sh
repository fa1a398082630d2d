#!/usr/bin/env bash
# The Python package's tests: installs the package (pip install .) into a fresh virtual environment of Debian's
# Python, which also sees Debian's pytest and numpy (scripts/setup.sh installs them), and runs python/tests (the GPU
# tests skip with their reason on a machine without a GPU, PyTorch or CuPy). scikit-build-core and nanobind, which
# Debian 12 lacks, come from PyPI while the package builds.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build-python/test-venv
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
source scripts/build_env.sh
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check .
echo "pip install . took $(( $(date +%s) - start )) s"
cd python/tests
"../../$venv/bin/python" -m pytest -q -rs -p no:cacheprovider
