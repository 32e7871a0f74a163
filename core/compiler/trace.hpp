// Capture by execution: while a Tracer is active on a thread, every launch() of that thread is
// recorded as a graph node (after its schema's meta function computed the output's shape, dtype
// and device) and then runs as usual, so the traced call returns real results. The tracer follows
// buffers, not Tensor objects: a value is a storage, a node reads and writes views of values.
//
// A function stops being capturable (fail(): the first reason is kept) when it reads a tensor on
// the host, copies host data in, takes a tensor it was not given, writes into a tensor it did not
// allocate (or writes one twice), draws random numbers or launches on two devices. The call still
// completes eagerly; the compiled function then runs eagerly for that signature.
//
// Thread safety: a Tracer belongs to the thread that activated it; launches on other threads are
// not seen (their results are unknown storages, which makes the trace fail, never wrong).
#pragma once

#include "compiler/graph.hpp"
#include "dispatch/launch.hpp"

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace xd::detail::compiler {

class Tracer {
 public:
  explicit Tracer(const std::vector<Tensor>& args);
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  void on_launch(xd_op op, Dtype key, DeviceRecord& dev, std::span<const Arg> inputs, std::span<const Arg> outputs,
                 const void* attrs);
  void on_allocate(const std::shared_ptr<TensorImpl>& t);
  void on_host_read();
  void on_host_write();

  void fail(const std::string& reason) {
    if (reason_.empty()) reason_ = reason;
  }
  bool failed() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }

  // The graph, with the function's results as its outputs; fails (and returns an empty graph)
  // when a result is not something the trace computed or received.
  Graph finish(const std::vector<Tensor>& results);

 private:
  struct Known {
    int value;
    int64_t base;  // element offset of the value's origin in the storage
  };
  bool view_of(const TensorImpl& t, int ndim, const int64_t* sizes, const int64_t* strides, View& out);

  Graph g_;
  std::unordered_map<const Storage*, Known> known_;
  std::unordered_map<const Storage*, std::shared_ptr<TensorImpl>> fresh_;  // allocated, not yet written
  std::vector<std::shared_ptr<TensorImpl>> keep_;  // keeps traced buffers (and their addresses) alive
  std::string reason_;
};

// The tracer active on this thread, or null. Cheap when no thread traces (one relaxed load).
extern std::atomic<int> g_tracing_threads;
Tracer* active_tracer_slow();
inline Tracer* active_tracer() {
  return g_tracing_threads.load(std::memory_order_relaxed) == 0 ? nullptr : active_tracer_slow();
}

// Activates a tracer on this thread for its lifetime (not nestable: a compiled function called
// while another traces runs eagerly inside that trace, which records its launches).
class TraceScope {
 public:
  explicit TraceScope(Tracer* t);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  Tracer* previous_;
};

// Suspends tracing on this thread (the graph runner's own launches are not part of any trace).
class NoTraceScope {
 public:
  NoTraceScope();
  ~NoTraceScope();
  NoTraceScope(const NoTraceScope&) = delete;
  NoTraceScope& operator=(const NoTraceScope&) = delete;

 private:
  Tracer* previous_;
};

}  // namespace xd::detail::compiler
