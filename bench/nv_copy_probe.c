// How fast can NVIDIA's OpenCL fill local memory from L2 on Hopper? The bf16 tensor-core GEMM
// (matmul_mma.cl) spends its whole time in its copies (docs/performance.md, "What does hold it"),
// so this probe runs copies alone, with nothing computed: 4096 x 4096 bf16 A and B (both dense
// along k), tiles of R rows of each in bands of 8 tile rows, each k step copying R rows of ROW
// bytes of A and of B into a ring of STAGES stages, a work-group barrier per step as the GEMM has.
// Persistent work-groups (WGS per compute unit) take tiles in turn, so the bytes in flight per
// compute unit are set by WGS and STAGES, not by registers. Three ways to copy (MODE):
//   0 cp.async  each of 128 work-items copies 16-byte chunks (cp.async.cg), as the GEMM does;
//   1 bulk      each work-item copies one row of A and one of B with Hopper's bulk copy engine
//               (cp.async.bulk ... mbarrier::complete_tx::bytes), one mbarrier per stage;
//   2 packed    as 1, but from operands packed tile by tile (each k step of a 128-row tile
//               contiguous), so a stage is one bulk copy per operand (what a GEMM would get after
//               a packing pass; the bytes are the matrices' own, the layout is what is measured).
//   3 tma       a stage is one tensor-map copy per operand (cp.async.bulk.tensor.3d) straight from
//               the row-major matrices: a box of 128 rows by ROW bytes of k, landing as 16-byte
//               columns of 128 rows (the core-matrix layout wgmma reads), no packing pass
//               (nv_tma_probe.c shows such copies land as expected).
//   4 tma rows  a stage is one tensor-map copy per operand of a 2-D box, 128 rows of ROW bytes
//               (the map's inner dimension is k itself), swizzled by ROW bytes (32 or 64), the
//               layout wgmma reads with its 32- or 64-byte swizzle modes.
// ROW is 64 for the GEMM's k steps of 32 (R = 8192 / ROW rows for modes 0 and 1, so wider rows
// mean smaller tiles; R = 128 for modes 2 and 3); SAME = 1 keeps every work-group on one band of tiles,
// so that nothing comes from DRAM. Reported: median time of 10 runs, TB/s into local memory, and
// the TFLOP/s a 128 x 128-tile GEMM would reach if its copies ran at that rate (16 KiB per
// 2 * 128 * 128 * 32 flops). Results: docs/performance.md, "The copies' ceiling".
//
// Build here: gcc -O1 bench/nv_copy_probe.c -o nv_copy_probe -lOpenCL -ldl
// Run on the GPU machine (OCL_ICD_VENDORS reaching libnvidia-opencl.so.1): ./nv_copy_probe
#define CL_TARGET_OPENCL_VERSION 120
#include "nv_probe.h"

