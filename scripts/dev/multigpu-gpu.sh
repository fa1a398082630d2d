#!/usr/bin/env bash
# Several-GPU checks on a machine with 2 GPUs of one model (nvidia-h200-x2): the GPU test, then the same
# budget tuned on one GPU and on both, warm (cubin cache filled first) and cold, with wall time and per-GPU counts.
# Run from the repository root with the build folder beside it (built on the development machine):
#   scripts/dev/multigpu-gpu.sh [BUILD_DIR]      results under $OUT (or /tmp/multigpu) as text
set -uo pipefail
build=${1:-build}
out=${OUT:-/tmp/multigpu}
mkdir -p "$out"
export CUTUNE_WORKER="$build/cutune-worker"
tune="$build/tune"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv | tee "$out/gpus.txt"

# 1. The GPU test (skips below 2 GPUs): every GPU measures a share, every result Ok, the winner re-timed.
"$build/tests/gpu_tests" --gtest_filter='MultiGpu.*' 2>&1 | tee "$out/gpu_test.txt"

# 2. Errors that need GPUs to see: a GPU that does not exist (expect "there is no GPU 7; this machine has 2 GPUs (0-1)").
"$tune" --kernel transpose --shapes 64x64 --db "$out/none.db" --devices 0,7 2>&1 | tee "$out/range.txt"

# 3. Two shapes in one run on both GPUs (the workers stay up between shapes): expect a "per GPU" line per shape, a
#    final table with a column per GPU, and `tune best` answering for both shapes as for a one-GPU run.
"$tune" --kernel transpose --shapes 4096x4096,1000x3000 --budget 100 --devices all --db "$out/shapes.db" \
  --cache-dir "$out/cache-shapes" 2>&1 | tee "$out/shapes.txt"
"$tune" best --kernel transpose --shape 1000x3000 --db "$out/shapes.db" 2>&1 | tee -a "$out/shapes.txt"

# 4. One GPU against both, same space and budget, warm and cold. gemm at 4096^3 has 456 configurations: budget 300
#    with exhaustive search, so that both runs measure the same configurations; the reduction at 2^28 has 1152.
run() {  # NAME DEVICES CACHE KERNEL SHAPE BUDGET
  local name=$1 devices=$2 cache=$3 kernel=$4 shape=$5 budget=$6
  rm -f "$out/$name.db"*
  local start=$(date +%s.%N)
  "$tune" --kernel "$kernel" --shapes "$shape" --budget "$budget" --strategy exhaustive --devices "$devices" \
    --cache-dir "$cache" --db "$out/$name.db" >"$out/$name.txt" 2>"$out/$name.err"
  local rc=$? end=$(date +%s.%N)
  printf '%-22s devices %-4s rc %d  wall %6.1f s\n' "$name" "$devices" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" | tee -a "$out/summary.txt"
  grep -E "per GPU|time spent|best  " "$out/$name.txt" | tee -a "$out/summary.txt"
}
: >"$out/summary.txt"
for case in "gemm 4096x4096x4096 300" "reduce 268435456 400"; do
  set -- $case
  kernel=$1 shape=$2 budget=$3
  cache="$out/cache-$kernel"
  rm -rf "$cache"
  run "$kernel-cold-all" all "$cache" "$kernel" "$shape" "$budget"   # cold: fills the cache
  run "$kernel-warm-one" 0 "$cache" "$kernel" "$shape" "$budget"
  run "$kernel-warm-all" all "$cache" "$kernel" "$shape" "$budget"
  rm -rf "$cache"
  run "$kernel-cold-one" 0 "$cache" "$kernel" "$shape" "$budget"
done
rm -rf "$out"/cache-*
echo "summary in $out/summary.txt"
