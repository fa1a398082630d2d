#!/usr/bin/env bash
# What the lead runs on the GPU machine for the simt branch: the GPU tests of the transpose and reduce templates,
# then the transpose benchmark at the awkward shapes and the reduce benchmark at 2^10 to 2^28, tables last.
#
# Build here first (bench on):
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON -DCUTUNE_BUILD_EXAMPLES=OFF
#   cmake --build build -j2 --target tune cutune-worker gpu_tests transpose_bench reduce_bench
# then on the GPU machine, from the repository root:  scripts/dev/simt-gpu.sh [BUILD_DIR]   (about 6 minutes)
#
# Expected:
#  1. gpu_tests: TransposeFullGpu.* (all 640 configurations exact at 14 small odd shapes; a 40-configuration sample at
#     the benchmark's shapes; misaligned buffers through the runtime), TransposeGpu.EveryConfigurationIsCorrectOnOddShapes
#     (the compact space on the changed source), ReduceGpu.EveryClusterConfigurationIsRight (768 cluster configurations
#     of reduce and reduce_max_f64 at 5 lengths), and the float sum's length test, the determinism and tuning tests (cluster
#     configurations among their samples) all pass.
#  2. transpose_bench (transpose_full, 128 configurations per shape with the default strategy): every odd shape at
#     >= 1.00x sgeam and >= 90% of copy. Expected winners: ALIGN=1 with VEC=4 at 4097x4097, 4095x4097 and 3000x4001
#     (rows whose starts are not 16-byte aligned read and written as float4 but for one partial chunk per tile row);
#     at 1x10000000 and 10000000x1 any configuration runs the vector copy (expect 90-100% of copy); at 33x100000 and
#     100000x33 a flat or tall tile (TH >= 64 or TW >= 64 covering the short side, VEC=4, ALIGN=1). The round shapes
#     stay at or above their issue-2 ratios (their old winner, TH=TW=64,VEC=4,THREADS=256,ALIGN=0, is in the space).
#  3. reduce_bench: 2^10..2^20 with 400 configurations per length, 2^24 and 2^28 with 250. Expected: CLUSTER=8 or 16
#     winning at 2^10..2^20 (one cluster, no global combine, at 2^10 and 2^16), >= 1.5x CUB at 2^16 and 2^20 if the
#     combine was the difference (see NOTES-simt.md for the arithmetic), >= 1.0x at 2^24 and 2^28.
set -uo pipefail
B="${1:-build}"
OUT="${OUT:-${TMPDIR:-/tmp}/simt-gpu}"
mkdir -p "$OUT"
export CUTUNE_WORKER="$PWD/$B/cutune-worker" CUTUNE_SOURCE_DIR="$PWD" CUTUNE_CACHE_DIR="$OUT/cache"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true

timeout 160 "$B/tests/gpu_tests" \
  --gtest_filter='TransposeFullGpu.*:TransposeGpu.EveryConfigurationIsCorrectOnOddShapes:ReduceGpu.SumFloat*:ReduceGpu.Deterministic*:ReduceGpu.EveryCluster*:ReduceGpu.ShortTuningRun' \
  > "$OUT/tests.txt" 2>&1
echo "gpu_tests rc $?" > "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|OK \]|FAILED \]" "$OUT/tests.txt" | tail -20 >> "$OUT/summary.txt"

timeout 90 "$B/bench/transpose_bench" --db "$OUT/transpose.db" --budget 128 --odd 4096x4096 8192x8192 4000x3000 \
  > "$OUT/transpose.txt" 2>&1
echo "transpose_bench rc $?" >> "$OUT/summary.txt"

timeout 75 "$B/bench/reduce_bench" --db "$OUT/reduce.db" --budget 400 1024 65536 1048576 > "$OUT/reduce-short.txt" 2>&1
echo "reduce_bench (short) rc $?" >> "$OUT/summary.txt"
timeout 60 "$B/bench/reduce_bench" --db "$OUT/reduce.db" --budget 250 16777216 268435456 > "$OUT/reduce-long.txt" 2>&1
echo "reduce_bench (long) rc $?" >> "$OUT/summary.txt"

cat "$OUT/summary.txt"
echo; grep -A20 "^transpose_full on" "$OUT/transpose.txt" || tail -5 "$OUT/transpose.txt"
echo; grep -A12 "^reduction on" "$OUT/reduce-short.txt" || tail -5 "$OUT/reduce-short.txt"
echo; grep -A8 "^reduction on" "$OUT/reduce-long.txt" | tail -n +2 || tail -5 "$OUT/reduce-long.txt"
