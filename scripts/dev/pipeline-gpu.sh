#!/usr/bin/env bash
# What the lead runs on the GPU machine for the pipeline branch: its GPU tests, a short tune, and the benchmark.
#
# Build here first (the bench needs CUTUNE_BUILD_BENCH=ON):
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON -DCUTUNE_BUILD_EXAMPLES=ON
#   cmake --build build -j2 --target tune cutune-worker gpu_tests pipeline_bench pipeline_example
# then on the GPU machine, from the repository root:  scripts/dev/pipeline-gpu.sh [SIZES]
#
# Expected:
#  1. gpu_tests: the three PipelineGpu tests pass (about 1 minute, most of it the 12-configuration tuning run).
#  2. tune: 30 configurations of saxpy_pipeline at 2^26 floats (256 MiB per array) stored as ok; the summary says
#     "throughput ... of the transfer-only bound": expect 85-100%, with STREAMS >= 2 and CHUNK well below N in the
#     best configuration. `tune best` prints the same configuration with "rule exact shape".
#     pipeline_example runs that configuration through the runtime API on 4 streams: "check   ok".
#  3. pipeline_bench at 64, 256 and 1024 MiB (add 4096 as $1 when time allows: "64,256,1024,4096"), both kernels:
#     saxpy_pipeline: pipe/bound <= 1.10 (within 10% of the transfer-only bound), serial/pipe near 2x (the serial
#     baseline copies in, then out; the pipeline does both at once). poly_pipeline (2048 FMAs per element):
#     comp/xfer >= 0.33 on a PCIe 5 link, and serial/pipe >= 1.8x. Paste the table into bench/RESULTS.md.
set -euo pipefail
sizes="${1:-64,256,1024}"
export CUTUNE_WORKER="$PWD/build/cutune-worker" CUTUNE_SOURCE_DIR="$PWD" CUTUNE_CACHE_DIR="${TMPDIR:-/tmp}/cutune-pipe-cache"
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv || true
build/tests/gpu_tests --gtest_filter='PipelineGpu.*'
db="${TMPDIR:-/tmp}/pipeline-gpu.db"
rm -f "$db"
build/tune --kernel saxpy_pipeline --shapes 67108864 --budget 30 --db "$db"
build/tune best --kernel saxpy_pipeline --shape 67108864 --db "$db"
build/examples/pipeline_example --db "$db" 67108864
build/bench/pipeline_bench --db "${TMPDIR:-/tmp}/pipeline-bench.db" --sizes "$sizes" --budget 40 --repeats 10
