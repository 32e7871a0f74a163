#include "runtime/host.hpp"

#include <atomic>

namespace xd::ocl {

namespace {
// Written once by xd_plugin_init before any other entry point runs; atomic for a clean
// publication to the threads that use it.
std::atomic<const xd_host_api*> g_host{nullptr};
}  // namespace

void set_host(const xd_host_api* host) { g_host.store(host, std::memory_order_release); }

const xd_host_api* host() { return g_host.load(std::memory_order_acquire); }

void log(xd_log_level level, const std::string& message) {
  const xd_host_api* h = host();
  if (h != nullptr && h->log != nullptr) h->log(h->ctx, level, message.c_str());
}

}  // namespace xd::ocl
