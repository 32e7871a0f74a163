// The helpers of the NVIDIA OpenCL probes (nv_wgmma_probe.c, nv_copy_probe.c): a program's build
// log on one line, its binary (NVIDIA's: PTX text), and text replacement for rewriting that PTX.
// Each returns a string the caller owns (calloc).
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

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
