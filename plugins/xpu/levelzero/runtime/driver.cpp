#include "runtime/driver.hpp"

#include "program/module_cache.hpp"
#include "runtime/host.hpp"

#include <cstdio>
#include <string>

namespace xd::l0 {

namespace {

platform g_platform;

std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x8086: return "Intel";
    case 0x1002: return "AMD";
    case 0x10de: return "NVIDIA";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "vendor 0x%04x", id);
      return buf;
    }
  }
}

// Level Zero reports the driver version as one 32-bit number; Intel packs major.minor.build.
std::string driver_version(ze_driver_handle_t driver) {
  ze_driver_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  check(zeDriverGetProperties(driver, &p), "zeDriverGetProperties");
  ze_api_version_t api{};
  check(zeDriverGetApiVersion(driver, &api), "zeDriverGetApiVersion");
  char buf[96];
  std::snprintf(buf, sizeof buf, "%u.%u.%u (Level Zero API %u.%u)", p.driverVersion >> 24, (p.driverVersion >> 16) & 0xff,
                p.driverVersion & 0xffff, ZE_MAJOR_VERSION(api), ZE_MINOR_VERSION(api));
  return buf;
}

std::unique_ptr<device> make_device(ze_driver_handle_t driver, ze_context_handle_t context, ze_device_handle_t h,
                                    const std::string& version) {
  auto d = std::make_unique<device>();
  d->driver = driver;
  d->context = context;
  d->handle = h;

  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;  // timerResolution in ns with this stype
  check(zeDeviceGetProperties(h, &p), "zeDeviceGetProperties");
  ze_device_compute_properties_t cp{};
  cp.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  check(zeDeviceGetComputeProperties(h, &cp), "zeDeviceGetComputeProperties");
  ze_device_module_properties_t mp{};
  mp.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
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
  if (!found) throw plugin::error(XD_ERR_DEVICE, std::string("levelzero: device ") + p.name + " has no compute queue group");

  d->fp64 = (mp.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
  d->ns_per_tick = p.timerResolution > 0 ? static_cast<double>(p.timerResolution) : 1.0;
  d->timestamp_mask = p.timestampValidBits >= 64 ? ~0ull : ((1ull << p.timestampValidBits) - 1);
  d->max_group_size = cp.maxTotalGroupSize;
  d->max_group_size_dim[0] = cp.maxGroupSizeX;
  d->max_group_size_dim[1] = cp.maxGroupSizeY;
  d->max_group_size_dim[2] = cp.maxGroupSizeZ;
  d->max_group_count[0] = cp.maxGroupCountX;
  d->max_group_count[1] = cp.maxGroupCountY;
  d->max_group_count[2] = cp.maxGroupCountZ;
  d->max_local_memory = cp.maxSharedLocalMemory;
  d->compute_units = p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice;

  xd_device_properties& o = d->props;
  o.struct_size = sizeof o;
  plugin::copy_string(o.name, p.name);
  plugin::copy_string(o.vendor, vendor_name(p.vendorId));
  plugin::copy_string(o.driver_version, version);
  o.kind = XD_DEVICE_KIND_GPU;
  o.flags = XD_DEVICE_FLAG_TIMING;
  if (mp.flags & ZE_DEVICE_MODULE_FLAG_FP16) o.flags |= XD_DEVICE_FLAG_F16;
  if (d->fp64) o.flags |= XD_DEVICE_FLAG_F64;
  o.total_memory = total;
  o.compute_units = d->compute_units;
  o.max_work_group_size = cp.maxTotalGroupSize;
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
  for (ze_driver_handle_t drv : drivers) {
    uint32_t ndev = 0;
    check(zeDeviceGet(drv, &ndev, nullptr), "zeDeviceGet(count)");
    std::vector<ze_device_handle_t> devs(ndev);
    check(zeDeviceGet(drv, &ndev, devs.data()), "zeDeviceGet");
    std::vector<ze_device_handle_t> gpus;
    for (ze_device_handle_t h : devs) {
      ze_device_properties_t p{};
      p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      check(zeDeviceGetProperties(h, &p), "zeDeviceGetProperties");
      if (p.type == ZE_DEVICE_TYPE_GPU) gpus.push_back(h);
    }
    if (gpus.empty()) continue;
    ze_context_desc_t cd{};
    cd.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
    ze_context_handle_t ctx = nullptr;
    check(zeContextCreate(drv, &cd, &ctx), "zeContextCreate");
    const std::string version = driver_version(drv);
    for (ze_device_handle_t h : gpus) g_platform.devices.push_back(make_device(drv, ctx, h, version));
  }
  log(XD_LOG_INFO, std::to_string(g_platform.devices.size()) + " GPU device(s) on " + std::to_string(ndrivers) +
                       " driver(s)");
  return g_platform;
}

device& device_at(int32_t index) { return *g_platform.devices[static_cast<size_t>(index)]; }
int32_t device_count() { return static_cast<int32_t>(g_platform.devices.size()); }

}  // namespace xd::l0
