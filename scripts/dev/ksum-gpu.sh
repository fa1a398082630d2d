#!/usr/bin/env bash
# Split-K summed through the cluster's shared memory (KSUM=1) against the workspace (KSUM=0): its GPU tests, then one
# family of gemm_bf16 measured exhaustively at 1000³ (untransposed tiles of 128 rows) and at 64x4096x4096 (SWAP=1,
# 64-row tiles) with the fastest per SPLITK / KSUM, then the user view (tune --budget 60 defaults, runtime against
# cublasGemmEx) at SHAPES (default: those two). L2 write-flushed for the families.
# Usage: scripts/dev/ksum-gpu.sh BUILD_DIR; logs under $OUT, a short table last.
source "$(dirname "$0")/gpu_env.sh" "$1"
timeout 200 "$build"/tests/gpu_tests --gtest_filter='GemmKsumGpu.*' >"$out/ksum_tests.log" 2>&1
echo "gpu_tests GemmKsumGpu exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  SKIPPED" "$out/ksum_tests.log"
SCRIPT=$(dirname "$0")/widths-gpu.sh
SHAPES=1000x1000x1000 KEY="SPLITK KSUM" WHERE="PATH == 1 and SWAP == 0 and SPLITK > 1 and SPLITK <= 4 and SHAPED == 0 and CM * CN == 1 and GROUP_M == 1 and RASTER == 0 and STAGES >= 3 and EPI_VEC >= 8 and EPI_SLICE == 0 and BM >= 128" \
  bash "$SCRIPT" "$1" >"$out/ksum_cube.txt"
mv "$out/widths.csv" "$out/ksum_cube.csv"; rm -f "$out/widths.db"
SHAPES=64x4096x4096 KEY="SPLITK KSUM" WHERE="PATH == 1 and SWAP == 1 and SPLITK > 1 and SHAPED == 0 and CM * CN == 1 and STAGES >= 4 and EPI_VEC == 8 and BM == 64" \
  bash "$SCRIPT" "$1" >"$out/ksum_skinny.txt"
mv "$out/widths.csv" "$out/ksum_skinny.csv"
timeout 150 "$build"/bench/gemm_user_view --types bf16 --budget 60 --time 16 --shapes "${USER_SHAPES:-1000x1000x1000,64x4096x4096}" \
  >"$out/userview.log" 2>"$out/userview.err"
echo "user view exit $?"
cut -c1-40 "$out/ksum_cube.txt" "$out/ksum_skinny.txt"
sed -n '/^Tensor-core GEMM on/,$p' "$out/userview.log"
