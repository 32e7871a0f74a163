// Every collective x dtype x contiguous/strided on the backend XD_BACKEND selects, against values
// each rank computes for all ranks itself. Run under mpiexec (tests/distributed/CMakeLists.txt).
#include <xd/distributed.hpp>
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace xd::dist {
namespace {

const std::vector<Dtype> kDtypes = {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::f64,
                                    Dtype::i32, Dtype::i64, Dtype::i8,   Dtype::u8};
const std::vector<ReduceOp> kOps = {ReduceOp::sum, ReduceOp::avg, ReduceOp::product, ReduceOp::min, ReduceOp::max};

int rank() { return world().rank(); }
int size() { return world().size(); }
Device dev() { return local_device(); }

// Rank r's element i: small whole numbers, so every reduction is exact in every dtype (products
// stay in {-8..8} on 4 ranks, u8 stays non-negative).
double value(int r, int64_t i, Dtype d, ReduceOp op = ReduceOp::sum) {
  if (op == ReduceOp::product) {
    const int v = static_cast<int>((i + r) % 3);  // 0, 1, 2
    return d == Dtype::u8 ? v : (v == 0 ? -1 : v);
  }
  const int v = static_cast<int>((i * 7 + r * 3) % 11);
  return d == Dtype::u8 ? v : v - 5;
}

std::vector<double> values(int r, int64_t n, Dtype d, ReduceOp op = ReduceOp::sum) {
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = value(r, i, d, op);
  return out;
}

double reduce_expected(int64_t i, Dtype d, ReduceOp op, int n) {
  double acc = value(0, i, d, op);
  for (int r = 1; r < n; ++r) {
    const double v = value(r, i, d, op);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: acc += v; break;
      case ReduceOp::product: acc *= v; break;
      case ReduceOp::min: acc = std::min(acc, v); break;
      case ReduceOp::max: acc = std::max(acc, v); break;
    }
  }
  if (op == ReduceOp::avg) acc = is_integral(d) ? std::trunc(acc / n) : acc / n;
  return acc;
}

// A tensor of `d` on the test device holding `v`: contiguous, or every other element of a buffer
// twice as long (whose other elements hold 100, to see that nothing else is written).
struct Placed {
  Tensor t;
  Tensor base;  // the whole buffer for the strided form
};
Placed place(const std::vector<double>& v, Dtype d, bool strided) {
  const int64_t n = static_cast<int64_t>(v.size());
  Tensor src = tensor(v, {n}, cpu()).to(d);
  if (!strided) return {src.to(dev()), {}};
  Tensor base = full({n, 2}, 100, d, dev());
  Tensor t = base.select(1, 0);
  t.copy_(src);
  return {t, base};
}

void expect_values(const Tensor& t, const std::vector<double>& want, const std::string& what) {
  const std::vector<double> got = t.to_vector<double>();
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
      return;
    }
  }
}

void expect_untouched_padding(const Placed& p, const std::string& what) {
  if (!p.base.defined()) return;
  const std::vector<double> pad = p.base.select(1, 1).to_vector<double>();
  for (double x : pad) {
    if (x != 100) {
      ADD_FAILURE() << what << ": an element between the strided ones was written";
      return;
    }
  }
}

std::string label(const char* op, Dtype d, bool strided, const char* extra = "") {
  return std::string(op) + " " + dtype_name(d) + (strided ? " strided" : " contiguous") + extra;
}

TEST(Collectives, AllReduceEveryOpDtypeAndLayoutMatchesSingleProcessValues) {
  const int64_t n = 37;
  for (Dtype d : kDtypes) {
    for (ReduceOp op : kOps) {
      for (bool strided : {false, true}) {
        Placed p = place(values(rank(), n, d, op), d, strided);
        world().all_reduce(p.t, op);
        std::vector<double> want(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] = reduce_expected(i, d, op, size());
        const std::string what = label("all_reduce", d, strided, (std::string(" ") + reduce_op_name(op)).c_str());
        expect_values(p.t, want, what);
        expect_untouched_padding(p, what);
      }
    }
  }
}

