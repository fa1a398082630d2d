#!/usr/bin/env bash
# GPU checks of the persistent 16-bit wgmma kernel (PERSIST=1/2 of gemm_bf16/gemm_f16 PATH 1), for the lead to run on
# the GPU machine from the repository root with a build folder carried over (the four binaries below suffice):
#   cmake --build build -j2 --target gpu_tests tune cutune-worker gemm_tc_bench
# Usage: scripts/dev/persist-gpu.sh BUILD_DIR   (about 6 minutes on an H100; logs under $OUT; a short table last)
#
# Expected on compute capability 9.0: 1. every GemmWgmmaPersistGpu test and the bf16 GemmWgmmaGpu tests PASSED (a
# hang points at the ring's phases across tiles: the producer's and consumers' slab counters must agree); 2. the
# persistent tiles and the non-persistent ones against cuBLAS at the shapes with many tiles, in the same run.
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. persistent kernels: GPU tests"
timeout 150 "$build"/tests/gpu_tests --gtest_filter='*GemmWgmmaPersistGpu.*:*GemmWgmmaGpu.*/gemm_bf16' \
  >"$out/persist_tests.log" 2>&1
echo "exit $?"
grep -E "configurations|PASSED|FAILED|Failure" "$out/persist_tests.log" | head -40
shapes=${SHAPES:-4096x4096x4096,8192x8192x256,2048x2048x2048,8192x8192x8192}
for where in "PATH == 1 and SWAP == 0 and PERSIST >= 1" "PATH == 1 and SWAP == 0 and PERSIST == 0"; do
  echo "== 2. gemm_tc_bench bf16 --where '$where'"
  timeout 170 "$build"/bench/gemm_tc_bench --types bf16 --where "$where" --budget ${BUDGET:-40} --time 35 \
    --shapes "$shapes" --db "$out/persist.db" >"$out/persist_bench.log" 2>&1
  echo "exit $?"
  tail -6 "$out/persist_bench.log"
done
