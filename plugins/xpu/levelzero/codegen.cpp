#include "codegen.hpp"

#include "options.hpp"
#include "program/cl_sources.hpp"
#include "program/module_cache.hpp"
#include "program/spirv_compiler.hpp"
#include "runtime/stream.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace xd::l0 {

namespace {

constexpr uint32_t kVectorWidth = 4;  // common.cl's XD_VEC
constexpr uint32_t kWorkGroup = 256;  // what generated kernels are sized for, at most the device's limit
constexpr size_t kMinTargetSize = offsetof(xd_codegen_target, prelude) + sizeof(const char*);
constexpr size_t kMaxLog = 16384;  // the head of a log holds the first errors

struct target_info {
  std::string prelude;
  std::string compiler;
  xd_codegen_target target{};
};

struct generated_program {
  int32_t device = 0;
  std::mutex mutex;  // guards everything below
  bool done = false;
  ze_module_handle_t module = nullptr;
  std::string error;  // non-empty: it did not build (reported again by every later call)
  std::map<std::string, std::unique_ptr<kernel_object>> kernels;
};

// Everything the table hands out, for the process (the plugin is never unloaded).
struct codegen_state {
  std::mutex mutex;
  std::map<int32_t, std::unique_ptr<target_info>> targets;
  std::map<std::pair<int32_t, std::string>, std::unique_ptr<generated_program>> programs;  // (device, source)
};

codegen_state& state() {
  static auto* s = new codegen_state();
  return *s;
}

device& checked_device(int32_t index) {
  if (index < 0 || index >= device_count())
    plugin::invalid("device index " + std::to_string(index) + " out of range (" + std::to_string(device_count()) +
                    " devices)");
  return device_at(index);
}

void check_language(int32_t language) {
  if (language == XD_CODEGEN_CPP)
    plugin::fail(XD_ERR_UNAVAILABLE, "codegen: the Level Zero backend builds OpenCL C only, not C++");
  if (language != XD_CODEGEN_OPENCL_C)
    plugin::invalid("codegen: unknown language " + std::to_string(language) +
                    " (expected XD_CODEGEN_OPENCL_C = " + std::to_string(XD_CODEGEN_OPENCL_C) + ")");
}

const spirv_tools& tools_or_fail() {
  const spirv_tools& t = spirv_tools_here();
  if (!t.found()) plugin::fail(XD_ERR_UNAVAILABLE, t.missing());
  return t;
}

std::string hex_hash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string clipped(std::string log) {
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (log.size() > kMaxLog) log = log.substr(0, kMaxLog) + "\n... (log truncated)";
  return log.empty() ? "(empty log)" : log;
}

std::string build_log(ze_module_build_log_handle_t log) {
  if (log == nullptr) return "(no build log)";
  size_t n = 0;
  std::string text;
  if (zeModuleBuildLogGetString(log, &n, nullptr) == ZE_RESULT_SUCCESS && n > 0) {
    text.resize(n);
    if (zeModuleBuildLogGetString(log, &n, text.data()) != ZE_RESULT_SUCCESS) text.clear();
  }
  zeModuleBuildLogDestroy(log);
  return clipped(text);
}

// The device's defines as text (the source is compiled with no -D option), then the two files.
std::string prelude_of(const device& d) {
  std::string p = "// xdispatch OpenCL C prelude (docs/compiler.md)\n";
  if (d.fp64) p += "#define XD_HAS_FP64 1\n";
  for (const char* name : {"common", "codegen"}) {
    const std::string_view text = kernel_source(name);
    if (text.empty()) plugin::fail(XD_ERR_INTERNAL, std::string("kernels/") + name + ".cl is missing from the plugin");
    p.append(text);
    if (p.back() != '\n') p += '\n';
  }
  return p;
}

const target_info& target_of(int32_t index, const spirv_tools& tools) {
  const device& d = checked_device(index);
  codegen_state& s = state();
  const std::lock_guard lock(s.mutex);
  auto& slot = s.targets[index];
  if (!slot) {
    auto t = std::make_unique<target_info>();
    t->prelude = prelude_of(d);
    t->compiler = tools.version + "\nSPIR-V 1.0 for Level Zero: " + d.props.name + ", driver " + d.props.driver_version;
    xd_codegen_target& o = t->target;
    o.struct_size = sizeof o;
    o.prelude = t->prelude.c_str();
    o.compiler = t->compiler.c_str();
    uint32_t wg = 1;
    while (wg * 2 <= std::min(kWorkGroup, d.max_group_size)) wg *= 2;
    o.work_group = wg;
    o.vector_width = kVectorWidth;
    // The SIMD width is the driver compiler's choice per kernel (8, 16 or 32 on Intel GPUs): unknown.
    o.sub_group = 0;
    o.flags = d.fp64 ? uint32_t{XD_CODEGEN_FLAG_F64} : 0u;
    o.max_groups = d.max_group_count[0];
    slot = std::move(t);
  }
  return *slot;
}

xd_status api_target(void*, int32_t index, int32_t language, xd_codegen_target* out) {
  return plugin::guarded(host(), [&] {
    check_language(language);
    if (out == nullptr || out->struct_size < kMinTargetSize)
      plugin::invalid("codegen target: out is null or its struct_size is smaller than a prelude's");
    const spirv_tools& tools = tools_or_fail();
    plugin::copy_sized(out, target_of(index, tools).target);
  });
}

// Source -> SPIR-V (disk cache) -> module; a failure is kept in p.error with the log and the path
// of a copy of the source.
void build(generated_program& p, const device& d, const std::string& source, const spirv_tools& tools) {
  const std::string cache = spirv_cache_dir();
  const std::string what = "generated program " + hex_hash(source) + " on " + d.props.name;
  const spirv_result r = compile_spirv(source, tools, cache);
  if (!r.ok) {
    p.error = "levelzero: " + what + " does not compile to SPIR-V:\n" + clipped(r.log) + "\nsource: " + r.source_path;
    log(XD_LOG_ERROR, p.error);
    return;
  }
  log(XD_LOG_DEBUG, what + (r.from_cache ? ": SPIR-V loaded from the disk cache" : ": SPIR-V built from source"));
  std::string flags = "-cl-fp32-correctly-rounded-divide-sqrt";
  if (const std::string extra = plugin::option_text(build_flags_option()); !extra.empty()) flags += " " + extra;
  ze_module_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  desc.inputSize = r.words.size() * sizeof(uint32_t);
  desc.pInputModule = reinterpret_cast<const uint8_t*>(r.words.data());
  desc.pBuildFlags = flags.c_str();
  ze_module_build_log_handle_t blog = nullptr;
  const ze_result_t res = zeModuleCreate(d.context, d.handle, &desc, &p.module, &blog);
  if (res != ZE_RESULT_SUCCESS) {
    p.module = nullptr;
    const std::string path = keep_generated_source(source, cache);
    p.error = "levelzero: zeModuleCreate(" + what + ") failed: " + ze_result_string(res) + "\nbuild flags: " + flags +
              "\nbuild log:\n" + build_log(blog) + "\nsource: " + (path.empty() ? "(could not be written)" : path);
    log(XD_LOG_ERROR, p.error);
    return;
  }
  if (blog != nullptr) zeModuleBuildLogDestroy(blog);
}

xd_status api_program_build(void*, int32_t index, int32_t language, const char* source, xd_program* out) {
  return plugin::guarded(host(), [&] {
    check_language(language);
    if (source == nullptr || *source == '\0' || out == nullptr)
      plugin::invalid("codegen program_build: the source is null or empty, or out is null");
    const device& d = checked_device(index);
    const spirv_tools& tools = tools_or_fail();
    generated_program* p = nullptr;
    {
      codegen_state& s = state();
      const std::lock_guard lock(s.mutex);
      auto& slot = s.programs[{index, source}];
      if (!slot) {
        slot = std::make_unique<generated_program>();
        slot->device = index;
      }
      p = slot.get();
    }
    const std::lock_guard lock(p->mutex);
    if (!p->done) {
      build(*p, d, source, tools);
      p->done = true;
    }
    if (!p->error.empty()) throw plugin::error(XD_ERR_INVALID_ARGUMENT, p->error);
    *out = p;
  });
}

xd_status api_kernel_get(void*, int32_t index, xd_program program, const char* name, xd_codegen_kernel* out) {
  return plugin::guarded(host(), [&] {
    const device& d = checked_device(index);
    if (program == nullptr || name == nullptr || out == nullptr)
      plugin::invalid("codegen kernel_get: program, name or out is null");
    auto& p = *static_cast<generated_program*>(program);
    if (p.device != index)
      plugin::invalid("codegen kernel_get: the program was built for device " + std::to_string(p.device) +
                      ", not device " + std::to_string(index));
    const std::lock_guard lock(p.mutex);
    if (p.module == nullptr) plugin::invalid("codegen kernel_get: the program did not build");
    if (const auto it = p.kernels.find(name); it != p.kernels.end()) {
      *out = it->second.get();
      return;
    }
    // Created completely before it is cached; obj releases the handle if a step fails.
    auto obj = std::make_unique<kernel_object>();
    obj->name = name;
    ze_kernel_desc_t kd{};
    kd.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
    kd.pKernelName = name;
    ze_kernel_handle_t h = nullptr;
    const ze_result_t r = zeKernelCreate(p.module, &kd, &h);
    if (r == ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
      plugin::invalid(std::string("codegen kernel_get: the program has no kernel '") + name + "' (" + d.props.name +
                      ")");
    check(r, ("zeKernelCreate(" + obj->name + ")").c_str());
    obj->handle = h;
    obj->props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    check(zeKernelGetProperties(obj->handle, &obj->props), ("zeKernelGetProperties(" + obj->name + ")").c_str());
    *out = p.kernels.emplace(name, std::move(obj)).first->second.get();
  });
}

// Group size and count of `g`, checked against the device, so that a bad grid is a message.
// False when the grid has no work-item (nothing to append).
bool groups_of(const device& d, const kernel_object& k, const xd_codegen_grid& g, uint32_t local[3],
               ze_group_count_t& count) {
  const std::string what = "codegen kernel_launch(" + k.name + "): ";
  if (g.dims < 1 || g.dims > 3) plugin::invalid(what + "grid dims " + std::to_string(g.dims) + " is not 1, 2 or 3");
  uint32_t n[3] = {1, 1, 1};
  uint64_t group = 1;
  bool empty = false;
  for (uint32_t i = 0; i < g.dims; ++i) {
    const std::string dim = "[" + std::to_string(i) + "]";
    if (g.local[i] == 0) plugin::invalid(what + "local" + dim + " is 0");
    if (g.global[i] % g.local[i] != 0)
      plugin::invalid(what + "global" + dim + " = " + std::to_string(g.global[i]) + " is not a multiple of local" +
                      dim + " = " + std::to_string(g.local[i]) + " (round it up; the kernel returns past its work)");
    if (g.local[i] > d.max_group_size_dim[i])
      plugin::invalid(what + "local" + dim + " = " + std::to_string(g.local[i]) + " exceeds the device's " +
                      std::to_string(d.max_group_size_dim[i]));
    const uint64_t groups = g.global[i] / g.local[i];
    if (groups > d.max_group_count[i])
      plugin::invalid(what + std::to_string(groups) + " work-groups along dim " + std::to_string(i) +
                      " exceed the device's maxGroupCount " + std::to_string(d.max_group_count[i]));
    local[i] = static_cast<uint32_t>(g.local[i]);
    n[i] = static_cast<uint32_t>(groups);
    group *= g.local[i];
    empty = empty || groups == 0;
  }
  if (group > d.max_group_size)
    plugin::invalid(what + "a work-group of " + std::to_string(group) + " work-items exceeds the device's " +
                    std::to_string(d.max_group_size));
  count = {n[0], n[1], n[2]};
  return !empty;
}

void set_args(kernel_object& k, const xd_codegen_arg* args, int32_t num_args) {
  for (int32_t i = 0; i < num_args; ++i) {
    const xd_codegen_arg& a = args[i];
    const std::string what = "codegen kernel_launch(" + k.name + "): argument " + std::to_string(i);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (a.kind == XD_CODEGEN_ARG_BUFFER) {
      const void* ptr = a.value;  // a USM pointer: the argument's bytes are the pointer itself
      r = zeKernelSetArgumentValue(k.handle, static_cast<uint32_t>(i), sizeof ptr, &ptr);
    } else if (a.kind == XD_CODEGEN_ARG_VALUE) {
      if (a.size == 0 || a.value == nullptr) plugin::invalid(what + ": a VALUE needs a size and its bytes");
      r = zeKernelSetArgumentValue(k.handle, static_cast<uint32_t>(i), a.size, a.value);
    } else {
      plugin::invalid(what + " has kind " + std::to_string(a.kind) + " (neither BUFFER nor VALUE)");
    }
    if (r == ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
      plugin::invalid(what + ": " + std::to_string(a.size) + " bytes is not its size");
    if (r != ZE_RESULT_SUCCESS) fail(r, "zeKernelSetArgumentValue(" + k.name + ", " + std::to_string(i) + ")");
  }
}

xd_status api_kernel_launch(void*, int32_t index, xd_stream stream, xd_codegen_kernel kernel,
                            const xd_codegen_arg* args, int32_t num_args, const xd_codegen_grid* grid) {
  return plugin::guarded(host(), [&] {
    const device& d = checked_device(index);
    if (stream == nullptr || kernel == nullptr || grid == nullptr || num_args < 0 || (num_args > 0 && args == nullptr))
      plugin::invalid("codegen kernel_launch: stream, kernel, grid or args is null, or num_args is negative");
    auto& k = *static_cast<kernel_object*>(kernel);
    auto& s = *static_cast<l0::stream*>(stream);
    if (&s.dev() != &d) plugin::invalid("codegen kernel_launch(" + k.name + "): the stream belongs to another device");
    if (static_cast<uint32_t>(num_args) != k.props.numKernelArgs)
      plugin::invalid("codegen kernel_launch(" + k.name + "): " + std::to_string(num_args) +
                      " arguments given, the kernel takes " + std::to_string(k.props.numKernelArgs));
    uint32_t local[3] = {1, 1, 1};
    ze_group_count_t count{1, 1, 1};
    if (!groups_of(d, k, *grid, local, count)) return;
    // Arguments live in the kernel object until the append captures them.
    const std::lock_guard lock(k.mutex);
    set_args(k, args, num_args);
    check(zeKernelSetGroupSize(k.handle, local[0], local[1], local[2]),
          ("zeKernelSetGroupSize(" + k.name + ")").c_str());
    s.submit([&](ze_command_list_handle_t l) {
      check(zeCommandListAppendLaunchKernel(l, k.handle, &count, nullptr, 0, nullptr),
            ("zeCommandListAppendLaunchKernel(" + k.name + ")").c_str());
    });
  });
}

const xd_codegen_api kTable = {sizeof(xd_codegen_api), XD_CODEGEN_OPENCL_C, api_target,
                               api_program_build,      api_kernel_get,      api_kernel_launch};

}  // namespace

void fill_codegen_api(xd_plugin_api& api) {
  api.codegen_languages = kTable.languages;
  api.codegen = &kTable;
}

}  // namespace xd::l0
