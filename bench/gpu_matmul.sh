#!/usr/bin/env bash
# The matmul measurements of docs/performance.md ("Matmuls on the matrix units") in one run: the
# full conformance sets of the matmul family on the OpenCL GPU, xd-bench on mm 4096^3 (f32, f16,
# bf16), decode-shaped mm (M = 1 and 16, K = N = 16384, f32 and bf16) and llama_mlp (16 and 512
# tokens, f32 and bf16), then PyTorch on the same shapes (bench/torch_reference.py --suite matmul).
#
# Usage: bench/gpu_matmul.sh STAGE OUT [--bench-only]
#   STAGE  an install tree whose lib/ also holds the shared libraries the GPU machine lacks
#          (docs/performance.md says how to make it)
#   OUT    where the JSON/CSV results go
#   --bench-only  skip conformance and PyTorch (to compare build options: XD_OPENCL_BUILD_OPTIONS
#                 reaches the kernels, and each value builds its own programs)
# Environment: OCL_ICD_VENDORS must reach the vendor's OpenCL driver.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"  # stage, out, bin, here, section; LD_LIBRARY_PATH, XD_CACHE_DIR
bench_only=${3:-}
tag=$(printf '%s' "${XD_OPENCL_BUILD_OPTIONS:-default}" | tr -c 'A-Za-z0-9_' '_')

if [ "$bench_only" != "--bench-only" ]; then
  section "xd-conform (full) --backend opencl: mm addmm bmm baddbmm"
  timeout 400 "$bin/xd-conform" --backend opencl --op mm --op addmm --op bmm --op baddbmm 2>&1 | tail -6
  section "the same for f16 and bf16 with the tensor-core kernels off (XD_OPENCL_MATMUL_MMA=0)"
  XD_OPENCL_MATMUL_MMA=0 timeout 300 "$bin/xd-conform" --backend opencl --op mm --op addmm --op bmm --op baddbmm \
    --dtype f16 --dtype bf16 2>&1 | tail -4
fi

bench=("$bin/xd-bench" --backend opencl --warmup 3)
section "xd-bench: mm 4096^3 f32 f16 bf16 (build options: ${XD_OPENCL_BUILD_OPTIONS:-none})"
"${bench[@]}" --op mm --size 4096 --dtype f32 --dtype f16 --dtype bf16 --reps 10 --csv "$out/mm-$tag.csv"
if [ "$bench_only" != "--bench-only" ]; then
  section "xd-bench: mm 4096^3 f16 bf16 with the tensor-core kernels off"
  XD_OPENCL_MATMUL_MMA=0 "${bench[@]}" --op mm --size 4096 --dtype f16 --dtype bf16 --reps 10 --csv "$out/mm-nomma.csv"
fi
section "xd-bench: decode-shaped mm, M = 1 and 16, K = N = 16384, f32 and bf16"
"${bench[@]}" --op mm --size 1x16384x16384 --size 16x16384x16384 --dtype f32 --dtype bf16 --reps 20 \
  --csv "$out/decode-$tag.csv"
section "xd-bench: llama_mlp, 16 and 512 tokens, f32 and bf16"
"${bench[@]}" --op llama_mlp --size 16x4096x11008 --size 512x4096x11008 --dtype f32 --dtype bf16 --reps 10 \
  --csv "$out/llama-$tag.csv"

if [ "$bench_only" != "--bench-only" ]; then
  section "PyTorch"
  python3 "$here/bench/torch_reference.py" --suite matmul --csv "$out/torch-matmul.csv" 2>&1
  column -s, -t "$out/torch-matmul.csv" 2>/dev/null || cat "$out/torch-matmul.csv"
fi
