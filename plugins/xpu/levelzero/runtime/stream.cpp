// Streams (immediate command lists) and events, and their half of the plugin API table.
#include "runtime/stream.hpp"

#include "runtime/host.hpp"
#include "runtime/runtime.hpp"

#include <cstdint>

namespace xd::l0 {

timed_event::timed_event(device& d) : dev(d) {
  ze_event_pool_desc_t pd{};
  pd.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
  pd.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
  pd.count = 1;
  check(zeEventPoolCreate(d.context, &pd, 1, &d.handle, &pool), "zeEventPoolCreate");
  ze_event_desc_t ed{};
  ed.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
  ed.index = 0;
  ed.signal = ZE_EVENT_SCOPE_FLAG_HOST;
  ed.wait = ZE_EVENT_SCOPE_FLAG_HOST;
  const char* call = "zeEventCreate";
  ze_result_t r = zeEventCreate(pool, &ed, &event);
  if (r == ZE_RESULT_SUCCESS) {
    call = "zeMemAllocHost(event timestamp)";
    ze_host_mem_alloc_desc_t hd{};
    hd.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    void* p = nullptr;
    r = zeMemAllocHost(d.context, &hd, sizeof(uint64_t), sizeof(uint64_t), &p);
    stamp = static_cast<uint64_t*>(p);
    if (r != ZE_RESULT_SUCCESS) zeEventDestroy(event);
  }
  if (r != ZE_RESULT_SUCCESS) {
    zeEventPoolDestroy(pool);
    fail(r, call);
  }
}

timed_event::~timed_event() {
  zeMemFree(dev.context, stamp);
  zeEventDestroy(event);
  zeEventPoolDestroy(pool);
}

stream::stream(device& d) : device_(d), marker_(d) {
  ze_command_queue_desc_t qd{};
  qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  qd.ordinal = d.compute_ordinal;
  qd.index = 0;
  qd.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  qd.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  check(zeCommandListCreateImmediate(d.context, d.handle, &qd, &list_), "zeCommandListCreateImmediate");
}

stream::~stream() {
  try {
    synchronize();
  } catch (const plugin::error& e) {
    log(XD_LOG_WARN, std::string("destroying a stream: ") + e.what());
  }
  zeCommandListDestroy(list_);
}

void stream::mark_locked() {
  check(zeEventHostReset(marker_.event), "zeEventHostReset");
  check(zeCommandListAppendBarrier(list_, marker_.event, 0, nullptr), "zeCommandListAppendBarrier(marker)");
  marker_live_ = true;
  marked_ = submitted_;
}

void stream::synchronize() {
  const std::lock_guard lock(mutex_);
  if (submitted_ == 0) return;
  if (marker_live_) {
    // An earlier marker is waited on before its event is reset (it may still be pending).
    check(zeEventHostSynchronize(marker_.event, UINT64_MAX), "zeEventHostSynchronize(stream)");
    if (marked_ == submitted_) return;
  }
  mark_locked();
  check(zeEventHostSynchronize(marker_.event, UINT64_MAX), "zeEventHostSynchronize(stream)");
}

bool stream::idle() {
  const std::lock_guard lock(mutex_);
  if (submitted_ == 0) return true;
  if (marker_live_) {
    const ze_result_t r = zeEventQueryStatus(marker_.event);
    if (r == ZE_RESULT_NOT_READY) return false;  // work before the marker is still running
    check(r, "zeEventQueryStatus(stream)");
    if (marked_ == submitted_) return true;
  }
  mark_locked();
  const ze_result_t r = zeEventQueryStatus(marker_.event);
  if (r == ZE_RESULT_NOT_READY) return false;
  check(r, "zeEventQueryStatus(stream)");
  return true;
}

void stream::record(timed_event& e) {
  const std::lock_guard lock(mutex_);
  check(zeCommandListAppendEventReset(list_, e.event), "zeCommandListAppendEventReset");
  check(zeCommandListAppendWriteGlobalTimestamp(list_, e.stamp, e.event, 0, nullptr),
        "zeCommandListAppendWriteGlobalTimestamp");
  check(zeCommandListAppendBarrier(list_, nullptr, 0, nullptr), "zeCommandListAppendBarrier");
  ++submitted_;
  e.recorded = true;
}

void stream::wait(timed_event& e) {
  if (!e.recorded) return;  // waiting on an event never recorded is a no-op, as in CUDA
  submit([&](ze_command_list_handle_t l) {
    check(zeCommandListAppendWaitOnEvents(l, 1, &e.event), "zeCommandListAppendWaitOnEvents");
  });
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
    const ze_result_t r = zeEventQueryStatus(E(e).event);
    if (r == ZE_RESULT_NOT_READY) return XD_NOT_READY;
    check(r, "zeEventQueryStatus");
    return XD_OK;
  });
}
xd_status event_synchronize(void*, int32_t, xd_event e) {
  return run([&] {
    if (E(e).recorded) check(zeEventHostSynchronize(E(e).event, UINT64_MAX), "zeEventHostSynchronize");
  });
}
xd_status event_elapsed_ms(void*, int32_t, xd_event a, xd_event b, double* ms) {
  return run([&] {
    if (!E(a).recorded || !E(b).recorded)
      throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: elapsed time between events that were not recorded");
    for (timed_event* ev : {&E(a), &E(b)}) {
      const ze_result_t r = zeEventQueryStatus(ev->event);
      if (r == ZE_RESULT_NOT_READY)
        throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: elapsed time of an event that has not completed");
      check(r, "zeEventQueryStatus");
    }
    const device& d = E(a).dev;
    // The counter has timestampValidBits bits and wraps; the masked difference survives one wrap.
    const uint64_t ticks = (*E(b).stamp - *E(a).stamp) & d.timestamp_mask;
    const uint64_t back = (*E(a).stamp - *E(b).stamp) & d.timestamp_mask;
    const double sign = ticks <= back ? 1.0 : -1.0;
    *ms = sign * static_cast<double>(ticks <= back ? ticks : back) * d.ns_per_tick * 1e-6;
  });
}

}  // namespace

void fill_stream_api(xd_plugin_api& api) {
  api.stream_create = stream_create;
  api.stream_destroy = stream_destroy;
  api.stream_synchronize = stream_synchronize;
  api.stream_query = stream_query;
  api.event_create = event_create;
  api.event_destroy = event_destroy;
  api.event_record = event_record;
  api.stream_wait_event = stream_wait_event;
  api.event_query = event_query;
  api.event_synchronize = event_synchronize;
  api.event_elapsed_ms = event_elapsed_ms;
}

}  // namespace xd::l0
