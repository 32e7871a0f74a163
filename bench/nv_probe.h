// The helpers of the NVIDIA OpenCL probes (nv_wgmma_probe.c, nv_copy_probe.c, nv_tma_probe.c): a
// program's build log on one line, its binary (NVIDIA's: PTX text), text replacement for rewriting
// that PTX (each returns a string the caller owns, calloc), and Hopper's tensor maps: a buffer's
// device address and the CUDA driver's encoder.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The program's build log for `dev`, newlines turned into spaces.
static char* log_of(cl_program p, cl_device_id dev) {
  size_t n = 0;
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  char* log = calloc(n + 1, 1);
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
  for (char* c = log; *c; ++c)
    if (*c == '\n') *c = ' ';
  return log;
}

// The program's binary for its one device: PTX text on NVIDIA's OpenCL.
static char* ptx_of(cl_program p) {
  size_t n = 0;
  clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
  unsigned char* b = calloc(n + 1, 1);
  unsigned char** slot = malloc(sizeof *slot);  // the array of one binary pointer the query fills
  *slot = b;
  clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof *slot, slot, NULL);
  free(slot);
  return (char*)b;
}

// s with every `from` replaced by `to` (a new string).
static char* replace_all(const char* s, const char* from, const char* to) {
  size_t count = 0;
  for (const char* a = strstr(s, from); a; a = strstr(a + strlen(from), from)) ++count;
  char* r = calloc(strlen(s) + count * strlen(to) + 1, 1);
  char* o = r;
  for (const char* a; (a = strstr(s, from)) != NULL; s = a + strlen(from)) {
    memcpy(o, s, (size_t)(a - s));
    o += a - s;
    strcpy(o, to);
    o += strlen(to);
  }
  strcpy(o, s);
  return r;
}

// The first GPU of the first platform into *dev; 0 (with a message) when there is none.
static int first_gpu(cl_device_id* dev) {
  cl_platform_id platform;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, dev, NULL) != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL GPU\n");
    return 0;
  }
  return 1;
}

// ---- bf16 on the host: rounded to nearest even (finite values), and back
static uint16_t bf16_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float bf16_value(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// ---- tensor maps (cp.async.bulk.tensor): cuda.h's CUtensorMap and the enum values passed, by value
typedef struct {
  _Alignas(64) uint64_t opaque[16];
} tensor_map;
enum { kMapBf16 = 9, kMapSwizzleNone = 0, kMapSwizzle128 = 3, kMapL2Promote128 = 2 };
typedef int (*tensor_map_encoder)(tensor_map*, int data_type, uint32_t rank, void* address, const uint64_t* dims,
                                  const uint64_t* strides_bytes, const uint32_t* box, const uint32_t* element_strides,
                                  int interleave, int swizzle, int l2_promotion, int oob_fill);

// libcuda's cuTensorMapEncodeTiled, with the device's primary context made current (the encoder
// returns CUDA_ERROR_INVALID_CONTEXT, 201, without one; the map holds a unified virtual address,
// the same in every context of the process, so OpenCL's kernels can use it); NULL, with a
// message, where the driver lacks any of it.
static tensor_map_encoder cuda_tensor_map_encoder(void) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == NULL) {
    printf("no libcuda.so.1: %s\n", dlerror());
    return NULL;
  }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
  int (*device_get)(int*, int) = (int (*)(int*, int))dlsym(cuda, "cuDeviceGet");
  int (*retain)(void**, int) = (int (*)(void**, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
  int (*set_current)(void*) = (int (*)(void*))dlsym(cuda, "cuCtxSetCurrent");
  tensor_map_encoder encode = (tensor_map_encoder)dlsym(cuda, "cuTensorMapEncodeTiled");
  if (init == NULL || device_get == NULL || retain == NULL || set_current == NULL || encode == NULL) {
    printf("libcuda lacks cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain, cuCtxSetCurrent or cuTensorMapEncodeTiled\n");
    return NULL;
  }
  int dev = 0;
  void* ctx = NULL;
  int rc = init(0);
  if (rc == 0) rc = device_get(&dev, 0);
  if (rc == 0) rc = retain(&ctx, dev);
  if (rc == 0) rc = set_current(ctx);
  if (rc != 0) {
    printf("CUDA driver set-up failed: %d\n", rc);
    return NULL;
  }
  return encode;
}

// The device address of `buffer`'s first byte: on NVIDIA's OpenCL a __global pointer's value.
static uint64_t device_address(cl_context ctx, cl_device_id dev, cl_command_queue q, cl_mem buffer) {
  static const char* src = "__kernel void addr_of(__global const uchar* p, __global ulong* out) { *out = (ulong)p; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  clBuildProgram(p, 1, &dev, "", NULL, NULL);
  cl_kernel k = clCreateKernel(p, "addr_of", &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 8, NULL, &err);
  clSetKernelArg(k, 0, sizeof buffer, &buffer);
  clSetKernelArg(k, 1, sizeof out, &out);
  const size_t one = 1;
  uint64_t address = 0;
  clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
  clEnqueueReadBuffer(q, out, CL_TRUE, 0, 8, &address, 0, NULL, NULL);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return address;
}

// `src` built with its sm_90a lines (those that begin with the string macro SM90A) hidden in PTX
// comments, then its PTX with them live, `.target sm_90a` and `.version` at least 8.3, loaded as
// the program's binary (the route of nv_wgmma_probe.c and the plugin's program cache); NULL, with
// a message, where a step fails.
static cl_program build_sm90a(cl_context ctx, cl_device_id dev, const char* src, const char* opts) {
  const char* marker = "// XD_SM90A ";
  const char* parts[2] = {"#define SM90A \"// XD_SM90A \"\n", src};
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 2, parts, NULL, &err);
  if (clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
    printf("sm_90a: build from source failed: %s\n", log_of(p, dev));
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
    printf("sm_90a: build from PTX failed (%d): %s\n", err, log_of(b, dev));
    return NULL;
  }
  return b;
}
