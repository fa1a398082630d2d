#!/usr/bin/env bash
# A template change measured configuration by configuration: the default search's first BUDGET proposals (the spec's
# start list first: the same configurations on both sides) tuned at SHAPES by two builds' benches, FP8
# (gemm_fp8_bench) and 16-bit (gemm_tc_bench, TYPES), each with its own worker; the medians of the configurations
# measured on both sides paired last (tuner's timing, L2 write-flushed).
# Usage: scripts/dev/ab-gpu.sh OLD_DIR NEW_BUILD_DIR, OLD_DIR holding gemm_fp8_bench, gemm_tc_bench and cutune-worker
# as built before the change (the templates are compiled into them). NO_TC=1 leaves the 16-bit side out; FP8_ARGS
# go to gemm_fp8_bench (e.g. --where).
source "$(dirname "$0")/gpu_env.sh" "$2"
old=$(cd "$1" && pwd)
shapes=${SHAPES:-4096x4096x4096,8192x8192x256,2048x2048x2048,8192x8192x8192}
budget=${BUDGET:-8}
for side in old new; do
  [ $side = old ] && fp8=$old/gemm_fp8_bench tc=$old/gemm_tc_bench worker=$old/cutune-worker ||
    fp8=$build/bench/gemm_fp8_bench tc=$build/bench/gemm_tc_bench worker=$build/cutune-worker
  export CUTUNE_WORKER=$worker CUTUNE_CACHE_DIR=$(mktemp -d)
  timeout 280 "$fp8" ${FP8_ARGS:-} --shapes "$shapes" --budget "$budget" --flush write --db "$out/fp8_$side.db" >"$out/fp8_$side.log" 2>&1
  echo "fp8 $side exit $?"
  if [ -z "${NO_TC:-}" ]; then
    timeout 200 "$tc" --types ${TYPES:-bf16} --shapes "$shapes" --budget "$budget" --flush write --db "$out/tc_$side.db" \
      >"$out/tc_$side.log" 2>&1
    echo "tc $side exit $?"
  fi
  for k in fp8 tc; do [ -f "$out/${k}_$side.db" ] && "$build"/tune db export --db "$out/${k}_$side.db" --format csv -o "$out/${k}_$side.csv"; done
done
python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
for k in ("fp8", "tc"):
    t = {}
    if not os.path.exists(f"{out}/{k}_old.csv"):
        continue
    for side in ("old", "new"):
        with open(f"{out}/{k}_{side}.csv", newline="") as f:
            for r in csv.DictReader(f):
                if r["status"] == "ok":
                    t.setdefault((r["kernel"], r["shape"], r["config"]), {})[side] = float(r["median_ms"]) * 1000
    print(f"== {k}: old us, new us, new/old")
    for (kern, shape, cfg), v in sorted(t.items()):
        if len(v) == 2:
            print(f"{kern:14s} {shape:16s} {v['old']:9.1f} {v['new']:9.1f} {v['new'] / v['old']:6.3f}  {cfg[:90]}")
PY
for f in fp8_old fp8_new tc_old tc_new; do [ -f "$out/$f.log" ] && tail -8 "$out/$f.log"; done
