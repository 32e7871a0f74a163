// Collectives across processes over MPI (libxdispatch_dist; docs/distributed.md): a process group
// from the MPI launcher's environment, sub-groups, and all_reduce / all_gather / reduce_scatter /
// broadcast / reduce / send / recv / barrier / all_to_all on tensors of any backend and dtype.
//
// Link xdispatch::dist (CMake) or -lxdispatch_dist; launch with mpirun (`mpirun -np 4 ./app`). A
// program started without a launcher is a world of one process.
//
// Tensors: CPU tensors (and those of any backend whose memory is host memory) go to MPI directly,
// without a copy (all_reduce, broadcast, reduce, send and recv in InitOptions::chunk_bytes pieces,
// the same schedule as device tensors, so that ranks on different backends can work together). Tensors of other devices (OpenCL, Level Zero) are staged through pinned host
// memory in chunks, pipelined so that the device copies of one chunk overlap the MPI transfer of
// another. A non-contiguous tensor is gathered into a contiguous one and the result written back.
// Reductions of f16, bf16 and the fp8 types accumulate in f32 (the tensor is widened to f32, reduced,
// and rounded once); bool reduces as logical or (sum, max) and logical and (product, min).
//
// Ordering with streams: a collective starts after the work already enqueued on the tensor's
// current stream (of the thread that calls it), and Work::wait() makes the caller's current stream
// wait for the collective's last copies, so kernels enqueued after wait() see its result.
//
// Ordering across ranks (as in MPI and PyTorch): every member of a group issues the group's
// collectives in the same order. Blocking calls and wait() are where a rank waits for the others.
//
// Failure: a collective that has not completed within the timeout (InitOptions::timeout,
// XD_DIST_TIMEOUT) prints which rank, group, collective and sequence number it was waiting in and
// aborts the whole job (MPI_Abort), since the other ranks cannot be unblocked otherwise; a rank
// that dies of an uncaught exception prints it and aborts the job the same way (a std::terminate
// handler, InitOptions::abort_on_terminate), and mpirun ends the job when a rank is killed.
//
// Thread safety: collectives may be called from any thread; calls on one group are executed in the
// order they were issued in this process. Work handles may be waited on from any thread.
#pragma once

#include <xd/device.hpp>
#include <xd/error.hpp>
#include <xd/tensor.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace xd::dist {

// A collective that failed for a reason other than a mismatched shape (ShapeError) or dtype
// (DtypeError): ranks calling different collectives or roots, an MPI error, a rank out of range, a
// group this process is not a member of, a call before init() or after finalize().
class DistributedError : public Error {
 public:
  explicit DistributedError(const std::string& message) : Error(message) {}
};

enum class ReduceOp { sum, avg, product, min, max };
const char* reduce_op_name(ReduceOp op) noexcept;

struct InitOptions {
  // Exchange each collective's kind, root, dtype and shape before running it, so that a mismatch
  // across ranks is a ShapeError / DtypeError / DistributedError naming the ranks on every rank,
  // instead of MPI truncation, a wrong result or a hang. Costs one small collective per call.
  // XD_DIST_CHECK=0 or 1 overrides it.
  bool check_metadata = true;
  // How long one collective may wait for the other ranks before the job is aborted.
  // XD_DIST_TIMEOUT (seconds, decimals allowed) overrides it; 0 waits forever.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Size of one staging chunk for device tensors; XD_DIST_CHUNK_BYTES overrides it.
  uint64_t chunk_bytes = uint64_t{4} << 20;
  // Makes local_device() the calling thread's current device.
  bool set_current_device = true;
  // Installs a std::terminate handler that prints the uncaught exception with the rank and aborts
  // the job, so the other ranks do not wait for the timeout.
  bool abort_on_terminate = true;
};

// The result of a collective. Returned completed by a blocking call (async_op = false); with
// async_op = true the collective runs on the group's worker thread and the tensors must not be
// read or written (on the host or by kernels) until wait() returns.
class Work {
 public:
  Work() = default;  // a completed Work with nothing to wait for
  // Blocks until the collective is done on this rank, then orders the calling thread's current
  // stream of each device involved after its last copies. Rethrows the collective's error (every
  // call of wait on a failed Work rethrows it).
  void wait() const;
  bool is_completed() const;  // never blocks
  // The collective's error once completed (null when it succeeded or is still running).
  std::exception_ptr exception() const;

