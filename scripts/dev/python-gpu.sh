#!/usr/bin/env bash
# On the GPU machine: installs the Python package's wheel (built on the development machine for the GPU machine's
# Python, e.g. with pyenv's 3.12: pip wheel --no-build-isolation -w build-gpu/pywheel .) into a virtual environment
# that sees the machine's PyTorch and CuPy, runs the package's tests (python/tests, GPU ones included), the
# launch-overhead bench and the example. Logs go to $OUT.
#   scripts/dev/python-gpu.sh build-gpu
source "$(dirname "$0")/gpu_env.sh" "$1"
venv=/tmp/cutune-venv
rm -rf "$venv"
python3 -m venv --system-site-packages "$venv" || exit 1
"$venv/bin/pip" install -q --no-index --no-deps "$build"/pywheel/cutune-*.whl "$build"/wheels/pytest-*.whl \
  "$build"/wheels/pluggy-*.whl "$build"/wheels/iniconfig-*.whl "$build"/wheels/packaging-*.whl || exit 1
unset CUTUNE_WORKER  # the package's own worker
"$venv/bin/python" -c "import cutune, torch, sys; print('cutune', cutune.__version__, 'torch', torch.__version__, 'python', sys.version.split()[0])"
(cd python/tests && "$venv/bin/python" -m pytest -q -rs 2>&1 | tee "$out/pytest.log" | tail -15)
"$venv/bin/python" bench/python_launch_bench.py --cpp "$build/bench/launch_overhead" 2>&1 | tee "$out/launch.txt"
time "$venv/bin/python" examples/python/tune_and_launch.py --db "$out/example.db" 2>&1 | tee "$out/example.txt"
