#!/usr/bin/env bash
# GPU checks of the wgmma branch (PATH=1 of gemm_bf16/gemm_f16: wgmma + TMA, sm_90a), for the lead to run once on the
# GPU machine from the repository root, with the build folder carried over. Build it here first:
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON -DCUTUNE_BUILD_EXAMPLES=ON
#   cmake --build build -j2 --target gpu_tests tune cutune-worker gemm_tc_bench gemm_bf16_example
# Usage: scripts/dev/wgmma-gpu.sh BUILD_DIR   (about 8 minutes on an H100; prints a short table last)
#
# Expected on compute capability 9.0 (H100/H200); NOTES-wgmma.md says more:
#   1. gpu_tests GemmWgmmaGpu.*: 2 tests PASSED; per kernel, beta and shape a line "gemm_bf16 beta=0   1x8x8  24
#      configurations correct, largest error E (atol A)" with E below A, and "slab 1 skipped: 12 of 12 PATH 1
#      configurations wrong". A
#      wrong_result everywhere points at the descriptors/swizzle (gemm_wgmma.cu's layout comment); only at some shapes
#      at the edges (TMA zero fill, bounds); a launch_error naming cuTensorMapEncodeTiled at the maps' specs; a hang
#      (the timeout ends the tests) at the mbarrier phases, or for WG=2 at 128 x 256 / 256 x 128 the reallocation.
#   2. tune --where "PATH == 1" at 4096^3: "... valid configurations", every result ok, a best above PATH 0's 446
#      TFLOP/s (bench/RESULTS.md, session 4); the aim is cuBLAS's ~780.
#      Then the runtime API launches that best (tensor maps encoded by the runtime): "config  PATH=1,...", "rule
#      exact", "check   ok (252 elements against the host)".
#   3. gemm_tc_bench: the table of tuned PATH 1 against cuBLAS at five shapes, then the whole space (PATH 0 only: K, N
#      unaligned) at 127x257x511.
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. wgmma GPU tests"
timeout 300 "$build"/tests/gpu_tests --gtest_filter='*GemmWgmmaGpu.*/gemm_bf16:*GemmWgmmaGpu.*/gemm_f16' 2>&1 | tail -40
echo "== 2. tune PATH 1 at 4096^3"
"$build"/tune space --kernel gemm_bf16 --shape 4096x4096x4096
"$build"/tune space --kernel gemm_bf16 --shape 4096x4096x4096 --arch sm_80
SPDLOG_LEVEL=info timeout 240 "$build"/tune --kernel gemm_bf16 --shapes 4096x4096x4096 --where "PATH == 1" --budget 40 \
  --db "$out/wgmma.db" 2>&1 | tail -15
"$build"/tune best --kernel gemm_bf16 --shape 4096x4096x4096 --db "$out/wgmma.db"
"$build"/examples/gemm_bf16_example --db "$out/wgmma.db" 4096x4096x4096
echo "== 3. against cuBLAS"
timeout 300 "$build"/bench/gemm_tc_bench --types bf16 --where "PATH == 1" --budget 30 --db "$out/wgmma_bench.db" \
  --shapes 4096x4096x4096,8192x8192x8192,64x4096x4096,4096x4096x64,16x4096x4096 2>&1 | tail -9
timeout 120 "$build"/bench/gemm_tc_bench --types bf16 --budget 30 --db "$out/wgmma_bench.db" --shapes 127x257x511 2>&1 \
  | tail -3
