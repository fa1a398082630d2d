#!/usr/bin/env bash
# Stream-K and the one-buffer epilogue on the GPU: the GPU tests of their variants, then the 16-bit GEMMs
# as users get them (gemm_user_view: tune --budget 60 with every default, runtime launch against cublasGemmEx), and
# the same shapes restricted to the stream-K subspace with a larger budget (what the space holds).
# Usage: scripts/dev/streamk-gpu.sh BUILD_DIR [TYPES] [SHAPES]   (the build folder holding tune, cutune-worker,
# tests/gpu_tests and bench/gemm_user_view). Logs under $OUT; a short table last.
source "$(dirname "$0")/gpu_env.sh" "$@"
types=${2:-bf16}
shapes=${3:-1000x1000x1000,8192x8192x256,2048x2048x2048,4096x4096x4096,4096x4096x11008}
echo "== GPU tests: stream-K, persistent, one-buffer epilogue variants"
timeout 200 "$build"/tests/gpu_tests --gtest_filter='*GemmWgmmaVariantGpu*streamk*:*GemmWgmmaVariantGpu*one_buffer*:*GemmWgmmaStreamKGpu*:*GemmWgmmaVariantGpu*persist*' \
  >"$out/gpu_tests.log" 2>&1
echo "gpu_tests exit $?"
grep -E "^\[  (PASSED|FAILED)|FAILED|same bits|tests ran" "$out/gpu_tests.log" | head -20
for where in "" "STREAMK >= 1"; do
  tag=${where:+streamk}
  tag=${tag:-default}
  echo "== gemm_user_view $types ($tag) at $shapes"
  extra=(--budget 60)
  [ -n "$where" ] && extra=(--where "$where" --budget 120)
  timeout 190 "$build"/bench/gemm_user_view --types "$types" --shapes "$shapes" --time "${TUNE_TIME:-15}" \
    --flush write,read "${extra[@]}" >"$out/userview_$tag.log" 2>"$out/userview_$tag.err"
  echo "exit $?"
  sed -n '/^Tensor-core GEMM on/,$p' "$out/userview_$tag.log"
  grep -E "^error|FAILED" "$out/userview_$tag.err" | head -5
done
