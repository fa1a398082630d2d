#!/usr/bin/env bash
# The 16-bit wgmma kernel's tile widths: at each shape (SHAPES), one family of configurations (two consumer
# warpgroups, 128-row persistent tiles with TMA stores, GROUP_M 8: WHERE overrides) measured exhaustively over every
# width BN (and for those that are not multiples of 64, both layouts of B's boxes: BOX64 0 and 1, 'w' in the table)
# and the stages and epilogue slices each allows, L2 write-flushed, then the fastest configuration per BN and the best
# width that is not a multiple of 64 against the best that is. Usage: scripts/dev/widths-gpu.sh BUILD_DIR;
# logs, databases and CSVs under $OUT.
source "$(dirname "$0")/gpu_env.sh" "$1"
shapes=${SHAPES:-4096x4096x4096 4096x7168x4096 3072x3072x3072 2048x5120x4096}
family=${WHERE:-PATH == 1 and SWAP == 0 and WG == 2 and BM == 128 and PERSIST == 1 and EPI_VEC == 64 and STREAMK == 0 and CM == 1 and CN == 1 and MC == 0 and PINGPONG == 0 and SHAPED == 0 and RASTER == 0 and GROUP_M == 8}
for s in $shapes; do
  timeout 150 "$build"/tune --kernel gemm_bf16 --shapes $s --strategy exhaustive --where "$family" --flush write \
    --repeats 40 --db "$out/widths.db" >>"$out/widths_tune.log" 2>&1
  echo "tune $s exit $?"
done
"$build"/tune db export --db "$out/widths.db" --format csv -o "$out/widths.csv"
python3 - "$out/widths.csv" <<'PY'
import collections, csv, sys
best = collections.defaultdict(dict)  # shape -> (BN, BOX64) -> fastest median
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] != "ok":
        continue
    c = dict(kv.split("=") for kv in r["config"].split(","))
    key, t = (int(c["BN"]), int(c.get("BOX64", 0))), float(r["median_ms"])
    best[r["shape"]][key] = min(t, best[r["shape"]].get(key, t))
for shape, per in best.items():
    pow64 = min(t for (bn, _), t in per.items() if bn % 64 == 0)
    other = min((t, bn, wide) for (bn, wide), t in per.items() if bn % 64 != 0)
    row = "  ".join(f"{bn}{'w' if wide else ''}:{t * 1000:.1f}" for (bn, wide), t in sorted(per.items()))
    print(f"{shape:16s} best of BN%64==0 {pow64 * 1000:.1f} us, of the others {other[0] * 1000:.1f} us (BN {other[1]},"
          f" BOX64 {other[2]}): {pow64 / other[0]:.3f}x   [{row}]")
PY
