// The OpenCL C text of the codegen prelude (kernels/common.cl and kernels/codegen.cl), embedded at
// build time by ../opencl/embed_sources.cmake: generated kernels are compiled at run time with it
// in front (codegen.cpp), whereas the hand-written kernels arrive as SPIR-V (spirv/).
#pragma once

#include <cstddef>
#include <string_view>

namespace xd::l0 {

struct embedded_source {
  const char* name;  // file name without ".cl"
  const unsigned char* bytes;
  size_t size;  // without the terminating zero the generator appends
};

// Every embedded file; defined in the generated cl_sources.cpp.
const embedded_source* embedded_sources(size_t* count);

// The text of kernels/<name>.cl; empty when it was not embedded.
inline std::string_view kernel_source(std::string_view name) {
  size_t n = 0;
  const embedded_source* all = embedded_sources(&n);
  for (size_t i = 0; i < n; ++i)
    if (name == all[i].name) return {reinterpret_cast<const char*>(all[i].bytes), all[i].size};
  return {};
}

}  // namespace xd::l0
