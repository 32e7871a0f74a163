// cumsum and topk on the CPU backend, against values torch 1.13 printed for the same inputs
// (literals below) and against the definitions computed here by plain loops over row-major
// values: running sums in the accumulation type of the contract, and a full sort of each row.
// Bad arguments are in tests/unit/bad_inputs_scan_test.cpp.
#include "test_util.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

using namespace xdt;
using xd::Dtype;

// outer x len x inner view of a row-major shape along `dim`.
struct Rows {
  int64_t outer = 1, len = 1, inner = 1;
};
Rows rows_of(const Shape& s, int dim) {
  Rows r;
  for (int d = 0; d < dim; ++d) r.outer *= s[d];
  r.len = s[dim];
  for (size_t d = dim + 1; d < s.size(); ++d) r.inner *= s[d];
  return r;
}

// The contract's running sum: float for f16/bf16 and f32, double for f64, int64 wrapping for
// integers, each output rounded once to `d`.
std::vector<double> cumsum_ref(const std::vector<double>& x, const Shape& s, int dim, Dtype d) {
  const Rows r = rows_of(s, dim);
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t i = 0; i < r.inner; ++i) {
      float f = 0;
      double g = 0;
      uint64_t n = 0;
      for (int64_t j = 0; j < r.len; ++j) {
        const size_t at = static_cast<size_t>((o * r.len + j) * r.inner + i);
        if (xd::is_integral(d)) {
          n += static_cast<uint64_t>(static_cast<int64_t>(x[at]));
          out[at] = quantize(static_cast<double>(static_cast<int64_t>(n)), d);
        } else if (d == Dtype::f64) {
          g += x[at];
          out[at] = g;
        } else {
          f += static_cast<float>(x[at]);
          out[at] = quantize(f, d);
        }
      }
    }
  return out;
}

TEST(Cumsum, TorchLiterals) {
  const xd::Tensor a = make({1, 2, 3, 4, 5, 6}, {2, 3}, Dtype::f32);
  // torch.cumsum(a, 0), torch.cumsum(a, 1)
  EXPECT_TRUE(all_equal(read(xd::cumsum(a, 0)), {1, 2, 3, 5, 7, 9}));
  EXPECT_TRUE(all_equal(read(xd::cumsum(a, -1)), {1, 3, 6, 4, 9, 15}));
  // torch.cumsum(torch.tensor([100, 100, 100], dtype=torch.int8), 0): tensor([100, 200, 300]) (i64)
  const xd::Tensor i8 = make({100, 100, 100}, {3}, Dtype::i8);
  const xd::Tensor wide = xd::cumsum(i8, 0);
  EXPECT_EQ(wide.dtype(), Dtype::i64);
  EXPECT_TRUE(all_equal(read(wide), {100, 200, 300}));
  // ... dtype=torch.int8: tensor([100, -56, 44], dtype=torch.int8), wrapping
  const xd::Tensor narrow = xd::cumsum(i8, 0, Dtype::i8);
  EXPECT_EQ(narrow.dtype(), Dtype::i8);
  EXPECT_TRUE(all_equal(read(narrow), {100, -56, 44}));
  // torch.cumsum(torch.tensor([True, False, True, True]), 0): tensor([1, 1, 2, 3])
  const xd::Tensor b = xd::cumsum(make({1, 0, 1, 1}, {4}, Dtype::boolean), 0);
  EXPECT_EQ(b.dtype(), Dtype::i64);
  EXPECT_TRUE(all_equal(read(b), {1, 1, 2, 3}));
  // torch.cumsum(torch.tensor([1., inf, -inf, 2.]), 0): tensor([1., inf, nan, nan])
  EXPECT_TRUE(all_equal(read(xd::cumsum(make({1, kInf, -kInf, 2}, {4}, Dtype::f32), 0)), {1, kInf, kNaN, kNaN}));
  // torch.cumsum(torch.tensor([1.7, -2.9, 3.5]), 0, dtype=torch.int32): tensor([1, -1, 2]) (truncated first)
  const xd::Tensor t = xd::cumsum(make({1.7, -2.9, 3.5}, {3}, Dtype::f32), 0, Dtype::i32);
  EXPECT_EQ(t.dtype(), Dtype::i32);
  EXPECT_TRUE(all_equal(read(t), {1, -1, 2}));
  // torch.cumsum(torch.tensor([256., 1., 1.], dtype=torch.bfloat16), 0): [256., 256., 258.] (f32 sum, rounded)
  EXPECT_TRUE(all_equal(read(xd::cumsum(make({256, 1, 1}, {3}, Dtype::bf16), 0)), {256, 256, 258}));
  // torch.cumsum(torch.tensor(3.), 0): tensor(3.), 0-d
  const xd::Tensor s = xd::cumsum(make({3}, {}, Dtype::f32), -1);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_TRUE(all_equal(read(s), {3}));
  EXPECT_EQ(shape_of(xd::cumsum(make({}, {0, 4}, Dtype::f32), 1)), (Shape{0, 4}));
}

