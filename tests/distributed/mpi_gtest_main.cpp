// main() of the distributed tests: every rank runs every test (collectives need all of them),
// xd::dist::init() before and finalize() after. Rank 0 prints GoogleTest's usual report; the other
// ranks print only their failures, prefixed with their rank, so that one bad rank is visible.
#include <xd/distributed.hpp>

#include <gtest/gtest.h>

#include <cstdio>

namespace {

class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed()) {
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
    }
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const xd::dist::ProcessGroup world = xd::dist::init();
  if (world.rank() != 0) {
    testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(world.rank()));
  }
  const int rc = RUN_ALL_TESTS();
  xd::dist::finalize();
  return rc;
}
