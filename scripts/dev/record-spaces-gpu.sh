#!/usr/bin/env bash
# Records whole search spaces on the GPU for the search bench (spaces Kernel Tuner's set does not hold): each job below
# is tuned exhaustively (`--strategy exhaustive`, the CLI's other defaults) into a database of its own under $OUT,
# then written as a Kernel Tuner cache (`tune db export --format kt-cache`). A job still running at its time
# limit is stopped; what it measured stays stored, and the cache says how much of the space it holds.
#   scripts/dev/record-spaces-gpu.sh BUILD T1_FOLDER SECONDS_EACH JOB...
# JOB: a built-in kernel as NAME:SHAPE (gemm:4096x4096x4096), or a T1 file of T1_FOLDER as t1:FILE.json.
# With WHERE="EXPR", every built-in job records only that part of its space (tune --where; e.g. "PATH == 1", the
# tensor-core GEMM's wgmma path); replay it with the same --kernel and --shape.
# With RESUME=DIR, a job whose database DIR/NAME.db exists (from an earlier call's $OUT) goes on from it. At the end
# everything is packed into $OUT/spaces.tgz as well: a device call brings back only about 8 files of $OUT, so a call
# of many jobs ends with `cd $OUT && find . -type f ! -name spaces.tgz -delete`.
source "$(dirname "$0")/gpu_env.sh" "$1"
t1=$(cd "$2" && pwd)
each=$3
shift 3
echo "$(nproc) cores"
for job in "$@"; do
  kind=${job%%:*} what=${job#*:}
  if [[ $kind == t1 ]]; then
    name=$(basename "$what" .json) args=(--problem "$t1/$what")
  else
    name=${kind}_${what} args=(--kernel "$kind" --shapes "$what")
    [[ -n ${WHERE:-} ]] && args+=(--where "$WHERE")
  fi
  db=$out/$name.db
  [[ -n ${RESUME:-} && -f $RESUME/$name.db ]] && cp "$RESUME/$name.db" "$db"
  start=$SECONDS
  timeout -s INT "$each" "$build/tune" "${args[@]}" --strategy exhaustive --no-prior --db "$db" >"$out/$name.log" 2>&1
  rc=$?
  secs=$((SECONDS - start))
  "$build/tune" db export --db "$db" --format kt-cache -o "$out/$name.json" >>"$out/$name.log" 2>&1
  gzip -f "$out/$name.json" 2>/dev/null
  printf '%-36s rc %3s %5s s  %s\n' "$name" "$rc" "$secs" "$("$build/tune" db stats --db "$db" 2>&1 | head -1 | sed "s|^.*: ||")"
done
(cd "$out" && tar czf spaces.tgz --exclude=spaces.tgz -- *.json.gz *.log *.db 2>/dev/null)