TEST(Cumsum, EveryDtypeAndDimAgainstTheDefinition) {
  const Shape s = {3, 5, 67};
  for (Dtype d : numeric_dtypes()) {
    const std::vector<double> x = random_values(static_cast<size_t>(numel_of(s)), -20, 20, d, 7);
    const xd::Tensor a = make(x, s, d);
    for (int dim = 0; dim < 3; ++dim) {
      const xd::Tensor out = xd::cumsum(a, dim, d);
      EXPECT_EQ(out.dtype(), d);
      EXPECT_TRUE(all_equal(read(out), cumsum_ref(x, s, dim, d))) << trace(d) << " dim " << dim;
    }
  }
}

TEST(Cumsum, StridedInputAndIntegerWrap) {
  // A transposed input: the sums follow the logical dim, not memory.
  const std::vector<double> x = random_values(12 * 7, -5, 5, Dtype::f64, 3);
  const xd::Tensor a = make(x, {12, 7}, Dtype::f64).transpose(0, 1);  // [7, 12]
  std::vector<double> xt(x.size());
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 12; ++j) xt[static_cast<size_t>(i * 12 + j)] = x[static_cast<size_t>(j * 7 + i)];
  EXPECT_TRUE(all_equal(read(xd::cumsum(a, 1)), cumsum_ref(xt, {7, 12}, 1, Dtype::f64)));
  // i64 wraps around as two's complement.
  const xd::Tensor big = make_i64({INT64_MAX, 1, 1}, {3});
  EXPECT_EQ(xd::cumsum(big, 0).to_vector<int64_t>(), (std::vector<int64_t>{INT64_MAX, INT64_MIN, INT64_MIN + 1}));
}

// ------------------------------------------------------------------ topk

// Row-major values and indices of topk by the definition: each row sorted with NaN largest, ties
// to the smaller index.
void topk_ref(const std::vector<double>& x, const Shape& s, int dim, int64_t k, bool largest, std::vector<double>& v,
              std::vector<double>& idx) {
  const Rows r = rows_of(s, dim);
  v.assign(static_cast<size_t>(r.outer * k * r.inner), 0);
  idx = v;
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t i = 0; i < r.inner; ++i) {
      auto val = [&](int64_t j) { return x[static_cast<size_t>((o * r.len + j) * r.inner + i)]; };
      std::vector<int64_t> order(static_cast<size_t>(r.len));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        const double a = val(p), b = val(q);
        if (std::isnan(a) || std::isnan(b))
          return largest ? (std::isnan(a) && !std::isnan(b)) : (!std::isnan(a) && std::isnan(b));
        return largest ? a > b : a < b;
      });
      for (int64_t t = 0; t < k; ++t) {
        const size_t at = static_cast<size_t>((o * k + t) * r.inner + i);
        v[at] = val(order[static_cast<size_t>(t)]);
        idx[at] = static_cast<double>(order[static_cast<size_t>(t)]);
      }
    }
}

