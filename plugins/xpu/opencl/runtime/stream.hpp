// Streams are in-order OpenCL command queues with profiling enabled; events are markers.
#pragma once

#include "runtime/platform.hpp"

#include <mutex>

namespace xd::ocl {

struct stream {
  device* dev = nullptr;
  cl_command_queue queue = nullptr;
};

// The queue of a stream handle from the host; a null handle means the device's own queue.
cl_command_queue queue_of(int32_t device_index, xd_stream s);

}  // namespace xd::ocl
