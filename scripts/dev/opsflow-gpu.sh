#!/usr/bin/env bash
# An operation as a user meets it: `tune --kernel matmul_bf16 --budget 60` cold at the eleven shapes of the GEMM table
# (bench/gemm_user_view.cpp), its budget divided by what pays; `tune best` on the operation at a tuned and an untuned
# shape; then the GPU tests of an operation tuned on demand through the runtime and by `tune --wanted`. Logs in $OUT.
#   scripts/dev/opsflow-gpu.sh BUILD   (BUILD holds tune, cutune-worker and tests/host_tests)
source "$(dirname "$0")/gpu_env.sh" "$1"
eleven=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096,4096x4096x11008,1000x1000x1000,8192x8192x256,4096x4096x64,64x4096x4096,16x4096x4096,127x257x511
export CUDA_CACHE_PATH=$(mktemp -d)
echo "$(nproc) cores"
SPDLOG_LEVEL=info /usr/bin/time -f "%e s wall, %U s user" -o "$out/ops.time" "$build/tune" --kernel matmul_bf16 --shapes $eleven \
  --budget 60 --db "$out/ops.db" >"$out/ops.log" 2>&1
echo "matmul_bf16 cold rc $? $(cat "$out/ops.time")"
grep -A1 "^run time" "$out/ops.log"
sed -n '/^matmul_bf16 ([0-9] implementations)/,/^run time/p' "$out/ops.log" | grep -v "^run time"
echo "== budget turns (implementation: configurations at the shape after each turn)"
grep -o "matmul_bf16 [0-9x]*: [a-z0-9_]* to [0-9]* configurations ([^)]*)" "$out/ops.log" | head -60
for shape in 4096x4096x4096 3000x3000x3000; do
  echo "== tune best --kernel matmul_bf16 --shape $shape"
  "$build/tune" best --kernel matmul_bf16 --shape $shape --db "$out/ops.db" 2>&1 | grep -v "^resource\|^launch \|^peak\|^spent"
done
echo "== GPU tests: an operation tuned on demand, and by tune --wanted"
# The tests name the tune program by the path it had where they were built.
mkdir -p /work/wt-opsflow && ln -sfn "$build" /work/wt-opsflow/build
/usr/bin/time -f "%e s wall" "$build/tests/host_tests" \
  --gtest_filter='OnDemandTest.AnOperationsUntunedShapeIsTunedForEveryImplementation:WantedCliTest.AnOperationsUntunedShapeIsTunedByTuneWanted' \
  >"$out/gpu-tests.log" 2>&1
echo "tests rc $?"
grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|Expected|Which is|wall" "$out/gpu-tests.log" | head -30
