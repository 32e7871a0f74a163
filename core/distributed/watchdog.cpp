#include "watchdog.hpp"

#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace xd::dist::detail {
namespace {

struct Watchdog {
  std::mutex mutex;
  std::condition_variable cv;
  std::list<WatchEntry> active;
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
    for (const WatchEntry& e : w.active) {
      if (now - e.start > w.timeout) abort_job(e, w.timeout, w.world_rank, w.world_size);
    }
  }
}

}  // namespace

WatchScope::WatchScope(const char* op, uint64_t seq, int rank, const std::string& group) {
  Watchdog& w = watchdog();
  std::lock_guard lock(w.mutex);
  if (!w.running) return;
  it_ = w.active.insert(w.active.end(), WatchEntry{std::chrono::steady_clock::now(), op, seq, rank, group});
  active_ = true;
}

WatchScope::~WatchScope() {
  if (!active_) return;
  Watchdog& w = watchdog();
  std::lock_guard lock(w.mutex);
  w.active.erase(it_);
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
