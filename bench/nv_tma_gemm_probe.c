// How fast is a bf16 GEMM on wgmma whose stages are filled by tensor-map copies straight from the
// operands (no packing pass)? A standalone kernel with the library's main loop shape
// (plugins/xpu/kernels/wgmma_common.cl, xd_wg_tile): a 128 x 128 tile per work-group of one
// warpgroup, stages of two k16 steps (A: a box of 32 k by 128 rows, 64-byte swizzle, K-major; B
// stored k x n, as `xd-bench --op mm` and `a @ b` keep it: two boxes of 64 n by 32 k rows, 128-byte
// swizzle, read by wgmma with its transpose flag), three stages (48 KiB), the next stage's copies
// issued while the current one's products run. It stores f32 sums rounded to bf16 (no alpha, beta
// or bias) and checks 256 sampled outputs against double sums on the host. The descriptor forms
// are those nv_tma_probe.c verified.
//
// Build here: gcc -O1 bench/nv_tma_gemm_probe.c -o nv_tma_gemm_probe -lOpenCL -ldl
// Run on the GPU machine (OCL_ICD_VENDORS reaching libnvidia-opencl.so.1): ./nv_tma_gemm_probe [M N K]
#define CL_TARGET_OPENCL_VERSION 120
#include "nv_probe.h"