TEST(Collectives, AllReduceOfHalfTypesAccumulatesInF32AndRoundsOnce) {
  // 1 + 2^-9 * k: the sum over ranks is exact in f32 and rounds once to bf16/f16; pairwise rounding
  // in bf16 would lose the small parts.
  for (Dtype d : {Dtype::bf16, Dtype::f16}) {
    const double small = d == Dtype::bf16 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -12);
    Tensor t = full({8}, 1.0 + small, Dtype::f32, cpu()).to(d).to(dev());
    const double one = full({1}, 1.0 + small, Dtype::f32, cpu()).to(d).item<double>();
    world().all_reduce(t, ReduceOp::sum);
    const double want = full({1}, one * size(), Dtype::f32, cpu()).to(d).item<double>();
    for (double x : t.to_vector<double>()) EXPECT_EQ(x, want) << dtype_name(d);
  }
}

TEST(Collectives, AllReduceOfManyChunksPipelinesThroughTheStagingRing) {
  // XD_DIST_CHUNK_BYTES is 4096 in CTest: 10000 f32 are 10 chunks, more than the ring's 4 slots.
  for (Dtype d : {Dtype::f32, Dtype::bf16, Dtype::i64}) {
    const int64_t n = 10000;
    Tensor t = tensor(values(rank(), n, d), {n}, cpu()).to(d).to(dev());
    world().all_reduce(t, ReduceOp::sum);
    std::vector<double> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] = reduce_expected(i, d, ReduceOp::sum, size());
    expect_values(t, want, label("all_reduce", d, false, " chunked"));
  }
}

TEST(Collectives, BoolReducesAsLogicalOrAndAnd) {
  std::vector<uint8_t> mine(6);
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = (static_cast<int>(i) == rank() % 6) ? 1 : 0;
  Tensor any = tensor(mine, {6}, Dtype::boolean, dev());
  world().all_reduce(any, ReduceOp::max);
  Tensor all = tensor(std::vector<uint8_t>(6, 1), {6}, Dtype::boolean, dev());
  if (rank() == 0) all = tensor(std::vector<uint8_t>{1, 0, 1, 0, 1, 0}, {6}, Dtype::boolean, dev());
  world().all_reduce(all, ReduceOp::product);
  const auto a = any.to_vector<double>(), b = all.to_vector<double>();
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(a[static_cast<size_t>(i)], i < size() ? 1 : 0) << i;
    EXPECT_EQ(b[static_cast<size_t>(i)], i % 2 == 0 ? 1 : 0) << i;
  }
}

TEST(Collectives, BroadcastAndReduceReachTheRightRanks) {
  const int root = size() - 1;
  for (Dtype d : kDtypes) {
    for (bool strided : {false, true}) {
      Placed p = place(values(rank(), 19, d), d, strided);
      world().broadcast(p.t, root);
      expect_values(p.t, values(root, 19, d), label("broadcast", d, strided));
      expect_untouched_padding(p, label("broadcast", d, strided));

      const int reduce_root = 1 % size();
      Placed q = place(values(rank(), 19, d), d, strided);
      world().reduce(q.t, reduce_root, ReduceOp::sum);
      std::vector<double> want = values(rank(), 19, d);
      if (rank() == reduce_root) {
        for (int64_t i = 0; i < 19; ++i) want[static_cast<size_t>(i)] = reduce_expected(i, d, ReduceOp::sum, size());
      }
      expect_values(q.t, want, label("reduce", d, strided));
    }
  }
}

TEST(Collectives, AllGatherIntoATensorPutsRanksInOrder) {
  for (Dtype d : kDtypes) {
    for (bool strided : {false, true}) {
      Placed in = place(values(rank(), 5, d), d, strided);
      Tensor out = zeros({size(), 5}, d, dev());
      if (strided) out = zeros({5, size()}, d, dev()).t();  // a non-contiguous output
      world().all_gather(out, in.t);
      std::vector<double> want;
      for (int r = 0; r < size(); ++r) {
        const auto v = values(r, 5, d);
        want.insert(want.end(), v.begin(), v.end());
      }
      expect_values(out, want, label("all_gather", d, strided));
    }
  }
}

TEST(Collectives, AllGatherOfAListTakesUnevenSizesAndEmptyContributions) {
  // Rank r contributes r elements (rank 0 none).
  Tensor in = tensor(values(rank(), rank(), Dtype::f32), {rank()}, cpu()).to(Dtype::f32).to(dev());
  std::vector<Tensor> outs;
  for (int r = 0; r < size(); ++r) outs.push_back(full({r}, -7, Dtype::f32, dev()));
  world().all_gather(outs, in);
  for (int r = 0; r < size(); ++r) expect_values(outs[static_cast<size_t>(r)], values(r, r, Dtype::f32), "all_gather list");
}

