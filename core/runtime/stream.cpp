#include <xd/error.hpp>
#include <xd/runtime.hpp>

#include "registry/registry.hpp"
#include "runtime/current.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace xd {

namespace detail {

namespace {
std::atomic<uint64_t> g_user_stream_ids{1ull << 32};  // disjoint from default stream ids

struct ThreadState {
  bool device_set = false;
  Device device;
  std::vector<std::shared_ptr<StreamState>> streams;  // by type * kMaxDevicesPerBackend + index
};
// initial-exec TLS and a trivially constructible pointer: every op reads this, and the default
// (global-dynamic) model costs a __tls_get_addr call plus an init guard per access.
thread_local ThreadState* t_state_ptr __attribute__((tls_model("initial-exec"))) = nullptr;

ThreadState& state() {
  ThreadState* s = t_state_ptr;
  if (__builtin_expect(s == nullptr, 0)) {
    static thread_local ThreadState owned;  // destroyed at thread exit
    s = t_state_ptr = &owned;
  }
  return *s;
}

size_t slot_of(const DeviceRecord& d) {
  return static_cast<size_t>(d.device.type()) * kMaxDevicesPerBackend + static_cast<size_t>(d.device.index());
}
}  // namespace

StreamState& current_stream_state(DeviceRecord& dev) {
  const size_t slot = slot_of(dev);
  const auto& streams = state().streams;
  if (slot < streams.size() && streams[slot]) return *streams[slot];
  return dev.default_stream_state();
}

std::shared_ptr<StreamState> current_stream_ptr(DeviceRecord& dev) {
  const size_t slot = slot_of(dev);
  if (slot < state().streams.size() && state().streams[slot]) return state().streams[slot];
  return dev.get_default_stream();
}

void set_current_stream_ptr(DeviceRecord& dev, std::shared_ptr<StreamState> s) {
  const size_t slot = slot_of(dev);
  if (slot >= state().streams.size()) state().streams.resize(slot + 1);
  state().streams[slot] = std::move(s);
}

}  // namespace detail

using detail::Registry;
using detail::StreamState;

Stream Stream::create(Device device) {
  auto& dev = Registry::get().device(device);
  auto s = std::make_shared<StreamState>();
  s->device = &dev;
  s->id = detail::g_user_stream_ids.fetch_add(1);
  detail::check(*dev.backend, dev.backend->api.stream_create(dev.backend->api.ctx, dev.plugin_device, &s->handle),
                "stream_create");
  s->owned = true;
  {
    std::lock_guard lock(dev.streams_mutex);
    dev.streams.push_back(s);
  }
  return Stream(s);
}

namespace {
// A null Stream has no state to reach the plugin through: a typed error instead of a crash.
[[noreturn]] void throw_null_stream(const char* what) {
  throw ValueError(std::string(what) +
                   ": the xd::Stream is null (default-constructed or moved from) and names no stream; get one "
                   "from xd::Stream::create(device), xd::default_stream(device) or xd::current_stream()");
}
const std::shared_ptr<StreamState>& checked(const std::shared_ptr<StreamState>& state, const char* what) {
  if (!state) throw_null_stream(what);
  return state;
}
void require_defined(const Stream& stream, const char* what) {
  if (!stream.defined()) throw_null_stream(what);
}
}  // namespace

const std::shared_ptr<StreamState>& Stream::state() const { return checked(state_, "xd::Stream"); }

Device Stream::device() const { return checked(state_, "Stream::device")->device->device; }

void Stream::synchronize() const {
  const StreamState& st = *checked(state_, "Stream::synchronize");
  auto& b = *st.device->backend;
  detail::check(b, b.api.stream_synchronize(b.api.ctx, st.device->plugin_device, st.handle), "stream_synchronize");
}

bool Stream::query() const {
  const StreamState& st = *checked(state_, "Stream::query");
  auto& b = *st.device->backend;
  const xd_status s = b.api.stream_query(b.api.ctx, st.device->plugin_device, st.handle);
  if (s == XD_NOT_READY) return false;
  detail::check(b, s, "stream_query");
  return true;
}

void* Stream::handle() const { return checked(state_, "Stream::handle")->handle; }
uint64_t Stream::id() const { return checked(state_, "Stream::id")->id; }

Stream default_stream(Device device) { return Stream(Registry::get().device(device).get_default_stream()); }

Stream current_stream(Device device) { return Stream(detail::current_stream_ptr(Registry::get().device(device))); }

Stream current_stream() { return current_stream(current_device()); }

void set_current_stream(const Stream& stream) {
  require_defined(stream, "set_current_stream");
  detail::set_current_stream_ptr(*stream.state()->device, stream.state());
}

Device current_device() {
  if (!detail::state().device_set) {
    detail::state().device = default_device();
    detail::state().device_set = true;
  }
  return detail::state().device;
}

void set_current_device(Device device) {
  (void)Registry::get().device(device);  // validates
  detail::state().device = device;
  detail::state().device_set = true;
}

void synchronize(Device device) {
  auto& dev = Registry::get().device(device);
  Stream(dev.get_default_stream()).synchronize();
  std::vector<std::shared_ptr<StreamState>> live;
  {
    std::lock_guard lock(dev.streams_mutex);
    for (auto it = dev.streams.begin(); it != dev.streams.end();) {
      if (auto s = it->lock()) {
        live.push_back(std::move(s));
        ++it;
      } else {
        it = dev.streams.erase(it);
      }
    }
  }
  for (auto& s : live) Stream(s).synchronize();
}

DeviceGuard::DeviceGuard(Device device) : previous_(current_device()) { set_current_device(device); }
DeviceGuard::~DeviceGuard() { detail::state().device = previous_; }

// A null stream throws before anything is read or changed.
StreamGuard::StreamGuard(const Stream& stream)
    : previous_device_((require_defined(stream, "StreamGuard"), current_device())),
      previous_stream_(current_stream(stream.device())) {
  set_current_device(stream.device());
  set_current_stream(stream);
}

StreamGuard::~StreamGuard() {
  set_current_stream(previous_stream_);
  detail::state().device = previous_device_;
}

}  // namespace xd
