// A fake Level Zero driver for the plugin's runtime code, which no machine of this project can
// otherwise run (none has a Level Zero driver). fake_ze.cpp defines the ze* functions the
// runtime calls; a test executable that links it and the plugin's static library xd_l0_impl gets
// these definitions instead of the loader's (an executable's own definitions take precedence
// over a shared library's), so init, memory, streams, events and the module cache run against
// it.
//
// The fake follows the Level Zero 1.4 contract where the plugin depends on it, and records every
// breach it can see instead of crashing: memory freed or an event destroyed or reset while a
// queued command still uses it, a host wait that could never end, a kernel-timestamp query on an
// event of a pool without ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, a DEVICE_PROPERTIES_1_2 query on a
// driver older than API 1.2.
//
// The device runs nothing by itself: commands wait in their command list until the host waits
// on an event one of them signals (zeEventHostSynchronize runs that list up to the signal, as a
// real device would have done by then), a blocking free waits for them, or a test calls
// run_all(). A timestamp counter of kernel_timestamp_bits bits advances as commands run, so
// elapsed times are exact multiples of known tick counts.
//
// Not thread-safe: the tests drive it from one thread.
#pragma once

#include <level_zero/ze_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fake_ze {

struct config {
  ze_result_t init_result = ZE_RESULT_SUCCESS;
  uint32_t gpus = 1;  // GPU devices of the one driver
  ze_api_version_t api = ZE_API_VERSION_1_4;
  // ZE_extension_memory_free_policies: listed by zeDriverGetExtensionProperties, and the policies
  // zeDriverGetProperties reports through ze_driver_memory_free_ext_properties_t.
  bool free_policies_extension = false;
  uint32_t free_policies = 0;
  uint64_t timer_resolution_ns = 52;       // what DEVICE_PROPERTIES reports
  uint64_t timer_frequency_hz = 19200000;  // what DEVICE_PROPERTIES_1_2 reports
  uint32_t kernel_timestamp_bits = 32;
  int fail_compute_properties_of_device = -1;  // this device's zeDeviceGetComputeProperties fails
  // Intel's ZE_intel_experimental_device_module_dp_properties: listed by zeDriverGetExtensionProperties,
  // and the flags zeDeviceGetModuleProperties writes into a chained ze_intel_device_module_dp_exp_properties_t
  // (stype 0x00030013; bit 0 DP4A, bit 1 DPAS). Chaining it where the extension is not listed is a breach.
  bool dp_extension = false;
  uint32_t dp_flags = 0;
  std::vector<uint32_t> sub_group_sizes = {8, 16, 32};  // ze_device_compute_properties_t
  uint32_t spirv_version = ZE_MAKE_VERSION(1, 2);       // ze_device_module_properties_t::spirvVersionSupported
  ze_result_t kernel_create_result = ZE_RESULT_SUCCESS;
  ze_result_t kernel_properties_result = ZE_RESULT_SUCCESS;
  uint64_t barrier_ticks = 3;  // device time a barrier takes
  uint64_t copy_ticks = 1000;  // device time a copy takes
  uint64_t clock_start = 5000;
};

struct counters {
  int live_contexts = 0, live_lists = 0, live_pools = 0, live_events = 0, live_allocations = 0;
  int live_modules = 0, live_kernels = 0;
  int contexts_destroyed = 0, events_destroyed = 0;
  int mem_free_calls = 0, mem_free_ext_calls = 0;
  uint32_t last_free_policy = 0;
  int pending_commands = 0;  // in every command list now
};

// Resets everything (objects left from an earlier test are forgotten, not freed) and applies `c`.
void reset(const config& c = {});
config& settings();  // change a setting between calls
const counters& count();
// The breaches seen so far, each a sentence; empty when the plugin kept the contract.
const std::vector<std::string>& violations();
// Every ze* call in order, with a short argument summary ("zeMemFreeExt(policy=1)").
const std::vector<std::string>& calls();
bool called(const std::string& prefix);
// Runs every queued command of every command list (the device catching up).
void run_all();
// The stype zeDeviceGetProperties was last called with.
ze_structure_type_t last_device_properties_stype();

}  // namespace fake_ze
