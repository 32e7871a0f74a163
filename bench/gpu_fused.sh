#!/usr/bin/env bash
# xd::compile on the GPU in one run: the fused workloads (xd-bench, OpenCL backend, eager and
# compiled, with first calls) beside PyTorch eager and torch.compile on the same machine, then the
# full generated-code conformance (xd-conform --compiled, 535 graphs) on the GPU.
#
# Usage: bench/gpu_fused.sh STAGE OUT   (STAGE and the environment as for bench/gpu_run.sh)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"  # stage, out, bin, here, section; LD_LIBRARY_PATH, XD_CACHE_DIR
bench=("$bin/xd-bench" --backend opencl --warmup 3)

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tail -1
printf '\n=== xd-bench: fused chains\n'
"${bench[@]}" --op chain6 --op silu_mul_add --op silu_rms_norm --size 4096x4096 --size 16384x8192 --reps 20 \
  --compile-time --csv "$out/fused.csv"
printf '\n=== xd-bench: llama_mlp\n'
"${bench[@]}" --op llama_mlp --size 512x4096x11008 --size 2048x4096x11008 --reps 10 --compile-time \
  --csv "$out/llama_mlp.csv"
printf '\n=== PyTorch eager and torch.compile\n'
python3 "$here/bench/torch_reference.py" --suite fused --device cuda --csv "$out/torch_fused.csv" 2>&1 | grep -v Warn
printf '\n=== xd-conform --compiled --backend opencl\n'
timeout 400 "$bin/xd-conform" --compiled --backend opencl 2>&1 | tail -20
