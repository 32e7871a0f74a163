#!/usr/bin/env bash
# The model ops on the GPU beside PyTorch in one run (docs/performance.md, "Model ops"): the
# conformance (full) and golden cases of conv2d, the pools, cumsum, topk and attention on the OpenCL GPU
# (attention also with its tensor-core kernel switched off), the cnn and
# llama_decoder examples against PyTorch's outputs, then xd-bench's causal attention (bf16, f16)
# and conv2d at ResNet-50's shapes (f32, bf16), and bench/torch_reference.py --suite models.
#
# Usage: bench/gpu_models.sh STAGE OUT   (STAGE, OUT and the environment as for bench/gpu_run.sh; the
# examples are not installed: copy build/<dir>/bin/cnn and llama_decoder into STAGE/bin)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"  # stage, out, bin, here, section; LD_LIBRARY_PATH, XD_CACHE_DIR

section "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | head -3
section "xd-conform (full) on the model ops, --backend opencl"
ops=()
for op in conv2d max_pool2d avg_pool2d scaled_dot_product_attention cumsum topk layer_norm gather; do ops+=(--op "$op"); done
timeout 300 "$bin/xd-conform" --backend opencl "${ops[@]}" 2>&1 | tail -10
section "xd-conform (full) attention with the tensor-core kernel off (XD_OPENCL_MATMUL_MMA=0: the portable kernel)"
XD_OPENCL_MATMUL_MMA=0 timeout 300 "$bin/xd-conform" --backend opencl --op scaled_dot_product_attention 2>&1 | tail -2
section "xd-conform --golden --backend opencl"
timeout 180 "$bin/xd-conform" --golden "$here/tests/golden" --backend opencl 2>&1 | tail -4
section "examples against PyTorch on the GPU"
for dtype in f32 bf16; do
  XD_BACKEND=opencl "$bin/cnn" --dtype $dtype --iterations 3 "$here/examples/cnn/golden" 2>&1 | tail -3
done
for weights in f32 int8 int4; do
  XD_BACKEND=opencl "$bin/llama_decoder" --weights $weights --iterations 3 "$here/examples/llama_decoder/golden" 2>&1 | tail -3
done

bench=("$bin/xd-bench" --backend opencl --warmup 2)
section "xd-bench: causal attention B4 H32 S2048 D128, bf16 and f16"
"${bench[@]}" --op attention --size 4x32x2048x128 --size 4x32x2048x64 --size 4x32x4096x128 --dtype bf16 --dtype f16 --reps 10 \
  --json "$out/attention.json" --csv "$out/attention.csv"
section "xd-bench: the same attention on the portable kernel (XD_OPENCL_MATMUL_MMA=0)"
XD_OPENCL_MATMUL_MMA=0 "${bench[@]}" --op attention --size 4x32x2048x128 --dtype bf16 --reps 2 \
  --json "$out/attention_portable.json" --csv "$out/attention_portable.csv"
section "xd-bench: conv2d at ResNet-50's shapes (NxCxHxWxOxKxS, padding K/2), f32 and bf16"
sizes=()
for s in 32x3x224x224x64x7x2 32x64x56x56x64x3x1 32x128x28x28x128x3x1 32x256x14x14x256x3x1 32x512x7x7x512x3x1 \
         32x256x56x56x64x1x1; do sizes+=(--size "$s"); done
"${bench[@]}" --op conv2d "${sizes[@]}" --dtype f32 --dtype bf16 --reps 5 --json "$out/conv2d.json" --csv "$out/conv2d.csv"
section "PyTorch (bench/torch_reference.py --suite models)"
python3 "$here/bench/torch_reference.py" --suite models --reps 10 --csv "$out/torch_models.csv" 2>&1 | tail -3
python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"torch {r["op"]:<10} {r["dtype"]:<5} {r["size"]:<24} {float(r["median_ms"]):9.4f} ms {float(r["gflops"]):10.0f} GFLOP/s")' "$out/torch_models.csv"
