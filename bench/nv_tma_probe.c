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

static const char* src =
    "#ifdef PATCHED\n"
    "__kernel void patch(__global ulong* map, __global const uchar* a) {\n"
    "  __asm__ volatile(SM90A \"tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;\"\n"
    "                   : : \"l\"(map), \"l\"((ulong)a) : \"memory\");\n"
    "  __asm__ volatile(SM90A \"fence.proxy.tensormap::generic.release.gpu;\" : : : \"memory\");\n"
    "}\n"
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

// The program with PATCHED: built with its sm_90a lines hidden in PTX comments, then its PTX with
// them live, `.target sm_90a` and `.version` at least 8.3 (tensormap.replace's), loaded as a binary.
static cl_program build_patched(cl_context ctx, cl_device_id dev, const char* opts) {
  const char* marker = "// XD_SM90A ";
  const char* parts[2] = {"#define SM90A \"// XD_SM90A \"\n", src};
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 2, parts, NULL, &err);
  char all[128];
  snprintf(all, sizeof all, "%s -DPATCHED", opts);
  if (clBuildProgram(p, 1, &dev, all, NULL, NULL) != CL_SUCCESS) {
    printf("patched: build from source failed: %s\n", log_of(p, dev));
    return NULL;
  }
  char* live = replace_all(ptx_of(p), marker, "");
  char* ptx = replace_all(live, ".target sm_90,", ".target sm_90a,");
  char* v = strstr(ptx, ".version ");
  if (v != NULL && (v[9] < '8' || (v[9] == '8' && v[10] == '.' && v[11] < '3'))) memcpy(v + 9, "8.3", 3);
  size_t n = strlen(ptx) + 1;
  cl_int status;
  cl_program b = clCreateProgramWithBinary(ctx, 1, &dev, &n, (const unsigned char**)&ptx, &status, &err);
  if (err == CL_SUCCESS) err = clBuildProgram(b, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    printf("patched: build from PTX failed (%d): %s\n", err, log_of(b, dev));
    return NULL;
  }
  return b;
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
    memset(&m, 0, sizeof m);
    const uint64_t dims[2] = {kCols, kRows};
    const uint64_t strides[1] = {kCols * 2};
    const uint32_t box_dims[2] = {kBoxCols, kBoxRows};
    const uint32_t element_strides[2] = {1, 1};
    const int rc = encode(&m, kMapBf16, 2, (void*)(uintptr_t)address, dims, strides, box_dims, element_strides, 0,
                          swizzles[s], kMapL2Promote128, 0);
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
  cl_program patched = build_patched(ctx, dev, opts);
  if (patched == NULL) {
    ++failures;
  } else {
    uint16_t* zeros = calloc((size_t)kRows * kCols, sizeof(uint16_t));
    cl_mem decoy =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(uint16_t) * kRows * kCols, zeros, &err);
    tensor_map m;
    memset(&m, 0, sizeof m);
    const uint64_t dims[2] = {kCols, kRows};
    const uint64_t strides[1] = {kCols * 2};
    const uint32_t box_dims[2] = {kBoxCols, kBoxRows};
    const uint32_t element_strides[2] = {1, 1};
    const int rc = encode(&m, kMapBf16, 2, (void*)(uintptr_t)device_address(ctx, dev, queue, decoy), dims, strides,
                          box_dims, element_strides, 0, kMapSwizzle128, kMapL2Promote128, 0);
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
  }
  printf(failures == 0 ? "TMA from OpenCL: every box as expected\n" : "TMA from OpenCL: %d failures\n", failures);
  return failures != 0;
}
