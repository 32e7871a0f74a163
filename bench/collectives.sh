#!/usr/bin/env bash
# The collectives measurements of docs/performance.md in one run: bench_collectives under mpirun
# on the CPU backend with 2 and 4 ranks (4 oversubscribed on a small machine), with xd::dist's
# metadata check on and off (it is taken at init, so each setting is its own run; the "off" runs
# measure all_reduce only, which is what the comparison needs), and on OpenCL (PoCL on a machine
# without a GPU) with 2 ranks and a smaller largest size, including the pinned copy bandwidth
# the staging path is bounded by.
#
# Usage: bench/collectives.sh OUT [extra bench_collectives options, e.g. --iters 10 --dtype f64]
#   OUT  folder for the CSV/JSON results and the logs (created)
# Environment: BENCH_COLLECTIVES (default build/default/bin/bench_collectives), OPENCL_MAX_BYTES
# (default 16 MiB), MPIRUN (default mpirun).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: bench/collectives.sh OUT [bench_collectives options...]}
shift
mkdir -p "$out"
bin=${BENCH_COLLECTIVES:-$here/build/default/bin/bench_collectives}
mpirun=${MPIRUN:-mpirun}
opencl_max=${OPENCL_MAX_BYTES:-$((16 << 20))}
if [ "$(id -u)" = 0 ]; then  # Open MPI refuses root without both
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Counted before OMP_NUM_THREADS is set: GNU nproc reports OMP_NUM_THREADS when it is set, and
# --oversubscribe (which also makes Open MPI yield when idle, raising small-message latency) is
# only for runs with more ranks than cores.
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
# One thread per rank: the ranks already fill the cores, and XD_DIST_CHECK must not override --check.
unset XD_DIST_CHECK
export OMP_NUM_THREADS=1

status=0
# run NAME BACKEND NP CHECK [options...]: one mpirun, its table in NAME.log and on stdout.
run() {
  local name=$1 backend=$2 np=$3 check=$4
  shift 4
  local extra=()
  [ "$np" -gt "$cores" ] && extra=(--oversubscribe)
  printf '\n=== %s: XD_BACKEND=%s, %s ranks%s, check_metadata %s\n' "$name" "$backend" "$np" \
    "${extra[*]:+ (${extra[*]})}" "$check"
  "$mpirun" "${extra[@]}" -np "$np" -x XD_BACKEND="$backend" -x OMP_NUM_THREADS \
    "$bin" --check "$check" --csv "$out/$name.csv" --json "$out/$name.json" "$@" 2>&1 | tee "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ]; then echo "=== $name: exit status $rc"; status=1; fi
}

{
  echo "=== machine"
  uname -a; echo "$cores cores"; free -g | head -2; "$mpirun" --version | head -1
  echo "commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null)"
} | tee "$out/machine.txt"

run cpu-np2-check1 cpu 2 1 "$@"
run cpu-np2-check0 cpu 2 0 --collectives all_reduce "$@"
run cpu-np4-check1 cpu 4 1 "$@"
run cpu-np4-check0 cpu 4 0 --collectives all_reduce "$@"
run opencl-np2-check1 opencl 2 1 --max-bytes "$opencl_max" "$@"
exit $status
