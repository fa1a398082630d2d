# Sourced by the GPU check scripts (scripts/dev/*-gpu.sh) with the build folder as $1: sets build (absolute) and out
# ($OUT, or /tmp), points cutune at the worker and the sources of the moved build, and names the GPU.
set -uo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
out=${OUT:-/tmp}
export CUTUNE_SOURCE_DIR=$PWD
export CUTUNE_CACHE_DIR=$(mktemp -d)
export CUTUNE_WORKER=$build/cutune-worker
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
