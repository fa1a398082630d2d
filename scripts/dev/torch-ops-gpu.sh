#!/usr/bin/env bash
# On the GPU machine: cutune.ops' tests (python/tests/test_ops_gpu.py and the host test of the PyTorch import), the
# transformer-block example and the operator bench, beside the machine's PyTorch. The wheel is built on the development
# machine for the GPU machine's Python (pyenv's 3.12: pip wheel --no-build-isolation --no-deps -w BUILD/pywheel .).
# Logs go to $OUT.
#   scripts/dev/torch-ops-gpu.sh BUILD
source "$(dirname "$0")/gpu_env.sh" "$1"
site=/tmp/cutune-site
rm -rf "$site"
python3 -m pip install -q --no-index --no-deps --target "$site" "$build"/pywheel/cutune-*.whl || exit 1
export PYTHONPATH=$site
unset CUTUNE_WORKER  # the package's own worker and tune program
python3 -c "import cutune, torch, sys; print('cutune', cutune.__version__, 'torch', torch.__version__, 'python', sys.version.split()[0])"
work=$(mktemp -d)
(cd python/tests && python3 -m pytest -q -rs -p no:cacheprovider test_ops_gpu.py \
  "test_host.py::test_torch_is_imported_by_cutune_ops_only" 2>&1 | tee "$out/pytest.log" | tail -15)
python3 examples/python/torch_transformer_block.py --db "$work/example.db" --budget 20 --compile 2>&1 | tee "$out/example.txt"
python3 bench/torch_ops_bench.py --db "$work/bench.db" --budget 30 2>&1 | tee "$out/bench.txt"
