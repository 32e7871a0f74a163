#include "staging.hpp"

#include <xd/external.hpp>
#include <xd/ops.hpp>

#include <algorithm>

namespace xd::dist::detail {
namespace {
// Chunks in flight per dtype: the device copies one in, MPI works on one, the device copies one
// out, and one spare so that a slow copy does not stall MPI.
constexpr size_t kRingSlots = 4;
}  // namespace

bool is_host_memory(const Tensor& t) { return t.device().properties().host_pointers; }

void* host_address(const Tensor& t) { return data_ptr(t).ptr; }

void ReadyPoint::capture(const Tensor& t) {
  if (!t.defined()) return;
  const Device d = t.device();
  Stream s = current_stream(d);
  if (is_host_memory(t)) {
    if (!s.query()) s.synchronize();  // a host backend with asynchronous streams
    return;
  }
  for (const auto& [dev, ev] : events_) {
    if (dev == d) return;
  }
  Event e(d);
  e.record(s);
  events_.emplace_back(d, std::move(e));
}

void ReadyPoint::make_wait(ProcessGroup::State& g) {
  for (const auto& [dev, ev] : events_) ev.block(ring_for(g, dev).stream);
}

StagingRing& ring_for(ProcessGroup::State&, Device device) {
  StagingRing& ring = current_lane().staging[{device.type(), device.index()}];
  if (!ring.stream.defined()) ring.stream = Stream::create(device);
  return ring;
}

void record_completion(ProcessGroup::State& g, Work::State& w, Device device) {
  Event done(device);
  done.record(ring_for(g, device).stream);
  w.completion.emplace_back(device, std::move(done));
}

void for_each_chunk(ProcessGroup::State& g, Work::State& w, const Tensor& flat, int64_t chunk_elems, bool in,
                    bool out, const std::function<void(void*, int64_t, int64_t)>& step) {
  const int64_t n = flat.numel();
  const int64_t chunks = (n + chunk_elems - 1) / chunk_elems;
  if (is_host_memory(flat)) {
    char* base = static_cast<char*>(n > 0 ? host_address(flat) : nullptr);
    const size_t item = itemsize(flat.dtype());
    for (int64_t k = 0; k < chunks; ++k) {
      const int64_t off = k * chunk_elems;
      step(base + static_cast<size_t>(off) * item, std::min(chunk_elems, n - off), off);
    }
    return;
  }
  const Device dev = flat.device();
  StagingRing& ring = ring_for(g, dev);
  StreamGuard guard(ring.stream);
  std::vector<Tensor>& slots = ring.slots[static_cast<int>(flat.dtype())];
  const int64_t slot_elems = chunk_elems;
  if (!slots.empty() && slots[0].numel() != slot_elems) slots.clear();
  while (slots.size() < kRingSlots && static_cast<int64_t>(slots.size()) < std::max<int64_t>(chunks, 1)) {
    Tensor t = empty({slot_elems}, flat.dtype(), cpu());
    slots.push_back(pinned_memory_available(dev) ? t.pin_memory(dev) : t);
  }
  const int64_t r = static_cast<int64_t>(slots.size());
  std::vector<Event> copied_in, copied_out;
  for (int64_t i = 0; i < r; ++i) {
    copied_in.emplace_back(dev);
    copied_out.emplace_back(dev);
  }
  std::vector<bool> out_pending(static_cast<size_t>(r), false);
  if (out) {
    if (!ring.back.defined()) ring.back = Stream::create(dev);
    // The copies back may write `flat` only after what the staging stream did to it so far (the
    // caller's kernels it waited for, a conversion into `flat`).
    Event start(dev);
    start.record(ring.stream);
    start.block(ring.back);
  }
  auto piece = [&](int64_t k) { return std::min(chunk_elems, n - k * chunk_elems); };
  auto enqueue_in = [&](int64_t k) {
    const size_t s = static_cast<size_t>(k % r);
    const int64_t off = k * chunk_elems, cnt = piece(k);
    if (out_pending[s]) copied_out[s].block(ring.stream);  // the slot's copy back has read it
    Tensor slot = slots[s].slice(0, 0, cnt);
    slot.copy_(flat.slice(0, off, off + cnt), true);
    copied_in[s].record(ring.stream);
  };
  if (in) {
    for (int64_t k = 0; k < std::min(r, chunks); ++k) enqueue_in(k);
  }
  int64_t last_out = -1;
  for (int64_t k = 0; k < chunks; ++k) {
    const size_t s = static_cast<size_t>(k % r);
    const int64_t off = k * chunk_elems, cnt = piece(k);
    if (in) {
      copied_in[s].synchronize();
    } else if (out_pending[s]) {
      copied_out[s].synchronize();  // the previous chunk's copy back out of this slot has read it
    }
    step(host_address(slots[s]), cnt, off);
    if (out) {
      StreamGuard back(ring.back);
      Tensor dst = flat.slice(0, off, off + cnt);
      dst.copy_(slots[s].slice(0, 0, cnt), true);
      copied_out[s].record(ring.back);
      out_pending[s] = true;
      last_out = k;
    }
    if (in && k + r < chunks) enqueue_in(k + r);
  }
  if (last_out >= 0) {
    // Everything after the collective (write-back kernels, the completion event) follows the
    // staging stream: join the copies back into it. They run in order, so the last one suffices.
    copied_out[static_cast<size_t>(last_out % r)].block(ring.stream);
    flat.record_stream(ring.back);
  }
  flat.record_stream(ring.stream);
  record_completion(g, w, dev);
}

Tensor host_copy(ProcessGroup::State& g, const Tensor& t) {
  if (is_host_memory(t)) return t.contiguous();
  StagingRing& ring = ring_for(g, t.device());
  StreamGuard guard(ring.stream);
  Tensor h = t.contiguous().to(cpu(), true);  // pinned when the backend has it, so asynchronous
  Event e(t.device());
  e.record(ring.stream);
  e.synchronize();
  return h;
}

Tensor host_target(const Tensor& t) {
  if (is_host_memory(t) && t.is_contiguous()) return t;
  return empty(t.sizes(), t.dtype(), cpu());
}

void write_back(ProcessGroup::State& g, Work::State& w, const Tensor& dst, const Tensor& host) {
  if (dst.impl_ptr() == host.impl_ptr()) return;
  Tensor d = dst;  // a handle: copy_ writes dst's memory
  if (is_host_memory(dst)) {
    d.copy_(host);
    return;
  }
  StagingRing& ring = ring_for(g, dst.device());
  StreamGuard guard(ring.stream);
  d.copy_(host);
  d.record_stream(ring.stream);
  record_completion(g, w, dst.device());
}

}  // namespace xd::dist::detail