TEST(Collectives, ReduceScatterKeepsEachRanksBlock) {
  for (Dtype d : kDtypes) {
    for (ReduceOp op : kOps) {
      for (bool strided : {false, true}) {
        const int64_t block = 6, n = block * size();
        Placed in = place(values(rank(), n, d, op), d, strided);
        Tensor out = zeros({block}, d, dev());
        if (strided) out = zeros({block, 2}, d, dev()).select(1, 1);
        world().reduce_scatter(out, in.t, op);
        std::vector<double> want(static_cast<size_t>(block));
        for (int64_t i = 0; i < block; ++i) want[static_cast<size_t>(i)] = reduce_expected(rank() * block + i, d, op, size());
        expect_values(out, want, label("reduce_scatter", d, strided, reduce_op_name(op)));
      }
    }
  }
}

TEST(Collectives, AllToAllWithEqualAndUnevenSplits) {
  const int n = size();
  // Equal: rank r sends row block j (2 rows of 3) to rank j, holding 100*r + 10*j + k.
  std::vector<double> mine;
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < 6; ++k) mine.push_back(100 * rank() + 10 * j + k);
  }
  std::vector<double> want;
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < 6; ++k) want.push_back(100 * r + 10 * rank() + k);
  }
  for (Dtype d : {Dtype::i32, Dtype::f32, Dtype::f64, Dtype::i64, Dtype::f16, Dtype::bf16}) {
    for (bool strided : {false, true}) {
      Tensor in = tensor(mine, {2 * n, 3}, cpu()).to(d).to(dev());
      Tensor out = zeros({2 * n, 3}, d, dev());
      if (strided) {  // both sides non-contiguous: every other column of a wider tensor
        Tensor wide = zeros({2 * n, 6}, d, dev());
        Tensor cols = wide.slice(1, 0, 6, 2);
        cols.copy_(in);
        in = cols;
        out = zeros({2 * n, 6}, d, dev()).slice(1, 1, 6, 2);
      }
      world().all_to_all(out, in);
      // The values moved as they are: what `d` holds of them (bf16 rounds 321 to 320).
      expect_values(out, tensor(want, {static_cast<int64_t>(want.size())}, cpu()).to(d).to_vector<double>(),
                    label("all_to_all", d, strided));
    }
  }
  // Bytes moved as they are: i8/u8/bool (the values are large for them, so a separate check).
  for (Dtype d : {Dtype::i8, Dtype::u8, Dtype::boolean}) {
    std::vector<double> small, expect;
    for (int j = 0; j < n; ++j) small.push_back((rank() + j) % 2);
    for (int r = 0; r < n; ++r) expect.push_back((r + rank()) % 2);
    Tensor in = tensor(small, {n}, cpu()).to(d).to(dev());
    Tensor out = zeros({n}, d, dev());
    world().all_to_all(out, in);
    expect_values(out, expect, label("all_to_all", d, false));
  }

  // Uneven: rank r sends (j + 1) rows of 2 to rank j, so rank j receives j + 1 rows from everyone.
  std::vector<int64_t> in_splits, out_splits;
  std::vector<double> src;
  for (int j = 0; j < n; ++j) {
    in_splits.push_back(j + 1);
    out_splits.push_back(rank() + 1);
    for (int k = 0; k < 2 * (j + 1); ++k) src.push_back(1000 * rank() + 10 * j + k);
  }
  Tensor uin = tensor(src, {static_cast<int64_t>(src.size()) / 2, 2}, cpu()).to(Dtype::f32).to(dev());
  Tensor uout = zeros({static_cast<int64_t>(n) * (rank() + 1), 2}, Dtype::f32, dev());
  world().all_to_all(uout, uin, out_splits, in_splits);
  std::vector<double> uwant;
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < 2 * (rank() + 1); ++k) uwant.push_back(1000 * r + 10 * rank() + k);
  }
  expect_values(uout, uwant, "all_to_all uneven");
}

