#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, in build-fuzz/) when needed and runs each for SECONDS.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     SECONDS per target (default 20); TARGETs among expr spec t1 t4 kt_cache
#                                         (default all)
#
# Seeds come from fuzz/corpus/TARGET (never written to); what a run learns is kept in build-fuzz/corpus/TARGET for
# the next run. A crash, sanitizer report, timeout (30 s) or out-of-memory (2 GB) stops that target, leaves the
# input in build-fuzz/artifacts/ and makes the script exit non-zero once every target has run.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(expr spec t1 t4 kt_cache)
build=${CUTUNE_FUZZ_BUILD:-build-fuzz}
jobs=${CUTUNE_FUZZ_JOBS:-2}

source scripts/build_env.sh
if [ ! -f "$build/build.ninja" ]; then
  # -O1 and line tables only (as OSS-Fuzz builds): a faster build; no -DNDEBUG, so that assertions (nlohmann::json's
  # among them) stay on.
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCUTUNE_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCUTUNE_BUILD_TESTS=OFF -DCUTUNE_BUILD_BENCH=OFF -DCUTUNE_BUILD_EXAMPLES=OFF >/dev/null
fi
cmake --build "$build" --target "${targets[@]/%/_fuzz}" -j "$jobs"

export UBSAN_OPTIONS=print_stacktrace=1
failed=()
for t in "${targets[@]}"; do
  exe="$build/fuzz/${t}_fuzz"
  mkdir -p "$build/corpus/$t" "$build/artifacts"
  dict=()
  [ -f "fuzz/dict/$t.dict" ] && dict=(-dict="fuzz/dict/$t.dict")
  log="$build/artifacts/$t.log"
  echo "== $t: ${seconds}s"
  # -timeout: no input may take half a minute (the largest list the language allows, 2^24 values, takes about 10 s
  # here with the sanitizers); -rss_limit_mb: nor more than 2 GB.
  if "$exe" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/artifacts/$t-" "${dict[@]}" "$build/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^Done" "$log" | tr '\n' ' '; echo
  else
    failed+=("$t")
    tail -n 40 "$log"
    echo "== $t FAILED: input in $build/artifacts/$t-*, log in $log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]}"
  exit 1
fi
echo "fuzzing: ${targets[*]}: no crash in ${seconds}s each"
