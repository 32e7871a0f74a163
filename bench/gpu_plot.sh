#!/usr/bin/env bash
# The rows of docs/performance.md's H100 picture ("NVIDIA H100 at a glance") in one run: xd-bench
# JSON on the OpenCL GPU and PyTorch's reference CSV on the same machine, for tools/plot_bench.py.
#
# Usage: bench/gpu_plot.sh STAGE OUT   (STAGE, OUT and OCL_ICD_VENDORS as for bench/gpu_run.sh)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"  # stage, out, bin, here, section; LD_LIBRARY_PATH, XD_CACHE_DIR
nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 | tail -1
b=("$stage/bin/xd-bench" --backend opencl --warmup 3)
"${b[@]}" --op rms_norm --op rms_norm_backward --op softmax --op add_broadcast --size 16384x8192 --reps 20 \
  --json "$out/rows.json"
"${b[@]}" --op mm --size 4096 --dtype f32 --dtype f16 --dtype bf16 --reps 10 --json "$out/mm.json"
"${b[@]}" --op int_mm --op scaled_mm --op scaled_mm_fast_accum --size 4096 --dtype i8 --dtype f8e4m3fn --reps 10 --json "$out/quant_mm.json"
"${b[@]}" --op weight_int4_mm --size 16x16384x16384 --dtype bf16 --reps 20 --json "$out/int4.json"
python3 "$here/bench/torch_reference.py" --suite matmul --csv "$out/torch_matmul.csv" 2>&1 | tail -3
python3 "$here/bench/torch_reference.py" --suite ops --csv "$out/torch_ops.csv" 2>&1 | tail -3
(cat "$out/torch_matmul.csv"; tail -n +2 "$out/torch_ops.csv") >"$out/torch.csv"
