#include "runtime/host.hpp"

#include <xd/plugin.hpp>

namespace xd::l0 {

namespace {
plugin::host_slot g_host;
}  // namespace

void set_host(const xd_host_api* host) { g_host.set(host); }

const xd_host_api* host() { return g_host.get(); }

void log(xd_log_level level, const std::string& message) { g_host.log(level, message); }

}  // namespace xd::l0
