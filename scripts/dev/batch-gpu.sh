#!/bin/bash
# GPU check of `tune --shard i/n` (branch batch): two shards of transpose at 4096x4096 tuned as two independent
# jobs, merged, and compared with the space; run from the repository root on the GPU machine with build/ built.
#
# Expected: `tune space` counts 160; shard 1/2 and 2/2 each log "80 valid configurations" and print "80 valid
# configurations, 80 measured now" (exhaustive over their part),
# none in both ("overlap 0"), the merged database holds 160 distinct configurations ("merged 160"), and a second
# run of shard 1/2 measures nothing ("nothing to measure").
set -euo pipefail
TUNE=${TUNE:-build/tune}
OUT=${OUT:-$(mktemp -d)}
export CUTUNE_CACHE_DIR="$OUT/cache"
shape=4096x4096
"$TUNE" space --kernel transpose --shape $shape
for i in 1 2; do
  SPDLOG_LEVEL=info "$TUNE" --kernel transpose --shapes $shape --strategy exhaustive --shard $i/2 --db "$OUT/shard-$i.db" \
    2>&1 | grep -E "valid configurations|best|error" || true
done
"$TUNE" --kernel transpose --shapes $shape --strategy exhaustive --shard 1/2 --db "$OUT/shard-1.db" 2>&1 | grep -i "nothing to measure"
"$TUNE" db merge "$OUT"/shard-*.db -o "$OUT/all.db"
for f in shard-1 shard-2 all; do "$TUNE" db export --db "$OUT/$f.db" --format csv -o "$OUT/$f.csv"; done
python3 - "$OUT" <<'PY'
import csv, sys
d = sys.argv[1]
def configs(name):
    with open(f"{d}/{name}.csv", newline="") as f:
        return {row["config"] for row in csv.DictReader(f)}
a, b, m = configs("shard-1"), configs("shard-2"), configs("all")
print(f"shard 1: {len(a)}, shard 2: {len(b)}, overlap {len(a & b)}, merged {len(m)}")
sys.exit(0 if not (a & b) and m == a | b else 1)
PY
"$TUNE" best --kernel transpose --shape $shape --db "$OUT/all.db"
