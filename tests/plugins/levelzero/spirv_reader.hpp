// A minimal SPIR-V reader for the tests: the OpEntryPoint names of a module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace xd::test {

// The names of every OpEntryPoint (opcode 15) in a SPIR-V word stream. Throws
// std::runtime_error for a stream that is not SPIR-V or is truncated.
std::set<std::string> spirv_entry_points(const uint32_t* words, size_t count);

// The sub-group size each entry point requires (OpExecutionMode SubgroupSize, what clang's
// intel_reqd_sub_group_size becomes), by entry point name; entry points without one are absent.
std::map<std::string, uint32_t> spirv_subgroup_sizes(const uint32_t* words, size_t count);

// The names of every symbol the module imports (OpDecorate LinkageAttributes ... Import): a
// kernel module for zeModuleCreate must not need any but the SPIR-V builtins.
std::set<std::string> spirv_imports(const uint32_t* words, size_t count);

}  // namespace xd::test
