#include "plugin/host_api.hpp"

#include "ops/op_count.hpp"
#include "util/log.hpp"

#include <atomic>

namespace xd::detail {

namespace {
thread_local std::string t_last_error;
std::atomic<int64_t> g_order{0};

void host_log(void* ctx, int32_t level, const char* message) {
  auto* c = static_cast<HostContext*>(ctx);
  const int l = level < 0 ? 0 : (level > 3 ? 3 : level);
  log(static_cast<LogLevel>(l), c->plugin_name + ": " + (message != nullptr ? message : "(null)"));
}

xd_status host_set_error(void* /*ctx*/, xd_status code, const char* message) {
  t_last_error = message != nullptr ? message : "";
  return code;
}

xd_status host_register_kernel(void* ctx, const xd_kernel_desc* desc) {
  auto* c = static_cast<HostContext*>(ctx);
  auto reject = [&](const std::string& why) {
    c->registration_error = why;
    t_last_error = why;
    return XD_ERR_INVALID_ARGUMENT;
  };
  if (!c->registration_open) return reject("register_kernel called outside xd_plugin_init");
  if (desc == nullptr || desc->struct_size < offsetof(xd_kernel_desc, priority))
    return reject("register_kernel: descriptor is null or too small");
  if (desc->op < 0 || desc->op >= kOpCount)
    return reject("register_kernel: unknown op id " + std::to_string(desc->op));
  if (desc->dtype < 0 || desc->dtype >= XD_DTYPE_COUNT_V1)
    return reject("register_kernel: unknown dtype id " + std::to_string(desc->dtype));
  if (desc->fn == nullptr) return reject("register_kernel: fn is null");
  auto* e = new KernelEntry;  // lives for the process, like the plugin
  e->fn = desc->fn;
  e->supports = desc->supports;
  e->check = XD_STRUCT_HAS(desc, xd_kernel_desc, check) ? desc->check : nullptr;
  e->user_data = desc->user_data;
  e->priority = XD_STRUCT_HAS(desc, xd_kernel_desc, priority) ? desc->priority : 0;
  e->order = g_order.fetch_add(1);
  e->name = desc->name != nullptr ? desc->name : "unnamed";
  e->backend = c->backend;
  e->op = desc->op;
  e->dtype = static_cast<Dtype>(desc->dtype);
  c->pending.push_back(e);
  return XD_OK;
}
}  // namespace

xd_host_api make_host_api(HostContext* ctx) {
  xd_host_api h{};
  h.struct_size = sizeof h;
  h.abi_major = XD_ABI_MAJOR;
  h.abi_minor = XD_ABI_MINOR;
  h.ctx = ctx;
  h.log = host_log;
  h.set_error = host_set_error;
  h.register_kernel = host_register_kernel;
  return h;
}

std::string take_plugin_error() {
  std::string s;
  s.swap(t_last_error);
  return s;
}

}  // namespace xd::detail
