#!/usr/bin/env bash
# The GPU measurements of docs/performance.md in one run: xd-info, the quick conformance suite and
# the golden cases on the OpenCL GPU, xd-bench on the figures the issues name, and PyTorch on the
# same machine through bench/torch_reference.py.
#
# Usage: bench/gpu_run.sh STAGE OUT
#   STAGE  an install tree (cmake --install) whose lib/ also holds the shared libraries the
#          GPU machine lacks (Boost.ProgramOptions, the OpenCL ICD loader): see docs/performance.md
#   OUT    where the JSON/CSV results and the log go
# Environment: OCL_ICD_VENDORS must reach the vendor's OpenCL driver (NVIDIA: a folder holding a
# file that names libnvidia-opencl.so.1).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"  # stage, out, bin, here, section; LD_LIBRARY_PATH, XD_CACHE_DIR

section "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | head -3
section "xd-info"
"$bin/xd-info" 2>&1 | head -40
section "xd-conform --quick --backend opencl"
timeout 240 "$bin/xd-conform" --quick --backend opencl --json "$out/conform-quick.json" 2>&1 | tail -50
section "xd-conform --golden --backend opencl"
timeout 120 "$bin/xd-conform" --golden "$here/tests/golden" --backend opencl 2>&1 | tail -8

bench=("$bin/xd-bench" --backend opencl --warmup 3)
section "xd-bench: rms_norm fwd/bwd f32"
"${bench[@]}" --op rms_norm --op rms_norm_backward --size 4096x4096 --size 16384x8192 --size 65536x4096 --reps 20 \
  --json "$out/rms_norm.json" --csv "$out/rms_norm.csv"
section "xd-bench: add_broadcast, softmax f32 (>= 64 MiB)"
"${bench[@]}" --op add_broadcast --op softmax --size 4096x4096 --size 8192x8192 --size 16384x8192 --reps 20 \
  --json "$out/bcast_softmax.json" --csv "$out/bcast_softmax.csv"
section "xd-bench: mm 4096^3 f32 f16 bf16"
"${bench[@]}" --op mm --size 4096 --dtype f32 --dtype f16 --dtype bf16 --reps 10 \
  --json "$out/mm.json" --csv "$out/mm.csv"
section "xd-bench: int_mm i8, scaled_mm f8e4m3fn f8e5m2 at 4096^3"
"${bench[@]}" --op int_mm --op scaled_mm --op scaled_mm_fast_accum --size 4096 --dtype i8 --dtype f8e4m3fn --dtype f8e5m2 --reps 10 \
  --json "$out/quant_mm.json" --csv "$out/quant_mm.csv"
section "xd-bench: weight_int4_mm decode, K = N = 16384 (128 MiB of int4 weights), M = 1, 8 and 16"
"${bench[@]}" --op weight_int4_mm --size 1x16384x16384 --size 8x16384x16384 --size 16x16384x16384 --dtype f32 \
  --dtype bf16 --dtype f16 --reps 20 --json "$out/int4.json" --csv "$out/int4.csv"
section "xd-bench: sparse CSR 8192x8192 at 1% and 5% x dense 8192x256 f32, and the dense mm of that shape"
"${bench[@]}" --op sparse_mm_1pct --op sparse_mm_5pct --reps 20 --json "$out/sparse.json" --csv "$out/sparse.csv"
"${bench[@]}" --op mm --size 8192x256x8192 --reps 20 --json "$out/sparse_dense_mm.json" --csv "$out/sparse_dense_mm.csv"
section "xd-bench: xd::compile's fused chains, eager vs compiled, with its first calls"
"${bench[@]}" --op chain6 --op silu_mul_add --op silu_rms_norm --size 4096x4096 --size 16384x8192 --reps 20 \
  --compile-time --json "$out/fused.json" --csv "$out/fused.csv"
"${bench[@]}" --op llama_mlp --size 512x4096x11008 --size 2048x4096x11008 --reps 10 --compile-time \
  --json "$out/llama_mlp.json" --csv "$out/llama_mlp.csv"
section "xd-bench: decode-shaped mm and llama_mlp at 16 and 512 tokens, f32 and bf16 (bench/gpu_matmul.sh)"
"$here/bench/gpu_matmul.sh" "$stage" "$out/matmul" --bench-only 2>&1 | grep -v '^$'
section "xd-bench: every workload, f32, default sizes, with cold/warm start"
"${bench[@]}" --reps 10 --startup --json "$out/all.json" --csv "$out/all.csv"
section "PyTorch"
python3 "$here/bench/torch_reference.py" --csv "$out/torch.csv" 2>&1
column -s, -t "$out/torch.csv" 2>/dev/null || cat "$out/torch.csv"
