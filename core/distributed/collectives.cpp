// The collectives: what each checks on its own rank, and what it asks of MPI. Shared machinery
// (ordering, the cross-rank check, staging) lives in executor.cpp, metadata.cpp and staging.cpp.
#include "metadata.hpp"
#include "mpi_types.hpp"
#include "staging.hpp"
#include "watchdog.hpp"

#include <xd/ops.hpp>

#include <climits>
#include <numeric>
#include <string>

namespace xd::dist {

using detail::CallInfo;
using detail::OpKind;

namespace {

constexpr int kMaxTag = 16383;  // user tags map to 2*tag (header) and 2*tag+1 (data); MPI_TAG_UB >= 32767

template <class E>
std::exception_ptr error(const ProcessGroup::State& g, const char* op, const std::string& what) {
  return std::make_exception_ptr(E(detail::where(g, op) + ": " + what));
}

std::string shape_str(const Tensor& t) {
  std::string s = std::string(dtype_name(t.dtype())) + "[";
  for (int i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "] on " + t.device().str();
}

int64_t chunk_elems(Dtype wire) {
  const uint64_t bytes = detail::checked_runtime("collective").options.chunk_bytes;
  return std::max<int64_t>(1, static_cast<int64_t>(bytes / itemsize(wire)));
}

int mpi_count(int64_t n) { return static_cast<int>(n); }  // callers check n <= INT_MAX

// `t` as a contiguous tensor of dtype `wire` on its own device (itself when it already is one);
// conversion kernels run on the staging stream of a device tensor.
Tensor prepare(ProcessGroup::State& g, const Tensor& t, Dtype wire) {
  if (t.dtype() == wire && t.is_contiguous()) return t;
  if (detail::is_host_memory(t)) return t.to(wire).contiguous();
  StreamGuard guard(detail::ring_for(g, t.device()).stream);
  return t.to(wire).contiguous();
}

Tensor flat_view(const Tensor& t) { return t.view({t.numel()}); }

std::exception_ptr check_defined(const ProcessGroup::State& g, const char* op, const Tensor& t, const char* name) {
  if (!t.defined()) return error<ValueError>(g, op, std::string("the ") + name + " tensor is undefined");
  return nullptr;
}

std::exception_ptr check_rank(const ProcessGroup::State& g, const char* op, int r, const char* what) {
  if (r < 0 || r >= g.size) {
    return error<ValueError>(g, op, std::string(what) + " " + std::to_string(r) + " is out of range: the group has ranks 0 to " +
                                        std::to_string(g.size - 1));
  }
  return nullptr;
}

std::exception_ptr check_pair(const ProcessGroup::State& g, const char* op, const Tensor& out, const Tensor& in) {
  if (auto e = check_defined(g, op, out, "output")) return e;
  if (auto e = check_defined(g, op, in, "input")) return e;
  if (out.dtype() != in.dtype()) {
    return error<DtypeError>(g, op, "output " + shape_str(out) + " and input " + shape_str(in) + " differ in dtype");
  }
  if (out.device() != in.device()) {
    return error<DeviceError>(g, op, "output " + shape_str(out) + " and input " + shape_str(in) + " are on different devices");
  }
  return nullptr;
}

std::exception_ptr check_count(const ProcessGroup::State& g, const char* op, int64_t n) {
  if (n > INT_MAX) {
    return error<ValueError>(g, op, std::to_string(n) + " elements per rank in one call: MPI counts stop at " +
                                        std::to_string(INT_MAX) + "; split the tensor");
  }
  return nullptr;
}

const InitOptions& options() { return detail::checked_runtime("collective").options; }

// send / recv: the tensor, the peer (not this rank) and the tag.
std::exception_ptr check_p2p(const ProcessGroup::State& g, const char* op, const Tensor& t, int peer, int tag) {
  const bool sending = std::string(op) == "send";
  auto e = check_defined(g, op, t, sending ? "input" : "output");
  if (!e) e = check_rank(g, op, peer, sending ? "destination" : "source");
  if (!e && peer == g.rank) {
    e = error<ValueError>(g, op, sending ? "a rank cannot send to itself" : "a rank cannot receive from itself");
  }
  if (!e && (tag < 0 || tag > kMaxTag)) {
    e = error<ValueError>(g, op, "tag " + std::to_string(tag) + " is out of range 0.." + std::to_string(kMaxTag));
  }
  return e;
}

// Issues a collective: captures the point the caller's streams have reached, then runs `run` in
// issue order after the cross-rank check. A rank that rejected its own arguments still takes
// part in the check (when it is on), so every rank fails instead of the others waiting.
Work issue(ProcessGroup::State& g, const char* name, CallInfo info, std::exception_ptr local,
           const std::vector<Tensor>& tensors, bool async_op, std::function<void(Work::State&)> run) {
  const InitOptions& o = options();
  const bool exchange = o.check_metadata && info.kind != OpKind::send_recv;
  if (local && !exchange) std::rethrow_exception(local);
  info.local_error = local != nullptr;
  detail::ReadyPoint ready;
  if (!local) {
    for (const Tensor& t : tensors) ready.capture(t);
  }
  const uint64_t chunk = o.chunk_bytes;
  const bool p2p = info.kind == OpKind::send_recv;
  ProcessGroup::State::Lane& lane = p2p ? g.p2p_lane(info.root == 1, info.reduce_op) : g.collectives;
  return detail::submit(
      g, lane,
      [&g, name, info = std::move(info), local, ready = std::move(ready), run = std::move(run), exchange, chunk,
       p2p](Work::State& w) mutable {
        const uint64_t seq = p2p ? 0 : g.seq++;
        detail::WatchScope watch(name, seq, g.rank, g.name);
        if (exchange) detail::check_across_ranks(g, info, chunk, seq);
        if (local) std::rethrow_exception(local);
        ready.make_wait(g);
        run(w);
      },
      async_op);
}

// all_reduce / reduce: the reduction of `t` over the ranks, in place (on `root` only for reduce).
void reduce_in_place(ProcessGroup::State& g, Work::State& w, const Tensor& t, ReduceOp op, int root) {
  const Dtype wire = detail::reduction_dtype(t.dtype());
  const bool writes = root < 0 || g.rank == root;
  Tensor buf = prepare(g, t, wire);
  const MPI_Datatype type = detail::mpi_type(wire);
  const MPI_Op mop = detail::mpi_op(op, wire);
  const int size = g.size;
  detail::for_each_chunk(g, w, flat_view(buf), chunk_elems(wire), true, writes, [&](void* p, int64_t n, int64_t) {
    if (root < 0) {
      detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, p, mpi_count(n), type, mop, g.comm), "MPI_Allreduce");
    } else {
      detail::check_mpi(MPI_Reduce(g.rank == root ? MPI_IN_PLACE : p, p, mpi_count(n), type, mop, root, g.comm),
                        "MPI_Reduce");
    }
    if (op == ReduceOp::avg && writes) detail::divide_in_place(p, n, wire, size);
  });
  if (writes) detail::write_back(g, w, t, buf);
}

}  // namespace

