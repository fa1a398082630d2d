#!/usr/bin/env bash
# cuBLASLt's configuration families on the GPU: their GPU tests (and the rank families' and operations' they share the
# call with), then bench/cublaslt_config_bench: each type's configuration family tuned at five shapes of the GEMM
# table against the heuristic's first answer. Run on the GPU machine from the repository root, with the build folder
# carried over (build gpu_tests, cutune-worker and cublaslt_config_bench here first).
# Usage: scripts/dev/cublaslt-config-gpu.sh BUILD_DIR [BUDGET]   (about 3 minutes at the default budget of 60)
# Logs under $OUT: config_gpu_tests.log (the tests' output), config_bench.log (the table), config_bench.err.
#
# Expected: every test passes; one bench line per type and shape with both times and their ratio (above 1: tuning
# cuBLASLt's space beat its heuristic's first answer); exit 0.
source "$(dirname "$0")/gpu_env.sh" "$@"
budget=${2:-60}
echo "== GPU tests of the cuBLASLt families"
timeout 200 "$build"/tests/gpu_tests --gtest_filter='*CublasLt*' >"$out/config_gpu_tests.log" 2>&1
echo "exit $?"
grep -E "^\[  (FAILED|PASSED) |tests? from .* ran" "$out/config_gpu_tests.log"
echo "== cublaslt_config_bench, budget $budget"
timeout 300 "$build"/bench/cublaslt_config_bench --budget "$budget" >"$out/config_bench.log" 2>"$out/config_bench.err"
echo "exit $?"
grep -E "^error" "$out/config_bench.err" | head -5
cat "$out/config_bench.log"
