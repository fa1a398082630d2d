#!/usr/bin/env bash
# The runtime's fallback on the GPU machine: gemm_bf16 tuned (`--budget 60`, TUNE_TIME s at most per shape) at
# the eleven shapes of bench/gemm_user_view.cpp, then OTHER shapes launched through the runtime's fallback against
# cublasGemmEx; then the same OTHER shapes tuned for themselves. Compare each shape's ratio between the two tables.
#   scripts/dev/fallback-gpu.sh BUILD_DIR [OTHER]   (OTHER: comma-separated MxNxK; default: eight shapes outside the
#                                                    eleven)   Logs under $OUT: fallback.log/.err, self.log/.err.
source "$(dirname "$0")/gpu_env.sh" "$1"
other=${2:-4096x14336x4096,2048x4096x14336,512x4096x4096,256x11008x4096,1536x1536x1536,3000x3000x3000,128x128x32768,32x8192x8192}
named=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096,4096x4096x11008,1000x1000x1000,8192x8192x256,4096x4096x64,64x4096x4096,16x4096x4096,127x257x511
common=(--types bf16 --budget 60 --time "${TUNE_TIME:-12}" --flush write,read)
timeout 280 "$build"/bench/gemm_user_view "${common[@]}" --tune-shapes "$named" --shapes "$other" \
  >"$out/fallback.log" 2>"$out/fallback.err"; echo "fallback exit $?"
timeout 200 "$build"/bench/gemm_user_view "${common[@]}" --shapes "$other" >"$out/self.log" 2>"$out/self.err"
echo "self exit $?"
grep -E "by the rule" "$out/fallback.err" | head -20
for f in fallback self; do echo "== $f"; sed -n '/^gemm_bf16: ratio/,$p' "$out/$f.log"; done
