// The two exported entry points of either XPU variant, compiled into each plugin (not into the
// shared library of launchers: a plugin must define them itself). query answers from the
// variant's description and touches no vendor runtime; init opens the API, makes the launcher the
// table's ctx (every kernel call's plugin_ctx) and registers the XPU list.
#include "kernel_list.hpp"
#include "variant.hpp"

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  const xd::xpu::variant& v = xd::xpu::this_variant();
  xd::plugin::identity id{v.name, v.version, v.description, v.device_kinds};
  id.family = "xpu";
  id.family_preference = v.preference;
  id.family_kinds = XD_DEVICE_KIND_GPU | XD_DEVICE_KIND_ACCELERATOR;
  id.options = v.options;
  return xd::plugin::fill_info(info, id);
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  return xd::plugin::init(host, api, [](xd_plugin_api& mine, xd::plugin::registrar& r) {
    const xd::xpu::variant& v = xd::xpu::this_variant();
    v.open();
    for (const auto fill : v.fill_runtime) fill(mine);
    v.fill_codegen(mine);
    mine.ctx = &v.launcher();
    // Specialised kernels are registered where a device builds them (xd-conform counts every
    // registered kernel a case must reach).
    xd::xpu::registration what;
    const xd::xpu::api& api = v.launcher();
    for (int32_t d = 0; d < api.device_count(); ++d) what.matmul_dpas |= api.device(d).matmul_dpas_sg != 0;
    xd::xpu::register_kernels(r, what);
  });
}
