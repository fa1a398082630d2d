# The steps of .ci/run and how each one fails it: sourced by .ci/run and by its own test (tests/ci/gate_test.sh).
#
# A step is a command line run by a bash of its own, so that a failure anywhere in an `a && b && c` list (which
# `set -e` lets pass) is the step's exit status; a failed step ends the caller with a message naming it.

# gate NAME COMMAND: runs COMMAND; on a non-zero status prints which step failed and exits with that status.
gate() {
  local name=$1 command=$2 status=0
  echo "== CI step: $name"
  bash -o pipefail -c "$command" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "CI FAILED: step '$name' exited with status $status" >&2
    exit "$status"
  fi
}

# gate_selfcheck BUILD: a test that fails on request (CiGate.FailsOnlyWhenAsked with CUTUNE_CI_SELFCHECK_FAIL=1) must
# fail a step that runs ctest the way the README's test command does, and stop the rest of its list. Returns non-zero
# when the gate would let a failing test through.
gate_selfcheck() {
  local build=$1 output
  output=$( (CUTUNE_CI_SELFCHECK_FAIL=1 gate "self-check" \
      "ctest --test-dir '$build' -R '^CiGate[.]FailsOnlyWhenAsked\$' --output-on-failure && echo REACHED") 2>&1) && {
    echo "CI gate broken: a failing test did not fail its step" >&2
    echo "$output" >&2
    return 1
  }
  if [[ $output == *REACHED* ]] || [[ $output != *"CI FAILED: step 'self-check'"* ]]; then
    echo "CI gate broken: the step went on after a failing test, or did not say which step failed" >&2
    echo "$output" >&2
    return 1
  fi
  echo "CI gate checked: a deliberately failing test fails its step"
}
