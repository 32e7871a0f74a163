#include "options.hpp"

namespace xd::l0 {

namespace {

constexpr xd_option_desc text(const char* name, const char* doc) {
  return {sizeof(xd_option_desc), name, XD_OPTION_TEXT, 0, {}, {}, nullptr, "", doc};
}

const xd_option_desc kOptions[] = {
    text("XD_LEVELZERO_BUILD_FLAGS",
         "Appended to -cl-fp32-correctly-rounded-divide-sqrt when a SPIR-V module is created (zeModuleCreate); a "
         "failure reports the driver's build log. Read at each module build."),
    text("XD_CACHE_DIR",
         "Folder of the SPIR-V compiled from generated kernels (created if missing), or 'off'; unset: "
         "~/.cache/xdispatch (none without HOME). Entries are keyed by source and tool versions and verified by "
         "checksum. Read at each generated program build."),
    text("XD_CLANG",
         "The clang that compiles generated OpenCL C to LLVM bitcode (a path, or a name searched on PATH); unset: "
         "clang-15. Read once, when generated code is first asked for."),
    text("XD_LLVM_SPIRV",
         "The llvm-spirv that translates that bitcode to SPIR-V (a path, or a name searched on PATH); unset: "
         "llvm-spirv-15. Read once, when generated code is first asked for."),
    {sizeof(xd_option_desc),
     "XD_LEVELZERO_MATMUL_DPAS",
     XD_OPTION_FLAG,
     0,
     {},
     {},
     nullptr,
     "1",
     "0: mm, addmm, bmm, baddbmm in f16 and bf16 never take matmul_dpas.cl's kernel (Intel matrix engines) and run "
     "the portable ones; 1: they do on a device that reports DPAS (ZE_intel_experimental_device_module_dp_properties) "
     "with a smallest sub-group size of 8 or 16 and SPIR-V 1.1. Never run on hardware by this project. Read when the "
     "plugin initialises."},
};

}  // namespace

std::span<const xd_option_desc> declared_options() { return kOptions; }

}  // namespace xd::l0
