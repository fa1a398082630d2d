#!/usr/bin/env bash
# The operations as a user meets them: `tune --kernel matmul_bf16 --budget 60` cold at the eleven shapes of the GEMM
# table (wall time), then bench/gemm_user_view --operations for the TYPES given (each operation tuned at the eleven
# shapes in one database, then launched through the runtime against cublasGemmEx under the three L2 conventions).
#   scripts/dev/opsview-gpu.sh BUILD [TYPES]   (TYPES: bf16,f16,tf32 unless given; about 2 minutes a type)
# Logs under $OUT: cold.log, uv-TYPE.log / uv-TYPE.err; the tables are printed last.
source "$(dirname "$0")/gpu_env.sh" "$1"
types=${2:-bf16,f16,tf32}
eleven=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096,4096x4096x11008,1000x1000x1000,8192x8192x256,4096x4096x64,64x4096x4096,16x4096x4096,127x257x511
export CUDA_CACHE_PATH=$(mktemp -d)
echo "$(nproc) cores"
/usr/bin/time -f "%e s wall, %U s user" -o "$out/cold.time" "$build/tune" --kernel matmul_bf16 --shapes $eleven \
  --budget 60 --db "$out/cold.db" >"$out/cold.log" 2>&1
echo "matmul_bf16 cold rc $? $(cat "$out/cold.time")"
grep -A1 "^run time" "$out/cold.log"
for type in ${types//,/ }; do
  timeout 280 "$build"/bench/gemm_user_view --types "$type" --operations --budget 60 --time 0 \
    --db "$out/uv-$type.db" >"$out/uv-$type.log" 2>"$out/uv-$type.err"
  echo "$type exit $?"
done
for type in ${types//,/ }; do
  grep -E "^error" "$out/uv-$type.err" | head -5
  sed -n '/^Tensor-core GEMM on/,$p' "$out/uv-$type.log"
done
