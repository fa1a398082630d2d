#!/usr/bin/env bash
# On the GPU machine, the checks of a change that touches GPU code: every GPU test (gpu_tests), the Python package's
# tests (scripts/dev/python-gpu.sh), or every GPU command quoted in the docs (tests/docs/check_docs.py --gpu).
# Logs under $OUT, a short summary last.
#   scripts/dev/check-gpu.sh BUILD tests|python|docs
source "$(dirname "$0")/gpu_env.sh" "$1"
case "${2:?tests, python or docs}" in
  tests)
    timeout 500 "$build/tests/gpu_tests" > "$out/gpu_tests.txt" 2>&1; echo "gpu_tests rc $?"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests ran|FAILED TEST" "$out/gpu_tests.txt" | head -30 ;;
  python)
    "$(dirname "$0")/python-gpu.sh" "$1" ;;
  docs)
    timeout 560 python3 tests/docs/check_docs.py --source . --build "$build" --gpu > "$out/docs_gpu.txt" 2>&1
    echo "docs --gpu rc $?"; grep -v "^  " "$out/docs_gpu.txt" | grep -E -i "fail|error|differ|every link|commands" | head -30 ;;
esac
