#include <xd/error.hpp>
#include <xd/runtime.hpp>

#include "registry/registry.hpp"
#include "runtime/current.hpp"

#include <string>

namespace xd {

namespace detail {
struct EventState {
  DeviceRecord* device = nullptr;
  xd_event handle = nullptr;
  bool recorded = false;
  ~EventState() {
    if (handle != nullptr) (void)device->backend->api.event_destroy(device->backend->api.ctx, device->plugin_device, handle);
  }
};
}  // namespace detail

using detail::Registry;

Event::Event(Device device) : state_(std::make_shared<detail::EventState>()) {
  state_->device = &Registry::get().device(device);
}

// A moved-from Event has no state: a typed error instead of a crash.
detail::EventState& Event::checked(const char* what) const {
  if (!state_)
    throw ValueError(std::string(what) + ": the xd::Event is null (moved from); construct one with xd::Event(device)");
  return *state_;
}

namespace {
// A null stream argument: the same error as the stream's own members give, naming this call.
void require_stream(const Stream& stream, const char* what) {
  if (!stream.defined())
    throw ValueError(std::string(what) +
                     ": the xd::Stream is null (default-constructed or moved from) and names no stream; get one "
                     "from xd::Stream::create(device), xd::default_stream(device) or xd::current_stream()");
}
}  // namespace

Device Event::device() const { return checked("Event::device").device->device; }

void Event::record(const Stream& stream) {
  auto& dev = *checked("Event::record").device;
  require_stream(stream, "Event::record");
  if (stream.state()->device != &dev)
    throw DeviceError("Event::record: the event belongs to " + dev.device.str() + " but the stream to " +
                      stream.device().str());
  auto& api = dev.backend->api;
  if (state_->handle == nullptr) detail::check(*dev.backend, api.event_create(api.ctx, dev.plugin_device, &state_->handle), "event_create");
  detail::check(*dev.backend, api.event_record(api.ctx, dev.plugin_device, state_->handle, stream.handle()), "event_record");
  state_->recorded = true;
}

void Event::record() { record(current_stream(checked("Event::record").device->device)); }

void Event::block(const Stream& stream) const {
  const detail::EventState& st = checked("Event::block");
  require_stream(stream, "Event::block");
  if (!st.recorded) return;  // nothing to wait for
  auto& dev = *st.device;
  if (stream.state()->device != &dev)
    throw DeviceError("Event::block: the event belongs to " + dev.device.str() + " but the stream to " +
                      stream.device().str() + "; streams wait only for events of their own device");
  auto& api = dev.backend->api;
  detail::check(*dev.backend, api.stream_wait_event(api.ctx, dev.plugin_device, stream.handle(), state_->handle),
                "stream_wait_event");
}

bool Event::query() const {
  if (!checked("Event::query").recorded) return true;
  auto& dev = *state_->device;
  const xd_status s = dev.backend->api.event_query(dev.backend->api.ctx, dev.plugin_device, state_->handle);
  if (s == XD_NOT_READY) return false;
  detail::check(*dev.backend, s, "event_query");
  return true;
}

void Event::synchronize() const {
  if (!checked("Event::synchronize").recorded) return;
  auto& dev = *state_->device;
  detail::check(*dev.backend, dev.backend->api.event_synchronize(dev.backend->api.ctx, dev.plugin_device, state_->handle),
                "event_synchronize");
}

double Event::elapsed_ms(const Event& end) const {
  auto& dev = *checked("Event::elapsed_ms").device;
  (void)end.checked("Event::elapsed_ms (the end event)");
  if (end.state_->device != &dev)
    throw DeviceError("Event::elapsed_ms: the events belong to different devices (" + dev.device.str() + ", " +
                      end.device().str() + ")");
  if (!state_->recorded || !end.state_->recorded)
    throw ValueError("Event::elapsed_ms: both events must be recorded first");
  if (!dev.props.timing) throw DeviceError("Event::elapsed_ms: " + dev.device.str() + " cannot time events");
  end.synchronize();
  double ms = 0;
  detail::check(*dev.backend,
                dev.backend->api.event_elapsed_ms(dev.backend->api.ctx, dev.plugin_device, state_->handle,
                                                  end.state_->handle, &ms),
                "event_elapsed_ms");
  return ms;
}

}  // namespace xd