// all_reduce of a small contiguous host-memory tensor, blocking, with the group idle: straight to
// MPI on the caller's thread, without the Work, task and view the general path builds (they cost
// more than MPI's own latency for a few bytes). Returns false when the call does not qualify.
static bool all_reduce_fast(ProcessGroup::State& g, const Tensor& t, ReduceOp op) {
  const InitOptions& o = options();
  if (!t.defined() || detail::reduction_dtype(t.dtype()) != t.dtype() || !t.is_contiguous() ||
      t.numel() > chunk_elems(t.dtype()) || !detail::is_host_memory(t)) {
    return false;
  }
  Stream s = current_stream(t.device());
  if (!s.query()) return false;  // a host backend with work in flight: the general path waits for it
  return detail::run_if_idle(g.collectives, [&] {
    const uint64_t seq = g.seq++;
    detail::WatchScope watch("all_reduce", seq, g.rank, g.name);
    if (o.check_metadata) {
      detail::check_across_ranks(g, CallInfo{OpKind::all_reduce, -1, static_cast<int>(op), t}, o.chunk_bytes, seq);
    }
    const int64_t n = t.numel();
    if (n == 0) return;
    void* p = detail::host_address(t);
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, p, mpi_count(n), detail::mpi_type(t.dtype()),
                                    detail::mpi_op(op, t.dtype()), g.comm),
                      "MPI_Allreduce");
    if (op == ReduceOp::avg) detail::divide_in_place(p, n, t.dtype(), g.size);
  });
}

