// The SPIR-V modules compiled from plugins/xpu/kernels/*.cl at build time, embedded in the plugin
// by spirv/embed_spirv.cpp (the generated spirv_modules.cpp defines spirv_modules()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace xd::l0 {

struct spirv_module {
  const char* source;  // kernels/<source>.cl
  const char* tag;     // the dtype variant (-DXD_DT=<tag>)
  bool fp64;           // built with -DXD_HAS_FP64 (needs a device with fp64)
  const uint32_t* words;
  size_t word_count;
};

// Every embedded module.
const spirv_module* spirv_modules(size_t* count);

// The module of (source, tag, fp64); nullptr when none was built.
inline const spirv_module* find_spirv_module(std::string_view source, std::string_view tag, bool fp64) {
  size_t n = 0;
  const spirv_module* all = spirv_modules(&n);
  for (size_t i = 0; i < n; ++i)
    if (source == all[i].source && tag == all[i].tag && fp64 == all[i].fp64) return &all[i];
  return nullptr;
}

}  // namespace xd::l0
