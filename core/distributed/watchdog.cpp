#include "watchdog.hpp"

#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace xd::dist::detail {
namespace {

struct Watchdog {
  std::mutex mutex;
  std::condition_variable cv;
  // Slots reused through `free`, so that watching a collective allocates nothing once warm.
  std::vector<WatchEntry> slots;
  std::vector<size_t> free;
  std::chrono::milliseconds timeout{0};
  int world_rank = 0;
  int world_size = 1;
  bool running = false;
  bool stop = false;
  std::thread thread;
};

Watchdog& watchdog() {
  static Watchdog* w = new Watchdog;  // never destroyed: a collective may still run at exit
  return *w;
}

[[noreturn]] void abort_job(const WatchEntry& e, std::chrono::milliseconds timeout, int world_rank, int world_size) {
  std::fprintf(stderr,
               "xd::dist: rank %d of %d: %s #%llu on group %s (rank %d there) did not complete within %.1f s: "
               "another rank failed, exited, or issued collectives in another order. Aborting the job "
               "(timeout: XD_DIST_TIMEOUT / InitOptions::timeout).\n",
               world_rank, world_size, e.op, static_cast<unsigned long long>(e.seq), e.group.c_str(), e.rank,
               static_cast<double>(timeout.count()) / 1000.0);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; this is for the compiler and a broken MPI
}

void run(Watchdog& w) {
  // Checked a few times per timeout: a late abort by a fraction of the timeout is fine.
  const auto interval = std::clamp(w.timeout / 20, std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
  std::unique_lock lock(w.mutex);
  while (!w.stop) {
    w.cv.wait_for(lock, interval);
    if (w.stop) break;
    const auto now = std::chrono::steady_clock::now();
    for (const WatchEntry& e : w.slots) {
      if (e.active && now - e.start > w.timeout) abort_job(e, w.timeout, w.world_rank, w.world_size);
    }
  }
}

}  // namespace

WatchScope::WatchScope(const char* op, uint64_t seq, int rank, const std::string& group) {
  Watchdog& w = watchdog();
  std::lock_guard lock(w.mutex);
  if (!w.running) return;
  if (w.free.empty()) {
    w.free.push_back(w.slots.size());
    w.slots.emplace_back();
  }
  slot_ = w.free.back();
  w.free.pop_back();
  WatchEntry& e = w.slots[slot_];
  e.active = true;
  e.start = std::chrono::steady_clock::now();
  e.op = op;
  e.seq = seq;
  e.rank = rank;
  e.group = group;
  active_ = true;
}

WatchScope::~WatchScope() {
  if (!active_) return;
  Watchdog& w = watchdog();
  std::lock_guard lock(w.mutex);
  w.slots[slot_].active = false;
  w.free.push_back(slot_);
}

void start_watchdog(std::chrono::milliseconds timeout, int world_rank, int world_size) {
  Watchdog& w = watchdog();
  std::lock_guard lock(w.mutex);
  if (w.running || timeout.count() <= 0) return;
  w.timeout = timeout;
  w.world_rank = world_rank;
  w.world_size = world_size;
  w.stop = false;
  w.running = true;
  w.thread = std::thread([&w] { run(w); });
}

void stop_watchdog() {
  Watchdog& w = watchdog();
  {
    std::lock_guard lock(w.mutex);
    if (!w.running) return;
    w.stop = true;
  }
  w.cv.notify_all();
  w.thread.join();
  std::lock_guard lock(w.mutex);
  w.running = false;
}

}  // namespace xd::dist::detail