Work ProcessGroup::all_reduce(const Tensor& tensor, ReduceOp op, bool async_op) const {
  State& g = checked("all_reduce");
  if (!async_op && all_reduce_fast(g, tensor, op)) return Work();
  auto local = check_defined(g, "all_reduce", tensor, "input");
  CallInfo info{OpKind::all_reduce, -1, static_cast<int>(op), tensor};
  return issue(g, "all_reduce", info, local, {tensor}, async_op,
               [&g, tensor, op](Work::State& w) { reduce_in_place(g, w, tensor, op, -1); });
}

Work ProcessGroup::reduce(const Tensor& tensor, int root, ReduceOp op, bool async_op) const {
  State& g = checked("reduce");
  auto local = check_defined(g, "reduce", tensor, "input");
  if (!local) local = check_rank(g, "reduce", root, "root");
  CallInfo info{OpKind::reduce, root, static_cast<int>(op), tensor};
  return issue(g, "reduce", info, local, {tensor}, async_op,
               [&g, tensor, op, root](Work::State& w) { reduce_in_place(g, w, tensor, op, root); });
}

Work ProcessGroup::broadcast(const Tensor& tensor, int root, bool async_op) const {
  State& g = checked("broadcast");
  auto local = check_defined(g, "broadcast", tensor, "input");
  if (!local) local = check_rank(g, "broadcast", root, "root");
  CallInfo info{OpKind::broadcast, root, -1, tensor};
  return issue(g, "broadcast", info, local, {tensor}, async_op, [&g, tensor, root](Work::State& w) {
    const bool is_root = g.rank == root;
    Tensor buf = prepare(g, tensor, tensor.dtype());
    const MPI_Datatype type = detail::mpi_type(tensor.dtype());
    detail::for_each_chunk(g, w, flat_view(buf), chunk_elems(tensor.dtype()), is_root, !is_root,
                           [&](void* p, int64_t n, int64_t) {
                             detail::check_mpi(MPI_Bcast(p, mpi_count(n), type, root, g.comm), "MPI_Bcast");
                           });
    if (!is_root) detail::write_back(g, w, tensor, buf);
  });
}

Work ProcessGroup::all_gather(const Tensor& output, const Tensor& input, bool async_op) const {
  State& g = checked("all_gather");
  auto local = check_pair(g, "all_gather", output, input);
  if (!local && output.numel() != static_cast<int64_t>(g.size) * input.numel()) {
    local = error<ShapeError>(g, "all_gather",
                              "output " + shape_str(output) + " must hold " + std::to_string(g.size) + " x the input's " +
                                  std::to_string(input.numel()) + " elements (input " + shape_str(input) + ")");
  }
  if (!local) local = check_count(g, "all_gather", input.numel());
  CallInfo info{OpKind::all_gather, -1, -1, input};
  return issue(g, "all_gather", info, local, {output, input}, async_op, [&g, output, input](Work::State& w) {
    const int64_t n = input.numel();
    Tensor in_h = detail::host_copy(g, input);
    Tensor out_h = detail::host_target(output);
    if (n > 0) {
      const MPI_Datatype type = detail::mpi_type(input.dtype());
      detail::check_mpi(MPI_Allgather(detail::host_address(in_h), mpi_count(n), type, detail::host_address(out_h),
                                      mpi_count(n), type, g.comm),
                        "MPI_Allgather");
    }
    detail::write_back(g, w, output, out_h);
  });
}

