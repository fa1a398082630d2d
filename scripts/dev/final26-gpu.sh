#!/usr/bin/env bash
# The closing GPU run of issue 26 on the merged tree: the GPU tests the L2 conventions and the new kernels touch, tuning
# under each convention, and the user-view benchmark for bf16 and f16. Usage: scripts/dev/final26-gpu.sh BUILD_DIR
# (about 4 minutes on an H100; logs under $OUT; tables last).
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== 1. GPU tests"
timeout 150 "$build"/tests/gpu_tests --gtest_filter='VerificationGpu.*:TunerGpu.*:HopperGpu.*:GemmWgmmaTf32Gpu.*:TransposeGpu.*:*GemmWgmmaVariantGpu.*/gemm_bf16_tma_store_sliced' >"$out/final_tests.log" 2>&1
echo "exit $?"
grep -E "^\[       OK|PASSED|FAILED|Failure" "$out/final_tests.log" | head -40
echo "== 2. tuning under each L2 convention (bf16 16x4096x4096, SWAP=1, budget 20)"
for f in write read none; do
  timeout 60 "$build"/tune --kernel gemm_bf16 --shapes 16x4096x4096 --where "SWAP == 1" --budget 20 --flush $f \
    --db "$out/flush.db" >"$out/flush_$f.log" 2>&1
  echo "$f exit $?: $(grep -iE "flush|best" "$out/flush_$f.log" | head -3 | tr '\n' ' ')"
done
"$build"/tune best --kernel gemm_bf16 --shape 16x4096x4096 --db "$out/flush.db" --flush write 2>&1 | head -8
for t in bf16 f16; do
  echo "== 3. gemm_user_view $t"
  timeout 150 "$build"/bench/gemm_user_view --types $t --budget 60 --time 40 --db "$out/uv_$t.db" >"$out/uv_$t.log" 2>"$out/uv_$t.err"
  echo "exit $?"; grep -E "^error|FAILED" "$out/uv_$t.err" | head -5
  sed -n "/^gemm_$t:/,\$p" "$out/uv_$t.log" | awk '{print $1, $2, $3, $4, $5, $6}'
done