TEST(Collectives, SendAndRecvAroundARingInManyChunks) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  const int next = (rank() + 1) % size(), prev = (rank() + size() - 1) % size();
  for (Dtype d : kDtypes) {
    for (bool strided : {false, true}) {
      const int64_t n = 5000;  // several 4 KiB chunks
      Placed out = place(values(rank(), n, d), d, strided);
      Placed in = place(std::vector<double>(static_cast<size_t>(n), 0), d, !strided);
      Work s = world().send(out.t, next, 3, /*async_op=*/true);
      world().recv(in.t, prev, 3);
      s.wait();
      expect_values(in.t, values(prev, n, d), label("recv", d, !strided));
      expect_untouched_padding(in, label("recv", d, !strided));
    }
  }
}

TEST(Collectives, ZeroSizeTensorsAreValid) {
  Tensor e = zeros({0, 3}, Dtype::f32, dev());
  world().all_reduce(e);
  world().broadcast(e, 0);
  Tensor g = zeros({0, 3}, Dtype::f32, dev());
  world().all_gather(g, e);
  world().reduce_scatter(zeros({0}, Dtype::f32, dev()), zeros({0}, Dtype::f32, dev()));
  world().barrier();
  EXPECT_EQ(e.numel(), 0);
}

TEST(Collectives, AsyncWorkIsOrderedWithTheTensorsStream) {
  // A kernel writes the input, the collective runs on the group's worker, and a kernel issued after
  // wait() reads its result.
  std::vector<Tensor> ts;
  std::vector<Work> works;
  for (int k = 0; k < 4; ++k) {
    Tensor t = add(full({1000}, rank(), Dtype::f32, dev()), full({1000}, k, Dtype::f32, dev()));
    works.push_back(world().all_reduce(t, ReduceOp::sum, /*async_op=*/true));
    ts.push_back(t);
  }
  for (const Work& w : works) w.wait();
  for (int k = 0; k < 4; ++k) {
    EXPECT_TRUE(works[static_cast<size_t>(k)].is_completed());
    EXPECT_EQ(works[static_cast<size_t>(k)].exception(), nullptr);
    const Tensor doubled = mul(ts[static_cast<size_t>(k)], full({1}, 2, Dtype::f32, dev()));
    const double want = 2.0 * (size() * (size() - 1) / 2 + size() * k);
    for (double x : doubled.to_vector<double>()) {
      ASSERT_EQ(x, want) << "work " << k;
    }
  }
  Work b = world().barrier(true);
  b.wait();
  EXPECT_TRUE(b.is_completed());
}

TEST(Collectives, SubGroupsRunTheirOwnCollectives) {
  std::vector<int> even, odd;
  for (int r = 0; r < size(); ++r) (r % 2 == 0 ? even : odd).push_back(r);
  ProcessGroup ge = world().new_group(even);
  ProcessGroup go = odd.empty() ? ProcessGroup() : world().new_group(odd);
  ProcessGroup mine = rank() % 2 == 0 ? ge : go;
  ProcessGroup other = rank() % 2 == 0 ? go : ge;
  ASSERT_TRUE(mine.is_member());
  EXPECT_EQ(mine.rank(), rank() / 2);
  EXPECT_EQ(mine.world_ranks(), rank() % 2 == 0 ? even : odd);
  Tensor t = full({3}, rank(), Dtype::i64, dev());
  mine.all_reduce(t);
  int64_t want = 0;
  for (int r : rank() % 2 == 0 ? even : odd) want += r;
  for (double x : t.to_vector<double>()) EXPECT_EQ(x, want);
  if (!odd.empty()) {
    EXPECT_FALSE(other.is_member());
    try {
      other.all_reduce(t);
      ADD_FAILURE() << "a non-member ran a collective";
    } catch (const DistributedError& e) {
      EXPECT_NE(std::string(e.what()).find("is not a member"), std::string::npos) << e.what();
    }
  }
  // A group in reversed order: ranks follow the list.
  std::vector<int> reversed;
  for (int r = size() - 1; r >= 0; --r) reversed.push_back(r);
  ProcessGroup rev = world().new_group(reversed);
  EXPECT_EQ(rev.rank(), size() - 1 - rank());
  Tensor b = full({2}, rank(), Dtype::f32, dev());
  rev.broadcast(b, 0);  // rev's rank 0 is world rank size-1
  for (double x : b.to_vector<double>()) EXPECT_EQ(x, size() - 1);
}

}  // namespace
}  // namespace xd::dist
