// device_count and device_properties.
#include "runtime/platform.hpp"
#include "runtime/runtime.hpp"

namespace xd::ocl {

namespace {

int32_t api_device_count(void*) { return device_count(); }

xd_status api_device_properties(void*, int32_t index, xd_device_properties* out) {
  return plugin::guarded(host(), [&] {
    const device& d = get_device(index);
    if (out == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: device_properties: out is null");
    xd_device_properties p{};
    p.struct_size = sizeof p;
    plugin::copy_string(p.name, d.name);
    plugin::copy_string(p.vendor, d.vendor);
    plugin::copy_string(p.driver_version, d.driver_version);
    p.kind = d.kind;
    // f16 and bf16 kernels exist on every device (stored as 16 bits, computed in f32); the flags
    // say what the hardware computes natively.
    p.flags = XD_DEVICE_FLAG_TIMING;
    if (d.fp16) p.flags |= XD_DEVICE_FLAG_F16;
    if (d.fp64) p.flags |= XD_DEVICE_FLAG_F64;
    p.total_memory = d.global_memory;
    p.compute_units = d.compute_units;
    p.max_work_group_size = static_cast<uint32_t>(d.max_work_group);
    plugin::copy_sized(out, p);
  });
}

}  // namespace

void fill_device_api(xd_plugin_api& api) { plugin::set_devices(api, {api_device_count, api_device_properties}); }

}  // namespace xd::ocl
