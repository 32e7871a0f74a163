// Timing one workload: warm-up calls, then `reps` calls each bracketed by a pair of device events
// recorded on the current stream (the device's own clock: what the kernels took, not what the
// host spent enqueueing them). Calls are enqueued back to back and read after one final
// synchronisation, so the host never stalls the device between them. A device whose events
// cannot time (DeviceProperties::timing false) is timed on the host around a synchronised call.
#pragma once

#include "workload.hpp"

#include <string>
#include <vector>

namespace xd::bench {

struct Timing {
  std::vector<double> ms;  // one per rep, in run order
  bool device_clock = true;
  std::vector<std::string> kernels;  // kernels that ran during the timed calls
  double median() const;
  double min() const;
};

Timing measure(const Prepared& p, Device device, int warmup, int reps);

// A plain std::memcpy of `bytes` bytes between two host buffers, allocated once and written
// before the first call (so no page is first touched while timed), timed on the host clock per
// call after `warmup` untimed calls: the yardstick the host device's copy kernel is held to.
Timing measure_memcpy(size_t bytes, int warmup, int reps);

}  // namespace xd::bench
