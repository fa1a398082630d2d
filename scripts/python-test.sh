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
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
if [ -z "${CUDAToolkit_ROOT:-}" ] && [ -d /usr/local/cuda ]; then export CUDAToolkit_ROOT=/usr/local/cuda; fi
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check .
echo "pip install . took $(( $(date +%s) - start )) s"
cd python/tests
"../../$venv/bin/python" -m pytest -q -rs -p no:cacheprovider