  struct State;
  explicit Work(std::shared_ptr<State> s) : state_(std::move(s)) {}

 private:
  std::shared_ptr<State> state_;
};

// A set of processes that run collectives together: the world, or a group made by new_group.
// Copies share the group. Ranks are positions in the group (0 .. size()-1).
class ProcessGroup {
 public:
  ProcessGroup() = default;  // no group: every member function but is_member throws DistributedError

  bool is_member() const;  // false for the result of new_group on a rank that is not in it
  int rank() const;
  int size() const;
  // The world ranks of the members, in group order.
  std::vector<int> world_ranks() const;

  // A group of the listed members of this group (ranks of this group, distinct, in the order that
  // defines the new group's ranks). Collective: every member of this group calls it with the same
  // list. On a rank not in `ranks` it returns a group whose is_member() is false.
  // ValueError for an empty list, a duplicate or a rank out of range.
  ProcessGroup new_group(const std::vector<int>& ranks) const;

  // In place: every rank's `tensor` becomes the reduction over the ranks. avg divides the sum by
  // size() (integers: truncating toward zero, as NCCL). Same shape and dtype on every rank.
  Work all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::sum, bool async_op = false) const;
  // `tensor` of rank `root` is copied into `tensor` on every other rank.
  Work broadcast(const Tensor& tensor, int root, bool async_op = false) const;
  // `tensor` on `root` becomes the reduction; other ranks' tensors are left unchanged.
  Work reduce(const Tensor& tensor, int root, ReduceOp op = ReduceOp::sum, bool async_op = false) const;
  // `output` (numel = size() * input.numel(), e.g. [size()*n, ...] or [size(), n, ...]) receives
  // every rank's `input` in rank order. Same dtype and device for both.
  Work all_gather(const Tensor& output, const Tensor& input, bool async_op = false) const;
  // outputs[r] receives rank r's `input`; ranks may contribute different numbers of elements
  // (outputs[r].numel() must equal rank r's input.numel()). outputs.size() == size().
  Work all_gather(const std::vector<Tensor>& outputs, const Tensor& input, bool async_op = false) const;
  // `input` (numel = size() * output.numel()) is reduced over the ranks and rank r keeps block r.
  Work reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::sum,
                      bool async_op = false) const;
  // Rank r sends block j of `input` to rank j, which stores it as block r of `output`. Blocks are
  // along dim 0: equal (input.size(0) / size()) when the split lists are empty, else
  // input_splits[j] rows go to rank j and output_splits[r] rows come from rank r (PyTorch's
  // all_to_all_single).
  Work all_to_all(const Tensor& output, const Tensor& input, const std::vector<int64_t>& output_splits = {},
                  const std::vector<int64_t>& input_splits = {}, bool async_op = false) const;
  // Point to point; a matching recv on `dst` must have the same shape and dtype. Messages between
  // two ranks with the same tag arrive in order.
  Work send(const Tensor& tensor, int dst, int tag = 0, bool async_op = false) const;
  Work recv(const Tensor& tensor, int src, int tag = 0, bool async_op = false) const;
  Work barrier(bool async_op = false) const;

  struct State;
  explicit ProcessGroup(std::shared_ptr<State> s) : state_(std::move(s)) {}
  const std::shared_ptr<State>& state() const { return state_; }

 private:
  State& checked(const char* what) const;
  std::shared_ptr<State> state_;
};

// Initialises MPI (unless the application already did, with MPI_THREAD_MULTIPLE) and returns the
// world group. A second call returns the same world; options are taken from the first.
// DistributedError when MPI cannot be initialised or provides less than MPI_THREAD_MULTIPLE;
// ValueError for a malformed XD_DIST_* variable.
ProcessGroup init(const InitOptions& options = {});
bool is_initialized();
ProcessGroup world();  // DistributedError before init()

// This process's rank among the processes of its node and their number (from MPI's shared-memory
// split), and the device it uses: device (local_rank % n) of the default device's backend
// (XD_BACKEND), which has n devices. DistributedError before init().
int local_rank();
int local_size();
Device local_device();

// Waits for this process's outstanding collectives, releases the groups' communicators and
// finalises MPI when init() initialised it. Also runs at exit. Every rank calls it.
void finalize();

}  // namespace xd::dist