Work ProcessGroup::all_gather(const std::vector<Tensor>& outputs, const Tensor& input, bool async_op) const {
  State& g = checked("all_gather");
  std::exception_ptr local;
  if (outputs.size() != static_cast<size_t>(g.size)) {
    local = error<ValueError>(g, "all_gather", std::to_string(outputs.size()) + " output tensors for a group of " +
                                                   std::to_string(g.size) + " ranks");
  }
  for (size_t r = 0; !local && r < outputs.size(); ++r) local = check_pair(g, "all_gather", outputs[r], input);
  if (!local) local = check_count(g, "all_gather", input.numel());
  CallInfo info{OpKind::all_gather_list, -1, -1, input, /*compare_shape=*/false};
  std::vector<Tensor> all = outputs;
  all.push_back(input);
  return issue(g, "all_gather", info, local, all, async_op, [&g, outputs, input](Work::State& w) {
    // Each rank's count, so that a rank can check its outputs and MPI knows where each piece goes.
    std::vector<int64_t> counts(static_cast<size_t>(g.size));
    int64_t mine = input.numel();
    detail::check_mpi(MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, g.comm),
                      "MPI_Allgather (counts)");
    std::string bad;
    int64_t total = 0;
    for (size_t r = 0; r < counts.size(); ++r) {
      if (outputs[r].numel() != counts[r]) {
        bad += (bad.empty() ? "" : "; ") + std::string("outputs[") + std::to_string(r) + "] " + shape_str(outputs[r]) +
               " for rank " + std::to_string(r) + "'s " + std::to_string(counts[r]) + " elements";
      }
      total += counts[r];
    }
    int any_bad = bad.empty() ? 0 : 1;
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any_bad, 1, MPI_INT, MPI_MAX, g.comm), "MPI_Allreduce (check)");
    if (!bad.empty()) throw ShapeError(detail::where(g, "all_gather") + ": outputs do not match: " + bad);
    if (any_bad) {
      throw DistributedError(detail::where(g, "all_gather") +
                             ": another rank's outputs do not match the inputs (the error is raised there)");
    }
    if (total > INT_MAX) throw ValueError(detail::where(g, "all_gather") + ": more than INT_MAX elements in all");
    std::vector<int> rc(counts.size()), displ(counts.size());
    for (size_t r = 0; r < counts.size(); ++r) {
      rc[r] = mpi_count(counts[r]);
      displ[r] = r == 0 ? 0 : displ[r - 1] + rc[r - 1];
    }
    Tensor in_h = detail::host_copy(g, input);
    Tensor out_h = empty({std::max<int64_t>(total, 1)}, input.dtype(), cpu());
    const MPI_Datatype type = detail::mpi_type(input.dtype());
    detail::check_mpi(MPI_Allgatherv(mine > 0 ? detail::host_address(in_h) : nullptr, mpi_count(mine), type,
                                     detail::host_address(out_h), rc.data(), displ.data(), type, g.comm),
                      "MPI_Allgatherv");
    for (size_t r = 0; r < outputs.size(); ++r) {
      if (counts[r] == 0) continue;
      Tensor piece = out_h.slice(0, displ[r], displ[r] + rc[r]).view(outputs[r].sizes());
      detail::write_back(g, w, outputs[r], piece);
    }
  });
}

Work ProcessGroup::reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op, bool async_op) const {
  State& g = checked("reduce_scatter");
  auto local = check_pair(g, "reduce_scatter", output, input);
  if (!local && input.numel() != static_cast<int64_t>(g.size) * output.numel()) {
    local = error<ShapeError>(g, "reduce_scatter",
                              "input " + shape_str(input) + " must hold " + std::to_string(g.size) + " x the output's " +
                                  std::to_string(output.numel()) + " elements (output " + shape_str(output) + ")");
  }
  if (!local) local = check_count(g, "reduce_scatter", output.numel());
  CallInfo info{OpKind::reduce_scatter, -1, static_cast<int>(op), input};
  return issue(g, "reduce_scatter", info, local, {output, input}, async_op, [&g, output, input, op](Work::State& w) {
    const Dtype wire = detail::reduction_dtype(input.dtype());
    const int64_t n = output.numel();
    Tensor in_h = detail::host_copy(g, prepare(g, input, wire));
    Tensor out_h = wire == output.dtype() ? detail::host_target(output) : empty(output.sizes(), wire, cpu());
    if (n > 0) {
      detail::check_mpi(MPI_Reduce_scatter_block(detail::host_address(in_h), detail::host_address(out_h), mpi_count(n),
                                                 detail::mpi_type(wire), detail::mpi_op(op, wire), g.comm),
                        "MPI_Reduce_scatter_block");
      if (op == ReduceOp::avg) detail::divide_in_place(detail::host_address(out_h), n, wire, g.size);
    }
    detail::write_back(g, w, output, out_h);
  });
}

