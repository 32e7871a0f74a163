#include "runtime/host.hpp"

#include <atomic>

namespace xd::l0 {

namespace {
std::atomic<const xd_host_api*> g_host{nullptr};
}

void set_host(const xd_host_api* h) { g_host.store(h); }
const xd_host_api* host() { return g_host.load(); }

void log(xd_log_level level, const std::string& message) {
  const xd_host_api* h = g_host.load();
  if (h != nullptr && h->log != nullptr) h->log(h->ctx, level, ("levelzero: " + message).c_str());
}

}  // namespace xd::l0
