#!/usr/bin/env bash
# One visit to a 2-GPU machine (nvidia-h200-x2): every GPU check of session 5 in about 8 minutes, logs under $OUT,
# a summary last. Usage: OUT=DIR scripts/dev/all-gpu.sh [BUILD_DIR]   (default build/, with bench and examples).
# The MPI step runs an optional two-rank hello ($D/mpi_hello, built with mpicxx) to check that a libmpi built on
# the development machine starts there. The longer checks, with what each should print: scripts/dev/*-gpu.sh.
set -uo pipefail
OUT=${OUT:-/tmp/cutune-gpu}; mkdir -p "$OUT"
D=${1:-$PWD/build}; D=$(cd "$D" && pwd)
export CUTUNE_WORKER=$D/cutune-worker CUTUNE_SOURCE_DIR=$PWD CUTUNE_CACHE_DIR=/tmp/cc
T=$D/tune
S=$OUT/summary.txt; : > $S
step() { echo "== $1 ($(date +%T))" | tee -a $S; }
nvidia-smi --query-gpu=index,name,compute_cap,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader | tee -a $S
step mpi
(mpirun --version 2>&1 | head -2; [ -x $D/mpi_hello ] && ldd $D/mpi_hello | grep -i mpi; OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 30 mpirun --oversubscribe -np 2 $D/mpi_hello) > $OUT/mpi.txt 2>&1; tail -4 $OUT/mpi.txt | tee -a $S
step gpu_tests
timeout 270 $D/tests/gpu_tests > $OUT/gpu_tests.txt 2>&1; echo "rc $?" | tee -a $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests ran" $OUT/gpu_tests.txt | tee -a $S
step "multigpu transpose 4096x4096 exhaustive 160"
timeout 60 $T --kernel transpose --shapes 4096x4096 --strategy exhaustive --devices all --db $OUT/shapes.db > $OUT/t-all-cold.txt 2>&1
for d in 0 all; do rm -f /tmp/t$d.db*; s=$(date +%s.%N); timeout 60 $T --kernel transpose --shapes 4096x4096 --strategy exhaustive --devices $d --db /tmp/t$d.db > $OUT/t-$d.txt 2>&1; echo "devices $d rc $? wall $(awk -v a=$s -v b=$(date +%s.%N) "BEGIN{print b-a}") s" | tee -a $S; grep -E "per GPU|measured now" $OUT/t-$d.txt | tee -a $S; done
timeout 60 $T --kernel transpose --shapes 1000x3000,33x100000 --budget 60 --devices all --db $OUT/shapes.db > $OUT/t-shapes.txt 2>&1; tail -6 $OUT/t-shapes.txt | tee -a $S
step hopper
timeout 90 $T --kernel copy2d_tma --shapes 8192x8192,1000x1000 --budget 60 --devices all --db $OUT/hopper.db > $OUT/hopper.txt 2>&1; echo "rc $?" | tee -a $S; tail -6 $OUT/hopper.txt | tee -a $S
step pipeline
timeout 60 $T --kernel saxpy_pipeline --shapes 67108864 --budget 30 --db $OUT/pipe.db > $OUT/pipe-tune.txt 2>&1; echo "rc $?" | tee -a $S; tail -4 $OUT/pipe-tune.txt | tee -a $S
timeout 30 $D/examples/pipeline_example --db $OUT/pipe.db 67108864 > $OUT/pipe-example.txt 2>&1; echo "example rc $?" | tee -a $S; grep -E "check|config" $OUT/pipe-example.txt | tee -a $S
timeout 150 $D/bench/pipeline_bench --db /tmp/pb.db --sizes 64,256,1024 --budget 24 --repeats 5 > $OUT/pipe-bench.txt 2>&1; echo "bench rc $?" | tee -a $S; tail -12 $OUT/pipe-bench.txt | tee -a $S
step report
$T report --db $OUT/shapes.db -o $OUT/report.html > $OUT/report.txt 2>&1; echo "report rc $?" | tee -a $S
$T best --kernel transpose --shape 4096x4096 --db $OUT/shapes.db >> $OUT/report.txt 2>&1; tail -8 $OUT/report.txt | tee -a $S
rm -f $OUT/*.db-wal $OUT/*.db-shm
step done
cat $S | tail -c 11000
