// A job in which one rank fails while the others wait in an all_reduce, for fault_test.sh.
// Usage: xd_dist_fault throw|kill|stall
//   throw  rank 1 dies of an uncaught exception (the terminate handler aborts the job)
//   kill   rank 1 kills itself with SIGKILL (mpirun ends the job)
//   stall  rank 1 never joins (the others' watchdog aborts the job after XD_DIST_TIMEOUT)
#include <xd/distributed.hpp>
#include <xd/xd.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: xd_dist_fault throw|kill|stall\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode != "throw" && mode != "kill" && mode != "stall") {
    std::fprintf(stderr, "xd_dist_fault: unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  xd::dist::ProcessGroup world = xd::dist::init();
  xd::Tensor t = xd::ones({16}, xd::Dtype::f32, xd::dist::local_device());
  world.all_reduce(t);  // everyone is up
  if (world.rank() == 1) {
    if (mode == "throw") throw std::runtime_error("rank 1 gave up on purpose");
    if (mode == "kill") std::raise(SIGKILL);
    std::this_thread::sleep_for(std::chrono::hours(1));
  }
  world.all_reduce(t);
  std::printf("rank %d: all_reduce returned, which it must not\n", world.rank());
  xd::dist::finalize();
  return 0;
}
