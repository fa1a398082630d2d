#!/usr/bin/env bash
# One family of the 16-bit wgmma kernel measured exhaustively at several shapes, and its fastest configuration per value
# of some parameters: by default every tile width BN of two consumer warpgroups on 128-row persistent tiles with TMA
# stores (GROUP_M 8), with the stages and epilogue slices each width allows, and the best width that is not a multiple
# of 64 against the best that is. KERNEL (gemm_bf16), SHAPES, WHERE (the family) and KEY (the parameters to group by,
# default BN) override.
# L2 write-flushed. Usage: scripts/dev/widths-gpu.sh BUILD_DIR; logs, databases and CSVs under $OUT.
source "$(dirname "$0")/gpu_env.sh" "$1"
shapes=${SHAPES:-4096x4096x4096 4096x7168x4096 3072x3072x3072 2048x5120x4096}
family=${WHERE:-PATH == 1 and SWAP == 0 and WG == 2 and BM == 128 and PERSIST == 1 and EPI_VEC == 64 and STREAMK == 0 and CM == 1 and CN == 1 and MC == 0 and PINGPONG == 0 and SHAPED == 0 and RASTER == 0 and GROUP_M == 8}
for s in $shapes; do
  timeout 150 "$build"/tune --kernel ${KERNEL:-gemm_bf16} --shapes $s --strategy exhaustive --where "$family" --flush write \
    --repeats 40 --db "$out/widths.db" >>"$out/widths_tune.log" 2>&1
  echo "tune $s exit $?"
done
"$build"/tune db export --db "$out/widths.db" --format csv -o "$out/widths.csv"
python3 - "$out/widths.csv" ${KEY:-BN} <<'PY'
import collections, csv, sys
keys = sys.argv[2:]
best = collections.defaultdict(dict)  # shape -> values of the key parameters -> (fastest median, its configuration)
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] != "ok":
        continue
    c = dict(kv.split("=") for kv in r["config"].split(","))
    key, t = tuple(int(c[k]) for k in keys), float(r["median_ms"])
    if key not in best[r["shape"]] or t < best[r["shape"]][key][0]:
        best[r["shape"]][key] = (t, r["config"])
for shape, per in best.items():
    print(f"{shape}: fastest per {'/'.join(keys)}, us")
    for key, (t, config) in sorted(per.items()):
        print(f"  {'/'.join(map(str, key)):>10s} {t * 1000:8.1f}  {config}")
    if keys == ["BN"]:
        pow64 = min(t for (bn,), (t, _) in per.items() if bn % 64 == 0)
        other = min((t, bn) for (bn,), (t, _) in per.items() if bn % 64 != 0)
        print(f"  best of BN % 64 != 0 (BN {other[1]}) against the best of the multiples of 64: {pow64 / other[0]:.3f}x")
PY
