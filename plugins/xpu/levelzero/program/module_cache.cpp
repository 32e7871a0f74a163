#include "program/module_cache.hpp"

#include "spirv/spirv_modules.hpp"

#include <cstdlib>

namespace xd::l0 {

namespace {

constexpr size_t kMaxLog = 16384;  // the head of a build log holds the first errors

std::string build_log(ze_module_build_log_handle_t log) {
  if (log == nullptr) return "(no build log)";
  size_t n = 0;
  std::string text;
  if (zeModuleBuildLogGetString(log, &n, nullptr) == ZE_RESULT_SUCCESS && n > 0) {
    text.resize(n);
    if (zeModuleBuildLogGetString(log, &n, text.data()) != ZE_RESULT_SUCCESS) text.clear();
  }
  zeModuleBuildLogDestroy(log);
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  if (text.size() > kMaxLog) text = text.substr(0, kMaxLog) + "\n... (build log truncated)";
  return text.empty() ? "(empty build log)" : text;
}

}  // namespace

kernel_object::~kernel_object() {
  if (handle != nullptr) zeKernelDestroy(handle);
}

module_cache::~module_cache() {
  for (auto& [key, e] : entries_) {
    e->kernels.clear();  // a module's kernels are destroyed before the module
    if (e->module != nullptr) zeModuleDestroy(e->module);
  }
}

void module_cache::build(entry& e, const char* source, const char* tag) {
  const spirv_module* m = find_spirv_module(source, tag, device_.fp64);
  const std::string what = std::string("kernels/") + source + ".cl for " + tag + (device_.fp64 ? " (fp64)" : "") +
                           " on " + device_.props.name;
  if (m == nullptr) {
    e.error = "levelzero: no SPIR-V module was built for " + what;
    return;
  }
  // Division and sqrt correctly rounded, as the CPU reference computes them (the OpenCL plugin
  // asks for the same where the device supports it). XD_LEVELZERO_BUILD_FLAGS appends flags.
  // The spelling: the Level Zero spec lists only -ze-opt-* and -g for pBuildFlags and names no
  // math option; Intel's compute runtime hands the other flags to its compiler (IGC), whose option
  // table defines -cl-fp32-correctly-rounded-divide-sqrt with -ze-fp32-... as an alias of it
  // (docs/backends/levelzero.md). The -cl- form is the one IGC also reads in OpenCL builds, so it
  // stays.
  std::string flags = "-cl-fp32-correctly-rounded-divide-sqrt";
  if (const std::string extra = plugin::option_text(build_flags_option()); !extra.empty()) flags += " " + extra;
  ze_module_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  desc.inputSize = m->word_count * sizeof(uint32_t);
  desc.pInputModule = reinterpret_cast<const uint8_t*>(m->words);
  desc.pBuildFlags = flags.c_str();
  ze_module_build_log_handle_t log = nullptr;
  const ze_result_t r = zeModuleCreate(device_.context, device_.handle, &desc, &e.module, &log);
  if (r != ZE_RESULT_SUCCESS) {
    e.module = nullptr;
    e.error = "levelzero: zeModuleCreate(" + what + ") failed: " + ze_result_string(r) + "\nbuild flags: " + flags +
              "\nbuild log:\n" + build_log(log);
    plugin::log(XD_LOG_ERROR, e.error);
    return;
  }
  if (log != nullptr) zeModuleBuildLogDestroy(log);
  plugin::log(XD_LOG_DEBUG, "module " + what + " created");
}

kernel_object& module_cache::kernel(const char* source, const char* tag, const std::string& name) {
  entry* e = nullptr;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = entries_[{source, tag}];
    if (!slot) slot = std::make_unique<entry>();
    e = slot.get();
  }
  const std::lock_guard lock(e->mutex);
  if (!e->done) {
    build(*e, source, tag);
    e->done = true;
  }
  if (!e->error.empty()) throw plugin::error(XD_ERR_DEVICE, e->error);
  if (const auto it = e->kernels.find(name); it != e->kernels.end()) return *it->second;
  // Created completely before it is cached: a failure leaves no slot behind (the destructor and
  // later lookups see only finished kernels), and obj releases the handle on the way out.
  auto obj = std::make_unique<kernel_object>();
  obj->name = name;
  ze_kernel_desc_t kd{};
  kd.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  kd.pKernelName = name.c_str();
  ze_kernel_handle_t h = nullptr;
  check(zeKernelCreate(e->module, &kd, &h), ("zeKernelCreate(" + name + ")").c_str());
  obj->handle = h;
  obj->props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  check(zeKernelGetProperties(obj->handle, &obj->props), ("zeKernelGetProperties(" + name + ")").c_str());
  return *e->kernels.emplace(name, std::move(obj)).first->second;
}

}  // namespace xd::l0
