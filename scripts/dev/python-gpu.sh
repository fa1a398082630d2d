#!/usr/bin/env bash
# On the GPU machine: installs the Python package's wheel (built on the development machine for the GPU machine's
# Python, e.g. with pyenv's 3.12: pip wheel --no-build-isolation -w build-gpu/pywheel .) beside the machine's PyTorch
# and CuPy, runs the package's tests (python/tests, GPU ones included), the
# launch-overhead bench and the example. Logs go to $OUT.
#   scripts/dev/python-gpu.sh build-gpu
source "$(dirname "$0")/gpu_env.sh" "$1"
# The machine's Python with PyTorch, CuPy and pytest is itself a virtual environment (/opt/torch/.venv), whose packages
# a new environment would not see: the wheel goes into a folder of its own on PYTHONPATH instead.
site=/tmp/cutune-site
rm -rf "$site"
python3 -m pip install -q --no-index --no-deps --target "$site" "$build"/pywheel/cutune-*.whl || exit 1
export PYTHONPATH=$site
venv=$(dirname "$(dirname "$(command -v python3)")")
unset CUTUNE_WORKER  # the package's own worker
"$venv/bin/python" -c "import cutune, torch, sys; print('cutune', cutune.__version__, 'torch', torch.__version__, 'python', sys.version.split()[0])"
(cd python/tests && "$venv/bin/python" -m pytest -q -rs 2>&1 | tee "$out/pytest.log" | tail -15)
"$venv/bin/python" bench/python_launch_bench.py --cpp "$build/bench/launch_overhead" 2>&1 | tee "$out/launch.txt"
time "$venv/bin/python" examples/python/tune_and_launch.py --db "$out/example.db" 2>&1 | tee "$out/example.txt"
