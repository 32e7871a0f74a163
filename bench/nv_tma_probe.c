// Can NVIDIA's OpenCL use Hopper's tensor-map copies (TMA, `cp.async.bulk.tensor`)? The map is a
// 128-byte descriptor that only the CUDA driver writes (cuTensorMapEncodeTiled), and it holds the
// tensor's device address, which OpenCL never hands out. This probe takes the address from a
// kernel (a __global pointer's value is the device address on NVIDIA's OpenCL), encodes the map
// with libcuda's cuTensorMapEncodeTiled (looked up with dlsym: no CUDA headers or context of our
// own), writes it into a buffer, and has a kernel built from OpenCL C copy a 2-D box of a bf16
// matrix into local memory with one `cp.async.bulk.tensor.2d` completing on an mbarrier, then
// write local memory out. The host checks every byte against the matrix: plain and 128-byte
// swizzled layouts, boxes inside and past the matrix's edges (zero-filled by the copy engine).
// Then the same with the map encoded for another buffer's address and the right one written into
// it on the device (`tensormap.replace`, sm_90a: the kernel's PTX rewritten as nv_wgmma_probe.c
// shows), so a caller need not read addresses back to the host: a kernel that patches the map,
// then the copy after `fence.proxy.tensormap::generic.acquire`.
//
// The rate of such copies beside the bulk copies of packed operands: nv_copy_probe.c (MODE 3).
//
// Build here: gcc -O1 bench/nv_tma_probe.c -o nv_tma_probe -lOpenCL -ldl
// Run on the GPU machine (OCL_ICD_VENDORS reaching libnvidia-opencl.so.1): ./nv_tma_probe
#define CL_TARGET_OPENCL_VERSION 120
#include "nv_probe.h"

#include <CL/cl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRows = 300, kCols = 200, kBoxCols = 64, kBoxRows = 64, kBoxBytes = kBoxCols * kBoxRows * 2 };

