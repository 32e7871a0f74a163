// The parsers of the XD_* variables that name backends, devices and plugin folders:
//   'D' + text: XD_DEVICES (DeviceFilter, core/registry/device_filter.cpp), then rank() of a few
//               devices and check_names against cpu, opencl and levelzero (family xpu); ValueError
//               is its answer to bad text.
//   'B' + text: XD_BACKEND's terms as Registry::default_device reads them (split on ',', then
//               parse_device_spec, core/registry/device_spec.cpp), and Device::parse of each term
//               against the loaded backends (ValueError, DeviceError, BackendError).
//   'P' + text: XD_PLUGIN_PATH: plugin_candidates (core/plugin/loader.cpp) with the variable set to
//               the text; it only looks at the file system (stat, directory listings), never loads.
// Default_device itself runs once per process (std::call_once), so it is not called here.
#include "fuzz_util.hpp"

#include <xd/device.hpp>
#include <xd/error.hpp>

#include "plugin/loader.hpp"
#include "registry/device_filter.hpp"
#include "registry/device_spec.hpp"
#include "util/env.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void devices_spec(const std::string& text) {
  try {
    const xd::detail::DeviceFilter f(text);
    for (const char* backend : {"cpu", "opencl", "levelzero", "x"})
      for (int index : {0, 1, 7, 9999})
        for (xd::DeviceKind kind : {xd::DeviceKind::cpu, xd::DeviceKind::gpu, xd::DeviceKind::accelerator})
          for (const char* family : {"", "xpu"}) {
            const auto r = f.rank(backend, index, kind, family);
            if (r && *r < 0) xd::fuzz::finding("DeviceFilter::rank returned a negative rank");
          }
    f.check_names({{"cpu", ""}, {"opencl", "xpu"}, {"levelzero", "xpu"}});
  } catch (const xd::ValueError&) {
  }
}

void backend_spec(const std::string& text) {
  for (const std::string& term : xd::detail::split(text, ",")) {
    if (term.empty()) xd::fuzz::finding("split returned an empty piece");
    if (const auto spec = xd::detail::parse_device_spec(term)) {
      if (spec->index < 0 || spec->index > 9999) xd::fuzz::finding("parse_device_spec: index out of 0..9999");
      (void)xd::detail::valid_backend_name(spec->name);
    }
    try {
      (void)xd::Device::parse(term);
    } catch (const xd::ValueError&) {
    } catch (const xd::DeviceError&) {  // BackendError is one
    }
  }
}

void plugin_path(const std::string& text) {
  ::setenv("XD_PLUGIN_PATH", text.c_str(), 1);
  std::vector<std::string> searched;
  const auto candidates = xd::detail::plugin_candidates(searched);
  for (const auto& c : candidates)
    if (c.path.empty()) xd::fuzz::finding("plugin_candidates returned an empty path");
  ::unsetenv("XD_PLUGIN_PATH");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xd::fuzz::init(argc, argv);
  // Load the plugins once, before any XD_PLUGIN_PATH of an input is set.
  ::unsetenv("XD_PLUGIN_PATH");
  (void)xd::devices();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xd::fuzz::set_input(data, size);
  if (size == 0 || size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0]) {
      case 'D': devices_spec(text); break;
      case 'B': backend_spec(text); break;
      case 'P': plugin_path(text.substr(0, text.find('\0'))); break;
      default: break;
    }
  } catch (const std::exception& e) {
    xd::fuzz::finding(std::string("unexpected exception: ") + e.what());
  }
  return 0;
}
