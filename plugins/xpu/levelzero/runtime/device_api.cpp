// device_count and device_properties, answered from what init_platform() gathered.
#include "runtime/driver.hpp"
#include "runtime/runtime.hpp"

namespace xd::l0 {

namespace {

int32_t count(void*) { return device_count(); }

xd_status properties(void*, int32_t index, xd_device_properties* out) {
  return plugin::guarded(host(), [&] {
    if (out == nullptr || index < 0 || index >= device_count())
      throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: device_properties: bad device or null output");
    const xd_device_properties& p = device_at(index).props;
    plugin::copy_sized(out, p);
  });
}

}  // namespace

void fill_device_api(xd_plugin_api& api) { plugin::set_devices(api, {count, properties}); }

}  // namespace xd::l0
