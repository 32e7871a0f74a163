#!/usr/bin/env bash
# A rank that throws, is killed, or stalls ends the whole job with a message, within the timeout.
# Usage: fault_test.sh MPIEXEC PROGRAM MODE EXPECTED_TEXT LIMIT_SECONDS
set -uo pipefail
mpiexec="$1" program="$2" mode="$3" expected="$4" limit="$5"
start=$(date +%s)
out="$(timeout $((limit + 30)) "$mpiexec" --oversubscribe -np 4 "$program" "$mode" 2>&1)"
rc=$?
elapsed=$(($(date +%s) - start))
echo "$out" | tail -n 20
echo "fault_test: mode $mode: exit status $rc after ${elapsed}s"
if ((rc == 0)); then echo "fault_test: FAILED: the job succeeded"; exit 1; fi
if ((rc == 124)); then echo "fault_test: FAILED: the job hung (killed by timeout)"; exit 1; fi
if ((elapsed > limit)); then echo "fault_test: FAILED: took ${elapsed}s, limit ${limit}s"; exit 1; fi
if ! grep -qF -- "$expected" <<<"$out"; then echo "fault_test: FAILED: no '$expected' in the output"; exit 1; fi
if grep -qF "must not" <<<"$out"; then echo "fault_test: FAILED: a rank passed the collective"; exit 1; fi
echo "fault_test: OK"
