#!/usr/bin/env bash
# FP8 GEMMs on the GPU. Usage: scripts/dev/fp8-gpu.sh BUILD_DIR STEP... with steps
#   tests    the FP8 GPU tests (and the 16-bit wgmma tests that share its code)
#   subspace every configuration of a subspace (SUBSPACE, default around the large shapes' winners) measured at SHAPES
#            (default 4096x4096x4096,8192x8192x8192,2048x2048x2048), exported as CSV (to pair a new parameter's values)
#   bench    bench/gemm_fp8_bench (tuned --budget 60 against cublasLtMatmul) under write and read, KERNELS
#            (default gemm_fp8)
#   scaled   gemm_fp8 against gemm_fp8_blockscaled, each tuned at --budget 60 at SHAPES
#   ncu      an ncu profile (clocks left alone) of cuBLASLt's FP8 kernel and of one gemm_fp8 configuration (WHERE)
#            at SHAPE (default 4096x4096x4096)
#   ncusrc   the same two kernels with ncu's full set and its per-instruction (SASS) page as CSV under $OUT, for stall
#            reasons instruction by instruction
#   ncu16    the same for one 16-bit configuration (WHERE16) at SHAPE, the FP8 kernel's counterpart on the same code
# Logs under $OUT; short tables last.
source "$(dirname "$0")/gpu_env.sh" "$1"
shift
shapes=${SHAPES:-4096x4096x4096,8192x8192x8192,2048x2048x2048}
for step in "$@"; do
  case $step in
  tests)
    echo "== GPU tests: FP8"
    timeout 560 "$build"/tests/gpu_tests --gtest_filter='*GemmFp8*' \
      >"$out/gpu_tests.log" 2>&1
    echo "gpu_tests exit $?"
    grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) *\]|tests ran" "$out/gpu_tests.log" | head -40 ;;
  subspace)
    where=${SUBSPACE:-SWAP == 0 and WG == 2 and PROMOTE == 1 and PINGPONG == 0 and BM == 128 and BN >= 128 and STAGES >= 3 and STAGES <= 6 and SPLITK == 1 and STREAMK == 0 and EPI == 0 and MC == 0}
    "$build"/tune --kernel gemm_fp8 --shapes "$shapes" --where "$where" --strategy exhaustive --budget 400 \
      --db "$out/subspace.db" >"$out/subspace.log" 2>&1
    echo "tune exit $?"
    tail -5 "$out/subspace.log"
    "$build"/tune db export --db "$out/subspace.db" --format csv -o "$out/subspace.csv"
    echo "exported $(wc -l <"$out/subspace.csv") rows" ;;
  bench)
    for kernel in ${KERNELS:-gemm_fp8}; do
      echo "== gemm_fp8_bench $kernel"
      log="$out/bench_$kernel${TAG:+_$TAG}"  # TAG: calls of one run keep their logs apart
      timeout 560 "$build"/bench/gemm_fp8_bench --kernels "$kernel" --flush write,read ${BENCH_ARGS:-} \
        >"$log.log" 2>"$log.err"
      echo "exit $?"
      cat "$log.log" | tail -40
      grep -E "^error|FAILED" "$log.err" | head -5
    done ;;
  scaled)
    for kernel in gemm_fp8 gemm_fp8_blockscaled; do
      "$build"/tune --kernel "$kernel" --shapes "$shapes" --budget 60 --db "$out/scaled.db" >"$out/scaled_$kernel.log" 2>&1
      echo "$kernel exit $?"
    done
    for shape in ${shapes//,/ }; do
      for kernel in gemm_fp8 gemm_fp8_blockscaled; do
        echo "$shape $kernel $("$build"/tune best --db "$out/scaled.db" --kernel "$kernel" --shape "$shape" |
          grep -E '^(time|metric) ' | awk '{printf "%s %s  ", $1, $2}')"
      done
    done ;;
  ncu)
    shape=${SHAPE:-4096x4096x4096}
    where=${WHERE:-BM == 128 and BN == 192 and WG == 2 and PROMOTE == 1 and CM == 2 and PERSIST == 1 and STAGES == 4 and GROUP_M == 8 and EPI == 0}
    sections="--section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy"
    for who in cutune cublaslt; do
      [ $who = cutune ] && kernel='regex:^gemm_fp8$' || kernel='regex:nvjet|xmma|cutlass|sm90_'
      timeout 150 ncu --clock-control none --target-processes all -k "$kernel" -c 1 $sections \
        "$build"/bench/gemm_fp8_bench --shapes "$shape" --where "$where" --budget 1 --flush write >"$out/ncu_$who.txt" 2>&1
      echo "== $who $shape (exit $?)"
      grep -E "^  [a-z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit Rate|Warp Cycles Per Issued|Issue Slots Busy|Registers Per|Block Size|Grid Size|Dynamic Shared" "$out/ncu_$who.txt" | head -24
    done ;;
  ncusrc)
    shape=${SHAPE:-4096x4096x4096}
    where=${WHERE:-BM == 128 and BN == 192 and WG == 2 and PROMOTE == 1 and CM == 2 and PERSIST == 1 and STAGES == 4 and GROUP_M == 8 and EPI == 0}
    for who in cutune cublaslt; do
      [ $who = cutune ] && kernel='regex:^gemm_fp8$' || kernel='regex:nvjet|xmma|cutlass|sm90_'
      timeout 200 ncu --clock-control none --target-processes all -k "$kernel" -c 1 --set full -o "$out/src_$who" \
        "$build"/bench/gemm_fp8_bench --shapes "$shape" --where "$where" --budget 1 --flush write >"$out/src_$who.txt" 2>&1
      echo "== $who $shape (exit $?)"
      ncu -i "$out/src_$who.ncu-rep" --page source --csv --print-source sass >"$out/src_$who.csv" 2>&1
      ncu -i "$out/src_$who.ncu-rep" --page details --csv >"$out/details_$who.csv" 2>&1
      echo "source rows $(wc -l <"$out/src_$who.csv")"
      rm -f "$out/src_$who.ncu-rep"
    done ;;
  ncu16)
    shape=${SHAPE:-4096x4096x4096}
    where=${WHERE16:-PATH == 1 and BM == 128 and BN == 256 and STAGES == 4 and WG == 2 and EPI_VEC == 64 and EPI_SLICE == 1}
    timeout 200 ncu --clock-control none --target-processes all -k 'regex:^gemm_tc$' -c 1 --set full -o "$out/src_bf16" \
      "$build"/bench/gemm_tc_bench --types bf16 --shapes "$shape" --where "$where" --budget 1 --flush write \
      >"$out/src_bf16.txt" 2>&1
    echo "== bf16 $shape (exit $?)"
    ncu -i "$out/src_bf16.ncu-rep" --page source --csv --print-source sass >"$out/src_bf16.csv" 2>&1
    ncu -i "$out/src_bf16.ncu-rep" --page details --csv >"$out/details_bf16.csv" 2>&1
    echo "source rows $(wc -l <"$out/src_bf16.csv")"
    rm -f "$out/src_bf16.ncu-rep" ;;
  *) echo "unknown step $step" ;;
  esac
done
