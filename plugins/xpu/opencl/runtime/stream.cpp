// Streams and events.
//
// A stream owns an in-order queue taken from a small per-device pool (queues are costly to create
// on some drivers and streams come and go). An event holds the marker of its last record;
// elapsed time comes from the markers' profiling timestamps. Work is flushed when an event is
// recorded so that a query never waits on commands still sitting in the host-side queue.
#include "runtime/stream.hpp"

#include "options.hpp"
#include "program/program_cache.hpp"
#include "runtime/runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace xd::ocl {

namespace {

struct event {
  std::mutex mutex;
  cl_event marker = nullptr;  // the last record; null until recorded
};

std::mutex g_pool_mutex;
std::map<int32_t, std::vector<cl_command_queue>>& queue_pool() {
  static auto* pool = new std::map<int32_t, std::vector<cl_command_queue>>();
  return *pool;
}

[[noreturn]] void null_argument(const char* what) {
  throw plugin::error(XD_ERR_INVALID_ARGUMENT, std::string("opencl: ") + what + " is null");
}

stream* as_stream(xd_stream s) {
  if (s == nullptr) null_argument("stream");
  return static_cast<stream*>(s);
}

event* as_event(xd_event e) {
  if (e == nullptr) null_argument("event");
  return static_cast<event*>(e);
}

// The event's marker, retained so another thread may re-record meanwhile; null if never recorded.
cl_event take_marker(event* e) {
  const std::lock_guard lock(e->mutex);
  if (e->marker != nullptr) clRetainEvent(e->marker);
  return e->marker;
}

xd_status api_stream_create(void*, int32_t index, xd_stream* out) {
  return plugin::guarded(host(), [&] {
    device& d = get_device(index);
    if (out == nullptr) null_argument("stream_create output");
    cl_command_queue q = nullptr;
    {
      const std::lock_guard lock(g_pool_mutex);
      auto& free = queue_pool()[index];
      if (!free.empty()) {
        q = free.back();
        free.pop_back();
      }
    }
    if (q == nullptr) q = create_queue(d);
    auto* st = new stream;
    st->dev = &d;
    st->queue = q;
    *out = st;
  });
}

// The queue goes back to the pool without waiting: work still on it keeps its order, and a later
// stream that reuses the queue merely runs after it.
xd_status api_stream_destroy(void*, int32_t index, xd_stream s) {
  return plugin::guarded(host(), [&] {
    get_device(index);
    stream* st = as_stream(s);
    clFlush(st->queue);
    if (st->marker != nullptr) clReleaseEvent(st->marker);
    {
      const std::lock_guard lock(g_pool_mutex);
      queue_pool()[index].push_back(st->queue);
    }
    delete st;
  });
}

xd_status api_stream_synchronize(void*, int32_t index, xd_stream s) {
  return plugin::guarded(host(), [&] {
    cl_command_queue q = queue_of(index, s);
    const uint64_t upto = s != nullptr ? static_cast<stream*>(s)->submitted.load() : 0;
    check(clFinish(q), "clFinish");
    if (s == nullptr) return;
    stream* st = static_cast<stream*>(s);
    const std::lock_guard lock(st->mutex);
    st->finished = std::max(st->finished, upto);
  });
}

// Non-blocking: a marker stands for everything submitted before it. An idle stream's marker is
// reused by later queries, so polling `query` terminates even on runtimes that start a marker
// only some time after it is flushed.
xd_status api_stream_query(void*, int32_t index, xd_stream s) {
  return plugin::guarded(host(), [&]() -> xd_status {
    cl_command_queue q = queue_of(index, s);
    stream* st = static_cast<stream*>(s);
    if (st == nullptr) return clFinish(q) == CL_SUCCESS ? XD_OK : XD_ERR_DEVICE;  // the device's own queue
    const uint64_t upto = st->submitted.load();
    const std::lock_guard lock(st->mutex);
    if (st->finished >= upto) return XD_OK;
    if (st->marker == nullptr || st->marked != upto) {
      cl_event marker = nullptr;
      check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
      clFlush(q);
      if (st->marker != nullptr) clReleaseEvent(st->marker);
      st->marker = marker;
      st->marked = upto;
    }
    cl_int status = CL_QUEUED;
    check(clGetEventInfo(st->marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
          "clGetEventInfo");
    if (status < 0) throw_cl(status, "a command on the stream");
    if (status != CL_COMPLETE) return XD_NOT_READY;
    st->finished = std::max(st->finished, upto);
    return XD_OK;
  });
}

xd_status api_event_create(void*, int32_t index, xd_event* out) {
  return plugin::guarded(host(), [&] {
    get_device(index);
    if (out == nullptr) null_argument("event_create output");
    *out = new event;
  });
}

xd_status api_event_destroy(void*, int32_t index, xd_event e) {
  return plugin::guarded(host(), [&] {
    get_device(index);
    event* ev = as_event(e);
    if (ev->marker != nullptr) clReleaseEvent(ev->marker);
    delete ev;
  });
}

// Whether a marker's profiling timestamp is usable on this device, probed once: some drivers
// report no (or a zero) time for markers and barriers. Where it is not, events record an empty
// kernel instead, whose end time every driver reports. XD_OPENCL_TIMESTAMPS=kernel forces that.
bool kernel_timestamps(device& d, cl_command_queue q) {
  std::call_once(d.timing_once, [&] {
    if (plugin::option_text(option_desc(option::timestamps)) == "kernel") {
      d.kernel_timestamps = true;
      return;
    }
    cl_event marker = nullptr;
    cl_ulong t = 0;
    bool ok = clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker) == CL_SUCCESS;
    ok = ok && clWaitForEvents(1, &marker) == CL_SUCCESS &&
         clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr) == CL_SUCCESS && t != 0;
    if (marker != nullptr) clReleaseEvent(marker);
    d.kernel_timestamps = !ok;
    if (!ok) log(XD_LOG_DEBUG, d.name + ": markers carry no timestamps; events record an empty kernel");
  });
  return d.kernel_timestamps;
}

