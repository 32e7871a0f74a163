// The OpenCL C sources of plugins/xpu/kernels, embedded at build time (embed_sources.cmake).
#pragma once

#include <cstddef>
#include <string_view>

namespace xd::ocl {

struct embedded_source {
  const char* name;  // file name without ".cl"
  const unsigned char* bytes;
  size_t size;  // without the terminating zero the generator appends
};

// Every embedded file; defined in the generated embedded_sources.cpp.
const embedded_source* embedded_sources(size_t* count);

// The text of kernels/<name>.cl; empty when there is no such file.
inline std::string_view kernel_source(std::string_view name) {
  size_t n = 0;
  const embedded_source* all = embedded_sources(&n);
  for (size_t i = 0; i < n; ++i)
    if (name == all[i].name) return {reinterpret_cast<const char*>(all[i].bytes), all[i].size};
  return {};
}

}  // namespace xd::ocl