#include <CL/cl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* src =
    "#define F4(v) \"+f\"(v.s0), \"+f\"(v.s1), \"+f\"(v.s2), \"+f\"(v.s3)\n"
    "#define ACC(d) F4(d[0]), F4(d[1]), F4(d[2]), F4(d[3]), F4(d[4]), F4(d[5]), F4(d[6]), F4(d[7]), F4(d[8]), "
    "F4(d[9]), F4(d[10]), F4(d[11]), F4(d[12]), F4(d[13]), F4(d[14]), F4(d[15])\n"
    "#define REGS \"{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,"
    "%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}\"\n"
    "#define MMA(d, da, db) __asm__ volatile(SM90A \"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 \" "
    "REGS \", %64, %65, 1, 1, 1, 0, 1;\" : ACC(d) : \"l\"(da), \"l\"(db) : \"memory\")\n"
    "#define S 3\n"
    "#define STAGE 8192u\n"
    "inline ulong desc(uint at, uint lbo, uint sbo, uint swizzle) {\n"
    "  return (ulong)((at & 0x3FFFFu) >> 4) | ((ulong)(lbo >> 4) << 16) | ((ulong)(sbo >> 4) << 32) |\n"
    "         ((ulong)swizzle << 62);\n"
    "}\n"
    "inline void fill(__global const ulong* ma, __global const ulong* mb, uint sa, uint sb, uint bar, int k0, int m0,\n"
    "                 int n0) {\n"
    "  __asm__ volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;\" : : \"r\"(bar) : \"memory\");\n"
    "  __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                   \" [%0], [%1, {%2, %3}], [%4];\" : : \"r\"(sa), \"l\"(ma), \"r\"(k0), \"r\"(m0), \"r\"(bar) : "
    "\"memory\");\n"
    "  __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                   \" [%0], [%1, {%2, %3}], [%4];\" : : \"r\"(sb), \"l\"(mb), \"r\"(n0), \"r\"(k0), \"r\"(bar) : "
    "\"memory\");\n"
    "  __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                   \" [%0], [%1, {%2, %3}], [%4];\" : : \"r\"(sb + 4096u), \"l\"(mb), \"r\"(n0 + 64), \"r\"(k0), "
    "\"r\"(bar) : \"memory\");\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void gemm(__global const ulong* maps,\n"
    "    __global ushort* c, int M, int N, int K) {\n"
    "  __local uint4 ra[S * STAGE / 16] __attribute__((aligned(1024)));\n"
    "  __local uint4 rb[S * STAGE / 16] __attribute__((aligned(1024)));\n"
    "  __local ulong bars[S];\n"
    "  const int q = (int)get_local_id(0), lane = q & 31, w = q >> 5, g = lane >> 2, t = lane & 3;\n"
    "  const int tiles_m = M / 128, gid = (int)get_group_id(0);\n"
    "  const int m0 = (gid % tiles_m) * 128, n0 = (gid / tiles_m) * 128;\n"
    "  const uint sa0 = (uint)(ulong)ra, sb0 = (uint)(ulong)rb, bar0 = (uint)(ulong)bars;\n"
    "  __global const ulong* ma = maps;\n"
    "  __global const ulong* mb = maps + 16;\n"
    "  const int stages = K / 32;\n"
    "  if (q == 0) {\n"
    "    for (int s = 0; s < S; ++s) __asm__ volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" : : \"r\"(bar0 + 8u * "
    "s) "
    ": \"memory\");\n"
    "    __asm__ volatile(\"fence.mbarrier_init.release.cluster;\" : : : \"memory\");\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (q == 0)\n"
    "    for (int s = 0; s < S - 1 && s < stages; ++s) fill(ma, mb, sa0 + s * STAGE, sb0 + s * STAGE, bar0 + 8u * s, s "
    "* "
    "32, m0, n0);\n"
    "  float4 d0[16], d1[16];\n"
    "  for (int j = 0; j < 16; ++j) d0[j] = d1[j] = (float4)(0.0f);\n"
    "  int use = 0, refill = S - 1;\n"
    "  for (int st = 0; st < stages; ++st) {\n"
    "    uint done = 0;\n"
    "    while (!done)\n"
    "      __asm__ volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, "
    "p; }\" : \"=r\"(done) : \"r\"(bar0 + 8u * use), \"r\"((uint)(st / S) & 1u) : \"memory\");\n"
    "    __asm__ volatile(SM90A \"wgmma.fence.sync.aligned;\" : : : \"memory\");\n"
    "    for (int i = 0; i < 2; ++i) {\n"
    "      const uint a = sa0 + use * STAGE + 32u * i, b = sb0 + use * STAGE + 2048u * i;\n"
    "      const ulong da0 = desc(a, 16u, 512u, 2u), da1 = desc(a + 4096u, 16u, 512u, 2u), db = desc(b, 4096u, 1024u, "
    "1u);\n"
    "      MMA(d0, da0, db);\n"
    "      MMA(d1, da1, db);\n"
    "    }\n"
    "    __asm__ volatile(SM90A \"wgmma.commit_group.sync.aligned;\" : : : \"memory\");\n"
    "    __asm__ volatile(SM90A \"wgmma.wait_group.sync.aligned 1;\" : : : \"memory\");\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    const int next = st + S - 1;\n"
    "    if (q == 0 && next < stages) {\n"
    "      __asm__ volatile(\"fence.proxy.async.shared::cta;\" : : : \"memory\");\n"
    "      fill(ma, mb, sa0 + refill * STAGE, sb0 + refill * STAGE, bar0 + 8u * refill, next * 32, m0, n0);\n"
    "    }\n"
    "    use = use == S - 1 ? 0 : use + 1;\n"
    "    refill = refill == S - 1 ? 0 : refill + 1;\n"
    "  }\n"
    "  __asm__ volatile(SM90A \"wgmma.wait_group.sync.aligned 0;\" : : : \"memory\");\n"
    "  __asm__ volatile(\"\" : ACC(d0) : : \"memory\");\n"
    "  __asm__ volatile(\"\" : ACC(d1) : : \"memory\");\n"
    "  for (int h = 0; h < 2; ++h)\n"
    "    for (int j = 0; j < 16; ++j) {\n"
    "      const float4 v = h ? d1[j] : d0[j];\n"
    "      const long r = m0 + h * 64 + 16 * w + g, col = n0 + 8 * j + 2 * t;\n"
    "      vstore2((ushort2)(as_uint(v.s0) >> 16, as_uint(v.s1) >> 16), 0, c + r * N + col);\n"
    "      vstore2((ushort2)(as_uint(v.s2) >> 16, as_uint(v.s3) >> 16), 0, c + (r + 8) * N + col);\n"
    "    }\n"
    "}\n";

