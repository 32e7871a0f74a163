#include <xd/error.hpp>
#include <xd/runtime.hpp>

#include "registry/registry.hpp"
#include "runtime/current.hpp"

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

Device Event::device() const { return state_->device->device; }

void Event::record(const Stream& stream) {
  auto& dev = *state_->device;
  if (stream.state()->device != &dev)
    throw DeviceError("Event::record: the event belongs to " + dev.device.str() + " but the stream to " +
                      stream.device().str());
  auto& api = dev.backend->api;
  if (state_->handle == nullptr) detail::check(*dev.backend, api.event_create(api.ctx, dev.plugin_device, &state_->handle), "event_create");
  detail::check(*dev.backend, api.event_record(api.ctx, dev.plugin_device, state_->handle, stream.handle()), "event_record");
  state_->recorded = true;
}

void Event::record() { record(current_stream(device())); }

void Event::block(const Stream& stream) const {
  if (!state_->recorded) return;  // nothing to wait for
  auto& dev = *state_->device;
  if (stream.state()->device != &dev)
    throw DeviceError("Event::block: the event belongs to " + dev.device.str() + " but the stream to " +
                      stream.device().str() + "; streams wait only for events of their own device");
  auto& api = dev.backend->api;
  detail::check(*dev.backend, api.stream_wait_event(api.ctx, dev.plugin_device, stream.handle(), state_->handle),
                "stream_wait_event");
}

bool Event::query() const {
  if (!state_->recorded) return true;
  auto& dev = *state_->device;
  const xd_status s = dev.backend->api.event_query(dev.backend->api.ctx, dev.plugin_device, state_->handle);
  if (s == XD_NOT_READY) return false;
  detail::check(*dev.backend, s, "event_query");
  return true;
}

void Event::synchronize() const {
  if (!state_->recorded) return;
  auto& dev = *state_->device;
  detail::check(*dev.backend, dev.backend->api.event_synchronize(dev.backend->api.ctx, dev.plugin_device, state_->handle),
                "event_synchronize");
}

double Event::elapsed_ms(const Event& end) const {
  auto& dev = *state_->device;
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
