#!/usr/bin/env bash
# The GEMMs' serpentine tile order (RASTER=1): its GPU tests, then a paired A/B of the best configurations of several
# shapes with RASTER 0 and 1 (pair-gpu.sh).
# Usage: scripts/dev/raster-gpu.sh BUILD_DIR [tests] [ab]   (both without a phase named)
#   tests    gpu_tests: RASTER=1 samples at odd shapes of 256 tiles and more (beta 0 and 0.5), and the GEMMs' other GPU
#            tests, whose samples draw RASTER=1 where their shapes allow it
#   ab       per kernel (KERNELS: gemm_bf16 gemm_fp8) and shape (SHAPES), the TOP (3) configurations of
#            `tune --budget 60 --where "RASTER == 0 and SHAPED == 0"`, with RASTER 0 and 1, paired
# Logs and databases under $OUT; the tables last.
source "$(dirname "$0")/gpu_env.sh" "$1"
shift
phases=${*:-tests ab}
shapes=${SHAPES:-4096x4096x4096 8192x8192x1024 2048x2048x2048}
for phase in $phases; do
  case $phase in
  tests)
    timeout ${TESTS_S:-200} "$build"/tests/gpu_tests \
      --gtest_filter="${TESTS:-*GemmRaster*:*GemmShaped*:*Wgmma*Correct*:*Fp8*Correct*}" >"$out/tests.log" 2>&1
    echo "tests exit $?"
    grep -E "^\[  (PASSED|FAILED) |^\[==========\]|correct|checked elements" "$out/tests.log"
    ;;
  ab)
    PARAM=RASTER SHAPES="$shapes" "$(dirname "$0")"/pair-gpu.sh "$build"
    ;;
  esac
done
