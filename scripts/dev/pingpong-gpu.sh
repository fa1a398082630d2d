#!/usr/bin/env bash
# Ping-pong consumers: their GPU tests, the 16-bit GEMM tuned within PINGPONG=1 only, then with the whole
# space (the default search), both through bench/gemm_user_view against cuBLAS. Run on the GPU machine from the
# repository root with build/ carried (tune, cutune-worker, bench/gemm_user_view, tests/gpu_tests); about 2 minutes.
# Logs under $OUT; the tables last (bench/RESULTS.md, "Ping-pong consumers").
source "$(dirname "$0")/gpu_env.sh" build
timeout 200 build/tests/gpu_tests --gtest_filter='*pingpong*' > $out/pp_tests.log 2>&1; echo "gpu_tests rc $?"
grep -E "^\[  (PASSED|FAILED)|^\[  FAILED|OK \]" $out/pp_tests.log | tail -8
export CUTUNE_CACHE_DIR=$(mktemp -d)
timeout 150 build/bench/gemm_user_view --types bf16 --budget 60 --time 16 --flush write read --where "PINGPONG == 1" --shapes 8192x8192x256 4096x4096x64 4096x4096x4096 2048x2048x2048 8192x8192x8192 1536x1536x1536 3000x2000x1000 > $out/pp_only.log 2> $out/pp_only.err; echo "pingpong-only rc $?"
sed -n '/^shape/,$p' $out/pp_only.log | cut -c1-60
timeout 230 build/bench/gemm_user_view --types bf16 --budget 60 --time 16 --flush write read --shapes 2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x11008x4096 4096x4096x11008 1000x1000x1000 8192x8192x256 4096x4096x64 64x4096x4096 16x4096x4096 127x257x511 768x768x768 1536x1536x1536 96x12288x4096 2048x8192x1024 3000x2000x1000 640x5120x5120 > $out/pp_default.log 2> $out/pp_default.err; echo "default rc $?"
sed -n '/^shape/,$p' $out/pp_default.log | awk '{print $1,$2,$3,$4,$5,($6 ~ /PINGPONG=1/ ? "PP" : "")}'
