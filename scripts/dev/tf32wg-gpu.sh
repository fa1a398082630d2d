#!/usr/bin/env bash
# GPU checks of the tf32wg branch (PATH=1 of gemm_tf32: wgmma + TMA computing C^T = B^T A^T, sm_90a), for the lead to
# run once on the GPU machine from the repository root, with the build folder carried over. Build it here first:
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON -DCUTUNE_BUILD_EXAMPLES=OFF
#   cmake --build build -j2 --target gpu_tests tune cutune-worker gemm_tc_bench
# Usage: scripts/dev/tf32wg-gpu.sh BUILD_DIR   (3 to 5 minutes on an H100, 6.5 at most: every step has a timeout;
# logs under $OUT; a short table last)
#
# Expected on compute capability 9.0 (H100/H200); NOTES-tf32wg.md says more:
#   1. gpu_tests *GemmWgmmaGpu.*/gemm_tf32: 2 tests PASSED; per beta and shape a line "gemm_tf32 beta=0   1x4x4  N
#      configurations correct, largest error E (atol A)" with E below A, and per shape "gemm_tf32 127x256x512 slab 1
#      skipped: 12 of 12 PATH 1 configurations wrong". What a failure points at: wrong_result everywhere, the B
#      fragments (chunk_col / b_offset / the register order a0..a3 in gemm_wgmma_tf32.cu) or the K-major descriptor of
#      A; wrong only where M or N is not a multiple of the tile, the transposed epilogue's bounds; only with EPI_VEC=4,
#      the staging (consumer_sync before reusing the ring); only with WG=2 at 256 x 128 or 128 x 256 that hangs, the
#      register reallocation; a launch_error naming cuTensorMapEncodeTiled, the maps in gemm_tf32.json.
#   2. tune --where "PATH == 1" at 4096^3: "... valid configurations", every result ok, a best above PATH 0's 214
#      TFLOP/s (bench/RESULTS.md); cuBLAS's TF32 is ~375-395.
#   3. gemm_tc_bench: tuned PATH 1 against cuBLAS (CUBLAS_COMPUTE_32F_FAST_TF32) at 2048^3, 4096^3, 8192^3 and
#      4096x11008x4096; the table is the last 6 lines.
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. TF32 wgmma GPU tests"
timeout 120 "$build"/tests/gpu_tests --gtest_filter='*GemmWgmmaGpu.*/gemm_tf32' >"$out/tf32wg_tests.log" 2>&1
echo "exit $?"
grep -E "configurations|PASSED|FAILED|Failure|error" "$out/tf32wg_tests.log" | head -40
echo "== 2. tune PATH 1 at 4096^3"
"$build"/tune space --kernel gemm_tf32 --shape 4096x4096x4096
"$build"/tune space --kernel gemm_tf32 --shape 4096x4096x4096 --arch sm_80
# The 16-bit path's winning tiles carried over (unmeasured for TF32: 256 x 128 and 128 x 256, two consumers), first.
tile="BK=32,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=8,EPI_VEC=4,ALIGNED=1,WG=2,CM=2,CN=1"
SPDLOG_LEVEL=info timeout 90 "$build"/tune --kernel gemm_tf32 --shapes 4096x4096x4096 --where "PATH == 1" --budget 40 \
  --start "PATH=1,BM=256,BN=128,$tile" --start "PATH=1,BM=128,BN=256,$tile" \
  --db "$out/tf32wg.db" >"$out/tf32wg_tune.log" 2>&1
echo "exit $?"
tail -8 "$out/tf32wg_tune.log"
"$build"/tune best --kernel gemm_tf32 --shape 4096x4096x4096 --db "$out/tf32wg.db"
echo "== 3. against cuBLAS"
timeout 180 "$build"/bench/gemm_tc_bench --types tf32 --where "PATH == 1" --budget 40 --db "$out/tf32wg_bench.db" \
  --shapes 2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096 >"$out/tf32wg_bench.log" 2>&1
echo "exit $?"
tail -6 "$out/tf32wg_bench.log"
