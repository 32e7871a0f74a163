#include "runtime/driver.hpp"

#include "common/matmul.hpp"
#include "launcher.hpp"
#include "options.hpp"
#include "program/module_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace xd::l0 {

namespace {

platform g_platform;

std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x8086:
      return "Intel";
    case 0x1002:
      return "AMD";
    case 0x10de:
      return "NVIDIA";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "vendor 0x%04x", id);
      return buf;
    }
  }
}

// Intel's driver extension "ZE_intel_experimental_device_module_dp_properties", declared here because
// the Level Zero headers of Debian 12 (libze-dev 1.8) lack it. Names and values are those of Intel's
// compute runtime (github.com/intel/compute-runtime, level_zero/include/level_zero/ze_intel_gpu.h:
// the extension name, ze_intel_device_module_dp_exp_properties_t {stype, pNext, flags} and
// ZE_INTEL_DEVICE_MODULE_EXP_FLAG_DPAS = ZE_BIT(1); ze_stypes.h:
// ZE_STRUCTURE_INTEL_DEVICE_MODULE_DP_EXP_PROPERTIES = 0x00030013). Chained to
// zeDeviceGetModuleProperties, the driver sets the DPAS bit on devices with matrix engines.
constexpr const char* kIntelDpExtension = "ZE_intel_experimental_device_module_dp_properties";
constexpr auto kIntelDpStype = static_cast<ze_structure_type_t>(0x00030013);
constexpr uint32_t kIntelDpFlagDpas = 1u << 1;
struct intel_module_dp_properties {
  ze_structure_type_t stype = kIntelDpStype;
  void* pNext = nullptr;
  uint32_t flags = 0;
};

// What make_device needs from a device's driver, queried once per driver.
struct driver_info {
  std::string version;  // "major.minor.build (Level Zero API x.y)"
  ze_api_version_t api{};
  bool blocking_free = false;
  bool dp_properties = false;  // lists kIntelDpExtension: the DPAS query may be chained
};

