// Can NVIDIA's OpenCL run Hopper's wgmma? Its compiler emits PTX for `.target sm_90`, where ptxas
// rejects wgmma (sm_90a only), and `-cl-nv-arch sm_90a` is accepted but changes nothing. This probe
// shows the way around it that docs/performance.md records: build the source with the wgmma lines
// hidden in PTX comments (inline asm text reaches the PTX verbatim, %N operands replaced by the
// registers the compiler chose), take the program's PTX (CL_PROGRAM_BINARIES), uncomment them, set
// `.target sm_90a`, and load that PTX with clCreateProgramWithBinary.
//
// Build here: gcc -O1 bench/nv_wgmma_probe.c -o nv_wgmma_probe -lOpenCL
// Run on the GPU machine (OCL_ICD_VENDORS reaching libnvidia-opencl.so.1): ./nv_wgmma_probe
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "nv_probe.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// x[i] += 1 after a wgmma fence. XD_WG (defined in front of the source) is "" or the marker that
// hides a line in a PTX comment.
static const char* src_fence =
    "__kernel void k(__global float* x) {\n"
    "  __asm__ volatile(XD_WG \"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
    "  x[get_global_id(0)] += 1.0f;\n"
    "}\n";
// One m64n16k16 bf16 product from local memory (descriptors from the host; only built, not run).
static const char* src_mma =
    "__kernel void k(__global float* x, ulong da, ulong db) {\n"
    "  float d[8] = {0};\n"
    "  __asm__ volatile(XD_WG \"wgmma.fence.sync.aligned;\\n\\t\"\n"
    "    XD_WG \"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 0, 0;\\n\\t\"\n"
    "    XD_WG \"wgmma.commit_group.sync.aligned;\\n\\t\"\n"
    "    XD_WG \"wgmma.wait_group.sync.aligned 0;\"\n"
    "    : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3]), \"+f\"(d[4]), \"+f\"(d[5]), \"+f\"(d[6]), \"+f\"(d[7])\n"
    "    : \"l\"(da), \"l\"(db) : \"memory\");\n"
    "  float s = 0;\n"
    "  for (int i = 0; i < 8; ++i) s += d[i];\n"
    "  x[get_global_id(0)] += s;\n"
    "}\n";

static const char* target_line(const char* ptx, char* out, size_t size) {
  const char* t = strstr(ptx, ".target");
  const char* e = t ? strchr(t, '\n') : NULL;
  snprintf(out, size, "%.*s", t && e ? (int)(e - t) : 0, t ? t : "");
  return out;
}

// Builds `src` with `opts` (and XD_WG defined as `marker`); returns the program or NULL.
static cl_program from_source(cl_context ctx, cl_device_id dev, const char* name, const char* src, const char* opts,
                              const char* marker) {
  char define[64];
  snprintf(define, sizeof define, "#define XD_WG \"%s\"\n", marker);
  const char* parts[2] = {define, src};
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 2, parts, NULL, &err);
  err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
  char t[128] = "";
  if (err == CL_SUCCESS) target_line(ptx_of(p), t, sizeof t);
  printf("source  %-34s [%s] XD_WG \"%s\": build %d %s\n", name, opts, marker, err, err == CL_SUCCESS ? t : "");
  if (err != CL_SUCCESS) {
    printf("        log: %.300s\n", log_of(p, dev));
    clReleaseProgram(p);
    return NULL;
  }
  return p;
}

// Loads `ptx` as the program's binary; builds it and, for the one-argument kernel, runs it.
static void from_ptx(cl_context ctx, cl_device_id dev, cl_command_queue q, const char* name, const char* ptx, int run) {
  cl_int err, status;
  size_t n = strlen(ptx) + 1;
  cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &n, (const unsigned char**)&ptx, &status, &err);
  if (err == CL_SUCCESS) err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  char t[128];
  printf("binary  %-34s build %d %s%s\n", name, err, target_line(ptx, t, sizeof t),
         strstr(ptx, "\twgmma") ? " (wgmma lines live)" : "");
  if (err != CL_SUCCESS) {
    printf("        log: %.300s\n", log_of(p, dev));
    return;
  }
  if (!run) return;
  cl_kernel k = clCreateKernel(p, "k", &err);
  float h[128];
  for (int i = 0; i < 128; ++i) h[i] = (float)i;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof h, h, &err);
  clSetKernelArg(k, 0, sizeof m, &m);
  size_t global = 128, local = 128;  // one warpgroup
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
  cl_int read = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL);
  printf("        ran: enqueue %d, read %d, x[5] = %g (expected 6)\n", err, read, h[5]);
}

int main(void) {
  cl_device_id dev;
  cl_int err;
  if (!first_gpu(&dev)) return 2;
  char name[256];
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  printf("device %s\n", name);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);

  // 1. wgmma in the source: ptxas rejects it for sm_90, with or without -cl-nv-arch sm_90a.
  from_source(ctx, dev, "wgmma.fence", src_fence, "", "");
  from_source(ctx, dev, "wgmma.fence", src_fence, "-cl-nv-arch sm_90a", "");
  // 2. Hidden in PTX comments, then uncommented in the PTX with .target sm_90a.
  const char* marker = "// XD_SM90A ";
  const char* srcs[2] = {src_fence, src_mma};
  const char* names[2] = {"wgmma.fence", "wgmma.mma_async m64n16k16 bf16"};
  for (int i = 0; i < 2; ++i) {
    cl_program p = from_source(ctx, dev, names[i], srcs[i], "", marker);
    if (!p) continue;
    const char* ptx = ptx_of(p);
    char* live = replace_all(ptx, marker, "");
    from_ptx(ctx, dev, q, "uncommented, .target sm_90", live, 0);
    char* a = replace_all(live, ".target sm_90,", ".target sm_90a,");
    from_ptx(ctx, dev, q, "uncommented, .target sm_90a", a, i == 0);
  }
  return 0;
}
