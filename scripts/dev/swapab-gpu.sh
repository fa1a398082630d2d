#!/usr/bin/env bash
# GPU checks of the swapab branch (SWAP=1 of gemm_bf16/gemm_f16 PATH 1: wgmma + TMA computing C^T = B^T A^T with the
# small M as wgmma's N, sm_90a), for the lead to run once on the GPU machine from the repository root, with the build
# folder carried over. Build it here first:
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON -DCUTUNE_BUILD_EXAMPLES=OFF
#   cmake --build build -j2 --target gpu_tests tune cutune-worker gemm_tc_bench
# Usage: scripts/dev/swapab-gpu.sh BUILD_DIR   (3 to 4 minutes on an H100, 5.3 at most: every step has a timeout;
# logs under $OUT; a short table last)
#
# Expected on compute capability 9.0 (H100/H200); NOTES-swapab.md says more:
#   1. gpu_tests *GemmWgmma*: every test PASSED (the SWAP=0 and TF32 kernels were touched too: their main loop and
#      epilogue now live in gemm_sm90.cu / gemm_sm90_transposed.cu). Per kernel, beta and shape a line
#      "gemm_bf16 beta=0   16x4096x4096  N configurations correct, largest error E (atol A)" with E below A, and
#      "gemm_bf16 64x1024x512    slab 3 skipped: 12 of 12 SWAP=1 configurations wrong". What a failure points at:
#      wrong_result at every SWAP=1 configuration, the transposed-A descriptor (mnmajor_descriptor read as wgmma's A, the
#      "1, 1, 1, 0" immediates of MmaT in gemm_wgmma_ops.cu) or the K-major descriptor of A read as wgmma's B with
#      N = BM; wrong only at BM = 16 with SPLITK > 1, splitk_sum's group of 2 or 4 fragments; only with EPI_VEC=8, the
#      staged 8-element reads (staged_at keeps 4-float chunks whole: two float4 reads per store); a hang at BM=128,
#      BN=256, WG=2, the register reallocation.
#   2. gemm_tc_bench, bf16, SWAP=1 only, at 16x4096x4096 and 64x4096x4096 (budget 60, at most 40 s of tuning per
#      shape): the target is 1.1x cuBLAS;
#      PATH 0 had 0.97-1.01x at 16x4096x4096 and 0.80-0.88x at 64x4096x4096 (bench/RESULTS.md).
#   3. The same over the whole space (budget 40, at most 30 s per shape, the start lists first: two SWAP=1 entries among them).
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. wgmma GPU tests (SWAP=1, and SWAP=0 / TF32 after the refactor)"
timeout 120 "$build"/tests/gpu_tests --gtest_filter='*GemmWgmmaSwapGpu.*:*GemmWgmmaGpu.*' >"$out/swapab_tests.log" 2>&1
echo "exit $?"
grep -E "configurations|PASSED|FAILED|Failure|error" "$out/swapab_tests.log" | head -60
echo "== 2. SWAP=1 against cuBLAS at the decode shapes"
"$build"/tune space --kernel gemm_bf16 --shape 16x4096x4096
timeout 110 "$build"/bench/gemm_tc_bench --types bf16 --where "PATH == 1 and SWAP == 1" --budget 60 --time 40 \
  --shapes 16x4096x4096,64x4096x4096 --db "$out/swapab_swap.db" >"$out/swapab_bench_swap.log" 2>&1
echo "exit $?"
echo "== 3. the whole space, start lists first"
timeout 90 "$build"/bench/gemm_tc_bench --types bf16 --budget 40 --time 30 \
  --shapes 16x4096x4096,64x4096x4096 --db "$out/swapab_all.db" >"$out/swapab_bench_all.log" 2>&1
echo "exit $?"
echo "== table (SWAP=1 only, then the whole space)"
tail -4 "$out/swapab_bench_swap.log"
tail -2 "$out/swapab_bench_all.log"
