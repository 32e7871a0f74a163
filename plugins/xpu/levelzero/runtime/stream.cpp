// Streams (immediate command lists) and events, and their half of the plugin API table.
#include "runtime/stream.hpp"

#include "runtime/runtime.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace xd::l0 {

namespace {

// Every live stream, for synchronize_streams(). Never destroyed: a stream may outlive the
// plugin's static objects (the core keeps its streams until the process ends).
struct stream_registry {
  std::mutex mutex;
  std::vector<stream*> streams;
};
stream_registry& registry() {
  static auto* r = new stream_registry();
  return *r;
}

constexpr size_t kPruneWaitsAt = 64;

}  // namespace

event_slot::event_slot(device& d) {
  ze_event_pool_desc_t pd{};
  pd.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
  // KERNEL_TIMESTAMP: zeEventQueryKernelTimestamp works on the event (elapsed time); HOST_VISIBLE:
  // the host waits on it and queries it.
  pd.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
  pd.count = 1;
  check(zeEventPoolCreate(d.context, &pd, 1, &d.handle, &pool), "zeEventPoolCreate");
  ze_event_desc_t ed{};
  ed.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
  ed.index = 0;
  ed.signal = ZE_EVENT_SCOPE_FLAG_HOST;  // what the stream wrote is visible to the host once signalled
  ed.wait = ZE_EVENT_SCOPE_FLAG_HOST;
  const ze_result_t r = zeEventCreate(pool, &ed, &event);
  if (r != ZE_RESULT_SUCCESS) {
    event = nullptr;
    zeEventPoolDestroy(pool);
    fail(r, "zeEventCreate");
  }
}

event_slot::~event_slot() {
  zeEventDestroy(event);
  zeEventPoolDestroy(pool);
}

timed_event::timed_event(device& d) : dev(d), slot(std::make_shared<event_slot>(d)) {}

timed_event::~timed_event() {
  if (!recorded) return;
  const ze_result_t r = zeEventHostSynchronize(slot->event, UINT64_MAX);
  if (r != ZE_RESULT_SUCCESS)
    log(XD_LOG_WARN, "destroying an event: zeEventHostSynchronize returned " + ze_result_string(r));
}

stream::stream(device& d) : device_(d), marker_(d) {
  ze_command_queue_desc_t qd{};
  qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  qd.ordinal = d.compute_ordinal;
  qd.index = 0;
  qd.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  qd.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  check(zeCommandListCreateImmediate(d.context, d.handle, &qd, &list_), "zeCommandListCreateImmediate");
  try {
    const std::lock_guard lock(registry().mutex);
    registry().streams.push_back(this);
  } catch (...) {
    zeCommandListDestroy(list_);
    throw;
  }
}

stream::~stream() {
  {
    // First, so that synchronize_streams() (which holds the registry's lock while it synchronizes)
    // never reaches a stream being destroyed.
    const std::lock_guard lock(registry().mutex);
    std::erase(registry().streams, this);
  }
  try {
    synchronize();
  } catch (const plugin::error& e) {
    log(XD_LOG_WARN, std::string("destroying a stream: ") + e.what());
  }
  held_.clear();
  zeCommandListDestroy(list_);
}

void stream::mark_locked() {
  check(zeEventHostReset(marker_.handle()), "zeEventHostReset");
  check(zeCommandListAppendBarrier(list_, marker_.handle(), 0, nullptr), "zeCommandListAppendBarrier(marker)");
  marker_.recorded = true;
  marker_live_ = true;
  marked_ = submitted_;
}

void stream::completed_locked(uint64_t upto) {
  std::erase_if(held_, [&](const auto& w) { return w.first <= upto; });
}

void stream::prune_waits_locked() {
  if (held_.size() < kPruneWaitsAt) return;
  if (marker_live_) {
    const ze_result_t r = zeEventQueryStatus(marker_.handle());
    if (r == ZE_RESULT_NOT_READY) return;  // the marker is pending: it may not be reset yet
    check(r, "zeEventQueryStatus(stream)");
    completed_locked(marked_);
  }
  if (marked_ != submitted_) mark_locked();
}

void stream::synchronize() {
  const std::lock_guard lock(mutex_);
  if (submitted_ == 0) return;
  if (marker_live_) {
    // An earlier marker is waited on before its event is reset (it may still be pending).
    check(zeEventHostSynchronize(marker_.handle(), UINT64_MAX), "zeEventHostSynchronize(stream)");
    completed_locked(marked_);
    if (marked_ == submitted_) return;
  }
  mark_locked();
  check(zeEventHostSynchronize(marker_.handle(), UINT64_MAX), "zeEventHostSynchronize(stream)");
  completed_locked(marked_);
}

bool stream::idle() {
  const std::lock_guard lock(mutex_);
  if (submitted_ == 0) return true;
  if (marker_live_) {
    const ze_result_t r = zeEventQueryStatus(marker_.handle());
    if (r == ZE_RESULT_NOT_READY) return false;  // work before the marker is still running
    check(r, "zeEventQueryStatus(stream)");
    completed_locked(marked_);
    if (marked_ == submitted_) return true;
  }
  mark_locked();
  const ze_result_t r = zeEventQueryStatus(marker_.handle());
  if (r == ZE_RESULT_NOT_READY) return false;
  check(r, "zeEventQueryStatus(stream)");
  completed_locked(marked_);
  return true;
}