xd_status api_event_record(void*, int32_t index, xd_event e, xd_stream s) {
  return plugin::guarded(host(), [&] {
    event* ev = as_event(e);
    cl_command_queue q = queue_of(index, s);
    device& d = get_device(index);
    cl_event marker = nullptr;
    if (kernel_timestamps(d, q)) {
      auto k = d.programs->kernel({kTimestampProgram, XD_DTYPE_F32}, "xd_timestamp");
      const size_t one = 1;
      check(clEnqueueNDRangeKernel(q, k.get(), 1, nullptr, &one, &one, 0, nullptr, &marker),
            "clEnqueueNDRangeKernel(xd_timestamp)");
    } else {
      check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
    }
    clFlush(q);
    const std::lock_guard lock(ev->mutex);
    if (ev->marker != nullptr) clReleaseEvent(ev->marker);
    ev->marker = marker;
  });
}

// An event never recorded has nothing to wait for (as in CUDA).
xd_status api_stream_wait_event(void*, int32_t index, xd_stream s, xd_event e) {
  return plugin::guarded(host(), [&] {
    cl_command_queue q = queue_of(index, s);
    cl_event marker = take_marker(as_event(e));
    if (marker == nullptr) return;
    const cl_int err = clEnqueueBarrierWithWaitList(q, 1, &marker, nullptr);
    clReleaseEvent(marker);
    check(err, "clEnqueueBarrierWithWaitList");
  });
}

xd_status api_event_query(void*, int32_t index, xd_event e) {
  return plugin::guarded(host(), [&]() -> xd_status {
    get_device(index);
    cl_event marker = take_marker(as_event(e));
    if (marker == nullptr) return XD_OK;
    cl_int status = CL_QUEUED;
    const cl_int err = clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    clReleaseEvent(marker);
    check(err, "clGetEventInfo");
    if (status < 0) throw_cl(status, "the work before the event");
    return status == CL_COMPLETE ? XD_OK : XD_NOT_READY;
  });
}

xd_status api_event_synchronize(void*, int32_t index, xd_event e) {
  return plugin::guarded(host(), [&] {
    get_device(index);
    cl_event marker = take_marker(as_event(e));
    if (marker == nullptr) return;
    const cl_int err = clWaitForEvents(1, &marker);
    clReleaseEvent(marker);
    check(err, "clWaitForEvents");
  });
}

cl_ulong end_time(cl_event marker, const char* which) {
  cl_ulong t = 0;
  check(clWaitForEvents(1, &marker), "clWaitForEvents");
  const cl_int err = clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr);
  if (err != CL_SUCCESS) throw_cl(err, std::string("reading the profiling time of the ") + which + " event");
  return t;
}

xd_status api_event_elapsed_ms(void*, int32_t index, xd_event start, xd_event end, double* ms) {
  return plugin::guarded(host(), [&] {
    get_device(index);
    if (ms == nullptr) null_argument("event_elapsed_ms output");
    cl_event a = take_marker(as_event(start));
    cl_event b = take_marker(as_event(end));
    auto release = [&] {
      if (a != nullptr) clReleaseEvent(a);
      if (b != nullptr) clReleaseEvent(b);
    };
    if (a == nullptr || b == nullptr) {
      release();
      throw plugin::error(XD_ERR_INVALID_ARGUMENT, std::string("opencl: event_elapsed_ms: the ") +
                                                       (a == nullptr ? "start" : "end") + " event was never recorded");
    }
    try {
      const cl_ulong t0 = end_time(a, "start");
      const cl_ulong t1 = end_time(b, "end");
      *ms = (static_cast<double>(t1) - static_cast<double>(t0)) / 1e6;
    } catch (...) {
      release();
      throw;
    }
    release();
  });
}

}  // namespace

cl_command_queue queue_of(int32_t device_index, xd_stream s) {
  device& d = get_device(device_index);
  if (s == nullptr) return d.aux_queue();
  stream* st = static_cast<stream*>(s);
  if (st->dev != &d)
    throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: a stream of device " + std::to_string(st->dev->index) +
                                                     " was used with device " + std::to_string(device_index));
  return st->queue;
}

cl_command_queue submit_queue(int32_t device_index, xd_stream s) {
  cl_command_queue q = queue_of(device_index, s);
  if (s != nullptr) static_cast<stream*>(s)->submitted.fetch_add(1, std::memory_order_relaxed);
  return q;
}

void fill_stream_api(xd_plugin_api& api) {
  plugin::set_streams(api, {api_stream_create, api_stream_destroy, api_stream_synchronize, api_stream_query,
                            api_event_create, api_event_destroy, api_event_record, api_stream_wait_event,
                            api_event_query, api_event_synchronize, api_event_elapsed_ms});
}

}  // namespace xd::ocl
