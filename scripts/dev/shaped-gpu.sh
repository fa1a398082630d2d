#!/usr/bin/env bash
# Kernels compiled for their shape (SHAPED=1): their GPU tests, what the specialization costs in compile time, and a
# paired A/B of the best configurations of several shapes with SHAPED 0 and 1.
# Usage: scripts/dev/shaped-gpu.sh BUILD_DIR [tests] [compile] [ab]   (all three without a phase named)
#   tests    gpu_tests: the specialized samples at odd shapes (beta 0 and 0.5), the runtime compiling a stored
#            specialized configuration for the requested shape, TF32's runtime launch
#   compile  compile_bench: COUNT (6) configurations of gemm_bf16's PATH 1 and of gemm_fp8 at 4096^3, one at a time,
#            SHAPED=0 and then the same configurations with SHAPED=1
#   ab       per kernel (KERNELS: gemm_bf16 gemm_fp8) and shape (SHAPES), `tune --budget 60 --where "SHAPED == 0"`
#            (the default search, L2 write-flushed), then its TOP (3) configurations with SHAPED 0 and 1, exhaustively,
#            twice (two databases; the pair is measured one after the other), and the medians paired
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
    for k in $kernels; do
      for shape in $shapes; do
        s=$shape
        [ $k = gemm_fp8 ] && [ $shape = 1000x1000x1000 ] && s=1000x1000x1024  # FP8's K: a multiple of 16
        timeout 120 "$build"/tune --kernel $k --shapes $s --budget 60 --where "SHAPED == 0" --flush write \
          --db "$out/best_$k.db" >>"$out/ab_tune.log" 2>&1
        echo "best $k $s exit $?"
        "$build"/tune db export --db "$out/best_$k.db" --format csv -o "$out/best_$k.csv"
        where=$(python3 - "$out/best_$k.csv" $s "${TOP:-3}" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["shape"] == sys.argv[2] and r["status"] == "ok"]
rows.sort(key=lambda r: float(r["median_ms"]))
terms = []
for r in rows[: int(sys.argv[3])]:
    parts = [kv.split("=") for kv in r["config"].split(",") if not kv.startswith("SHAPED=")]
    terms.append("(" + " and ".join(f"{n} == {v}" for n, v in parts) + ")")
print(" or ".join(terms))
PY
)
        for run in 1 2; do
          timeout 120 "$build"/tune --kernel $k --shapes $s --strategy exhaustive --where "$where" --flush write \
            --repeats 60 --max-measure-ms 40 --db "$out/pair${run}_$k.db" >>"$out/ab_pairs.log" 2>&1
          echo "pair $run $k $s exit $?"
        done
      done
      for run in 1 2; do
        "$build"/tune db export --db "$out/pair${run}_$k.db" --format csv -o "$out/pair${run}_$k.csv"
      done
    done
    python3 - "$out" $kernels <<'PY'
import csv, os, sys
out = sys.argv[1]
print("== paired: kernel, shape, configuration (SHAPED aside), SHAPED=0 us, SHAPED=1 us, 1/0 (run 1; run 2)")
for k in sys.argv[2:]:
    t = {}
    for run in (1, 2):
        path = f"{out}/pair{run}_{k}.csv"
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path)):
            if r["status"] != "ok":
                continue
            shaped = "SHAPED=1" in r["config"]
            base = ",".join(kv for kv in r["config"].split(",") if not kv.startswith("SHAPED="))
            t.setdefault((r["shape"], base), {})[(run, shaped)] = float(r["median_ms"]) * 1000
    for (shape, base), v in sorted(t.items()):
        cells = []
        for run in (1, 2):
            if (run, False) in v and (run, True) in v:
                cells.append(f"{v[(run, False)]:8.2f} {v[(run, True)]:8.2f} {v[(run, True)] / v[(run, False)]:6.3f}")
        print(f"{k:10s} {shape:16s} {' ; '.join(cells)}  {base[:110]}")
PY
    ;;
  esac
done