int main(int argc, char** argv) {
  const int M = argc > 3 ? atoi(argv[1]) : 4096, N = argc > 3 ? atoi(argv[2]) : 4096,
            K = argc > 3 ? atoi(argv[3]) : 4096;
  if (M % 128 || N % 128 || K % 32) {
    printf("M and N must be multiples of 128, K of 32\n");
    return 2;
  }
  cl_device_id dev;
  if (!first_gpu(&dev)) return 2;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  cl_program prog = build_sm90a(ctx, dev, src, "");
  if (prog == NULL) return 1;
  cl_kernel k = clCreateKernel(prog, "gemm", &err);
  if (err != CL_SUCCESS) {
    printf("no kernel: %d\n", err);
    return 1;
  }

  uint16_t* ha = malloc(sizeof(uint16_t) * M * K);
  uint16_t* hb = malloc(sizeof(uint16_t) * K * N);
  uint16_t* hc = malloc(sizeof(uint16_t) * M * N);
  uint32_t x = 12345;
  for (long i = 0; i < (long)M * K; ++i)
    ha[i] = bf16_bits((float)((x = x * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f);
  for (long i = 0; i < (long)K * N; ++i)
    hb[i] = bf16_bits((float)((x = x * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(uint16_t) * M * K, ha, &err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(uint16_t) * K * N, hb, &err);
  cl_mem c = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(uint16_t) * M * N, NULL, &err);
  tensor_map_encoder encode = cuda_tensor_map_encoder();
  if (encode == NULL) return 1;
  tensor_map maps[2];
  memset(maps, 0, sizeof maps);
  const uint64_t dims_a[2] = {(uint64_t)K, (uint64_t)M}, stride_a[1] = {(uint64_t)K * 2};
  const uint64_t dims_b[2] = {(uint64_t)N, (uint64_t)K}, stride_b[1] = {(uint64_t)N * 2};
  const uint32_t box_a[2] = {32, 128}, box_b[2] = {64, 32}, ones[2] = {1, 1};
  const int rca = encode(&maps[0], kMapBf16, 2, (void*)(uintptr_t)device_address(ctx, dev, q, a), dims_a, stride_a,
                         box_a, ones, 0, 2, kMapL2Promote128, 0);
  const int rcb = encode(&maps[1], kMapBf16, 2, (void*)(uintptr_t)device_address(ctx, dev, q, b), dims_b, stride_b,
                         box_b, ones, 0, kMapSwizzle128, kMapL2Promote128, 0);
  if (rca != 0 || rcb != 0) {
    printf("tensor maps: %d %d\n", rca, rcb);
    return 1;
  }
  cl_mem gm = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof maps, maps, &err);
  clSetKernelArg(k, 0, sizeof gm, &gm);
  clSetKernelArg(k, 1, sizeof c, &c);
  clSetKernelArg(k, 2, sizeof M, &M);
  clSetKernelArg(k, 3, sizeof N, &N);
  clSetKernelArg(k, 4, sizeof K, &K);
  const size_t local = 128, global = (size_t)(M / 128) * (N / 128) * 128;
  double ms[20];
  for (int r = 0; r < 23; ++r) {
    cl_event e;
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &e);
    if (err != CL_SUCCESS || clWaitForEvents(1, &e) != CL_SUCCESS) {
      printf("run failed: %d\n", err);
      return 1;
    }
    cl_ulong t0, t1;
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (r >= 3) ms[r - 3] = (double)(t1 - t0) * 1e-6;
    clReleaseEvent(e);
  }
  for (int i = 1; i < 20; ++i)
    for (int j = i; j > 0 && ms[j - 1] > ms[j]; --j) {
      const double tmp = ms[j];
      ms[j] = ms[j - 1];
      ms[j - 1] = tmp;
    }
  clEnqueueReadBuffer(q, c, CL_TRUE, 0, sizeof(uint16_t) * M * N, hc, 0, NULL, NULL);
  int wrong = 0;
  double worst = 0;
  for (int s = 0; s < 256; ++s) {
    const long i = (long)((x = x * 1664525u + 1013904223u) % (uint32_t)M),
               jn = (long)((x = x * 1664525u + 1013904223u) % (uint32_t)N);
    double want = 0;
    for (long kk = 0; kk < K; ++kk) want += (double)bf16_value(ha[i * K + kk]) * bf16_value(hb[kk * N + jn]);
    const double have = bf16_value(hc[i * N + jn]), err_rel = fabs(have - want) / (fabs(want) + 1.0);
    if (err_rel > worst) worst = err_rel;
    if (err_rel > 2e-2 && wrong++ < 4) printf("  C[%ld][%ld] = %g, want %g\n", i, jn, have, want);
  }
  const double t = ms[10];
  printf(
      "tensor-map wgmma GEMM bf16 %dx%dx%d: median %.4f ms (min %.4f) of 20, %.1f TFLOP/s; 256 sampled outputs: %d "
      "off by more than 2e-2 (worst %.2e, relative to |want| + 1)\n",
      M, N, K, t, ms[0], 2.0 * M * N * K / t * 1e-9, wrong, worst);
  return wrong != 0;
}