Work ProcessGroup::all_to_all(const Tensor& output, const Tensor& input, const std::vector<int64_t>& output_splits,
                              const std::vector<int64_t>& input_splits, bool async_op) const {
  State& g = checked("all_to_all");
  const char* op = "all_to_all";
  auto local = check_pair(g, op, output, input);
  if (!local && (input.dim() == 0 || output.dim() == 0)) {
    local = error<ShapeError>(g, op, "blocks are along dim 0: 0-d tensors have none");
  }
  const int64_t row = local ? 0 : (input.size(0) > 0 ? input.numel() / input.size(0) : 0);
  if (!local) {
    const int64_t out_row = output.size(0) > 0 ? output.numel() / output.size(0) : 0;
    bool rows_match = input.dim() == output.dim();
    for (int d = 1; rows_match && d < input.dim(); ++d) rows_match = input.size(d) == output.size(d);
    if (!rows_match || (input.size(0) > 0 && output.size(0) > 0 && row != out_row)) {
      local = error<ShapeError>(g, op, "output " + shape_str(output) + " and input " + shape_str(input) +
                                           " differ after dim 0");
    }
  }
  auto check_splits = [&](const std::vector<int64_t>& s, int64_t rows, const char* name) -> std::exception_ptr {
    if (s.empty()) {
      if (rows % g.size != 0) {
        return error<ShapeError>(g, op, std::string(name) + " dim 0 (" + std::to_string(rows) +
                                            ") is not divisible by the group size " + std::to_string(g.size) +
                                            "; pass split sizes");
      }
      return nullptr;
    }
    if (s.size() != static_cast<size_t>(g.size)) {
      return error<ValueError>(g, op, std::string(name) + "_splits has " + std::to_string(s.size()) +
                                          " entries for a group of " + std::to_string(g.size));
    }
    int64_t sum = 0;
    for (int64_t v : s) {
      if (v < 0) return error<ValueError>(g, op, std::string(name) + "_splits has a negative entry");
      sum += v;
    }
    if (sum != rows) {
      return error<ShapeError>(g, op, std::string(name) + "_splits sum to " + std::to_string(sum) + " rows, the " +
                                          name + " has " + std::to_string(rows));
    }
    return nullptr;
  };
  if (!local) local = check_splits(input_splits, input.size(0), "input");
  if (!local) local = check_splits(output_splits, output.size(0), "output");
  if (!local && input_splits.empty() != output_splits.empty()) {
    local = error<ValueError>(g, op, "give both split lists or neither");
  }
  if (!local && input_splits.empty() && input.size(0) != output.size(0)) {
    local = error<ShapeError>(g, op, "equal splits need output and input of the same dim 0: output " +
                                         shape_str(output) + ", input " + shape_str(input));
  }
  if (!local) local = check_count(g, op, std::max(input.numel(), output.numel()));
  CallInfo info{OpKind::all_to_all, -1, -1, input, true, /*rows_only=*/true};
  return issue(g, op, info, local, {output, input}, async_op,
               [&g, output, input, output_splits, input_splits, row](Work::State& w) {
                 const int n = g.size;
                 std::vector<int> sc(static_cast<size_t>(n)), sd(sc.size()), rc(sc.size()), rd(sc.size());
                 for (int j = 0; j < n; ++j) {
                   const size_t u = static_cast<size_t>(j);
                   sc[u] = mpi_count((input_splits.empty() ? input.size(0) / n : input_splits[u]) * row);
                   rc[u] = mpi_count((output_splits.empty() ? output.size(0) / n : output_splits[u]) * row);
                   sd[u] = j == 0 ? 0 : sd[u - 1] + sc[u - 1];
                   rd[u] = j == 0 ? 0 : rd[u - 1] + rc[u - 1];
                 }
                 Tensor in_h = detail::host_copy(g, input);
                 Tensor out_h = detail::host_target(output);
                 const MPI_Datatype type = detail::mpi_type(input.dtype());
                 void* sp = input.numel() > 0 ? detail::host_address(in_h) : nullptr;
                 void* rp = output.numel() > 0 ? detail::host_address(out_h) : nullptr;
                 detail::check_mpi(MPI_Alltoallv(sp, sc.data(), sd.data(), type, rp, rc.data(), rd.data(), type, g.comm),
                                   "MPI_Alltoallv");
                 detail::write_back(g, w, output, out_h);
               });
}

Work ProcessGroup::send(const Tensor& tensor, int dst, int tag, bool async_op) const {
  State& g = checked("send");
  auto local = check_p2p(g, "send", tensor, dst, tag);
  CallInfo info{OpKind::send_recv, /*send*/ 0, /*peer*/ dst};
  return issue(g, "send", info, local, {tensor}, async_op, [&g, tensor, dst, tag](Work::State& w) {
    const InitOptions& o = options();
    if (o.check_metadata) {
      detail::PeerHeader h = detail::describe_peer(tensor, o.chunk_bytes);
      detail::check_mpi(MPI_Send(&h, sizeof h, MPI_BYTE, dst, 2 * tag, g.comm), "MPI_Send (header)");
    }
    Tensor buf = prepare(g, tensor, tensor.dtype());
    const MPI_Datatype type = detail::mpi_type(tensor.dtype());
    detail::for_each_chunk(g, w, flat_view(buf), chunk_elems(tensor.dtype()), true, false,
                           [&](void* p, int64_t n, int64_t) {
                             detail::check_mpi(MPI_Send(p, mpi_count(n), type, dst, 2 * tag + 1, g.comm), "MPI_Send");
                           });
  });
}

