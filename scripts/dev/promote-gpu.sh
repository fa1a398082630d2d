#!/usr/bin/env bash
# The FP8 main loop before and after a template change, with one build: the binaries read their templates from
# CUTUNE_TEMPLATES_DIR, OLD_TEMPLATES and NEW_TEMPLATES (folders laid out as templates/). Usage:
# scripts/dev/promote-gpu.sh BUILD_DIR STEP... with steps
#   ab      a few configurations (CONFIGS, `tune --where` terms) at SHAPES, exhaustively, with each side's templates in
#           turn (old, new, new, old), each pair measured in one call; the medians paired last (tuner's timing,
#           L2 write-flushed)
#   bench   gemm_fp8_bench against cublasLtMatmul at SHAPES, the configurations narrowed to BENCH_WHERE, each side
#   ncu     ncu (clocks left alone) of one configuration (NCU_WHERE) with each side's templates and of cuBLASLt's
#           kernel at SHAPE: speed of light, instruction statistics with the count of each SASS opcode, warp states
#           and the stall reasons (warps stalled per issued instruction)
#   tests   the FP8 GPU tests with the new templates, in four shards at once
# Logs under $OUT; short tables last.
source "$(dirname "$0")/gpu_env.sh" "$1"
shift
old_t=$(cd "${OLD_TEMPLATES:?}" && pwd) new_t=$(cd "${NEW_TEMPLATES:?}" && pwd)
shapes=${SHAPES:-2048x2048x2048,4096x4096x4096,8192x8192x8192}
fixed="BM == 128 and WG == 2 and SWAP == 0 and MC == 0 and STREAMK == 0 and PINGPONG == 0 and SPLITK == 1 and SHAPED == 0 and RASTER == 0 and KSUM == 0"
configs=${CONFIGS:-(BN == 128 and STAGES == 4 and PERSIST == 1 and EPI == 1 and EPI_SLICE == 1 and ((CN == 2 and GROUP_M == 1) or (CM == 2 and GROUP_M == 8 and PROMOTE == 4))) or (BN == 192 and STAGES == 4 and PROMOTE == 4 and CM == 2 and PERSIST == 1 and GROUP_M == 8 and EPI == 1 and EPI_SLICE == 0)}
templates_of() { [ "$1" = old ] && echo "$old_t" || echo "$new_t"; }
for step in "$@"; do
  case $step in
  ab)
    for side in old new new old; do
      run=$([ -f "$out/ab_${side}1.db" ] && echo 2 || echo 1)
      CUTUNE_TEMPLATES_DIR=$(templates_of $side) CUTUNE_CACHE_DIR=$out/cache_$side timeout "${AB_TIMEOUT:-60}" "$build"/tune \
        --kernel gemm_fp8 --shapes "$shapes" --strategy exhaustive --where "$fixed and PROMOTE >= 1 and ($configs)" \
        --flush write --repeats 60 --max-measure-ms 40 --db "$out/ab_$side$run.db" >"$out/ab_$side$run.log" 2>&1
      echo "ab $side $run exit $? $(date +%T)"
      "$build"/tune db export --db "$out/ab_$side$run.db" --format csv -o "$out/ab_$side$run.csv"
    done
    python3 - "$out" <<'PY'
import csv, os, sys
out, t = sys.argv[1], {}
for side in ("old", "new"):
    for run in (1, 2):
        path = f"{out}/ab_{side}{run}.csv"
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path)):
            if r["status"] == "ok":
                t.setdefault((r["shape"], r["config"]), {})[(side, run)] = float(r["median_ms"]) * 1000
            else:
                print("not ok:", side, run, r["shape"], r["status"], r["config"][:100])
print("== shape, old us (run 1, 2), new us (run 1, 2), new/old, configuration")
for (shape, cfg), v in sorted(t.items()):
    o = [v.get(("old", r)) for r in (1, 2)]
    n = [v.get(("new", r)) for r in (1, 2)]
    oo = [x for x in o if x]; nn = [x for x in n if x]
    ratio = f"{(sum(nn) / len(nn)) / (sum(oo) / len(oo)):6.3f}" if oo and nn else "   -  "
    keep = ",".join(kv for kv in cfg.split(",") if kv.split("=")[0] in ("BN", "PROMOTE", "CM", "CN", "GROUP_M", "EPI_SLICE"))
    fmt = lambda xs: " ".join(f"{x:7.1f}" if x else "      -" for x in xs)
    print(f"{shape:16s} {fmt(o)}  {fmt(n)}  {ratio}  {keep}")
PY
    ;;
  bench)
    for side in old new; do
      CUTUNE_TEMPLATES_DIR=$(templates_of $side) CUTUNE_CACHE_DIR=$out/cache_$side timeout 150 \
        "$build"/bench/gemm_fp8_bench --kernels gemm_fp8 --shapes "$shapes" --where "${BENCH_WHERE:-$fixed}" \
        --budget "${BUDGET:-8}" --flush write,read >"$out/bench_$side.log" 2>"$out/bench_$side.err"
      echo "== bench $side exit $? $(date +%T)"
      tail -6 "$out/bench_$side.log"
    done ;;
  ncu)
    shape=${SHAPE:-4096x4096x4096}
    where=${NCU_WHERE:-$fixed and BN == 128 and STAGES == 4 and PROMOTE == 4 and CM == 1 and CN == 2 and PERSIST == 1 and GROUP_M == 1 and EPI == 1 and EPI_SLICE == 1}
    sections="--section SpeedOfLight --section InstructionStats --section WarpStateStats --section SchedulerStats"
    for who in old new cublaslt; do
      [ $who = cublaslt ] && kernel='regex:nvjet|xmma|cutlass|sm90_' || kernel='regex:^gemm_fp8$'
      CUTUNE_TEMPLATES_DIR=$(templates_of $who) CUTUNE_CACHE_DIR=$out/cache_$who timeout "${NCU_TIMEOUT:-90}" ncu --clock-control none \
        --target-processes all -k "$kernel" -c 1 $sections \
        --metrics "sass__inst_executed_per_opcode,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
        --print-metric-instances details "$build"/bench/gemm_fp8_bench --shapes "$shape" --where "$where" --budget 1 \
        --flush write >"$out/ncu_$who.txt" 2>&1
      echo "== $who $shape (exit $?) $(date +%T)"
      grep -E "^  [a-z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Executed Instructions  |Issue Slots Busy|Issued Ipc|Warp Cycles Per Issued|No Eligible" "$out/ncu_$who.txt" | head -12
    done ;;
  tests)
    for shard in 0 1 2 3; do
      CUTUNE_TEMPLATES_DIR=$new_t CUTUNE_CACHE_DIR=$out/cache_test$shard GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$shard \
        timeout "${TEST_TIMEOUT:-150}" "$build"/tests/gpu_tests \
        --gtest_filter="${TESTS:-*GemmFp8*}" >"$out/gpu_tests_$shard.log" 2>&1 &
    done
    wait
    for shard in 0 1 2 3; do
      echo "shard $shard: $(grep -E '^\[ *(PASSED|FAILED) *\]|tests ran' "$out/gpu_tests_$shard.log" | tr '\n' ' ')"
    done
    grep -h -E "^\[  FAILED  \]" "$out"/gpu_tests_*.log | sort -u | head -20 ;;
  *) echo "unknown step $step" ;;
  esac
done