// The driver's extensions; empty when the query fails (then none is used: init does not fail over
// an extension).
std::vector<ze_driver_extension_properties_t> driver_extensions(ze_driver_handle_t driver) {
  uint32_t n = 0;
  if (zeDriverGetExtensionProperties(driver, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) return {};
  std::vector<ze_driver_extension_properties_t> ext(n);
  if (zeDriverGetExtensionProperties(driver, &n, ext.data()) != ZE_RESULT_SUCCESS) return {};
  ext.resize(std::min<size_t>(n, ext.size()));
  return ext;
}

bool lists(const std::vector<ze_driver_extension_properties_t>& ext, const char* name, uint32_t version) {
  for (const auto& e : ext)
    if (std::strncmp(e.name, name, ZE_MAX_EXTENSION_NAME) == 0 && e.version >= version) return true;
  return false;
}

// True when the driver lists ZE_extension_memory_free_policies and its free policies include
// BLOCKING_FREE (reported through ze_driver_memory_free_ext_properties_t chained to
// zeDriverGetProperties, as the extension specifies). A failing query means "not offered": the
// caller then frees the safe way without it (memory.cpp), so init does not fail over an extension.
bool query_blocking_free(ze_driver_handle_t driver, const std::vector<ze_driver_extension_properties_t>& ext) {
  if (!lists(ext, ZE_MEMORY_FREE_POLICIES_EXT_NAME, ZE_MEMORY_FREE_POLICIES_EXT_VERSION_1_0)) return false;
  ze_driver_memory_free_ext_properties_t policies{};
  policies.stype = ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES;
  ze_driver_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  p.pNext = &policies;
  if (zeDriverGetProperties(driver, &p) != ZE_RESULT_SUCCESS) return false;
  return (policies.freePolicies & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE) != 0;
}

// Level Zero reports the driver version as one 32-bit number; Intel packs major.minor.build.
driver_info query_driver(ze_driver_handle_t driver) {
  driver_info info;
  ze_driver_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  check(zeDriverGetProperties(driver, &p), "zeDriverGetProperties");
  check(zeDriverGetApiVersion(driver, &info.api), "zeDriverGetApiVersion");
  char buf[96];
  std::snprintf(buf, sizeof buf, "%u.%u.%u (Level Zero API %u.%u)", p.driverVersion >> 24,
                (p.driverVersion >> 16) & 0xff, p.driverVersion & 0xffff, ZE_MAJOR_VERSION(info.api),
                ZE_MINOR_VERSION(info.api));
  info.version = buf;
  const std::vector<ze_driver_extension_properties_t> ext = driver_extensions(driver);
  info.blocking_free = query_blocking_free(driver, ext);
  info.dp_properties = lists(ext, kIntelDpExtension, ZE_MAKE_VERSION(1, 0));
  return info;
}

// Whether the device loads matmul_dpas.cl's module, for which sub-group size: DPAS reported
// through Intel's extension (above), the smallest of the device's sub-group sizes 8 or 16 (the
// layouts of cl_intel_subgroup_matrix_multiply_accumulate's builtins, which require that size),
// SPIR-V 1.1 accepted (the modules' required sub-group size is a SPIR-V 1.1 execution mode), and
// a work-group of four such sub-groups allowed; XD_LEVELZERO_MATMUL_DPAS=0 turns it off.
void choose_dpas(device& d, bool listed, uint32_t dp_flags, const ze_device_compute_properties_t& cp,
                 uint32_t spirv_version) {
  static const bool enabled = plugin::option_flag(option_desc(option::matmul_dpas));
  const auto no = [&d](std::string why) { d.dpas_why = std::move(why); };
  if (!enabled) return no("XD_LEVELZERO_MATMUL_DPAS=0");
  if (!listed) return no(std::string("the driver does not list ") + kIntelDpExtension);
  if ((dp_flags & kIntelDpFlagDpas) == 0) return no("the device does not report ZE_INTEL_DEVICE_MODULE_EXP_FLAG_DPAS");
  if (spirv_version < ZE_MAKE_VERSION(1, 1))
    return no("the device takes SPIR-V " + std::to_string(spirv_version >> 16) + "." +
              std::to_string(spirv_version & 0xffff) + ", the DPAS modules are SPIR-V 1.1");
  std::vector<int64_t> sizes;
  for (uint32_t i = 0; i < cp.numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; ++i) sizes.push_back(cp.subGroupSizes[i]);
  const int sg = xpu::dpas_sub_group_size(sizes);
  if (sg == 0)
    return no(sizes.empty() ? "the device reports no sub-group sizes"
                            : "its smallest sub-group size is neither 8 nor 16");
  if (xpu::kDpasSubGroups * sg > cp.maxTotalGroupSize)
    return no("a work-group of " + std::to_string(xpu::kDpasSubGroups * sg) + " work-items exceeds maxTotalGroupSize");
  d.dpas_sub_group = sg;
  d.dpas_why = "DPAS, sub-group size " + std::to_string(sg);
}

std::unique_ptr<device> make_device(ze_driver_handle_t driver, ze_context_handle_t context, ze_device_handle_t h,
                                    const driver_info& info) {
  auto d = std::make_unique<device>();
  d->driver = driver;
  d->context = context;
  d->handle = h;
  d->blocking_free = info.blocking_free;

  // The stype decides the unit of timerResolution: nanoseconds per tick with DEVICE_PROPERTIES,
  // ticks per second with DEVICE_PROPERTIES_1_2. The 1.2 form is exact (an integer frequency such
  // as 19200000 where the nanosecond form truncates 52.083 to 52), so it is asked for wherever the
  // driver implements API 1.2; an older driver would not know that stype.
  const bool hz = info.api >= ZE_API_VERSION_1_2;
  ze_device_properties_t p{};
  p.stype = hz ? ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 : ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  check(zeDeviceGetProperties(h, &p), "zeDeviceGetProperties");
  ze_device_compute_properties_t cp{};
  cp.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  check(zeDeviceGetComputeProperties(h, &cp), "zeDeviceGetComputeProperties");
  ze_device_module_properties_t mp{};
  mp.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  intel_module_dp_properties dp{};
  if (info.dp_properties) mp.pNext = &dp;  // chained only where the driver lists the extension
  check(zeDeviceGetModuleProperties(h, &mp), "zeDeviceGetModuleProperties");

  uint32_t nmem = 0;
  check(zeDeviceGetMemoryProperties(h, &nmem, nullptr), "zeDeviceGetMemoryProperties(count)");
  std::vector<ze_device_memory_properties_t> mem(nmem);
  for (auto& m : mem) m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  check(zeDeviceGetMemoryProperties(h, &nmem, mem.data()), "zeDeviceGetMemoryProperties");
  uint64_t total = 0;
  for (const auto& m : mem) total += m.totalSize;

  uint32_t ngroups = 0;
  check(zeDeviceGetCommandQueueGroupProperties(h, &ngroups, nullptr), "zeDeviceGetCommandQueueGroupProperties(count)");
  std::vector<ze_command_queue_group_properties_t> groups(ngroups);
  for (auto& g : groups) g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  check(zeDeviceGetCommandQueueGroupProperties(h, &ngroups, groups.data()), "zeDeviceGetCommandQueueGroupProperties");
  bool found = false;
  for (uint32_t i = 0; i < ngroups && !found; ++i)
    if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      d->compute_ordinal = i;
      found = true;
    }
  if (!found)
    throw plugin::error(XD_ERR_DEVICE, std::string("levelzero: device ") + p.name + " has no compute queue group");

  d->fp64 = (mp.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
  if (p.timerResolution > 0)
    d->ns_per_tick = hz ? 1e9 / static_cast<double>(p.timerResolution) : static_cast<double>(p.timerResolution);
  // Elapsed time reads kernel timestamps, whose counter has kernelTimestampValidBits bits (not
  // timestampValidBits, which is the global timestamp's). 0 would be a driver that does not say:
  // taken as the full 64 bits rather than a mask that zeroes every difference.
  const uint32_t bits = p.kernelTimestampValidBits;
  d->kernel_timestamp_mask = bits == 0 || bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  d->max_group_size = cp.maxTotalGroupSize;
  d->max_group_size_dim[0] = cp.maxGroupSizeX;
  d->max_group_size_dim[1] = cp.maxGroupSizeY;
  d->max_group_size_dim[2] = cp.maxGroupSizeZ;
  d->max_group_count[0] = cp.maxGroupCountX;
  d->max_group_count[1] = cp.maxGroupCountY;
  d->max_group_count[2] = cp.maxGroupCountZ;
  d->max_local_memory = cp.maxSharedLocalMemory;
  d->compute_units = p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice;
  choose_dpas(*d, info.dp_properties, dp.flags, cp, mp.spirvVersionSupported);
  log(XD_LOG_DEBUG,
      std::string(p.name) + ": matmul DPAS kernel " + (d->dpas_sub_group != 0 ? "used: " : "not used: ") + d->dpas_why);

  xd_device_properties& o = d->props;
  o.struct_size = sizeof o;
  plugin::copy_string(o.name, p.name);
  plugin::copy_string(o.vendor, vendor_name(p.vendorId));
  plugin::copy_string(o.driver_version, info.version);
  o.kind = XD_DEVICE_KIND_GPU;
  o.flags = d->ns_per_tick > 0 ? XD_DEVICE_FLAG_TIMING : 0;
  if (mp.flags & ZE_DEVICE_MODULE_FLAG_FP16) o.flags |= XD_DEVICE_FLAG_F16;
  if (d->fp64) o.flags |= XD_DEVICE_FLAG_F64;
  o.total_memory = total;
  o.compute_units = d->compute_units;
  o.max_work_group_size = cp.maxTotalGroupSize;
  d->launch = launch_info(*d);
  d->modules = std::make_unique<module_cache>(*d);
  return d;
}

}  // namespace

