#!/usr/bin/env bash
# GPU checks of the 16-bit wgmma kernel's PATH 1 variants (PERSIST, MC, and EPI_VEC 64: C staged in shared memory and
# written by TMA stores), for the lead to run on the GPU machine from the repository root with a build folder carried
# over:  cmake --build build -j2 --target gpu_tests tune cutune-worker gemm_tc_bench
# Usage: scripts/dev/tmastore-gpu.sh BUILD_DIR   (about 6 minutes on an H100; logs under $OUT; a short table last)
#
# Expected on compute capability 9.0: 1. every GemmWgmmaVariantGpu test PASSED (a wrong result only with beta != 0
# points at C's read in store_tile_tma; wrong at the edges, at c_map's box or the clipping; a hang, at the bulk-group
# waits or the warpgroup barriers 2 and 3), and the bf16 sample and TF32 runtime test still pass; 2. the TMA-store
# epilogue against cuBLAS at the shapes where writing C costs most, persistent and not.
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. GPU tests of the variants"
timeout 240 "$build"/tests/gpu_tests --gtest_filter='*GemmWgmmaVariantGpu.*:*GemmWgmmaGpu.SampleIsCorrectAtShapesTmaAllows/gemm_bf16:*GemmWgmmaTf32Gpu.*' >"$out/variant_tests.log" 2>&1
echo "exit $?"
grep -E "configurations|PASSED|FAILED|Failure" "$out/variant_tests.log" | head -60
shapes=${SHAPES:-4096x4096x4096,8192x8192x256,2048x2048x2048,8192x8192x8192,4096x4096x64}
echo "== 2. gemm_tc_bench bf16 --where 'EPI_VEC == 64'"
timeout 220 "$build"/bench/gemm_tc_bench --types bf16 --where "EPI_VEC == 64" --budget ${BUDGET:-40} --time 35 \
  --shapes "$shapes" --db "$out/tma.db" >"$out/tma_bench.log" 2>&1
echo "exit $?"
tail -7 "$out/tma_bench.log"