#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* src =
    "#if MODE >= 2\n"
    "#define R 128\n" /* packed or tensor map: the GEMM's tiles */
    "#else\n"
    "#define R (8192 / ROW)\n" /* rows of A and of B per tile */
    "#endif\n"
    "#define T (4096 / R)\n"       /* tiles along m and along n */
    "#define STEPS (8192 / ROW)\n" /* k steps per tile */
    "#define STAGE_OPS (MODE == 2 ? 1 : R)\n"
    "#define PITCH (PAD ? ROW + 16 : ROW)\n"
    "#define STAGE_BYTES (2 * R * PITCH)\n"
    "inline uint sh(__local const void* p) { return (uint)(ulong)p; }\n"
    "inline void tile_of(int t, long* m0, long* n0) {\n"
    "  if (SAME) t %= 8 * T;\n"
    "  const int band = t / (8 * T), in = t % (8 * T);\n"
    "  *m0 = (long)(band * 8 + in % 8) * R; *n0 = (long)(in / 8) * R;\n"
    "}\n"
    "#if MODE == 0\n"
    "inline void issue(__global const ushort* a, __global const ushort* b, long m0, long n0, int kt, uint st, int tid) "
    "{\n"
    "  for (int i = 0; i < 4; ++i) {\n"
    "    const int c = tid + 128 * i, row = c / (ROW / 16), ch = c % (ROW / 16);\n"
    "    const uint da = st + row * PITCH + ch * 16, db = da + R * PITCH;\n"
    "    __global const ushort* sa = a + (m0 + row) * 4096 + kt * (ROW / 2) + ch * 8;\n"
    "    __global const ushort* sb = b + (n0 + row) * 4096 + kt * (ROW / 2) + ch * 8;\n"
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"(da), \"l\"(sa) : \"memory\");\n"
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"(db), \"l\"(sb) : \"memory\");\n"
    "  }\n"
    "  asm volatile(\"cp.async.commit_group;\" ::: \"memory\");\n"
    "}\n"
    "#else\n"
    "inline void issue(__global const ushort* a, __global const ushort* b, __global const ulong* ma, "
    "__global const ulong* mb, long m0, long n0, int kt, uint st, uint bar, int tid) {\n"
    "  if (tid == 0) asm volatile(BM \"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" :: \"r\"(bar), \"r\"(2 "
    "* R * ROW) : \"memory\");\n"
    "#if MODE == 3\n"
    "  if (tid == 0) {\n" /* a box of each matrix: {8 elements, R rows, ROW / 16 columns of 16 bytes} */
    "    asm volatile(BM \"cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                 \" [%0], [%1, {%2, %3, %4}], [%5];\" :: \"r\"(st), \"l\"(ma), \"r\"(0), \"r\"((int)m0), "
    "\"r\"(kt * (ROW / 16)), \"r\"(bar) : \"memory\");\n"
    "    asm volatile(BM \"cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                 \" [%0], [%1, {%2, %3, %4}], [%5];\" :: \"r\"(st + R * ROW), \"l\"(mb), \"r\"(0), "
    "\"r\"((int)n0), \"r\"(kt * (ROW / 16)), \"r\"(bar) : \"memory\");\n"
    "  }\n"
    "#elif MODE == 4\n"
    "  if (tid == 0) {\n" /* a box of each matrix: {ROW / 2 elements of k, R rows} */
    "    asm volatile(BM \"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                 \" [%0], [%1, {%2, %3}], [%4];\" :: \"r\"(st), \"l\"(ma), \"r\"(kt * (ROW / 2)), \"r\"((int)m0), "
    "\"r\"(bar) : \"memory\");\n"
    "    asm volatile(BM \"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                 \" [%0], [%1, {%2, %3}], [%4];\" :: \"r\"(st + R * ROW), \"l\"(mb), \"r\"(kt * (ROW / 2)), "
    "\"r\"((int)n0), \"r\"(bar) : \"memory\");\n"
    "  }\n"
    "#elif MODE == 2\n"
    "  if (tid == 0) {\n" /* a packed tile step: R rows of ROW bytes, contiguous, one copy each */
    "    const uint da = st, db = st + R * ROW;\n"
    "    __global const ushort* sa = a + ((m0 / R) * STEPS + kt) * (R * ROW / 2);\n"
    "    __global const ushort* sb = b + ((n0 / R) * STEPS + kt) * (R * ROW / 2);\n"
    "    asm volatile(BM \"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];\" "
    ":: \"r\"(da), \"l\"(sa), \"r\"(bar), \"n\"(R * ROW) : \"memory\");\n"
    "    asm volatile(BM \"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];\" "
    ":: \"r\"(db), \"l\"(sb), \"r\"(bar), \"n\"(R * ROW) : \"memory\");\n"
    "  }\n"
    "#else\n"
    "  if (tid < R) {\n"
    "    const uint da = st + tid * PITCH, db = da + R * PITCH;\n"
    "    __global const ushort* sa = a + (m0 + tid) * 4096 + kt * (ROW / 2);\n"
    "    __global const ushort* sb = b + (n0 + tid) * 4096 + kt * (ROW / 2);\n"
    "    asm volatile(BM \"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];\" "
    ":: \"r\"(da), \"l\"(sa), \"r\"(bar), \"n\"(ROW) : \"memory\");\n"
    "    asm volatile(BM \"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];\" "
    ":: \"r\"(db), \"l\"(sb), \"r\"(bar), \"n\"(ROW) : \"memory\");\n"
    "  }\n"
    "#endif\n"
    "}\n"
    "inline void wait_bar(uint bar, uint phase) {\n"
    "  uint done = 0;\n"
    "  while (!done)\n"
    "    asm volatile(BM \"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; "
    "}\"\n"
    "                 : \"=r\"(done) : \"r\"(bar), \"r\"(phase) : \"memory\");\n"
    "}\n"
    "#endif\n"
    "__kernel __attribute__((reqd_work_group_size(128, 1, 1)))\n"
    "void k(__global const ushort* a, __global const ushort* b, __global uint* out, __global const ulong* ma,\n"
    "       __global const ulong* mb) {\n"
    "  __local uint4 ring[STAGES * STAGE_BYTES / 16] __attribute__((aligned(1024)));\n"
    "  const int tid = get_local_id(0);\n"
    "  const uint base = sh(ring);\n"
    "  uint acc = 0;\n"
    "#if MODE != 0\n"
    "  __local ulong bars[STAGES];\n"
    "  if (tid == 0) {\n"
    "    for (int s = 0; s < STAGES; ++s) asm volatile(BM \"mbarrier.init.shared::cta.b64 [%0], 1;\" :: "
    "\"r\"(sh(&bars[s])) : \"memory\");\n"
    "    asm volatile(BM \"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint uses = 0, waits = 0;  /* steps issued and waited for, over every tile: stage and phase */\n"
    "#endif\n"
    "  for (int t = get_group_id(0); t < T * T; t += get_num_groups(0)) {\n"
    "    long m0, n0;\n"
    "    tile_of(t, &m0, &n0);\n"
    "#if MODE == 0\n"
    "    for (int s = 0; s < STAGES - 1; ++s) issue(a, b, m0, n0, s, base + s * STAGE_BYTES, tid);\n"
    "    for (int kt = 0; kt < STEPS; ++kt) {\n"
    "      if (STAGES == 3) asm volatile(\"cp.async.wait_group 1;\" ::: \"memory\");\n"
    "      else asm volatile(\"cp.async.wait_group 0;\" ::: \"memory\");\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      if (kt + STAGES - 1 < STEPS) issue(a, b, m0, n0, kt + STAGES - 1, base + ((kt + STAGES - 1) % STAGES) * "
    "STAGE_BYTES, tid);\n"
    "      else asm volatile(\"cp.async.commit_group;\" ::: \"memory\");\n"
    "      acc += ((__local const uint*)ring)[(kt % STAGES) * (STAGE_BYTES / 4) + tid];\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "#else\n"
    "    for (int s = 0; s < STAGES - 1; ++s, ++uses) issue(a, b, ma, mb, m0, n0, s, base + (uses % STAGES) * "
    "STAGE_BYTES, "
    "sh(&bars[uses % STAGES]), tid);\n"
    "    for (int kt = 0; kt < STEPS; ++kt, ++waits) {\n"
    "      wait_bar(sh(&bars[waits % STAGES]), (waits / STAGES) & 1);\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      asm volatile(BM \"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    "      if (kt + STAGES - 1 < STEPS) { issue(a, b, ma, mb, m0, n0, kt + STAGES - 1, base + (uses % STAGES) * "
    "STAGE_BYTES, "
    "sh(&bars[uses % STAGES]), tid); ++uses; }\n"
    "      acc += ((__local const uint*)ring)[(waits % STAGES) * (STAGE_BYTES / 4) + tid];\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "#endif\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n";

// The program for `opts`: from source; where that fails (the driver's PTX .version may predate
// the bulk copy), from source with the bulk lines hidden in PTX comments, then its PTX with them
// uncommented and .version raised to 8.0, loaded as a binary (the route of nv_wgmma_probe.c).
static cl_program build(cl_context ctx, cl_device_id dev, const char* opts, const char** how) {
  cl_int err;
  const char* plain[2] = {"#define BM \"\"\n", src};
  cl_program p = clCreateProgramWithSource(ctx, 2, plain, NULL, &err);
  err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
  *how = "source";
  if (err == CL_SUCCESS) return p;
  char* log = log_of(p, dev);
  printf("    [%s] from source: build %d: %.400s\n", opts, err, log);
  free(log);
  clReleaseProgram(p);
  const char* hidden[2] = {"#define BM \"// XD_BULK \"\n", src};
  p = clCreateProgramWithSource(ctx, 2, hidden, NULL, &err);
  err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
  if (err != CL_SUCCESS) {
    log = log_of(p, dev);
    printf("    [%s] hidden: build %d: %.400s\n", opts, err, log);
    free(log);
    return NULL;
  }
  char* ptx = ptx_of(p);
  clReleaseProgram(p);
  char* live = replace_all(ptx, "// XD_BULK ", "");
  char* v = strstr(live, ".version ");
  if (v != NULL && (v[9] < '8' && v[10] == '.')) memcpy(v + 9, "8.0", 3);
  size_t n = strlen(live) + 1;
  cl_int status;
  p = clCreateProgramWithBinary(ctx, 1, &dev, &n, (const unsigned char**)&live, &status, &err);
  if (err == CL_SUCCESS) err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  *how = "ptx";
  if (err != CL_SUCCESS) {
    log = log_of(p, dev);
    printf("    [%s] from PTX: build %d: %.400s\n", opts, err, log);
    free(log);
    return NULL;
  }
  return p;
}

static double median(double* v, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[n / 2];
}

int main(void) {
  cl_device_id dev;
  cl_int err;
  if (!first_gpu(&dev)) return 2;
  char name[256];
  cl_uint cus = 0;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  printf("device %s, %u compute units\n", name, cus);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  const size_t n = (size_t)4096 * 4096 * 2;
  unsigned short* h = malloc(n);
  for (size_t i = 0; i < n / 2; ++i) h[i] = (unsigned short)(i * 2654435761u >> 16);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, h, &err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, h, &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)cus * 8 * 128 * 4, NULL, &err);
  // The tensor maps of MODE 3 and 4 (encoded per variant into ma and mb).
  tensor_map_encoder encode = cuda_tensor_map_encoder();
  const uint64_t address[2] = {device_address(ctx, dev, q, a), device_address(ctx, dev, q, b)};
  cl_mem maps[2];
  for (int i = 0; i < 2; ++i) maps[i] = clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof(tensor_map), NULL, &err);

  // mode, stages, padded rows, work-groups per compute unit, bytes per row and step, one band only
  static const int variants[][6] = {
      {0, 3, 0, 2, 64, 0},  {0, 3, 0, 2, 128, 0}, {0, 3, 0, 4, 128, 0}, {0, 3, 0, 2, 64, 1}, {1, 2, 0, 4, 64, 0},
      {1, 2, 0, 4, 256, 0}, {1, 2, 0, 6, 256, 0}, {2, 2, 0, 2, 64, 0},  {2, 2, 0, 3, 64, 0}, {2, 2, 0, 4, 64, 0},
      {2, 4, 0, 2, 32, 0},  {2, 5, 0, 2, 32, 0},  {2, 5, 0, 3, 32, 0},  {2, 3, 0, 3, 32, 0}, {2, 3, 0, 3, 64, 0},
      {3, 2, 0, 2, 64, 0},  {3, 2, 0, 3, 64, 0},  {3, 2, 0, 4, 64, 0},  {3, 3, 0, 3, 64, 0}, {3, 4, 0, 2, 32, 0},
      {3, 5, 0, 2, 32, 0},  {3, 5, 0, 3, 32, 0},  {3, 3, 0, 3, 32, 0},  {4, 2, 0, 2, 64, 0}, {4, 2, 0, 3, 64, 0},
      {4, 2, 0, 4, 64, 0},  {4, 3, 0, 3, 64, 0},  {4, 4, 0, 2, 32, 0},  {4, 5, 0, 2, 32, 0}, {4, 5, 0, 3, 32, 0},
      {4, 3, 0, 3, 32, 0},
  };
  printf("%-9s %6s %4s %6s %5s %5s %10s %8s %14s\n", "copy", "stages", "pad", "wg/cu", "row", "same", "ms", "TB/s",
         "GEMM TFLOP/s");
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
    const int mode = variants[v][0], stages = variants[v][1], pad = variants[v][2], wgs = variants[v][3];
    const int row = variants[v][4], same = variants[v][5];
    char opts[128];
    snprintf(opts, sizeof opts, "-DMODE=%d -DSTAGES=%d -DPAD=%d -DROW=%d -DSAME=%d", mode, stages, pad, row, same);
    const char* what = mode == 0   ? "cp.async"
                       : mode == 1 ? "bulk"
                       : mode == 2 ? "packed"
                       : mode == 3 ? "tma"
                                   : "tma rows";
    if (mode >= 3) {
      // MODE 3: {8 elements, 4096 rows, 512 columns of 16 bytes}, boxes {8, 128, ROW / 16}, no swizzle;
      // MODE 4: {4096 elements, 4096 rows}, boxes {ROW / 2, 128}, swizzled by ROW bytes.
      const uint64_t dims3[3] = {8, 4096, 512}, strides3[2] = {8192, 16}, dims2[2] = {4096, 4096}, strides2[1] = {8192};
      const uint32_t box3[3] = {8, 128, (uint32_t)row / 16}, box2[2] = {(uint32_t)row / 2, 128}, ones[3] = {1, 1, 1};
      int rc = encode == NULL ? -1 : 0;
      for (int i = 0; i < 2 && rc == 0; ++i) {
        tensor_map m;
        memset(&m, 0, sizeof m);
        void* at = (void*)(uintptr_t)address[i];
        rc = mode == 3
                 ? encode(&m, kMapBf16, 3, at, dims3, strides3, box3, ones, 0, kMapSwizzleNone, kMapL2Promote128, 0)
                 : encode(&m, kMapBf16, 2, at, dims2, strides2, box2, ones, 0, row == 32 ? 1 : 2, kMapL2Promote128, 0);
        clEnqueueWriteBuffer(q, maps[i], CL_TRUE, 0, sizeof m, &m, 0, NULL, NULL);
      }
      if (rc != 0) {
        printf("%-9s %6d %4d %6d %5d %5d  tensor map: %d\n", what, stages, pad, wgs, row, same, rc);
        continue;
      }
    }
    const char* how = "";
    cl_program p = build(ctx, dev, opts, &how);
    if (p == NULL) continue;
    cl_kernel k = clCreateKernel(p, "k", &err);
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof out, &out);
    clSetKernelArg(k, 3, sizeof(cl_mem), &maps[0]);
    clSetKernelArg(k, 4, sizeof(cl_mem), &maps[1]);
    size_t local = 128, global = (size_t)cus * wgs * 128;
    double ms[10];
    int ok = 1;
    for (int r = 0; r < 13 && ok; ++r) {
      cl_event e;
      err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &e);
      if (err != CL_SUCCESS || clWaitForEvents(1, &e) != CL_SUCCESS) {
        printf("%-9s %6d %4d %6d %5d %5d  enqueue/run failed: %d\n", what, stages, pad, wgs, row, same, err);
        ok = 0;
        break;
      }
      cl_ulong t0, t1;
      clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
      clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
      if (r >= 3) ms[r - 3] = (double)(t1 - t0) * 1e-6;
      clReleaseEvent(e);
    }
    if (ok) {
      // (4096 / R)^2 tiles of 2 R 8192 bytes; a 128 x 128-tile GEMM moves 16 KiB per 2^20 flops.
      const double t = median(ms, 10), rows = mode >= 2 ? 128.0 : 8192.0 / row,
                   bytes = (4096.0 / rows) * (4096.0 / rows) * 2 * rows * 8192, tbs = bytes / t * 1e-9;
      printf("%-9s %6d %4d %6d %5d %5d %10.4f %8.2f %14.1f  (%s)\n", what, stages, pad, wgs, row, same, t, tbs,
             tbs * 1e12 / 16384 * 1048576 * 1e-12, how);
    }
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
  return 0;
}