void stream::record(timed_event& e) {
  const std::lock_guard lock(mutex_);
  // Reset on the device, in order: the event may still be pending from an earlier record. The
  // barrier (no wait list) runs once everything before it, the reset included, has completed, and
  // signals the event: its kernel timestamps are the barrier's.
  check(zeCommandListAppendEventReset(list_, e.handle()), "zeCommandListAppendEventReset");
  const ze_result_t r = zeCommandListAppendBarrier(list_, e.handle(), 0, nullptr);
  if (r != ZE_RESULT_SUCCESS) {
    // The reset is in the list but nothing will signal the event, so waiting for it on
    // destruction would never end: the stream holds it until it is past the reset instead.
    e.recorded = false;
    held_.emplace_back(submitted_ + 1, e.slot);
    fail(r, "zeCommandListAppendBarrier(event record)");
  }
  e.recorded = true;
  ++submitted_;
}

void stream::wait(timed_event& e) {
  if (!e.recorded) return;  // waiting on an event never recorded is a no-op, as in CUDA
  const std::lock_guard lock(mutex_);
  ze_event_handle_t ev = e.handle();
  check(zeCommandListAppendWaitOnEvents(list_, 1, &ev), "zeCommandListAppendWaitOnEvents");
  // Held from the moment the wait is in the list (even if the barrier below fails): the event
  // must outlive the wait however early the caller destroys it.
  held_.emplace_back(submitted_ + 1, e.slot);
  check(zeCommandListAppendBarrier(list_, nullptr, 0, nullptr), "zeCommandListAppendBarrier");
  ++submitted_;
  prune_waits_locked();
}

void synchronize_streams(ze_context_handle_t context) {
  const std::lock_guard lock(registry().mutex);
  for (stream* s : registry().streams)
    if (s->dev().context == context) s->synchronize();
}

namespace {

template <class F>
xd_status run(F&& f) {
  return plugin::guarded(host(), std::forward<F>(f));
}

stream& S(xd_stream s) { return *static_cast<stream*>(s); }
timed_event& E(xd_event e) { return *static_cast<timed_event*>(e); }

xd_status stream_create(void*, int32_t dev, xd_stream* out) {
  return run([&] { *out = new stream(device_at(dev)); });
}
xd_status stream_destroy(void*, int32_t, xd_stream s) {
  return run([&] { delete &S(s); });
}
xd_status stream_synchronize(void*, int32_t, xd_stream s) {
  return run([&] { S(s).synchronize(); });
}
xd_status stream_query(void*, int32_t, xd_stream s) {
  return run([&]() -> xd_status { return S(s).idle() ? XD_OK : XD_NOT_READY; });
}
xd_status event_create(void*, int32_t dev, xd_event* out) {
  return run([&] { *out = new timed_event(device_at(dev)); });
}
xd_status event_destroy(void*, int32_t, xd_event e) {
  return run([&] { delete &E(e); });
}
xd_status event_record(void*, int32_t, xd_event e, xd_stream s) {
  return run([&] { S(s).record(E(e)); });
}
xd_status stream_wait_event(void*, int32_t, xd_stream s, xd_event e) {
  return run([&] { S(s).wait(E(e)); });
}
xd_status event_query(void*, int32_t, xd_event e) {
  return run([&]() -> xd_status {
    if (!E(e).recorded) return XD_OK;
    const ze_result_t r = zeEventQueryStatus(E(e).handle());
    if (r == ZE_RESULT_NOT_READY) return XD_NOT_READY;
    check(r, "zeEventQueryStatus");
    return XD_OK;
  });
}
xd_status event_synchronize(void*, int32_t, xd_event e) {
  return run([&] {
    if (E(e).recorded) check(zeEventHostSynchronize(E(e).handle(), UINT64_MAX), "zeEventHostSynchronize");
  });
}
xd_status event_elapsed_ms(void*, int32_t, xd_event a, xd_event b, double* ms) {
  return run([&] {
    if (!E(a).recorded || !E(b).recorded)
      throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: elapsed time between events that were not recorded");
    const device& d = E(a).dev;
    if (&E(b).dev != &d)
      throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: elapsed time between events of two devices (" +
                                                       std::string(d.props.name) + ", " + E(b).dev.props.name +
                                                       "): their timers are not comparable");
    if (d.ns_per_tick <= 0)
      throw plugin::error(XD_ERR_NOT_IMPLEMENTED,
                          std::string("levelzero: ") + d.props.name +
                              " reports no timer resolution (timerResolution 0): no elapsed time");
    uint64_t end[2] = {};
    for (int i = 0; i < 2; ++i) {
      const ze_event_handle_t ev = E(i == 0 ? a : b).handle();
      const ze_result_t r = zeEventQueryStatus(ev);
      if (r == ZE_RESULT_NOT_READY)
        throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: elapsed time of an event that has not completed");
      check(r, "zeEventQueryStatus");
      ze_kernel_timestamp_result_t ts{};
      check(zeEventQueryKernelTimestamp(ev, &ts), "zeEventQueryKernelTimestamp");
      end[i] = ts.global.kernelEnd & d.kernel_timestamp_mask;
    }
    // The counter has kernelTimestampValidBits bits and wraps: the difference is taken modulo
    // 2^bits, in whichever direction is shorter, which is right for any interval under half the
    // wrap period (b completing before a gives a negative time).
    const uint64_t forward = (end[1] - end[0]) & d.kernel_timestamp_mask;
    const uint64_t backward = (end[0] - end[1]) & d.kernel_timestamp_mask;
    const double ticks = forward <= backward ? static_cast<double>(forward) : -static_cast<double>(backward);
    *ms = ticks * d.ns_per_tick * 1e-6;
  });
}

}  // namespace

void fill_stream_api(xd_plugin_api& api) {
  plugin::set_streams(
      api, {stream_create, stream_destroy, stream_synchronize, stream_query, event_create, event_destroy, event_record,
            stream_wait_event, event_query, event_synchronize, event_elapsed_ms});
}

}  // namespace xd::l0
