#!/usr/bin/env bash
# Compiles in compiler processes against compile threads of one process. compile_bench's threads against
# its processes, then cold tuning runs (fresh cubin cache, fresh driver cache) of the build before the change
# (BUILD/old: its tune and cutune-worker) and after, alternating: the ten bf16 shapes at --budget 60 and the whole gemm
# space at 4096^3. Logs in $OUT; a table of wall times last.
#   scripts/dev/compile-procs-gpu.sh build-gpu
source "$(dirname "$0")/gpu_env.sh" "$1"
old=$build/old
ten=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096,4096x4096x11008,1000x1000x1000,8192x8192x256,4096x4096x64,64x4096x4096,16x4096x4096
cb=$build/bench/compile_bench
for k in gemm_bf16 gemm; do
  CUDA_CACHE_DISABLE=1 $cb -k $k -n 48 -j 16 | tail -1
  CUDA_CACHE_DISABLE=1 $cb -k $k -n 48 -j 16 --processes | tail -1
done
table=()
cold() {  # label bin-dir tune-args...
  local label=$1 dir=$2; shift 2
  local log=$out/$label.log
  CUTUNE_CACHE_DIR=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d) CUTUNE_WORKER=$dir/cutune-worker \
    /usr/bin/time -f "%e %U" -o "$out/$label.time" "$dir/tune" "$@" --db "$out/$label.db" >"$log" 2>&1
  echo "--- $label rc $?: $(grep -m1 '^run time' "$log")"
  grep -A1 '^run time' "$log" | tail -1
  table+=("$(printf '%-14s wall %6s s  user %7s s' "$label" $(cat "$out/$label.time"))")
}
for round in 1 2; do
  cold bf16-old$round "$old" --kernel gemm_bf16 --shapes $ten --budget 60
  cold bf16-new$round "$build" --kernel gemm_bf16 --shapes $ten --budget 60
done
cold gemm-old "$old" --kernel gemm --shapes 4096x4096x4096 --strategy exhaustive
cold gemm-new "$build" --kernel gemm --shapes 4096x4096x4096 --strategy exhaustive
echo "=== best per shape (GFLOP/s), old1 / new1 / old2 / new2"
for r in bf16-old1 bf16-new1 bf16-old2 bf16-new2; do sed -n '/^shape  /,/^$/p' "$out/$r.log" | awk 'NF>=4 && $1!="shape" {print $1, $NF}' >"$out/$r.best"; done
paste "$out"/bf16-old1.best "$out"/bf16-new1.best "$out"/bf16-old2.best "$out"/bf16-new2.best | awk '{print $1, $2, $4, $6, $8}'
echo "=== cold runs"
printf '%s\n' "${table[@]}"