device::device() = default;
device::~device() = default;

platform& init_platform() {
  const ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS)
    throw plugin::error(XD_ERR_UNAVAILABLE,
                        "no Level Zero driver: zeInit(ZE_INIT_FLAG_GPU_ONLY) returned " + ze_result_string(r) +
                            " (the loader libze_loader is present, but no GPU driver such as Intel's compute runtime, "
                            "intel-level-zero-gpu, is installed or a /dev/dri render node is not accessible)");
  uint32_t ndrivers = 0;
  check(zeDriverGet(&ndrivers, nullptr), "zeDriverGet(count)");
  if (ndrivers == 0)
    throw plugin::error(XD_ERR_UNAVAILABLE, "no Level Zero driver: zeInit succeeded but zeDriverGet found none");
  std::vector<ze_driver_handle_t> drivers(ndrivers);
  check(zeDriverGet(&ndrivers, drivers.data()), "zeDriverGet");
  drivers.resize(ndrivers);

  // Built aside and kept only when everything succeeded: a call failing part-way (on the second
  // GPU, or the second driver) must not leave contexts or half-made devices behind, and an init
  // the host tries again must not find the first attempt's devices. Reserved up front so that
  // recording a context just created cannot throw and lose it.
  std::vector<std::unique_ptr<device>> devices;
  std::vector<ze_context_handle_t> contexts;
  contexts.reserve(drivers.size());
  try {
    for (ze_driver_handle_t drv : drivers) {
      uint32_t ndev = 0;
      check(zeDeviceGet(drv, &ndev, nullptr), "zeDeviceGet(count)");
      std::vector<ze_device_handle_t> devs(ndev);
      check(zeDeviceGet(drv, &ndev, devs.data()), "zeDeviceGet");
      devs.resize(ndev);
      std::vector<ze_device_handle_t> gpus;
      for (ze_device_handle_t h : devs) {
        ze_device_properties_t p{};
        p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
        check(zeDeviceGetProperties(h, &p), "zeDeviceGetProperties");
        if (p.type == ZE_DEVICE_TYPE_GPU) gpus.push_back(h);
      }
      if (gpus.empty()) continue;
      const driver_info info = query_driver(drv);
      ze_context_desc_t cd{};
      cd.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
      ze_context_handle_t ctx = nullptr;
      check(zeContextCreate(drv, &cd, &ctx), "zeContextCreate");
      contexts.push_back(ctx);
      for (ze_device_handle_t h : gpus) devices.push_back(make_device(drv, ctx, h, info));
    }
  } catch (...) {
    // The devices go first: nothing has been built in their module caches yet, and nothing
    // else refers to the contexts.
    devices.clear();
    for (ze_context_handle_t ctx : contexts) {
      const ze_result_t d = zeContextDestroy(ctx);
      if (d != ZE_RESULT_SUCCESS)
        log(XD_LOG_WARN, "after a failed init: zeContextDestroy returned " + ze_result_string(d));
    }
    throw;
  }
  g_platform.devices = std::move(devices);
  g_platform.contexts = std::move(contexts);
  log(XD_LOG_INFO,
      std::to_string(g_platform.devices.size()) + " GPU device(s) on " + std::to_string(ndrivers) + " driver(s)");
  return g_platform;
}

device& device_at(int32_t index) { return *g_platform.devices[static_cast<size_t>(index)]; }
int32_t device_count() { return static_cast<int32_t>(g_platform.devices.size()); }

}  // namespace xd::l0
