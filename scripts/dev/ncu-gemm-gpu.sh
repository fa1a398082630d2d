#!/usr/bin/env bash
# Profiles (ncu, clocks left alone) one tuned 16-bit GEMM configuration and cuBLAS's kernel at the same shape, for the
# lead to run on the GPU machine from the repository root with a build folder carried over (gemm_tc_bench, tune,
# cutune-worker). Usage: scripts/dev/ncu-gemm-gpu.sh BUILD_DIR; SHAPE and WHERE pick the case, WHO=cutune leaves
# cuBLAS out. Reports under $OUT.
source "$(dirname "$0")/gpu_env.sh" "$@"
shape=${SHAPE:-4096x4096x4096}
where=${WHERE:-PATH == 1 and BM == 128 and BN == 256 and STAGES == 3 and GROUP_M == 8 and EPI_VEC == 64 and WG == 2 and CM == 2 and CN == 1 and PERSIST == 1 and MC == 0}
sections="--section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section ComputeWorkloadAnalysis"
tag=${TAG:-${shape//x/_}}
for who in ${WHO:-cutune cublas}; do
  [ $who = cutune ] && kernel='regex:^gemm_tc$' || kernel='regex:xmma|cutlass|sm90_'
  timeout 150 ncu --clock-control none --target-processes all -k "$kernel" -c 1 $sections \
    "$build"/bench/gemm_tc_bench --types bf16 --shapes "$shape" --where "$where" --budget 1 --db "$out/ncu_$tag.db" \
    >"$out/ncu_${tag}_$who.txt" 2>&1
  echo "== $who $shape (exit $?)"
  grep -E "^  [a-z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit Rate|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occupancy|Registers Per|Block Size|Grid Size|Stall|Pipe Utilization|Executed Ipc" "$out/ncu_${tag}_$who.txt" | head -30
done
