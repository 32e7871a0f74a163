// The timeout of collectives: a thread that aborts the job when a collective has waited for the
// other ranks longer than InitOptions::timeout. MPI offers no way to cancel a blocked collective,
// so a rank whose peer failed, exited or issued collectives in another order can only be ended,
// and a message naming what it waited in beats a silent hang (PyTorch's NCCL watchdog does the same).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace xd::dist::detail {

struct WatchEntry {
  bool active = false;
  std::chrono::steady_clock::time_point start;
  const char* op = "";
  uint64_t seq = 0;
  int rank = 0;
  std::string group;
};

// Watches the collective the calling thread runs for as long as it lives.
class WatchScope {
 public:
  WatchScope(const char* op, uint64_t seq, int rank, const std::string& group);
  ~WatchScope();
  WatchScope(const WatchScope&) = delete;
  WatchScope& operator=(const WatchScope&) = delete;

 private:
  size_t slot_ = 0;
  bool active_ = false;
};

// Starts the watchdog thread (timeout 0: none). Stopped by stop_watchdog (finalize).
void start_watchdog(std::chrono::milliseconds timeout, int world_rank, int world_size);
void stop_watchdog();

}  // namespace xd::dist::detail
