// The CPU's xd_codegen_api: target, program_build, kernel_get and kernel_launch for XD_CODEGEN_CPP.
#include "codegen/codegen.hpp"

#include <xd/plugin.hpp>

#include "codegen/prelude_text.hpp"
#include "kernels/parallel.hpp"

#include <algorithm>
#include <limits>

namespace xd::cpu::codegen {

namespace {

// The C++ kernel signature of docs/compiler.md.
using kernel_fn = void (*)(void* const* args, long begin, long end);

void check_common(int32_t device, int32_t language) {
  if (device != 0)
    plugin::invalid("device index " + std::to_string(device) + " out of range (the CPU backend has 1 device)");
  if (language != XD_CODEGEN_CPP)
    plugin::invalid("generated kernels on the CPU are C++ (XD_CODEGEN_CPP = " + std::to_string(XD_CODEGEN_CPP) +
                    "), not language " + std::to_string(language));
}

xd_status target(void*, int32_t device, int32_t language, xd_codegen_target* out) {
  return plugin::guarded(plugin::host(), [&] {
    check_common(device, language);
    if (out == nullptr) plugin::invalid("target: the output is null");
    const toolchain& t = find_toolchain();
    if (!t.found) plugin::fail(XD_ERR_UNAVAILABLE, t.unavailable);
    xd_codegen_target mine{};
    mine.struct_size = sizeof mine;
    mine.prelude = prelude();
    mine.compiler = t.identity.c_str();  // the toolchain lives for the process
    mine.work_group = 0;
    mine.vector_width = t.vector_width;
    mine.sub_group = 0;
    mine.flags = XD_CODEGEN_FLAG_F64;
    mine.max_groups = 0;
    if (out->struct_size == 0) plugin::invalid("target: the output's struct_size is 0");
    plugin::copy_sized(out, mine);
  });
}

xd_status program_build(void*, int32_t device, int32_t language, const char* source, xd_program* out) {
  return plugin::guarded(plugin::host(), [&] {
    check_common(device, language);
    if (source == nullptr) plugin::invalid("program_build: the source is null");
    if (out == nullptr) plugin::invalid("program_build: the output is null");
    *out = build_program(source);
  });
}

xd_status kernel_get(void*, int32_t device, xd_program program, const char* name, xd_codegen_kernel* out) {
  return plugin::guarded(plugin::host(), [&] {
    check_common(device, XD_CODEGEN_CPP);
    if (program == nullptr) plugin::invalid("kernel_get: the program is null");
    if (name == nullptr || *name == '\0') plugin::invalid("kernel_get: the kernel name is null or empty");
    if (out == nullptr) plugin::invalid("kernel_get: the output is null");
    *out = find_kernel(static_cast<struct program*>(program), name);
  });
}

// Runs synchronously on the calling thread and its OpenMP team, as the CPU's own kernels do: a
// CPU stream holds no work (runtime/stream.cpp), so by return the launch is complete.
xd_status kernel_launch(void*, int32_t device, xd_stream, xd_codegen_kernel kernel, const xd_codegen_arg* args,
                        int32_t num_args, const xd_codegen_grid* grid) {
  return plugin::guarded(plugin::host(), [&] {
    check_common(device, XD_CODEGEN_CPP);
    if (kernel == nullptr) plugin::invalid("kernel_launch: the kernel is null");
    if (num_args < 0) plugin::invalid("kernel_launch: num_args is " + std::to_string(num_args));
    if (num_args > 0 && args == nullptr)
      plugin::invalid("kernel_launch: args is null with num_args " + std::to_string(num_args));
    if (grid == nullptr) plugin::invalid("kernel_launch: the grid is null");
    if (grid->dims != 1)
      plugin::invalid("kernel_launch: a C++ kernel's grid has 1 dim (units in global[0]), not " +
                      std::to_string(grid->dims));
    if (grid->global[0] > static_cast<uint64_t>(std::numeric_limits<long>::max()))
      plugin::invalid("kernel_launch: global[0] = " + std::to_string(grid->global[0]) + " does not fit a long");
    // args[i]: a buffer's handle itself, a value's bytes (docs/compiler.md, "C++ kernels").
    std::vector<void*> pointers(static_cast<size_t>(num_args));
    for (int32_t i = 0; i < num_args; ++i) {
      const xd_codegen_arg& a = args[i];
      if (a.kind == XD_CODEGEN_ARG_VALUE) {
        if (a.value == nullptr || a.size == 0)
          plugin::invalid("kernel_launch: argument " + std::to_string(i) + " is a value without bytes (value " +
                          (a.value == nullptr ? "null" : "set") + ", size " + std::to_string(a.size) + ")");
      } else if (a.kind != XD_CODEGEN_ARG_BUFFER) {
        plugin::invalid("kernel_launch: argument " + std::to_string(i) + " has kind " + std::to_string(a.kind) +
                        " (expected XD_CODEGEN_ARG_BUFFER or XD_CODEGEN_ARG_VALUE)");
      }
      pointers[static_cast<size_t>(i)] = const_cast<void*>(a.value);
    }
    const auto fn = reinterpret_cast<kernel_fn>(kernel);
    const auto units = static_cast<int64_t>(grid->global[0]);
    // Ranges of whole blocks of local[0] units: at least that many per call, except the last.
    const int64_t block =
        std::max<int64_t>(1, static_cast<int64_t>(std::min<uint64_t>(grid->local[0], grid->global[0])));
    const int64_t blocks = (units + block - 1) / block;
    void* const* argv = pointers.data();
    parallel_for(blocks, 1, [&](int64_t first, int64_t last) {
      fn(argv, static_cast<long>(first * block), static_cast<long>(std::min(units, last * block)));
    });
  });
}

const xd_codegen_api kTable = {sizeof(xd_codegen_api), XD_CODEGEN_CPP, target,
                               program_build,          kernel_get,     kernel_launch};

}  // namespace

const char* prelude() { return kPreludeText; }

void fill_codegen_api(xd_plugin_api& api) {
  api.codegen_languages = XD_CODEGEN_CPP;
  api.codegen = &kTable;
}

}  // namespace xd::cpu::codegen
