#!/usr/bin/env bash
# A/B of two builds on the GPU, in one device session: the workloads of docs/performance.md's
# latest table (bench/gpu_run.sh's xd-bench part), measured for build A and build B alternately,
# round after round, each xd-bench run a fresh process with its own copy reference, so that both
# builds see the same machine state. Then the medians side by side and B's time over A's
# (bench/ab_summary.py).
#
# Usage: bench/gpu_ab.sh STAGE_A STAGE_B OUT [ROUNDS]
#   STAGE_A, STAGE_B  install trees as bench/gpu_run.sh takes them (docs/performance.md)
#   OUT               where each run's JSON and the summary go
#   ROUNDS            rounds of A then B (default 2)
# Environment: OCL_ICD_VENDORS must reach the vendor's OpenCL driver.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
out=$3
rounds=${4:-2}
mkdir -p "$out"
cache=$(mktemp -d)  # each build's program cache, outside OUT (binaries nobody reads back)
trap 'rm -rf "$cache"' EXIT

# name|xd-bench arguments: the rows of the latest table.
workloads=(
  "int4|--op weight_int4_mm --size 1x16384x16384 --size 8x16384x16384 --size 16x16384x16384 --dtype f32 --dtype bf16 --dtype f16 --reps 20"
  "rms_norm|--op rms_norm --op rms_norm_backward --size 4096x4096 --size 16384x8192 --size 65536x4096 --reps 20"
  "bcast_softmax|--op add_broadcast --op softmax --size 4096x4096 --size 8192x8192 --size 16384x8192 --reps 20"
  "mm|--op mm --size 4096 --dtype f32 --dtype f16 --dtype bf16 --reps 10"
  "quant_mm|--op int_mm --op scaled_mm --op scaled_mm_fast_accum --size 4096 --dtype i8 --dtype f8e4m3fn --dtype f8e5m2 --reps 10"
  "sparse|--op sparse_mm_1pct --op sparse_mm_5pct --reps 20"
  "sparse_dense|--op mm --size 8192x256x8192 --reps 20"
)

run_build() {  # label stage round
  local label=$1 stage=$2 round=$3 w name args
  for w in "${workloads[@]}"; do
    name=${w%%|*}
    args=${w#*|}
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" XD_CACHE_DIR="$cache/$label" \
      "$stage/bin/xd-bench" --backend opencl --warmup 3 $args --json "$out/$label/r$round/$name.json" \
      > "$out/$label/r$round/$name.txt" 2>&1 || echo "xd-bench failed: $label round $round $name"
  done
}

for r in $(seq 1 "$rounds"); do
  mkdir -p "$out/A/r$r" "$out/B/r$r"
  # A first in odd rounds, B first in even ones: neither build always runs on a warmer GPU.
  if ((r % 2 == 1)); then run_build A "$a" "$r"; run_build B "$b" "$r"; else run_build B "$b" "$r"; run_build A "$a" "$r"; fi
  echo "round $r done"
done
python3 "$here/bench/ab_summary.py" "$out" | tee "$out/summary.txt"
