#!/usr/bin/env bash
# Tunes every T1 file under the folders given (each with its kernel sources beside it) on the GPU, `--budget` each,
# and prints per file how many evaluated configurations were stored as ok. Full logs in $OUT.
# Usage: scripts/dev/t1-gpu.sh BUILD_DIR BUDGET FOLDER... [-- extra tune options]
source "$(dirname "$0")/gpu_env.sh" "$1"
budget=$2
shift 2
folders=()
while (($#)) && [[ $1 != -- ]]; do folders+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
db=$out/t1.db
printf '%-28s %6s %6s %s\n' file ok total "first failure / refusal" > "$out/t1-table.txt"
for file in $(find "${folders[@]}" -name '*.json' \( -name '*CAFF*' -o -name '*_milo.json' -o -name '*T1*' -o -name '*t1*' \) | sort); do
  name=$(basename "$file" .json)
  log=$(mktemp)
  timeout "${T1_TIMEOUT:-90}" "$build/tune" --problem "$file" --budget "$budget" --db "$db" "$@" > "$log" 2>&1
  rc=$?
  csv=$(mktemp)
  "$build/tune" db export --db "$db" --format csv > "$csv" 2>/dev/null
  # the kernel's rows: its name is the file's stem
  total=$(awk -F, -v k="$name" 'NR > 1 && index($0, k) {n++} END {print n + 0}' "$csv")
  ok=$(awk -F, -v k="$name" 'NR > 1 && index($0, k) && /,ok,/ {n++} END {print n + 0}' "$csv")
  why=$( (grep -m1 -E "blocks tuning|error:|wrong_result|cannot be tuned" "$log" || true) | cut -c1-110)
  printf '%-28s %6s %6s rc=%s %s\n' "$name" "$ok" "$total" "$rc" "$why" >> "$out/t1-table.txt"
  { echo "== $name"; grep -v ": note: " "$log" | head -40; } >> "$out/t1-logs.txt"
  awk -F, -v k="$name" 'NR > 1 && index($0, k) && !/,ok,/' "$csv" | head -5 >> "$out/t1-logs.txt"
  rm -f "$log" "$csv"
done
cat "$out/t1-table.txt"
