// Drivers, devices and contexts: what zeInit finds, gathered once during xd_plugin_init.
// A context per driver (Level Zero memory and events belong to a context); only root GPU devices
// are exposed (sub-devices and non-GPU devices are skipped). After init_platform() returns, the
// devices are read-only (their module caches lock themselves) and live until the process ends.
#pragma once

#include "common/launcher.hpp"
#include "runtime/ze_error.hpp"

#include <memory>
#include <string>
#include <vector>

namespace xd::l0 {

class module_cache;

struct device {
  ze_driver_handle_t driver = nullptr;
  ze_context_handle_t context = nullptr;
  ze_device_handle_t handle = nullptr;
  xd_device_properties props{};
  bool fp64 = false;
  uint32_t compute_ordinal = 0;  // the command-queue group streams are created in
  // Kernel timestamps (elapsed time, stream.cpp): nanoseconds per tick of the device timer, from
  // ze_device_properties_t.timerResolution (0 when the device reports none: no timing), and the
  // mask of the kernelTimestampValidBits the counter has before it wraps.
  double ns_per_tick = 0.0;
  uint64_t kernel_timestamp_mask = ~0ull;
  // The driver offers ZE_extension_memory_free_policies with the blocking policy: zeMemFreeExt can
  // wait for the commands still using an allocation (memory.cpp).
  bool blocking_free = false;
  // From ze_device_compute_properties_t: what a fixed work-group size and a grid are checked
  // against before a launch (launcher.cpp).
  uint32_t max_group_size = 0;          // maxTotalGroupSize
  uint32_t max_group_size_dim[3] = {};  // maxGroupSizeX/Y/Z
  uint32_t max_group_count[3] = {};     // maxGroupCountX/Y/Z
  uint32_t max_local_memory = 0;        // maxSharedLocalMemory, bytes
  // Sizes split reductions and the rms_norm backward grid, as CL_DEVICE_MAX_COMPUTE_UNITS does in
  // the OpenCL plugin: numSlices * numSubslicesPerSlice * numEUsPerSubslice, the EU count, which
  // is what Intel's OpenCL runtime reports as compute units for the same GPU.
  uint32_t compute_units = 0;
  // matmul_dpas.cl's modules (driver.cpp: the DPAS query): the sub-group size whose module the
  // matmul family's f16/bf16 DPAS kernel loads (8 or 16; 0: none), and why, in words.
  int dpas_sub_group = 0;
  std::string dpas_why;
  // What the shared launchers need of this device (launcher.cpp: launch_info).
  xpu::device_info launch;
  std::unique_ptr<module_cache> modules;
  device();
  ~device();
  device(const device&) = delete;
  device& operator=(const device&) = delete;
};

struct platform {
  std::vector<std::unique_ptr<device>> devices;
  std::vector<ze_context_handle_t> contexts;  // one per driver with a GPU; kept until the process ends
};

// Runs zeInit(ZE_INIT_FLAG_GPU_ONLY) and enumerates. Throws plugin::error(XD_ERR_UNAVAILABLE,
// "no Level Zero driver: ...") when the loader finds no driver, with the loader's result code,
// and the error of the failing call otherwise; a failure leaves no context and no device behind
// (the platform stays as it was). Not thread-safe; never called from xd_plugin_query.
platform& init_platform();

// The platform init_platform() built; `index` must be valid (the host checks it).
device& device_at(int32_t index);
int32_t device_count();

}  // namespace xd::l0
