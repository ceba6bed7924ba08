#!/usr/bin/env bash
# One phase of `make test`: runs `swift test` with the given arguments, its output shown as it comes and kept in a
# log; when the phase fails, the issues it recorded are said again at its end. A run of hundreds of tests prints
# thousands of lines, and a CI log that keeps only its tail would otherwise lose which test failed, and why.
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/chirper-test-phase.XXXXXX")
trap 'rm -f "$log"' EXIT
"${SWIFT:-swift}" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "== what failed in this phase (swift test $*) =="
    # Swift Testing marks a failed test, and each issue it recorded, with ✘; a crash leaves a fatal error or a signal.
    grep -a -E '✘|↳|Fatal error|fatal error|error: |Exited with (signal|unexpected)|Signal [0-9]+' "$log" \
        | grep -a -v -E '↳ (Testing Library Version|Target Platform)' | tail -n 60
    # A crash: what it was, and the frames of the thread that crashed (the backtracer prints it first).
    grep -a -m 1 -A 24 -E '^\*\*\* Program crashed' "$log" | grep -a -v -E '^\s*$' | head -n 40
    echo "== exit status $status =="
fi
exit "$status"
