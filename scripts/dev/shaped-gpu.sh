#!/usr/bin/env bash
# Kernels compiled for their shape (SHAPED=1): their GPU tests, what the specialization costs in compile time, and a
# paired A/B of the best configurations of several shapes with SHAPED 0 and 1.
# Usage: scripts/dev/shaped-gpu.sh BUILD_DIR [tests] [compile] [ab]   (all three without a phase named)
#   tests    gpu_tests: the specialized samples at odd shapes (beta 0 and 0.5), the runtime compiling a stored
#            specialized configuration for the requested shape, TF32's runtime launch
#   compile  compile_bench: COUNT (6) configurations of gemm_bf16's PATH 1 and of gemm_fp8 at 4096^3, one at a time,
#            SHAPED=0 and then the same configurations with SHAPED=1
#   ab       pair-gpu.sh with PARAM=SHAPED: per kernel (KERNELS: gemm_bf16 gemm_fp8) and shape (SHAPES) the TOP (3)
#            configurations of `tune --budget 60 --where "SHAPED == 0"`, with SHAPED 0 and 1, paired
# Logs and databases under $OUT; the tables last.
source "$(dirname "$0")/gpu_env.sh" "$1"
shift
phases=${*:-tests compile ab}
shapes=${SHAPES:-1000x1000x1000 4096x4096x64 128x128x16384 64x4096x4096 4096x4096x4096}
kernels=${KERNELS:-gemm_bf16 gemm_fp8}
for phase in $phases; do
  case $phase in
  tests)
    timeout 400 "$build"/tests/gpu_tests --gtest_filter='*GemmShaped*:*RuntimeLaunchesPath1*' >"$out/tests.log" 2>&1
    echo "tests exit $?"
    grep -E "^\[  (PASSED|FAILED) |correct|checked elements" "$out/tests.log"
    ;;
  compile)
    for k in gemm_bf16 gemm_fp8; do
      base=""
      [ $k = gemm_bf16 ] && base="PATH == 1 and "
      for s in 0 1; do
        timeout 200 "$build"/bench/compile_bench --kernel $k --shape 4096x4096x4096 --count "${COUNT:-6}" \
          --where "${base}SHAPED == $s" >"$out/compile_${k}_$s.log" 2>&1
        echo "compile $k SHAPED=$s exit $?: $(grep '^mean' "$out/compile_${k}_$s.log")"
      done
    done
    ;;
  ab)
    PARAM=SHAPED SHAPES="$shapes" KERNELS="$kernels" "$(dirname "$0")"/pair-gpu.sh "$build"
    ;;
  esac
done
