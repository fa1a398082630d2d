#!/usr/bin/env bash
# Ten bf16 shapes (bench/gemm_user_view.cpp's first ten) at --budget 60 with the default strategy, as a
# user runs `tune`: once cold (a fresh cubin cache and a fresh driver cache, CUDA_CACHE_PATH), then twice warm (the
# same cubin cache, a fresh database each). Prints each run's wall time and its own phase line; logs in $OUT.
#   scripts/dev/ten-bf16-gpu.sh BUILD
source "$(dirname "$0")/gpu_env.sh" "$1"
ten=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096,4096x4096x11008,1000x1000x1000,8192x8192x256,4096x4096x64,64x4096x4096,16x4096x4096
export CUDA_CACHE_PATH=$(mktemp -d)
echo "$(nproc) cores"
for run in cold warm1 warm2; do
  /usr/bin/time -f "%e s wall, %U s user" -o "$out/ten-$run.time" "$build/tune" --kernel gemm_bf16 --shapes $ten \
    --budget 60 --db "$out/ten-$run.db" >"$out/ten-$run.log" 2>&1
  echo "$run rc $? $(cat "$out/ten-$run.time")"
  grep -A1 "^run time" "$out/ten-$run.log"
done
