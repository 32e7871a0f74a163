// Generated C++ kernels on the CPU (docs/compiler.md, "The CPU backend's C++"): the plugin's
// xd_codegen_api. The core's emitter writes C++ after the prelude (prelude.hpp); the system
// compiler builds it into a shared object cached in XD_CACHE_DIR/cpu-codegen, which is dlopen'ed
// and never unloaded; kernels run over OpenMP threads like the CPU's own kernels.
// Thread safety: every function may be called from any thread.
// Errors: plugin::error (status and message), turned into a status at the ABI by guarded().
#pragma once

#include <xd/plugin_abi.h>

#include <span>
#include <string>
#include <vector>

namespace xd::cpu::codegen {

// The options this part reads (XD_CXX, XD_CACHE_DIR), declared in the plugin's query.
std::span<const xd_option_desc> options();

// The system compiler as found once per process (toolchain.cpp).
struct toolchain {
  bool found = false;
  std::string unavailable;         // why not, when !found
  std::string path;                // the compiler's executable
  std::string identity;            // for messages: "x86_64-linux-gnu-g++-12 (/usr/bin/c++)"
  std::vector<std::string> flags;  // before `-o <out> <source>`
  std::vector<std::string> libs;   // after the source
  std::string key;                 // everything besides the source that decides the binary
  uint32_t vector_width = 4;       // float lanes of -march=native on this machine
};
const toolchain& find_toolchain();

// Runs `argv` (argv[0] an executable path) with stdout and stderr written to `log_path`; returns
// the exit status (-1 when it could not start or did not exit normally) and `error` when it could
// not start.
int run_logged(const std::vector<std::string>& argv, const std::string& log_path, std::string& error);

// A built program: the dlopen handle of its shared object, kept for the process.
struct program;
// Builds (or finds in the cache) the shared object of `source`. Throws plugin::error:
// XD_ERR_UNAVAILABLE without a compiler, XD_ERR_INVALID_ARGUMENT when the source does not build.
program* build_program(const std::string& source);
// The kernel `name` of `p`; throws XD_ERR_INVALID_ARGUMENT when it has none.
void* find_kernel(program* p, const std::string& name);

// The C++ prelude (prelude.hpp with numeric.hpp's text in place of its include).
const char* prelude();

// Sets api.codegen_languages and api.codegen.
void fill_codegen_api(xd_plugin_api& api);

}  // namespace xd::cpu::codegen
