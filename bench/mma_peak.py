#!/usr/bin/env python3
"""The tensor cores' peak through mma.sync on an NVIDIA GPU, the instruction xdispatch's OpenCL
kernels reach by inline PTX (docs/performance.md, "Matmuls on the matrix units").

Each warp runs rounds of 8 independent mma.sync on register operands (no memory traffic), for
bf16 and f16 (m16n8k16, f32 accumulate), s8 (m16n8k32, s32) and e4m3 (m16n8k32, f32), at 4 to 32
warps per compute unit, twice: with the same operands in every round ("held": what the compiler may
prepare once, outside the loop) and with each mma's own operands changed every round ("fresh", as
a GEMM's are: six integer operations per mma, the same for every type). Two steps, since the GPU
machine has no CUDA toolkit and this one no GPU:

  bench/mma_peak.py build OUT.cubin   # here: writes the PTX and runs CUDA's ptxas -arch=sm_90
  bench/mma_peak.py run CUBIN         # there: loads it with the CUDA driver API (ctypes; PyTorch
                                      # makes the context and times with CUDA events)
"""
import ctypes
import shutil
import subprocess
import sys
import tempfile

ROUNDS_ACC = 8  # independent accumulators per warp
KERNELS = [  # name, shape, types, accumulator register type, flops per mma
    ("mma_bf16", "m16n8k16", "f32.bf16.bf16.f32", "f32", 2 * 16 * 8 * 16),
    ("mma_f16", "m16n8k16", "f32.f16.f16.f32", "f32", 2 * 16 * 8 * 16),
    ("mma_s8", "m16n8k32", "s32.s8.s8.s32", "b32", 2 * 16 * 8 * 32),
    ("mma_e4m3", "m16n8k32", "f32.e4m3.e4m3.f32", "f32", 2 * 16 * 8 * 32),
]


def kernel_ptx(name, shape, types, acc, fresh):
    n = 4 * ROUNDS_ACC
    sets = ROUNDS_ACC if fresh else 1  # operand sets
    add = "add.f32" if acc == "f32" else "add.s32"
    lines = [f".visible .entry {name}(.param .u64 out, .param .u32 iters)", "{",
             f" .reg .b32 %a<{4 * sets}>; .reg .b32 %b<{2 * sets}>; .reg .{acc} %c<{n}>; .reg .pred %p;",
             " .reg .b32 %i, %n, %t, %bx, %bd, %m; .reg .b64 %o, %off;",
             " ld.param.u64 %o, [out]; ld.param.u32 %n, [iters]; mov.u32 %t, %tid.x;"]
    # Operands from the lane id, so that nothing is constant-folded; small finite values.
    lines += [f" and.b32 %a{r}, %t, {0x3f003f00 + r};" for r in range(4 * sets)]
    lines += [f" and.b32 %b{r}, %t, {0x3c003c00 + r};" for r in range(2 * sets)]
    lines += [f" mov.b32 %c{r}, 0;" for r in range(n)]
    lines += [" mov.u32 %i, 0;", "LOOP:"]
    if fresh:  # flip a low bit of every operand, by the round: new values, still small and finite
        lines.append(" and.b32 %m, %i, 1;")
        lines += [f" xor.b32 %a{r}, %a{r}, %m;" for r in range(4 * sets)]
        lines += [f" xor.b32 %b{r}, %b{r}, %m;" for r in range(2 * sets)]
    for j in range(ROUNDS_ACC):
        c = ",".join(f"%c{4 * j + q}" for q in range(4))
        s_ = j if fresh else 0
        a = ",".join(f"%a{4 * s_ + q}" for q in range(4))
        b = ",".join(f"%b{2 * s_ + q}" for q in range(2))
        lines.append(f" mma.sync.aligned.{shape}.row.col.{types} {{{c}}}, {{{a}}}, {{{b}}}, {{{c}}};")
    lines += [" add.u32 %i, %i, 1; setp.lt.u32 %p, %i, %n; @%p bra LOOP;",
              " mov.u32 %bx, %ctaid.x; mov.u32 %bd, %ntid.x; mad.lo.u32 %t, %bx, %bd, %t;",
              " cvt.u64.u32 %off, %t; shl.b64 %off, %off, 2; add.u64 %o, %o, %off;"]
    lines += [f" {add} %c0, %c0, %c{r};" for r in range(1, n)]
    lines += [f" st.global.b32 [%o], %c0;", " ret;", "}"]
    return "\n".join(lines)


def build(out_cubin):
    ptx = ".version 8.4\n.target sm_90\n.address_size 64\n\n" + "\n\n".join(
        kernel_ptx(name + suffix, shape, types, acc, fresh) for name, shape, types, acc, _ in KERNELS
        for suffix, fresh in (("_held", False), ("_fresh", True)))
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx)
    subprocess.run([ptxas, "-arch=sm_90", "-v", f.name, "-o", out_cubin], check=True)


def run(cubin, iters=4096, reps=10):
    import torch
    torch.zeros(1, device="cuda")  # PyTorch makes the primary context current
    cu = ctypes.CDLL("libcuda.so.1")
    mod = ctypes.c_void_p()
    if cu.cuModuleLoadData(ctypes.byref(mod), open(cubin, "rb").read()) != 0:
        sys.exit(f"cuModuleLoadData failed for {cubin}")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"{torch.cuda.get_device_name(0)}: {sms} compute units; torch {torch.__version__}; "
          f"{ROUNDS_ACC} independent mma per warp per round, {iters} rounds, medians of {reps}")
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    for name, shape, types, _, flop in [(k[0] + s, *k[1:]) for k in KERNELS for s in ("_held", "_fresh")]:
        fn = ctypes.c_void_p()
        if cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()) != 0:
            sys.exit(f"no kernel {name} in {cubin}")
        for warps_per_sm in (4, 8, 16, 32):
            threads, blocks = 128, sms * warps_per_sm // 4
            out = torch.empty(blocks * threads, device="cuda")
            p_out, p_it = ctypes.c_uint64(out.data_ptr()), ctypes.c_uint32(iters)
            params = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(p_out), ctypes.c_void_p),
                                           ctypes.cast(ctypes.byref(p_it), ctypes.c_void_p))

            def launch():
                r = cu.cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, stream, params, None)
                if r != 0:
                    sys.exit(f"cuLaunchKernel({name}) failed: {r}")
            for _ in range(3):
                launch()
            times = []
            for _ in range(reps):
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                launch()
                e1.record()
                torch.cuda.synchronize()
                times.append(e0.elapsed_time(e1))
            ms = sorted(times)[reps // 2]
            total = blocks * (threads // 32) * iters * ROUNDS_ACC * flop
            print(f"{name:15s} {shape} {types:18s} {warps_per_sm:3d} warps/CU {ms:8.3f} ms "
                  f"{total / ms / 1e9:8.1f} TFLOP/s")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("build", "run"):
        sys.exit(__doc__)
    (build if sys.argv[1] == "build" else run)(sys.argv[2])
