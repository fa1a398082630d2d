#!/usr/bin/env bash
# GPU checks of the 16-bit wgmma kernel's multicast of B within a cluster (MC=1 of gemm_bf16/gemm_f16 PATH 1, persistent
# or not), for the lead to run on the GPU machine from the repository root with a build folder carried over:
#   cmake --build build -j2 --target gpu_tests tune cutune-worker gemm_tc_bench
# Usage: scripts/dev/multicast-gpu.sh BUILD_DIR   (about 5 minutes on an H100; logs under $OUT; a short table last)
#
# Expected on compute capability 9.0: 1. every GemmWgmmaMulticastGpu test PASSED, and the shared pipeline's other users
# (bf16 and TF32 samples) still correct; a hang points at the cluster-wide "empty" barrier (one arrival per consumer
# warp of either block) or at a block leaving before the other's last arrivals; wrong results at odd tile rows, at the
# block beyond C that must still load its half of B. 2. multicast tiles against cuBLAS at the large shapes.
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. multicast: GPU tests"
timeout 200 "$build"/tests/gpu_tests \
  --gtest_filter='*GemmWgmmaMulticastGpu.*:*GemmWgmmaGpu.SampleIsCorrectAtShapesTmaAllows/gemm_*' >"$out/mc_tests.log" 2>&1
echo "exit $?"
grep -E "configurations|PASSED|FAILED|Failure" "$out/mc_tests.log" | head -40
shapes=${SHAPES:-4096x4096x4096,8192x8192x256,2048x2048x2048,8192x8192x8192,4096x11008x4096}
echo "== 2. gemm_tc_bench bf16 --where 'MC == 1'"
timeout 200 "$build"/bench/gemm_tc_bench --types bf16 --where "MC == 1" --budget ${BUDGET:-40} --time 30 \
  --shapes "$shapes" --db "$out/mc.db" >"$out/mc_bench.log" 2>&1
echo "exit $?"
tail -7 "$out/mc_bench.log"
