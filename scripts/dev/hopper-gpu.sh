#!/usr/bin/env bash
# GPU checks of the hopper branch (sm_90a targets, tensor-map arguments, clusters), for the lead to run once on the
# GPU machine from the repository root with the build folder carried over (built here with
#   cmake --build build -j2 --target gpu_tests tune cutune-worker).
#
# Expected (compute capability 9.0, H100 or H200):
#   1. gpu_tests HopperGpu.*: 3 tests PASSED (on a GPU below 9.0 they skip, saying so). Any configuration that is not
#      Ok is printed with its status and message: a launch_error naming cuTensorMapEncodeTiled or
#      cuOccupancyMaxActiveClusters points at the framework, a wrong_result at the kernel (swizzle, cluster).
#   2. The other GPU tests still pass: the workbench now launches through measure/cluster_launch.cpp.
#   3. tune: the log line "tuning copy2d_tma 8192x8192 on ...: 1176 valid configurations (3432 removed by constraints,
#      0 by device limits, 0 by target sm_90), 0 stored", every result ok (the summary says 0 failed), and a best
#      near the device's copy bandwidth (the table's ratio column; about 0.8 to 1.0 expected). At 1000x1000 the same
#      counts.
#   4. tune space --arch sm_80 says "0 valid configurations ... 1176 by target sm_80".
set -uo pipefail
out=${OUT:-/tmp}
export CUTUNE_SOURCE_DIR=$PWD
export CUTUNE_CACHE_DIR=$(mktemp -d)
export CUTUNE_WORKER=$PWD/build/cutune-worker

nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
echo "== 1. Hopper GPU tests"
build/tests/gpu_tests --gtest_filter='HopperGpu.*' 2>&1 | tail -20
echo "== 2. the other GPU tests (launch path changed)"
timeout 420 build/tests/gpu_tests --gtest_filter='-HopperGpu.*:GemmTcGpu.*' 2>&1 | tail -15
echo "== 3. a short tuning run"
SPDLOG_LEVEL=info build/tune --kernel copy2d_tma --shapes 8192x8192,1000x1000 --budget 120 --db "$out/hopper.db" 2>&1 | tail -30
build/tune best --kernel copy2d_tma --shape 8192x8192 --db "$out/hopper.db"
echo "== 4. counts by target"
build/tune space --kernel copy2d_tma --shape 8192x8192
build/tune space --kernel copy2d_tma --shape 8192x8192 --arch sm_80
