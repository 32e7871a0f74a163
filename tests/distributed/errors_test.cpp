// Bad inputs: errors on one rank, and disagreements between ranks, are typed errors on every rank
// (with the metadata check, on in CTest) that name the ranks, and the group stays usable.
#include <xd/distributed.hpp>
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <string>

namespace xd::dist {
namespace {

int rank() { return world().rank(); }
int size() { return world().size(); }
Device dev() { return local_device(); }

template <class E, class F>
void expect_error(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// The group still works after an error.
void expect_group_usable() {
  Tensor t = full({2}, 1, Dtype::i32, dev());
  world().all_reduce(t);
  for (double x : t.to_vector<double>()) EXPECT_EQ(x, size());
}

TEST(CollectiveErrors, ShapesThatDifferAcrossRanksAreAShapeErrorNamingTheRanks) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  Tensor t = zeros({4, rank() == 1 ? 7 : 8}, Dtype::f32, dev());
  expect_error<ShapeError>([&] { world().all_reduce(t); }, "rank 1: f32[4, 7]");
  expect_group_usable();
}

TEST(CollectiveErrors, DtypesThatDifferAcrossRanksAreADtypeError) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  Tensor t = zeros({3}, rank() == 0 ? Dtype::f64 : Dtype::f32, dev());
  expect_error<DtypeError>([&] { world().broadcast(t, 0); }, "rank 0: f64[3]");
  expect_group_usable();
}

TEST(CollectiveErrors, DifferentCollectivesOrRootsAreADistributedError) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  Tensor t = zeros({3}, Dtype::f32, dev());
  expect_error<DistributedError>(
      [&] {
        if (rank() == 0) {
          world().broadcast(t, 0);
        } else {
          world().all_reduce(t);
        }
      },
      "issued different collectives");
  expect_error<DistributedError>([&] { world().broadcast(t, rank() == 0 ? 0 : 1); }, "different roots");
  expect_group_usable();
}

TEST(CollectiveErrors, AnArgumentOneRankRejectsFailsEveryRank) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  Tensor t = zeros({3}, Dtype::f32, dev());
  if (rank() == 1) {
    expect_error<ValueError>([&] { world().all_reduce(Tensor()); }, "the input tensor is undefined");
  } else {
    expect_error<DistributedError>([&] { world().all_reduce(t); }, "rank(s) 1 rejected their arguments");
  }
  expect_group_usable();
}

TEST(CollectiveErrors, BadArgumentsOnEveryRankAreTypedErrors) {
  Tensor t = zeros({4}, Dtype::f32, dev());
  expect_error<ValueError>([&] { world().broadcast(t, size()); }, "root " + std::to_string(size()) + " is out of range");
  expect_error<ValueError>([&] { world().reduce(t, -1); }, "root -1 is out of range");
  expect_error<ShapeError>([&] { world().all_gather(zeros({3}, Dtype::f32, dev()), t); }, "must hold");
  expect_error<DtypeError>([&] { world().all_gather(zeros({4 * size()}, Dtype::i32, dev()), t); }, "differ in dtype");
  expect_error<ShapeError>([&] { world().reduce_scatter(zeros({5}, Dtype::f32, dev()), t); }, "must hold");
  expect_error<ValueError>([&] { world().all_gather(std::vector<Tensor>{}, t); }, "0 output tensors");
  expect_error<ShapeError>([&] { world().all_to_all(zeros({}, Dtype::f32, dev()), zeros({}, Dtype::f32, dev())); },
                           "0-d tensors");
  if (size() > 1) {
    expect_error<ShapeError>([&] { world().all_to_all(zeros({size() + 1}, Dtype::f32, dev()), zeros({size() + 1}, Dtype::f32, dev())); },
                             "not divisible");
  }
  const std::vector<int64_t> too_many(static_cast<size_t>(size()) + 1, 0);
  expect_error<ValueError>([&] { world().all_to_all(t, t, too_many, too_many); }, "entries for a group");
  expect_error<ValueError>([&] { world().send(t, rank()); }, "cannot send to itself");
  expect_error<ValueError>([&] { world().recv(t, size()); }, "source " + std::to_string(size()) + " is out of range");
  if (size() > 1) expect_error<ValueError>([&] { world().send(t, (rank() + 1) % size(), -2); }, "tag -2");
  expect_error<ValueError>([&] { world().new_group({}); }, "empty");
  expect_error<ValueError>([&] { world().new_group({0, 0}); }, "listed twice");
  expect_error<ValueError>([&] { world().new_group({size()}); }, "out of range");
  expect_error<DistributedError>([&] { ProcessGroup().all_reduce(t); }, "not a process group");
  expect_group_usable();
}

TEST(CollectiveErrors, ARecvOfTheWrongShapeFailsOnTheReceiverOnly) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  if (rank() == 0) {
    world().send(full({5}, 1, Dtype::f32, dev()), 1, 7);
  } else if (rank() == 1) {
    Tensor small = zeros({4}, Dtype::f32, dev());
    expect_error<ShapeError>([&] { world().recv(small, 0, 7); }, "rank 0 sent f32[5]");
    Tensor wrong_dtype = zeros({5}, Dtype::i32, dev());
    world().send(full({1}, 0, Dtype::f32, dev()), 0, 8);  // unblock rank 0's next recv
    (void)wrong_dtype;
  }
  if (rank() == 0) {
    Tensor i = zeros({1}, Dtype::i32, dev());
    expect_error<DtypeError>([&] { world().recv(i, 1, 8); }, "rank 1 sent f32[1]");
  }
  expect_group_usable();
}

TEST(CollectiveErrors, ErrorsOfAsyncCollectivesSurfaceAtWait) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  Tensor t = zeros({rank() == 0 ? 2 : 3}, Dtype::f32, dev());
  Work w = world().all_reduce(t, ReduceOp::sum, /*async_op=*/true);
  expect_error<ShapeError>([&] { w.wait(); }, "different shapes");
  EXPECT_TRUE(w.is_completed());
  EXPECT_NE(w.exception(), nullptr);
  expect_error<ShapeError>([&] { w.wait(); }, "different shapes");  // again: the same error
  expect_group_usable();
}

}  // namespace
}  // namespace xd::dist
