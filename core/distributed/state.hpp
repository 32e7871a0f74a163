// Internal state of libxdispatch_dist: the process-wide runtime, a group's communicator and its
// in-order executor, and a Work's completion.
#pragma once

#include <xd/distributed.hpp>
#include <xd/runtime.hpp>

#include <mpi.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace xd::dist {

struct Work::State {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
  // Recorded after the collective's last device copies; wait() blocks the caller's current stream
  // of each device on them.
  std::vector<std::pair<Device, Event>> completion;
  // What the collective runs, on the caller's thread (blocking calls) or the group's worker.
  std::function<void(Work::State&)> body;
  uint64_t ticket = 0;

  void finish(std::exception_ptr e);
};

namespace detail {

// Pinned host buffers that stage device tensors, per device and dtype, plus the stream their
// copies run on. Owned by one group and used only by the thread that runs its collectives.
struct StagingRing {
  Stream stream;  // device-to-host copies and the collective's kernels
  Stream back;    // host-to-device copies, so that both directions of the bus carry data at once
  std::map<int, std::vector<Tensor>> slots;  // dtype -> ring of chunk buffers
};

}  // namespace detail

struct ProcessGroup::State {
  MPI_Comm comm = MPI_COMM_NULL;  // MPI_COMM_NULL on a rank that is not a member
  int rank = -1;
  int size = 0;
  std::vector<int> world_ranks;
  std::string name;  // "world" or "group{0,2}" for messages

  // Executors ("lanes"): the group's collectives run in the order they were issued in this
  // process, in one lane. Each gets a ticket; the one whose ticket is next runs, inline on the
  // caller's thread when blocking, else on the lane's worker thread. Point-to-point messages have a
  // lane per direction and peer, so that an asynchronous send does not hold up a blocking recv
  // (a ring exchange would deadlock) while messages to one peer keep their order.
  struct Lane {
    std::mutex mutex;
    std::condition_variable cv;
    uint64_t issued = 0;
    uint64_t next_to_run = 0;
    std::deque<std::shared_ptr<Work::State>> queue;  // asynchronous calls not yet run
    std::thread worker;
    bool stopping = false;
    std::map<std::pair<int, int>, detail::StagingRing> staging;  // by (device type, index)
  };
  Lane collectives;
  std::mutex lanes_mutex;
  std::map<std::pair<int, int>, std::unique_ptr<Lane>> p2p;  // by (0 send / 1 recv, peer)
  Lane& p2p_lane(bool recv, int peer);

  // Sequence number of the collective now running (for the metadata check and messages). Only
  // the collectives lane touches it.
  uint64_t seq = 0;

  ~State();
  // Runs every queued collective, stops the worker and frees the communicator (unless MPI is
  // already finalised). Idempotent.
  void shut_down();
};

namespace detail {

struct Runtime {
  InitOptions options;
  bool initialised_mpi = false;  // we called MPI_Init_thread, so we finalise it
  bool finalized = false;
  int world_rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_size = 1;
  Device local_device;
  std::shared_ptr<ProcessGroup::State> world;
  std::mutex groups_mutex;
  std::vector<std::weak_ptr<ProcessGroup::State>> groups;  // for finalize
};

// Null before init() and after finalize().
Runtime* runtime();
Runtime& checked_runtime(const char* what);

// Submits `body` to the group's executor: runs it inline (async_op false) or on the worker, in
// issue order. The returned Work is completed when async_op is false (body's error is rethrown).
Work submit(ProcessGroup::State& g, ProcessGroup::State::Lane& lane, std::function<void(Work::State&)> body,
           bool async_op);
// The lane whose call the calling thread is running (its staging rings).
ProcessGroup::State::Lane& current_lane();

// Runs `f` on the calling thread, in its turn, when nothing is queued or running on `lane`, and
// returns true; returns false (running nothing) otherwise. The fast path of a small blocking call:
// no Work, no hand-off. Exceptions from `f` propagate after the turn is passed on.
template <class F>
bool run_if_idle(ProcessGroup::State::Lane& lane, F&& f) {
  {
    std::lock_guard lock(lane.mutex);
    if (lane.stopping || !lane.queue.empty() || lane.next_to_run != lane.issued) return false;
    ++lane.issued;
  }
  struct PassTurn {
    ProcessGroup::State::Lane& lane;
    ~PassTurn() {
      {
        std::lock_guard lock(lane.mutex);
        ++lane.next_to_run;
      }
      lane.cv.notify_all();
    }
  } pass{lane};
  f();
  return true;
}

// "rank 2 of world" style prefix for messages.
std::string where(const ProcessGroup::State& g, const char* op);

}  // namespace detail
}  // namespace xd::dist
