// Does NVIDIA's OpenCL launch thread-block clusters? Pairs of work-groups sharing one operand's
// tiles through multicast bulk copies would halve what a GEMM reads from L2, and OpenCL has no
// launch attribute for them, but PTX can declare them on the entry. A kernel whose PTX declares
// `.reqnctapercluster 2, 1, 1` (added to the PTX of a source build, loaded as a binary as in
// nv_wgmma_probe.c) records %cluster_nctarank * 10 + %cluster_ctarank per work-group, beside the
// same kernel without the directive: 20 and 21 would say clusters run (docs/performance.md).
//
// Build here: gcc -O1 bench/nv_cluster_probe.c -o nv_cluster_probe -lOpenCL
// Run on the GPU machine (OCL_ICD_VENDORS reaching libnvidia-opencl.so.1): ./nv_cluster_probe
#define CL_TARGET_OPENCL_VERSION 120
#include "nv_probe.h"

#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* src_rank =
    "__kernel void k(__global uint* x) {\n"
    "  asm volatile(\"// XD_CLUSTER_X2\" ::: \"memory\");\n"
    "  uint n, r;\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(n));\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n"
    "  if (get_local_id(0) == 0) x[get_group_id(0)] = n * 10 + r;\n"
    "}\n";

// Inserts `.reqnctapercluster 2, 1, 1` before the body of the (one) entry.
static char* with_cluster(const char* ptx) {
  const char* e = strstr(ptx, ".entry");
  const char* b = e ? strstr(e, "\n{") : NULL;
  if (!b) return NULL;
  const char* d = "\n.reqnctapercluster 2, 1, 1";
  char* out = malloc(strlen(ptx) + strlen(d) + 1);
  size_t head = (size_t)(b - ptx);
  memcpy(out, ptx, head);
  strcpy(out + head, d);
  strcat(out, b);
  return out;
}

int main(void) {
  cl_device_id dev;
  cl_int err;
  if (!first_gpu(&dev)) return 2;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  cl_program p = clCreateProgramWithSource(ctx, 1, &src_rank, NULL, &err);
  err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  printf("source build %d\n", err);
  if (err) {
    printf("%s\n", log_of(p, dev));
    return 1;
  }
  char* ptx = replace_all(ptx_of(p), ".target sm_90,", ".target sm_90a,");
  for (int cluster = 0; cluster < 2; ++cluster) {
    char* text = cluster ? with_cluster(ptx) : ptx;
    size_t n = strlen(text) + 1;
    cl_int status;
    cl_program b = clCreateProgramWithBinary(ctx, 1, &dev, &n, (const unsigned char**)&text, &status, &err);
    if (err == CL_SUCCESS) err = clBuildProgram(b, 1, &dev, "", NULL, NULL);
    printf("binary %s: build %d\n", cluster ? "with .reqnctapercluster 2,1,1" : "as compiled", err);
    if (err) {
      printf("%s\n", log_of(b, dev));
      continue;
    }
    cl_kernel k = clCreateKernel(b, "k", &err);
    cl_uint h[8];
    for (int i = 0; i < 8; ++i) h[i] = 99;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof h, h, &err);
    clSetKernelArg(k, 0, sizeof m, &m);
    size_t global = 4 * 128, local = 128;
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    cl_int fin = clFinish(q);
    cl_int rd = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL);
    printf("  enqueue %d finish %d read %d: nctarank*10+rank per work-group: %u %u %u %u\n", err, fin, rd, h[0], h[1],
           h[2], h[3]);
  }
  return 0;
}
