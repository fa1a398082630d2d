#!/usr/bin/env bash
# Host test of CI's gate (.ci/gate.sh): a failure anywhere in a step's `a && b && c` list fails the step and stops the
# caller, a passing step goes on, and a deliberately failing ctest test fails the self-check's step.
# Usage: gate_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
source "$1/.ci/gate.sh"
build=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# A failure in the middle of an && list fails the step, with its status, and nothing after the step runs.
out=$( (gate "middle" 'true && exit 3 && true'; echo AFTER) 2>&1); status=$?
[ "$status" -eq 3 ] || fail "a failing middle command gave status $status, not 3"
[[ $out == *AFTER* ]] && fail "the caller went on after a failed step: $out"
[[ $out == *"CI FAILED: step 'middle' exited with status 3"* ]] || fail "no message naming the failed step: $out"

# A pipeline fails when any part of it does.
( gate "pipe" 'false | cat' ) >/dev/null 2>&1 && fail "a failing command piped into cat passed"

# A passing step lets the caller go on.
out=$( (gate "ok" 'true && true'; echo AFTER) 2>&1) || fail "a passing step failed: $out"
[[ $out == *AFTER* ]] || fail "the caller stopped after a passing step: $out"

# The real ctest: the deliberately failing test fails the self-check, and passes when not asked to fail.
gate_selfcheck "$build" >/dev/null 2>&1 || fail "gate_selfcheck found the gate broken"
ctest --test-dir "$build" -R '^CiGate[.]FailsOnlyWhenAsked$' >/dev/null 2>&1 ||
  fail "CiGate.FailsOnlyWhenAsked failed without being asked to"
( CUTUNE_CI_SELFCHECK_FAIL=1 gate "asked" "ctest --test-dir '$build' -R '^CiGate[.]FailsOnlyWhenAsked\$'" ) \
  >/dev/null 2>&1 && fail "a failing ctest test passed its step"

# .ci/run runs every step through the gate: no bare && list of commands outside a gate step.
bare=$(grep -nE '&&' "$1/.ci/run" | grep -vE '^[0-9]+:\s*(#|gate )')
[ -z "$bare" ] || fail ".ci/run has an && list outside a gate step (set -e does not stop inside one): $bare"

[ "$failures" -eq 0 ] && echo "gate: all checks passed"
exit "$failures"
