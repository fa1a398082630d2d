#!/usr/bin/env bash
# The user-view benchmark: gemm_bf16 tuned as `tune --budget 60` does (default strategy, fresh database),
# then launched through the runtime API against cublasGemmEx under the write, read and none L2 conventions, at the
# eleven shapes of bench/gemm_user_view.cpp. Run on the GPU machine from the repository root,
# with the build folder carried over. Build it here first:
#   export PATH=/usr/local/cuda/bin:$PATH CUDAToolkit_ROOT=/usr/local/cuda
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON -DCUTUNE_BUILD_TESTS=OFF \
#     -DCUTUNE_BUILD_EXAMPLES=OFF
#   cmake --build build -j2 --target gemm_user_view tune cutune-worker
# Usage: scripts/dev/userview-gpu.sh BUILD_DIR   (about 4 minutes: tuning is held to TUNE_TIME seconds per shape,
# 16 unless set, so that the eleven shapes fit; the per-shape "tuned" lines say how many configurations each got, 60
# when the budget and not the time ended it; TUNE_TIME=0 tunes exactly as `tune --budget 60` but may pass the 250 s
# timeout)
# Logs under $OUT: userview.log (stdout: progress lines and the table), userview.err (stderr: per-convention medians
# and spreads, the runtime's rule and load time per shape, errors). The table is printed last.
#
# Expected: every "tuned" line names a configuration; every "timed" line has three ratios and a largest difference
# well under 1e-2 (a FAILED row says why: a wrong output, or a runtime rule other than "exact shape"); exit 0. The
# ratios should sit near those of gemm_tc_bench in bench/RESULTS.md (0.55-1.09x), moving by up to 15% between the
# conventions at the memory-bound shapes (16x4096x4096: 0.91x write, 1.04x read, 0.99x none, seen 2026-11-24).
source "$(dirname "$0")/gpu_env.sh" "$@"
echo "== gemm_user_view, bf16, eleven shapes, budget 60, at most ${TUNE_TIME:-16} s of tuning per shape"
timeout 250 "$build"/bench/gemm_user_view --types bf16 --budget 60 --time "${TUNE_TIME:-16}" \
  >"$out/userview.log" 2>"$out/userview.err"
echo "exit $?"
grep -E "^error" "$out/userview.err" | head -20
if grep -q "^Tensor-core GEMM on" "$out/userview.log"; then
  sed -n '/^Tensor-core GEMM on/,$p' "$out/userview.log"
else
  echo "(no table: the last lines of the run)"
  tail -n 25 "$out/userview.log"
fi
