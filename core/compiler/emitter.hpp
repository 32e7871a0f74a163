// Writes the source of a graph's fused kernels: one program, one kernel per fused step, in OpenCL
// C or C++ (docs/compiler.md, "The language contract"). Shapes, strides and view offsets are
// constants of the source (the graph is specialised on them); buffers and their base offsets are
// the kernels' arguments.
#pragma once

#include "compiler/schedule.hpp"

#include <string>
#include <vector>

namespace xd::detail::compiler {

enum class Language { opencl_c, cpp };

struct EmitTarget {
  Language language = Language::opencl_c;
  uint32_t work_group = 256;  // OpenCL: work-items per group
  uint32_t vector_width = 4;
  bool f64 = false;
};

struct EmittedKernel {
  int step = -1;
  std::string name;
  std::vector<int> buffers;  // values, in parameter order (each: buffer, then its element offset)
  uint64_t global = 0;       // OpenCL: work-items; C++: units
  uint64_t local = 0;        // OpenCL: group size; C++: the fewest units worth a thread
};

struct EmittedProgram {
  std::string source;  // without the target's prelude
  std::vector<EmittedKernel> kernels;
};

// `base_align[v]`: what is known of value v's base element offset: it is a multiple of this
// (a power of two, at least 1).
EmittedProgram emit(const Graph& g, const Schedule& s, const EmitTarget& t, const std::vector<int64_t>& base_align);

}  // namespace xd::detail::compiler
