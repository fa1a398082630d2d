#!/usr/bin/env bash
# On a GPU machine just started: is the first cold compile slower, and is it cutune's doing? Prints the load and the
# busiest processes, then tunes 150 gemm configurations at 4096^3 without the cubin cache three times in a row, each
# with its wall and CPU time, and the load again (logs in $OUT). A first cold run after a start has been seen to take
# twice as long. Run it as the first command of a fresh machine, or it measures nothing of the kind.
#   scripts/dev/cold-start-gpu.sh build-gpu
source "$(dirname "$0")/gpu_env.sh" "$1"
snapshot() {
  echo "--- $1: uptime $(cut -d' ' -f1 /proc/uptime) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
  ps -eo pcpu,etimes,comm --sort=-pcpu | head -6
}
snapshot "before"
for i in 1 2 3; do
  /usr/bin/time -o "$out/time$i.txt" -f "cold run $i: wall %e s, user %U s, sys %S s" "$build/tune" --kernel gemm \
    --shapes 4096x4096x4096 --strategy exhaustive --budget 150 --no-cache --db "$out/cold$i.db" >"$out/cold$i.log" 2>&1
  cat "$out/time$i.txt"; grep "time spent" "$out/cold$i.log"
  snapshot "after run $i"
done
