#!/usr/bin/env bash
# Cheaper compiles: on the GPU machine's CPU, (1) one compile at a time against 16 threads of one process
# against 16 processes (what sharing NVRTC in one process costs), (2) NVRTC's --Ofast-compile levels, (3) whether a
# kernel compiled with them is as fast: the same random configurations (same seed) tuned with and without, per
# configuration time ratios and each run's best. Logs in $OUT.
#   scripts/dev/compile-gpu.sh build-gpu
source "$(dirname "$0")/gpu_env.sh" "$1"
export CUDA_CACHE_DISABLE=1
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz" | head -8
cb=$build/bench/compile_bench
echo "=== one at a time, then 16 threads of one process"
$cb -k gemm -n 32 -j 16 | tail -2
$cb -k gemm_bf16 -n 32 -j 16 | tail -2
echo "=== 16 processes at once, 2 compiles each (gemm)"
for p in $(seq 16); do $cb -k gemm --count 2 >"$out/proc$p.log" 2>&1 & done; wait
grep -h "^mean" "$out"/proc*.log | awk '{s+=$2; n++} END {printf "16 processes: mean %.0f ms per compile over %d processes\n", s/n, n}'
echo "=== --Ofast-compile levels, one at a time"
for o in none min mid max; do
  opt=(); [ $o != none ] && opt=(--option=--Ofast-compile=$o)
  echo "gemm $o: $($cb -k gemm -n 12 "${opt[@]}" | tail -1)"
  echo "gemm_bf16 $o: $($cb -k gemm_bf16 -n 12 "${opt[@]}" | tail -1)"
done
echo "=== kernel speed with --Ofast-compile (random strategy, same seed)"
tpl=$(mktemp -d); cp "$CUTUNE_SOURCE_DIR"/templates/*/* "$tpl"/
for o in none min mid; do
  dir=$tpl/$o; mkdir -p "$dir"; cp "$tpl"/*.cu "$tpl"/*.json "$dir"/
  if [ $o != none ]; then
    python3 - "$dir" "$o" <<'PY'
import json, sys, pathlib
for name in ("gemm.json", "gemm_bf16.json"):
    p = pathlib.Path(sys.argv[1]) / name
    spec = json.loads(p.read_text())
    spec.setdefault("compile_options", []).append("--Ofast-compile=" + sys.argv[2])
    p.write_text(json.dumps(spec))
PY
  fi
  for k in "gemm 4096x4096x4096 120" "gemm_bf16 4096x4096x4096,1000x1000x1000,64x4096x4096 80"; do
    set -- $k
    CUTUNE_TEMPLATES_DIR=$dir /usr/bin/time -f "%e s wall %U s user" "$build/tune" --kernel $1 --shapes $2 \
      --strategy random --seed 3 --budget $3 --no-cache --db "$out/$1-$o.db" >"$out/$1-$o.log" 2>"$out/$1-$o.time"
    echo "$1 $o: $(tail -1 "$out/$1-$o.time"); $(grep -m1 "run time" "$out/$1-$o.log")"
    "$build/tune" db export --db "$out/$1-$o.db" -f csv -o "$out/$1-$o.csv"
  done
done
python3 - "$out" <<'PY'
import csv, sys, statistics, pathlib
out = pathlib.Path(sys.argv[1])
def load(k, o):
    rows = {}
    for r in csv.DictReader(open(out / f"{k}-{o}.csv")):
        if r["status"] == "ok" and r["median_ms"]:
            rows[(r["shape"], r["config"])] = float(r["median_ms"])
    return rows
for k in ("gemm", "gemm_bf16"):
    base = load(k, "none")
    for o in ("min", "mid"):
        other = load(k, o)
        for shape in sorted({s for s, _ in base}):
            common = [c for (s, c) in base if s == shape and (s, c) in other]
            if not common: continue
            ratios = sorted(other[(shape, c)] / base[(shape, c)] for c in common)
            b0 = min(base[(shape, c)] for c in common); b1 = min(other[(shape, c)] for c in common)
            print(f"{k} {shape} {o}: {len(common)} configs, time ratio median {statistics.median(ratios):.3f} "
                  f"p10 {ratios[len(ratios)//10]:.3f} p90 {ratios[9*len(ratios)//10]:.3f}; best {b1/b0:.3f} of without")
PY