Work ProcessGroup::recv(const Tensor& tensor, int src, int tag, bool async_op) const {
  State& g = checked("recv");
  auto local = check_p2p(g, "recv", tensor, src, tag);
  CallInfo info{OpKind::send_recv, /*recv*/ 1, /*peer*/ src};
  return issue(g, "recv", info, local, {tensor}, async_op, [&g, tensor, src, tag](Work::State& w) {
    const InitOptions& o = options();
    if (o.check_metadata) {
      detail::PeerHeader h;
      detail::check_mpi(MPI_Recv(&h, sizeof h, MPI_BYTE, src, 2 * tag, g.comm, MPI_STATUS_IGNORE), "MPI_Recv (header)");
      const detail::PeerHeader want = detail::describe_peer(tensor, o.chunk_bytes);
      bool same = h.dtype == want.dtype && h.ndim == want.ndim && h.chunk_bytes == want.chunk_bytes;
      for (int i = 0; same && i < h.ndim; ++i) same = h.sizes[i] == want.sizes[i];
      if (!same) {
        // Take the data the sender sends anyway, so that later messages between the two still match.
        const bool valid = h.dtype >= 0 && h.dtype < kNumDtypes && h.ndim >= 0 && h.ndim <= kMaxDims && h.chunk_bytes > 0;
        std::string sent = "?";
        if (valid) {
          const Dtype d = static_cast<Dtype>(h.dtype);
          int64_t n = 1;
          sent = std::string(dtype_name(d)) + "[";
          for (int i = 0; i < h.ndim; ++i) {
            n *= h.sizes[i];
            sent += (i ? ", " : "") + std::to_string(h.sizes[i]);
          }
          sent += "]";
          const int64_t per = std::max<int64_t>(1, static_cast<int64_t>(h.chunk_bytes / itemsize(d)));
          std::vector<char> scratch;
          for (int64_t left = n; left > 0; left -= per) {
            MPI_Status st;
            detail::check_mpi(MPI_Probe(src, 2 * tag + 1, g.comm, &st), "MPI_Probe");
            int bytes = 0;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            scratch.resize(static_cast<size_t>(std::max(bytes, 1)));
            detail::check_mpi(MPI_Recv(scratch.data(), bytes, MPI_BYTE, src, 2 * tag + 1, g.comm, MPI_STATUS_IGNORE),
                              "MPI_Recv (drain)");
          }
        }
        const std::string msg = detail::where(g, "recv") + ": rank " + std::to_string(src) + " sent " + sent +
                                " (tag " + std::to_string(tag) + "), this rank receives into " + shape_str(tensor);
        if (valid && h.dtype != want.dtype) throw DtypeError(msg);
        if (h.chunk_bytes != want.chunk_bytes) {
          throw DistributedError(msg + "; the ranks stage in chunks of different sizes (XD_DIST_CHUNK_BYTES)");
        }
        throw ShapeError(msg);
      }
    }
    Tensor buf = prepare(g, tensor, tensor.dtype());
    const MPI_Datatype type = detail::mpi_type(tensor.dtype());
    detail::for_each_chunk(g, w, flat_view(buf), chunk_elems(tensor.dtype()), false, true,
                           [&](void* p, int64_t n, int64_t) {
                             detail::check_mpi(MPI_Recv(p, mpi_count(n), type, src, 2 * tag + 1, g.comm, MPI_STATUS_IGNORE),
                                               "MPI_Recv");
                           });
    detail::write_back(g, w, tensor, buf);
  });
}

Work ProcessGroup::barrier(bool async_op) const {
  State& g = checked("barrier");
  CallInfo info{OpKind::barrier};
  return issue(g, "barrier", info, nullptr, {}, async_op,
               [&g](Work::State&) { detail::check_mpi(MPI_Barrier(g.comm), "MPI_Barrier"); });
}

}  // namespace xd::dist
