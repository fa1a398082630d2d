#!/usr/bin/env bash
# GPU checks of EPI_SLICE (the TMA-store epilogue one 64-column box at a time, two buffers alternating, so that a
# fourth stage fits beside a 128x256 tile) and of the accumulators' zeroing pinned before the first wgmma, for the lead
# to run on the GPU machine from the repository root with a build folder carried over (gpu_tests, tune, cutune-worker,
# gemm_tc_bench). Usage: scripts/dev/slice-gpu.sh BUILD_DIR (about 4 minutes on an H100; logs under $OUT)
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. GPU tests: the variants (EPI_SLICE among them), the bf16 sample"
timeout 200 "$build"/tests/gpu_tests \
  --gtest_filter='*GemmWgmmaVariantGpu.*bf16*:*GemmWgmmaGpu.SampleIsCorrectAtShapesTmaAllows/gemm_bf16' \
  >"$out/slice_tests.log" 2>&1
echo "exit $?"
grep -E "PASSED|FAILED|Failure|slab" "$out/slice_tests.log" | head -30
echo "== 2. EPI_VEC 64, budget 100: sliced or not"
timeout 200 "$build"/bench/gemm_tc_bench --types bf16 --where "PATH == 1 and SWAP == 0 and EPI_VEC == 64 and MC == 0" \
  --budget 100 --time 30 --shapes 4096x4096x4096,2048x2048x2048,1000x1000x1000,8192x8192x256,4096x4096x11008 \
  --db "$out/slice.db" >"$out/slice_bench.log" 2>&1
echo "exit $?"
tail -6 "$out/slice_bench.log" | awk '{print $1, $2, $3, $4, $5, $6, $NF}'
