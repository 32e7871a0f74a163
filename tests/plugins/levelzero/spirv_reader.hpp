// A minimal SPIR-V reader for the tests: the OpEntryPoint names of a module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

namespace xd::test {

// The names of every OpEntryPoint (opcode 15) in a SPIR-V word stream. Throws
// std::runtime_error for a stream that is not SPIR-V or is truncated.
std::set<std::string> spirv_entry_points(const uint32_t* words, size_t count);

// The names of every symbol the module imports (OpDecorate LinkageAttributes ... Import): a
// kernel module for zeModuleCreate must not need any but the SPIR-V builtins.
std::set<std::string> spirv_imports(const uint32_t* words, size_t count);

}  // namespace xd::test
