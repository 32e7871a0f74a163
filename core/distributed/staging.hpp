// A tensor's memory as MPI sees it. Host-memory tensors (the CPU backend) are handed to MPI as
// they are. Device tensors are staged through a ring of pinned host chunks on a stream of the
// group's own: device-to-host copies of later chunks (on one stream) and host-to-device copies of
// earlier ones (on another, so that both directions of the bus are busy) run while MPI moves the
// current chunk.
#pragma once

#include "state.hpp"

#include <functional>
#include <utility>
#include <vector>

namespace xd::dist::detail {

bool is_host_memory(const Tensor& t);
// Host address of element 0 of a contiguous host-memory tensor.
void* host_address(const Tensor& t);

// The work already enqueued on the caller's current streams, captured when a collective is
// issued, and waited for where the collective starts.
class ReadyPoint {
 public:
  void capture(const Tensor& t);  // on the issuing thread
  // Device tensors: `stream` of each device waits for the captured point.
  void make_wait(ProcessGroup::State& g);

 private:
  std::vector<std::pair<Device, Event>> events_;
};

// The group's staging stream for `device` (created on first use). Copies and kernels the
// collective enqueues run there: the body holds a StreamGuard on it.
StagingRing& ring_for(ProcessGroup::State& g, Device device);

// Calls `step(host, count, offset)` for consecutive pieces of `flat` (a contiguous 1-d tensor) of at
// most `chunk_elems` elements, in order, with `host` holding those elements. `in`: the host piece
// holds the tensor's values when `step` runs; `out`: what `step` leaves there is written back. On
// a device, the copies run on the group's staging stream and an event after the last one goes
// into `w.completion`.
void for_each_chunk(ProcessGroup::State& g, Work::State& w, const Tensor& flat, int64_t chunk_elems, bool in,
                    bool out, const std::function<void(void*, int64_t, int64_t)>& step);

// Whole-tensor staging for collectives whose pieces move between ranks (gathers, scatters,
// all_to_all): a contiguous host tensor with `t`'s values (t itself when it already is one).
Tensor host_copy(ProcessGroup::State& g, const Tensor& t);
// A contiguous host tensor of `t`'s shape and dtype to receive into (t itself when possible).
Tensor host_target(const Tensor& t);
// Writes `host` into `dst` when they differ (on dst's staging stream), recording completion.
void write_back(ProcessGroup::State& g, Work::State& w, const Tensor& dst, const Tensor& host);
// Records the completion event of the staging stream of `device` into w (device tensors only).
void record_completion(ProcessGroup::State& g, Work::State& w, Device device);

}  // namespace xd::dist::detail
