// Streams and events. Kernels and copies run synchronously on the calling thread, so a stream
// holds no work: synchronize and query succeed at once and stream_wait_event has nothing to
// order. An event records a steady_clock time for elapsed_ms.
#include <xd/plugin.hpp>

#include "runtime/runtime.hpp"

#include <atomic>
#include <chrono>

namespace xd::cpu {

namespace {

struct stream {
  int32_t device = 0;
};

// Recorded from one thread and read from another (elapsed_ms, query), hence atomics.
struct event {
  std::atomic<bool> recorded{false};
  std::atomic<int64_t> ns{0};  // steady_clock time since epoch
};

xd_status null_handle(const char* what) {
  return plugin::report(XD_ERR_INVALID_ARGUMENT, std::string(what) + " is null");
}

xd_status stream_create(void*, int32_t device, xd_stream* out) {
  return plugin::guarded(plugin::host(), [&] {
    if (const xd_status s = check_device(device); s != XD_OK) return s;
    if (out == nullptr) return null_handle("stream_create output");
    *out = new stream{device};
    return XD_OK;
  });
}

xd_status stream_destroy(void*, int32_t device, xd_stream s) {
  if (const xd_status st = check_device(device); st != XD_OK) return st;
  delete static_cast<stream*>(s);
  return XD_OK;
}

xd_status stream_done(void*, int32_t device, xd_stream) { return check_device(device); }

xd_status event_create(void*, int32_t device, xd_event* out) {
  return plugin::guarded(plugin::host(), [&] {
    if (const xd_status s = check_device(device); s != XD_OK) return s;
    if (out == nullptr) return null_handle("event_create output");
    *out = new event;
    return XD_OK;
  });
}

xd_status event_destroy(void*, int32_t device, xd_event e) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  delete static_cast<event*>(e);
  return XD_OK;
}

xd_status event_record(void*, int32_t device, xd_event e, xd_stream) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  if (e == nullptr) return null_handle("event");
  auto* ev = static_cast<event*>(e);
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  ev->ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(), std::memory_order_relaxed);
  ev->recorded.store(true, std::memory_order_release);
  return XD_OK;
}

xd_status stream_wait_event(void*, int32_t device, xd_stream, xd_event) { return check_device(device); }

xd_status event_done(void*, int32_t device, xd_event) { return check_device(device); }

xd_status event_elapsed_ms(void*, int32_t device, xd_event start, xd_event end, double* ms) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  if (start == nullptr || end == nullptr || ms == nullptr) return null_handle("event_elapsed_ms argument");
  const auto* a = static_cast<const event*>(start);
  const auto* b = static_cast<const event*>(end);
  if (!a->recorded.load(std::memory_order_acquire))
    return plugin::report(XD_ERR_INVALID_ARGUMENT, "event_elapsed_ms: the start event was never recorded");
  if (!b->recorded.load(std::memory_order_acquire))
    return plugin::report(XD_ERR_INVALID_ARGUMENT, "event_elapsed_ms: the end event was never recorded");
  *ms = static_cast<double>(b->ns.load(std::memory_order_relaxed) - a->ns.load(std::memory_order_relaxed)) / 1e6;
  return XD_OK;
}

}  // namespace

void fill_stream_api(xd_plugin_api& api) {
  plugin::set_streams(api, {stream_create, stream_destroy, stream_done, stream_done, event_create, event_destroy,
                            event_record, stream_wait_event, event_done, event_done, event_elapsed_ms});
}

}  // namespace xd::cpu
