#!/usr/bin/env bash
# A paired A/B of one 0/1 parameter (PARAM: SHAPED, RASTER, ...) on the best configurations of several shapes: per
# kernel (KERNELS: gemm_bf16 gemm_fp8) and shape (SHAPES), `tune --budget 60` with PARAM 0 and SHAPED 0 (the default
# search, L2 write-flushed), then its TOP (3) configurations with PARAM 0 and 1, exhaustively, twice (two databases;
# each pair is measured one after the other), and the medians paired (a configuration PARAM=1 rules out at the shape
# has no pair). Usage: scripts/dev/pair-gpu.sh BUILD_DIR, with PARAM and SHAPES set; logs and databases under $OUT.
source "$(dirname "$0")/gpu_env.sh" "$1"
param=${PARAM:?PARAM names the parameter}
shapes=${SHAPES:?SHAPES lists the shapes}
kernels=${KERNELS:-gemm_bf16 gemm_fp8}
tuned="$param == 0 and SHAPED == 0"
[ "$param" = SHAPED ] && tuned="SHAPED == 0"
for k in $kernels; do
  for shape in $shapes; do
    s=$shape
    [ $k = gemm_fp8 ] && [ $shape = 1000x1000x1000 ] && s=1000x1000x1024  # FP8's K: a multiple of 16
    timeout 120 "$build"/tune --kernel $k --shapes $s --budget 60 --where "$tuned" --flush write \
      --db "$out/best_$k.db" >>"$out/ab_tune.log" 2>&1
    echo "best $k $s exit $?"
    "$build"/tune db export --db "$out/best_$k.db" --format csv -o "$out/best_$k.csv"
    where=$(python3 - "$out/best_$k.csv" $s "${TOP:-3}" "$param" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["shape"] == sys.argv[2] and r["status"] == "ok"]
rows.sort(key=lambda r: float(r["median_ms"]))
terms = []
for r in rows[: int(sys.argv[3])]:
    parts = [kv.split("=") for kv in r["config"].split(",") if not kv.startswith(sys.argv[4] + "=")]
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
python3 - "$out" "$param" $kernels <<'PY'
import csv, os, sys
out, param = sys.argv[1], sys.argv[2]
print(f"== paired: kernel, shape, {param}=0 us, {param}=1 us, 1/0 (run 1; run 2), configuration ({param} aside)")
for k in sys.argv[3:]:
    t = {}
    for run in (1, 2):
        path = f"{out}/pair{run}_{k}.csv"
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path)):
            if r["status"] != "ok":
                continue
            one = f"{param}=1" in r["config"].split(",")
            base = ",".join(kv for kv in r["config"].split(",") if not kv.startswith(param + "="))
            t.setdefault((r["shape"], base), {})[(run, one)] = float(r["median_ms"]) * 1000
    for (shape, base), v in sorted(t.items()):
        cells = []
        for run in (1, 2):
            if (run, False) in v and (run, True) in v:
                cells.append(f"{v[(run, False)]:8.2f} {v[(run, True)]:8.2f} {v[(run, True)] / v[(run, False)]:6.3f}")
        print(f"{k:10s} {shape:16s} {' ; '.join(cells) or 'no pair'}  {base[:110]}")
PY
