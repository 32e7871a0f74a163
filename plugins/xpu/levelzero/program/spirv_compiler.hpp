// Generated OpenCL C to SPIR-V at run time, the way the build compiles kernels/*.cl (CMakeLists.txt:
// clang-15 -cc1 with XD_L0_CLANG_BASE_FLAGS, then llvm-spirv-15 --spirv-max-version=1.0), through a
// disk cache of SPIR-V in XD_CACHE_DIR. Touches no Level Zero function: tests run it without a
// driver (none of this project's machines has one).
//
// Thread-safe: every call works in a folder of its own; cache entries are written to a temporary
// name and renamed, so concurrent processes race to identical files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xd::l0 {

// The two tools, as found on this machine.
struct spirv_tools {
  std::string clang_name = "clang-15";  // what was looked for (XD_CLANG when set)
  std::string llvm_spirv_name = "llvm-spirv-15";
  std::string clang;       // absolute path; empty when not found
  std::string llvm_spirv;  // absolute path; empty when not found
  std::string version;     // both tools' --version text (part of every cache key)
  bool found() const { return !clang.empty() && !llvm_spirv.empty(); }
  // "codegen unavailable: ... not found (...)" when a tool is missing; empty otherwise.
  std::string missing() const;
};

// XD_CLANG / XD_LLVM_SPIRV (a path, or a name searched on PATH), else clang-15 / llvm-spirv-15 on
// PATH; the versions are asked of the tools that were found.
spirv_tools find_spirv_tools();

// The process's tools, looked for once.
const spirv_tools& spirv_tools_here();

// The clang -cc1 flags of the run-time path (the build's XD_L0_CLANG_BASE_FLAGS).
std::vector<std::string> spirv_clang_flags();

struct spirv_result {
  bool ok = false;
  std::vector<uint32_t> words;  // the module, when ok
  bool from_cache = false;      // read from the disk cache: no tool ran
  std::string log;              // what the failing tool printed, with its command line
  std::string source_path;      // when not ok: a copy of the source for the user to open
};

// Compiles `source` with `tools` (which must be found()). `cache_dir`: the folder of the SPIR-V
// cache, or empty for none (work files then go to the temporary folder). A valid cache entry
// for this source and these tools is returned without running either tool; a corrupt one is
// rebuilt and overwritten. Throws only for host failures (no folder can be written).
spirv_result compile_spirv(const std::string& source, const spirv_tools& tools, const std::string& cache_dir);

// Writes `source` where a user can open it (`cache_dir`, else the temporary folder) under a name
// of its hash, and returns the path; empty when it cannot be written.
std::string keep_generated_source(const std::string& source, const std::string& cache_dir);

// XD_CACHE_DIR, else $HOME/.cache/xdispatch; empty when XD_CACHE_DIR is "off" or neither is set.
std::string spirv_cache_dir();

}  // namespace xd::l0