// One 64 x 128 x 32 bf16 product on wgmma (two m64n128k16) from tensor-map copies: A (64 x 32,
// k inner) as 64-byte rows with the 64-byte swizzle, B either the same way (n x 32, K-major) or
// stored k x n (MN-major: two boxes of 64 n by 32 k rows, 128-byte swizzle, wgmma's transpose
// flag). The descriptors: start >> 4, leading offset >> 4 at bit 16, stride offset >> 4 at bit 32,
// swizzle at bit 62 (1 = 128 bytes, 2 = 64). Accumulator j of warp w, lane (g, t): rows 16 w + g
// and + 8, columns 8 j + 2 t and + 1.
#define MMA_SRC                                                                                                        \
  "#define F4(v) \"+f\"(v.s0), \"+f\"(v.s1), \"+f\"(v.s2), \"+f\"(v.s3)\n"                                             \
  "#define ACC F4(d[0]), F4(d[1]), F4(d[2]), F4(d[3]), F4(d[4]), F4(d[5]), F4(d[6]), F4(d[7]), F4(d[8]), "             \
  "F4(d[9]), F4(d[10]), F4(d[11]), F4(d[12]), F4(d[13]), F4(d[14]), F4(d[15])\n"                                       \
  "#define REGS \"{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"             \
  "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,"           \
  "%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}\"\n"                                                       \
  "inline ulong desc(uint at, uint lbo, uint sbo, uint swizzle) {\n"                                                   \
  "  return (ulong)((at & 0x3FFFFu) >> 4) | ((ulong)(lbo >> 4) << 16) | ((ulong)(sbo >> 4) << 32) |\n"                 \
  "         ((ulong)swizzle << 62);\n"                                                                                 \
  "}\n"                                                                                                                \
  "__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void mma(__global const ulong* ma,\n"                     \
  "    __global const ulong* mb, __global float* out, int b_mn) {\n"                                                   \
  "  __local uint4 room[(4096 + 8192 + 1024) / 16];\n"                                                                 \
  "  __local ulong bar[1];\n"                                                                                          \
  "  const int q = (int)get_local_id(0), lane = q & 31, w = q >> 5, g = lane >> 2, t = lane & 3;\n"                    \
  "  const uint sa = ((uint)(ulong)room + 1023u) & ~1023u, sb = sa + 4096u, b = (uint)(ulong)bar;\n"                   \
  "  if (q == 0) {\n"                                                                                                  \
  "    __asm__ volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" : : \"r\"(b) : \"memory\");\n"                      \
  "    __asm__ volatile(\"fence.mbarrier_init.release.cluster;\" : : : \"memory\");\n"                                 \
  "  }\n"                                                                                                              \
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"                                                                                  \
  "  if (q == 0) {\n"                                                                                                  \
  "    __asm__ volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 12288;\" : : \"r\"(b) : \"memory\");\n"   \
  "    __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"        \
  "                     \" [%0], [%1, {0, 0}], [%2];\" : : \"r\"(sa), \"l\"(ma), \"r\"(b) : \"memory\");\n"            \
  "    __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"        \
  "                     \" [%0], [%1, {0, 0}], [%2];\" : : \"r\"(sb), \"l\"(mb), \"r\"(b) : \"memory\");\n"            \
  "    if (b_mn)\n"                                                                                                    \
  "      __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"      \
  "                       \" [%0], [%1, {64, 0}], [%2];\" : : \"r\"(sb + 4096u), \"l\"(mb), \"r\"(b) : \"memory\");\n" \
  "  }\n"                                                                                                              \
  "  uint done = 0;\n"                                                                                                 \
  "  while (!done)\n"                                                                                                  \
  "    __asm__ volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; " \
  "}\"\n"                                                                                                              \
  "                     : \"=r\"(done) : \"r\"(b) : \"memory\");\n"                                                    \
  "  float4 d[16];\n"                                                                                                  \
  "  for (int j = 0; j < 16; ++j) d[j] = (float4)(0.0f);\n"                                                            \
  "  __asm__ volatile(SM90A \"wgmma.fence.sync.aligned;\" : : : \"memory\");\n"                                        \
  "  for (int s = 0; s < 2; ++s) {\n"                                                                                  \
  "    const ulong da = desc(sa + 32u * s, 16u, 512u, 2u);\n"                                                          \
  "    if (b_mn) {\n"                                                                                                  \
  "      const ulong db = desc(sb + 2048u * s, 4096u, 1024u, 1u);\n"                                                   \
  "      __asm__ volatile(SM90A \"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 \" REGS \", %64, %65, 1, 1, "  \
  "1, 0, 1;\"\n"                                                                                                       \
  "                       : ACC : \"l\"(da), \"l\"(db) : \"memory\");\n"                                               \
  "    } else {\n"                                                                                                     \
  "      const ulong db = desc(sb + 32u * s, 16u, 512u, 2u);\n"                                                        \
  "      __asm__ volatile(SM90A \"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 \" REGS \", %64, %65, 1, 1, "  \
  "1, 0, 0;\"\n"                                                                                                       \
  "                       : ACC : \"l\"(da), \"l\"(db) : \"memory\");\n"                                               \
  "    }\n"                                                                                                            \
  "  }\n"                                                                                                              \
  "  __asm__ volatile(SM90A \"wgmma.commit_group.sync.aligned;\" : : : \"memory\");\n"                                 \
  "  __asm__ volatile(SM90A \"wgmma.wait_group.sync.aligned 0;\" : : : \"memory\");\n"                                 \
  "  __asm__ volatile(\"\" : ACC : : \"memory\");\n"                                                                   \
  "  for (int j = 0; j < 16; ++j) {\n"                                                                                 \
  "    const int r = 16 * w + g, c = 8 * j + 2 * t;\n"                                                                 \
  "    out[r * 128 + c] = d[j].s0; out[r * 128 + c + 1] = d[j].s1;\n"                                                  \
  "    out[(r + 8) * 128 + c] = d[j].s2; out[(r + 8) * 128 + c + 1] = d[j].s3;\n"                                      \
  "  }\n"                                                                                                              \
  "}\n"

static const char* src =
    "#ifdef PATCHED\n"
    "__kernel void patch(__global ulong* map, __global const uchar* a) {\n"
    "  __asm__ volatile(SM90A \"tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;\"\n"
    "                   : : \"l\"(map), \"l\"((ulong)a) : \"memory\");\n"
    "  __asm__ volatile(SM90A \"fence.proxy.tensormap::generic.release.gpu;\" : : : \"memory\");\n"
    "}\n" MMA_SRC
    "#endif\n"
    "__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void box(__global const ulong* map,\n"
    "                                                                    __global uint4* out, int x, int y) {\n"
    "  __local uint4 room[BOX_BYTES / 16 + 64];  // the box at its first 1024-byte boundary\n"
    "  __local ulong bar[1];\n"
    "  const int q = (int)get_local_id(0);\n"
    "  const uint at = ((uint)(ulong)room + 1023u) & ~1023u;\n"
    "  const uint b = (uint)(ulong)bar;\n"
    "  if (q == 0) {\n"
    "    __asm__ volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" : : \"r\"(b) : \"memory\");\n"
    "    __asm__ volatile(\"fence.mbarrier_init.release.cluster;\" : : : \"memory\");\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (q == 0) {\n"
    "#ifdef PATCHED\n"
    "    __asm__ volatile(SM90A \"fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\" : : \"l\"(map) : "
    "\"memory\");\n"
    "#endif\n"
    "    __asm__ volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" : : \"r\"(b), \"r\"(BOX_BYTES) : "
    "\"memory\");\n"
    "    __asm__ volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                     \" [%0], [%1, {%2, %3}], [%4];\"\n"
    "                     : : \"r\"(at), \"l\"(map), \"r\"(x), \"r\"(y), \"r\"(b) : \"memory\");\n"
    "  }\n"
    "  uint done = 0;\n"
    "  while (!done)\n"
    "    __asm__ volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; "
    "}\"\n"
    "                     : \"=r\"(done) : \"r\"(b) : \"memory\");\n"
    "  __local const uint4* tile = room + (at - (uint)(ulong)room) / 16;\n"
    "  for (int i = q; i < BOX_BYTES / 16; i += 128) out[i] = tile[i];\n"
    "}\n";

// The map of the kRows x kCols bf16 matrix at `address` with boxes of kBoxRows x kBoxCols.
static int encode_box_map(tensor_map_encoder encode, uint64_t address, int swizzle, tensor_map* m) {
  memset(m, 0, sizeof *m);
  const uint64_t dims[2] = {kCols, kRows};
  const uint64_t strides[1] = {kCols * 2};
  const uint32_t box_dims[2] = {kBoxCols, kBoxRows};
  const uint32_t element_strides[2] = {1, 1};
  return encode(m, kMapBf16, 2, (void*)(uintptr_t)address, dims, strides, box_dims, element_strides, 0, swizzle,
                kMapL2Promote128, 0);
}

static uint16_t value_at(int r, int c) { return (uint16_t)(r * 211 + c + 1); }

// The box at (x, y) as the copy engine should leave it: row r's 16-byte chunk j at chunk
// j ^ (r % 8) with the 128-byte swizzle, zeros outside the matrix.
static int check(const uint16_t* got, int x, int y, int swizzle) {
  int bad = 0;
  for (int r = 0; r < kBoxRows; ++r)
    for (int c = 0; c < kBoxCols; ++c) {
      const int gr = y + r, gc = x + c;
      const uint16_t want = gr < kRows && gc < kCols ? value_at(gr, gc) : 0;
      const int chunk = c / 8, placed = swizzle == kMapSwizzle128 ? (chunk ^ (r % 8)) : chunk;
      const uint16_t have = got[r * kBoxCols + placed * 8 + c % 8];
      if (have != want && bad++ < 4) printf("    (%d, %d): %u, want %u\n", r, c, have, want);
    }
  return bad;
}

int main(void) {
  cl_device_id dev;
  if (!first_gpu(&dev)) return 1;
  cl_int err = 0;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  char opts[64];
  snprintf(opts, sizeof opts, "-DBOX_BYTES=%d", kBoxBytes);
  if (clBuildProgram(prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
    printf("build failed: %s\n", log_of(prog, dev));
    return 1;
  }
  printf("built from OpenCL C (%.60s)\n", strstr(ptx_of(prog), ".target") ? strstr(ptx_of(prog), ".target") : "");

  uint16_t* host = malloc(sizeof(uint16_t) * kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) host[r * kCols + c] = value_at(r, c);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(uint16_t) * kRows * kCols, host, &err);
  cl_mem map = clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof(tensor_map), NULL, &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, kBoxBytes, NULL, &err);
  const uint64_t address = device_address(ctx, dev, queue, a);
  printf("device address of the matrix: 0x%llx\n", (unsigned long long)address);
  tensor_map_encoder encode = cuda_tensor_map_encoder();
  if (encode == NULL) return 1;

  cl_kernel box = clCreateKernel(prog, "box", &err);
  const int swizzles[2] = {kMapSwizzleNone, kMapSwizzle128};
  const int at[4][2] = {{0, 0}, {64, 128}, {160, 270}, {192, 0}};  // (x, y): inside, inside, past both edges, past x
  int failures = 0;
  for (int s = 0; s < 2; ++s) {
    tensor_map m;
    const int rc = encode_box_map(encode, address, swizzles[s], &m);
    printf("cuTensorMapEncodeTiled (swizzle %s) = %d\n", s ? "128B" : "none", rc);
    if (rc != 0) {
      ++failures;
      continue;
    }
    clEnqueueWriteBuffer(queue, map, CL_TRUE, 0, sizeof m, &m, 0, NULL, NULL);
    for (int i = 0; i < 4; ++i) {
      const cl_int x = at[i][0], y = at[i][1];
      clSetKernelArg(box, 0, sizeof map, &map);
      clSetKernelArg(box, 1, sizeof out, &out);
      clSetKernelArg(box, 2, sizeof x, &x);
      clSetKernelArg(box, 3, sizeof y, &y);
      const size_t local = 128;
      cl_int run = clEnqueueNDRangeKernel(queue, box, 1, NULL, &local, &local, 0, NULL, NULL);
      uint16_t got[kBoxBytes / 2];
      memset(got, 0xff, sizeof got);
      cl_int fin = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, kBoxBytes, got, 0, NULL, NULL);
      const int bad = run == CL_SUCCESS && fin == CL_SUCCESS ? check(got, x, y, swizzles[s]) : -1;
      printf("  box at (%d, %d): launch %d, read %d, %d wrong elements of %d\n", x, y, run, fin, bad,
             kBoxRows * kBoxCols);
      failures += bad != 0;
    }
  }
  // The map encoded for `decoy` (zeros), its address replaced on the device by a's.
  char patched_opts[96];
  snprintf(patched_opts, sizeof patched_opts, "%s -DPATCHED", opts);
  cl_program patched = build_sm90a(ctx, dev, src, patched_opts);
  if (patched == NULL) {
    ++failures;
  } else {
    uint16_t* zeros = calloc((size_t)kRows * kCols, sizeof(uint16_t));
    cl_mem decoy =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(uint16_t) * kRows * kCols, zeros, &err);
    tensor_map m;
    const int rc = encode_box_map(encode, device_address(ctx, dev, queue, decoy), kMapSwizzle128, &m);
    const uint32_t element_strides[2] = {1, 1};
    clEnqueueWriteBuffer(queue, map, CL_TRUE, 0, sizeof m, &m, 0, NULL, NULL);
    cl_kernel patch = clCreateKernel(patched, "patch", &err);
    cl_kernel pbox = clCreateKernel(patched, "box", &err);
    clSetKernelArg(patch, 0, sizeof map, &map);
    clSetKernelArg(patch, 1, sizeof a, &a);
    const size_t one = 1, local = 128;
    cl_int run = clEnqueueNDRangeKernel(queue, patch, 1, NULL, &one, &one, 0, NULL, NULL);
    const cl_int x = 64, y = 128;
    clSetKernelArg(pbox, 0, sizeof map, &map);
    clSetKernelArg(pbox, 1, sizeof out, &out);
    clSetKernelArg(pbox, 2, sizeof x, &x);
    clSetKernelArg(pbox, 3, sizeof y, &y);
    cl_int run2 = clEnqueueNDRangeKernel(queue, pbox, 1, NULL, &local, &local, 0, NULL, NULL);
    uint16_t got[kBoxBytes / 2];
    memset(got, 0xff, sizeof got);
    cl_int fin = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, kBoxBytes, got, 0, NULL, NULL);
    const int bad =
        rc == 0 && run == CL_SUCCESS && run2 == CL_SUCCESS && fin == CL_SUCCESS ? check(got, x, y, kMapSwizzle128) : -1;
    printf(
        "map encoded for a decoy (%d), address replaced on the device: patch %d, box %d, read %d, %d wrong "
        "elements of %d\n",
        rc, run, run2, fin, bad, kBoxRows * kBoxCols);
    failures += bad != 0;

    // wgmma on tensor-map copies: A 64 x 32 and B (n, k) of 128 x 32 as small integers (exact sums).
    uint16_t ha[64 * 32], hb_k[128 * 32], hb_mn[32 * 128];
    float want[64 * 128], got_d[64 * 128];
    for (int m = 0; m < 64; ++m)
      for (int k = 0; k < 32; ++k) ha[m * 32 + k] = bf16_bits((float)((m * 7 + k * 3) % 9 - 4));
    for (int n = 0; n < 128; ++n)
      for (int k = 0; k < 32; ++k) hb_k[n * 32 + k] = hb_mn[k * 128 + n] = bf16_bits((float)((n * 5 + k) % 7 - 3));
    for (int m = 0; m < 64; ++m)
      for (int n = 0; n < 128; ++n) {
        float acc = 0;
        for (int k = 0; k < 32; ++k) acc += (float)((m * 7 + k * 3) % 9 - 4) * (float)((n * 5 + k) % 7 - 3);
        want[m * 128 + n] = acc;
      }
    cl_mem ga = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ha, ha, &err);
    cl_mem gb[2] = {clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof hb_k, hb_k, &err),
                    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof hb_mn, hb_mn, &err)};
    cl_mem gmap[2] = {clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof m, NULL, &err),
                      clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof m, NULL, &err)};
    cl_mem gd = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof got_d, NULL, &err);
    cl_kernel mma = clCreateKernel(patched, "mma", &err);
    printf("mma kernel: %d\n", err);
    for (int mn = 0; mn < 2 && err == CL_SUCCESS; ++mn) {
      tensor_map ta, tb;
      memset(&ta, 0, sizeof ta);
      memset(&tb, 0, sizeof tb);
      const uint64_t dims_a[2] = {32, 64}, dims_bk[2] = {32, 128}, dims_bmn[2] = {128, 32};
      const uint64_t stride_a[1] = {64}, stride_bmn[1] = {256};
      const uint32_t box_a[2] = {32, 64}, box_bk[2] = {32, 128}, box_bmn[2] = {64, 32};
      int rca = encode(&ta, kMapBf16, 2, (void*)(uintptr_t)device_address(ctx, dev, queue, ga), dims_a, stride_a, box_a,
                       element_strides, 0, 2, kMapL2Promote128, 0);
      int rcb = encode(&tb, kMapBf16, 2, (void*)(uintptr_t)device_address(ctx, dev, queue, gb[mn]),
                       mn ? dims_bmn : dims_bk, mn ? stride_bmn : stride_a, mn ? box_bmn : box_bk, element_strides, 0,
                       mn ? kMapSwizzle128 : 2, kMapL2Promote128, 0);
      clEnqueueWriteBuffer(queue, gmap[0], CL_TRUE, 0, sizeof ta, &ta, 0, NULL, NULL);
      clEnqueueWriteBuffer(queue, gmap[1], CL_TRUE, 0, sizeof tb, &tb, 0, NULL, NULL);
      const cl_int flag = mn;
      clSetKernelArg(mma, 0, sizeof(cl_mem), &gmap[0]);
      clSetKernelArg(mma, 1, sizeof(cl_mem), &gmap[1]);
      clSetKernelArg(mma, 2, sizeof(cl_mem), &gd);
      clSetKernelArg(mma, 3, sizeof flag, &flag);
      memset(got_d, 0, sizeof got_d);
      cl_int r1 = clEnqueueNDRangeKernel(queue, mma, 1, NULL, &local, &local, 0, NULL, NULL);
      cl_int r2 = clEnqueueReadBuffer(queue, gd, CL_TRUE, 0, sizeof got_d, got_d, 0, NULL, NULL);
      int wrong = 0;
      for (int i = 0; i < 64 * 128; ++i)
        if (got_d[i] != want[i] && wrong++ < 3)
          printf("    D[%d][%d] = %g, want %g\n", i / 128, i % 128, got_d[i], want[i]);
      printf("wgmma from tensor-map copies, B %s: maps %d %d, run %d, read %d, %d wrong of %d\n",
             mn ? "k x n (MN-major, 128-byte swizzle, transposed)" : "n x k (K-major, 64-byte swizzle)", rca, rcb, r1,
             r2, wrong, 64 * 128);
      failures += wrong != 0 || r1 != CL_SUCCESS || rca != 0 || rcb != 0;
    }
  }
  printf(failures == 0 ? "TMA from OpenCL: every box as expected\n" : "TMA from OpenCL: %d failures\n", failures);
  return failures != 0;
}
