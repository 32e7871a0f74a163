// Modules per device, created on first use from the embedded SPIR-V (zeModuleCreate with
// ZE_MODULE_FORMAT_IL_SPIRV), one per (source, dtype tag): the fp64 flavour on a device with fp64,
// the base flavour elsewhere. Kernels are created once per module and entry point; a launch
// holds the kernel's mutex from zeKernelSetArgumentValue to the append, because arguments live
// in the kernel object and the append captures them.
//
// Thread-safe. A failed module build is remembered with its build log and reported by every
// later use instead of being retried.
#pragma once

#include "options.hpp"
#include "runtime/driver.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace xd::l0 {

// Owns its kernel handle (zeKernelDestroy on destruction), so a kernel whose creation or property
// query fails part-way is released by the same path as one that lived.
struct kernel_object {
  kernel_object() = default;
  ~kernel_object();
  kernel_object(const kernel_object&) = delete;
  kernel_object& operator=(const kernel_object&) = delete;
  std::mutex mutex;  // held while arguments are set and the launch appended
  ze_kernel_handle_t handle = nullptr;
  std::string name;
  // zeKernelGetProperties at creation: the required group size (reqd_work_group_size in the .cl),
  // the local memory one group uses and the subgroup limits, which a launch checks its group
  // size against (launcher.cpp).
  ze_kernel_properties_t props{};
};

class module_cache {
 public:
  explicit module_cache(device& d) : device_(d) {}
  ~module_cache();
  module_cache(const module_cache&) = delete;
  module_cache& operator=(const module_cache&) = delete;

  // The kernel `entry` of kernels/<source>.cl for dtype `tag`. Throws plugin::error
  // (XD_ERR_DEVICE with the build log when the module does not build on this device, or when no
  // module exists for the variant; the error of zeKernelCreate / zeKernelGetProperties when the
  // kernel cannot be created, in which case nothing is cached and a later call tries again).
  kernel_object& kernel(const char* source, const char* tag, const std::string& entry);

 private:
  struct entry {
    std::mutex mutex;
    bool done = false;
    ze_module_handle_t module = nullptr;
    std::string error;
    std::map<std::string, std::unique_ptr<kernel_object>> kernels;
  };
  void build(entry& e, const char* source, const char* tag);

  device& device_;
  std::mutex mutex_;
  std::map<std::tuple<std::string, std::string>, std::unique_ptr<entry>> entries_;
};

}  // namespace xd::l0
