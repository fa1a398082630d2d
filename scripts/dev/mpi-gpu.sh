#!/usr/bin/env bash
# MPI checks on a machine with 2 GPUs of one model (nvidia-h200-x2): the machine's MPI against the one
# `tune` was built with, a two-rank run of the MPI code on stand-in workers, then `mpirun -np 2 tune` for real (one
# rank per GPU), its resume, and the warm/cold benchmark against one GPU. Run from the repository root with the build
# folder beside it (built on the development machine):
#   scripts/dev/mpi-gpu.sh [BUILD_DIR]      results under $OUT (or /tmp/mpi) as text
set -uo pipefail
build=${1:-build}
out=${OUT:-/tmp/mpi}
mkdir -p "$out"
export CUTUNE_WORKER="$build/cutune-worker"
# The GPU machines run as root; OpenMPI refuses that unless told (other MPIs ignore these).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tune="$build/tune"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv | tee "$out/gpus.txt"

# 1. Which MPI is here, and does `tune` find the libmpi it was linked with (Debian 12: Open MPI 4.1.4, libmpi.so.40)?
#    Expect "mpirun (Open MPI) 4.1.x" and a libmpi.so.40 line that is not "not found". If libmpi is missing, `tune`
#    does not start at all: then build without MPI for that machine (-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON).
{ mpirun --version 2>&1 | head -2; ldd "$tune" | grep -i mpi; } | tee "$out/mpi_version.txt"

# 2. Hello: two ranks through the cluster code with stand-in workers (no GPU used). Expect "evaluated 20 resumed 0"
#    and two "measured" lines (GPU 0 and rank 1 GPU 1) adding up to 20.
rm -rf "$out/hello"; mkdir -p "$out/hello"
CUTUNE_WORKER="$build/tests/fake_worker" CUTUNE_FAKE_SLEEP_MS=20 \
  mpirun -np 2 -x CUTUNE_WORKER -x CUTUNE_FAKE_SLEEP_MS "$build/tests/mpi_rank_driver" \
  "$out/hello/r.db" "$out/hello/cache" 2>&1 | tee "$out/hello.txt"

# 3. For real, one rank per GPU: expect "MPI job of 2 ranks", a "per GPU" line naming "GPU 0" and "rank 1 GPU 1"
#    with a share each, a final table with a column per GPU; then the same command again: all 100
#    resumed from the database, nothing measured; `tune best` answers as for a one-GPU run.
rm -f "$out/transpose.db"*
mpirun -np 2 -x CUTUNE_WORKER "$tune" --kernel transpose --shapes 4096x4096 --budget 100 --db "$out/transpose.db" \
  --cache-dir "$out/cache-transpose" 2>&1 | tee "$out/transpose.txt"
mpirun -np 2 -x CUTUNE_WORKER "$tune" --kernel transpose --shapes 4096x4096 --budget 100 --db "$out/transpose.db" \
  --cache-dir "$out/cache-transpose" 2>&1 | tee "$out/transpose-resume.txt"
"$tune" best --kernel transpose --shape 4096x4096 --db "$out/transpose.db" 2>&1 | tee -a "$out/transpose-resume.txt"

# 4. One GPU against MPI with two ranks of one GPU each, same space and budget (exhaustive), warm and cold; compare
#    with scripts/dev/multigpu-gpu.sh's --devices all figures (bench/RESULTS.md, "Several GPUs as users run them").
run() {  # NAME RANKS CACHE KERNEL SHAPE BUDGET   (RANKS 0: plain tune on GPU 0)
  local name=$1 ranks=$2 cache=$3 kernel=$4 shape=$5 budget=$6
  rm -f "$out/$name.db"*
  local launcher=()
  [ "$ranks" -gt 0 ] && launcher=(mpirun -np "$ranks" -x CUTUNE_WORKER)
  local start=$(date +%s.%N)
  "${launcher[@]}" "$tune" --kernel "$kernel" --shapes "$shape" --budget "$budget" --strategy exhaustive \
    --cache-dir "$cache" --db "$out/$name.db" >"$out/$name.txt" 2>"$out/$name.err"
  local rc=$? end=$(date +%s.%N)
  printf '%-22s ranks %d  rc %d  wall %6.1f s\n' "$name" "$ranks" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" | tee -a "$out/summary.txt"
  grep -E "per GPU|time spent|best  " "$out/$name.txt" | tee -a "$out/summary.txt"
}
: >"$out/summary.txt"
for case in "gemm 4096x4096x4096 300" "reduce 268435456 400"; do
  set -- $case
  kernel=$1 shape=$2 budget=$3
  cache="$out/cache-$kernel"
  rm -rf "$cache"
  run "$kernel-cold-mpi2" 2 "$cache" "$kernel" "$shape" "$budget"   # cold: fills the cache
  run "$kernel-warm-one" 0 "$cache" "$kernel" "$shape" "$budget"
  run "$kernel-warm-mpi2" 2 "$cache" "$kernel" "$shape" "$budget"
  rm -rf "$cache"
  run "$kernel-cold-one" 0 "$cache" "$kernel" "$shape" "$budget"
done
rm -rf "$out"/cache-*
echo "summary in $out/summary.txt"
