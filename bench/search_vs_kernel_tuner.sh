#!/usr/bin/env bash
# The side-by-side search bench: Kernel Tuner 1.5.0's strategies and cutune's replayed on recorded spaces (Kernel
# Tuner caches), valid configurations only, the same seeds and budget; prints the table of bench/RESULTS.md. Caches in
# one folder are taken for the same kernel on other GPUs: cutune's default is also replayed with them as its prior.
#
#   bench/search_vs_kernel_tuner.sh [options] CACHE.json.gz...
#
# Options:
#   --tune PATH        the tune executable (default: build/tune)
#   --seeds N          seeds per strategy (default 25)
#   --budget N         evaluations per run (default 800)
#   --slow-seeds N     seeds for Kernel Tuner's slowest strategies (hybrid_vndx, bayes_opt, pso, firefly_algorithm),
#                      which take up to a minute per run on a small machine (default: --seeds)
#   --out DIR          where the JSON lines and the table go (default: build/search_bench); a rerun resumes there
#   --venv DIR         the virtual environment for Kernel Tuner (default: build/kt-venv); made when missing
#   --results FILE     append the table, with the date, to FILE (e.g. bench/RESULTS.md)
# Kernel Tuner is a dependency of this bench only, never of cutune.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tune=build/tune seeds=25 budget=800 slow_seeds="" out=build/search_bench venv=build/kt-venv results=""
caches=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tune) tune=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --slow-seeds) slow_seeds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "search_vs_kernel_tuner.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) caches+=("$1"); shift ;;
  esac
done
[[ ${#caches[@]} -gt 0 ]] || { echo "search_vs_kernel_tuner.sh: no cache files given (see --help)" >&2; exit 2; }
[[ -x $tune ]] || { echo "search_vs_kernel_tuner.sh: no tune executable at $tune (build it, or pass --tune)" >&2; exit 2; }
for c in "${caches[@]}"; do [[ -f $c ]] || { echo "search_vs_kernel_tuner.sh: no cache file $c" >&2; exit 2; }; done
slow_seeds=${slow_seeds:-$seeds}

if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c "import kernel_tuner" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet kernel_tuner==1.5.0
fi
mkdir -p "$out"
driver=("$venv/bin/python" "$here/search_vs_kernel_tuner.py")
slow=hybrid_vndx,bayes_opt,pso,firefly_algorithm
fast=$("$venv/bin/python" -c "import sys; sys.path.insert(0, '$here'); import search_vs_kernel_tuner as s; \
print(','.join(x for x in s.KT_STRATEGIES if x not in '$slow'.split(',')))")

"${driver[@]}" cutune "${caches[@]}" --tune "$tune" --out "$out/cutune.jsonl" --seeds "$seeds" --budget "$budget"
# The default with the other caches of the same folder (the same kernel on other GPUs) as its prior.
"${driver[@]}" cutune "${caches[@]}" --tune "$tune" --out "$out/cutune.jsonl" --seeds "$seeds" --budget "$budget" \
  --prior-siblings
for k in 2 4; do
  "${driver[@]}" cutune "${caches[@]}" --tune "$tune" --out "$out/cutune.jsonl" --seeds "$seeds" --budget "$budget" \
    --batch "$k" --strategies portfolio
done
"${driver[@]}" kt "${caches[@]}" --out "$out/kt.jsonl" --seeds "$seeds" --budget "$budget" --strategies "$fast"
"${driver[@]}" kt "${caches[@]}" --out "$out/kt.jsonl" --seeds "$slow_seeds" --budget "$budget" --strategies "$slow"

"${driver[@]}" table "$out/cutune.jsonl" "$out/kt.jsonl" | tee "$out/table.md"
if [[ -n $results ]]; then
  {
    echo
    echo "### Search against Kernel Tuner, $(date -u +%Y-%m-%d) ($(nproc) cores; budget $budget, $seeds seeds, slowest Kernel Tuner strategies $slow_seeds seeds)"
    echo
    cat "$out/table.md"
  } >> "$results"
fi
