// A device's codegen overrides as the compiler uses them: the language chosen, what the emitter
// must know of the device (xd_codegen_target, copied), and building and launching programs.
// One per device, made on first use and kept for the process. Thread-safe.
#pragma once

#include "compiler/emitter.hpp"
#include "registry/registry.hpp"

#include <string>

namespace xd::detail::compiler {

struct CodegenTarget {
  bool available = false;
  std::string reason;  // why not, when !available
  const xd_codegen_api* api = nullptr;
  int32_t language = 0;  // XD_CODEGEN_*
  EmitTarget emit;
  std::string prelude;
  std::string compiler;
};

// The target of `dev` (never throws: an unusable backend is a target that is not available).
const CodegenTarget& codegen_target(DeviceRecord& dev);

}  // namespace xd::detail::compiler
