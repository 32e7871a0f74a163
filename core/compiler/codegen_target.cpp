#include "compiler/codegen_target.hpp"

#include "plugin/host_api.hpp"

#include <map>
#include <memory>
#include <mutex>

namespace xd::detail::compiler {

namespace {

CodegenTarget make_target(DeviceRecord& dev) {
  CodegenTarget t;
  const Backend& b = *dev.backend;
  if (!XD_STRUCT_HAS(&b.api, xd_plugin_api, codegen) || b.api.codegen == nullptr || b.api.codegen_languages == 0) {
    t.reason = "backend '" + b.name + "' declares no codegen language (xd_plugin_api.codegen)";
    return t;
  }
  const xd_codegen_api* api = b.api.codegen;
  if (api->struct_size < sizeof(xd_codegen_api) || api->target == nullptr || api->program_build == nullptr ||
      api->kernel_get == nullptr || api->kernel_launch == nullptr) {
    t.reason = "backend '" + b.name + "' has an incomplete xd_codegen_api table";
    return t;
  }
  // OpenCL C first when offered: the device languages are what generated code is for.
  const uint32_t langs = api->languages & b.api.codegen_languages;
  const int32_t lang = (langs & XD_CODEGEN_OPENCL_C) != 0 ? XD_CODEGEN_OPENCL_C
                       : (langs & XD_CODEGEN_CPP) != 0   ? XD_CODEGEN_CPP
                                                         : 0;
  if (lang == 0) {
    t.reason = "backend '" + b.name + "' offers no language this core emits (OpenCL C, C++)";
    return t;
  }
  xd_codegen_target out{};
  out.struct_size = sizeof out;
  take_plugin_error();
  const xd_status s = api->target(b.api.ctx, dev.plugin_device, lang, &out);
  if (s != XD_OK) {
    const std::string msg = take_plugin_error();
    t.reason = "codegen unavailable on " + dev.device.str() + ": " + (msg.empty() ? "status " + std::to_string(s) : msg);
    return t;
  }
  t.available = true;
  t.api = api;
  t.language = lang;
  t.prelude = out.prelude != nullptr ? out.prelude : "";
  t.compiler = out.compiler != nullptr ? out.compiler : "";
  t.emit.language = lang == XD_CODEGEN_OPENCL_C ? Language::opencl_c : Language::cpp;
  uint32_t wg = out.work_group == 0 ? 256 : out.work_group;
  while ((wg & (wg - 1)) != 0) wg &= wg - 1;  // a power of two: the row kernels' tree needs one
  t.emit.work_group = wg;
  t.emit.vector_width = out.vector_width == 0 ? 4 : out.vector_width;
  t.emit.f64 = (out.flags & XD_CODEGEN_FLAG_F64) != 0;
  return t;
}

}  // namespace

const CodegenTarget& codegen_target(DeviceRecord& dev) {
  static std::mutex mutex;
  static std::map<const DeviceRecord*, std::unique_ptr<CodegenTarget>> targets;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = targets[&dev];
  if (!slot) slot = std::make_unique<CodegenTarget>(make_target(dev));
  return *slot;
}

}  // namespace xd::detail::compiler
