// Streams are in-order OpenCL command queues with profiling enabled; events are markers.
#pragma once

#include "runtime/platform.hpp"

#include <atomic>
#include <mutex>

namespace xd::ocl {

struct stream {
  device* dev = nullptr;
  cl_command_queue queue = nullptr;
  // stream_query without blocking: commands submitted so far, how many a finished clFinish
  // covered, and the marker of the last query with the count it covers (kept, so repeated
  // queries of an idle stream see the same marker complete instead of enqueueing new ones).
  std::atomic<uint64_t> submitted{0};
  std::mutex mutex;
  uint64_t finished = 0;
  uint64_t marked = 0;
  cl_event marker = nullptr;
};

// The queue of a stream handle from the host; a null handle means the device's own queue.
cl_command_queue queue_of(int32_t device_index, xd_stream s);

// queue_of for a command about to be enqueued: counts it on the stream (see stream::submitted).
cl_command_queue submit_queue(int32_t device_index, xd_stream s);

}  // namespace xd::ocl
