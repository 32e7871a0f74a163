// Builds an OpenCL C file for the first GPU with -cl-nv-verbose and prints NVIDIA's build log, whose
// "ptxas info" lines give each kernel's registers, local memory and spills: how to see what the
// driver's compiler made of a kernel without the CUDA toolkit.
//
// Usage: nv_build_info FILE [OPTIONS]   (OPTIONS: the build options, e.g. the plugin's -D list)
#include "nv_probe.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: nv_build_info FILE [OPTIONS]\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (f == NULL) {
    perror(argv[1]);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* src = calloc((size_t)n + 1, 1);
  if (fread(src, 1, (size_t)n, f) != (size_t)n) return 2;
  fclose(f);
  cl_device_id dev;
  if (!first_gpu(&dev)) return 1;
  cl_int err = 0;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  const char* text = src;
  cl_program p = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
  char opts[4096];
  snprintf(opts, sizeof opts, "-cl-nv-verbose %s", argc > 2 ? argv[2] : "");
  err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
  size_t size = 0;
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
  char* log = calloc(size + 1, 1);
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL);
  printf("build %s (%d)\n%s\n", err == CL_SUCCESS ? "ok" : "failed", err, log);
  return err == CL_SUCCESS ? 0 : 1;
}