TEST(Topk, TorchLiterals) {
  const xd::Tensor x = make({3, 1, kNaN, 2, -kInf, 0.5, kInf, -1, 7, -0.0}, {2, 5}, Dtype::f32);
  // torch.topk(x, 3, 1): values [[nan, 3, 2], [inf, 7, 0.5]], indices [[2, 0, 3], [1, 3, 0]]
  auto [v, i] = xd::topk(x, 3, 1);
  EXPECT_TRUE(all_equal(read(v), {kNaN, 3, 2, kInf, 7, 0.5}));
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 3, 1, 3, 0}));
  // largest=False: values [[-inf, 1, 2], [-1, -0, 0.5]], indices [[4, 1, 3], [2, 4, 0]]
  auto [vs, is] = xd::topk(x, 3, 1, false);
  EXPECT_TRUE(all_equal(read(vs), {-kInf, 1, 2, -1, 0, 0.5}));
  EXPECT_TRUE(std::signbit(read(vs)[4]));
  EXPECT_EQ(is.to_vector<int64_t>(), (std::vector<int64_t>{4, 1, 3, 2, 4, 0}));
  // torch.topk(x, 2, 0): values [[3, inf, nan, 7, -0], [0.5, 1, -1, 2, -inf]], indices [[0, 1, 0, 1, 1], [1, 0, 1, 0,
  // 0]]
  auto [v0, i0] = xd::topk(x, 2, 0);
  EXPECT_TRUE(all_equal(read(v0), {3, kInf, kNaN, 7, 0, 0.5, 1, -1, 2, -kInf}));
  EXPECT_EQ(i0.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 1, 1, 1, 0, 1, 0, 0}));
  // torch.topk(torch.tensor([5, -3, 120, -128, 7], dtype=torch.int8), 2): [120, 7], [2, 4]
  auto [vi, ii] = xd::topk(make({5, -3, 120, -128, 7}, {5}, Dtype::i8), 2);
  EXPECT_EQ(vi.dtype(), Dtype::i8);
  EXPECT_TRUE(all_equal(read(vi), {120, 7}));
  EXPECT_EQ(ii.to_vector<int64_t>(), (std::vector<int64_t>{2, 4}));
  // torch.topk(torch.tensor([5, 3, 250, 0, 7], dtype=torch.uint8), 2, largest=False): [0, 3], [3, 1]
  auto [vu, iu] = xd::topk(make({5, 3, 250, 0, 7}, {5}, Dtype::u8), 2, -1, false);
  EXPECT_TRUE(all_equal(read(vu), {0, 3}));
  EXPECT_EQ(iu.to_vector<int64_t>(), (std::vector<int64_t>{3, 1}));
  // torch.topk(torch.tensor(5.), 0) and (..., 1): tensor(5.), tensor(0): 0-d outputs either way
  for (int64_t k : {0, 1}) {
    auto [vz, iz] = xd::topk(make({5}, {}, Dtype::f32), k);
    EXPECT_EQ(vz.dim(), 0);
    EXPECT_EQ(iz.dim(), 0);
    EXPECT_TRUE(all_equal(read(vz), {5}));
    EXPECT_EQ(iz.to_vector<int64_t>(), (std::vector<int64_t>{0}));
  }
  auto [ve, ie] = xd::topk(x, 0, 1);
  EXPECT_EQ(shape_of(ve), (Shape{2, 0}));
  EXPECT_EQ(ie.dtype(), Dtype::i64);
}

TEST(Topk, EveryDtypeDimAndDirectionAgainstASort) {
  const Shape s = {4, 37, 5};
  for (Dtype d : numeric_dtypes()) {
    // Integers in a range narrower than the row: ties, which go to the smaller index.
    const std::vector<double> x = random_values(static_cast<size_t>(numel_of(s)), -30, 30, d, 11);
    const xd::Tensor a = make(x, s, d);
    for (int dim = 0; dim < 3; ++dim)
      for (bool largest : {true, false})
        for (int64_t k : {int64_t{0}, int64_t{1}, s[dim] / 2, s[dim]}) {
          std::vector<double> ev, ei;
          topk_ref(x, s, dim, k, largest, ev, ei);
          auto [v, i] = xd::topk(a, k, dim, largest, k % 2 == 0);
          EXPECT_TRUE(all_equal(read(v), ev)) << trace(d) << " dim " << dim << " k " << k << " largest " << largest;
          EXPECT_TRUE(all_equal(read(i), ei)) << trace(d) << " dim " << dim << " k " << k << " largest " << largest;
        }
  }
}

TEST(Topk, StridedInputAndLongRow) {
  const std::vector<double> x = random_values(3 * 5000, -1000, 1000, Dtype::f64, 5);
  const xd::Tensor a = make(x, {5000, 3}, Dtype::f64).transpose(0, 1);  // rows of 5000, stride 3
  std::vector<double> xt(x.size());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5000; ++j) xt[static_cast<size_t>(i * 5000 + j)] = x[static_cast<size_t>(j * 3 + i)];
  for (int64_t k : {int64_t{7}, int64_t{4999}}) {
    std::vector<double> ev, ei;
    topk_ref(xt, {3, 5000}, 1, k, false, ev, ei);
    auto [v, i] = xd::topk(a, k, 1, false);
    EXPECT_TRUE(all_equal(read(v), ev)) << "k " << k;
    EXPECT_TRUE(all_equal(read(i), ei)) << "k " << k;
  }
}

}  // namespace
