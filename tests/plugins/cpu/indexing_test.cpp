// index_select and embedding on the CPU backend, against values torch 1.13 printed for the same
// inputs (literals below) and against a reference computed here by index arithmetic on the
// row-major values of the input (read through the copy path, not index_select). Every dtype,
// each dim of a 3-d tensor, repeated, unsorted and empty indices, i32 and strided indices,
// transposed, sliced and expanded inputs, 0-d tensors. Bad arguments are in
// tests/unit/bad_inputs_test.cpp.
#include "test_util.hpp"

#include <cmath>
#include <cstring>
#include <random>

namespace {

using namespace xdt;
using xd::Dtype;

const std::vector<Dtype> kEveryDtype = {Dtype::f64,     Dtype::f32,      Dtype::f16,   Dtype::bf16,
                                        Dtype::i8,      Dtype::u8,       Dtype::i32,   Dtype::i64,
                                        Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2};

xd::Tensor arange6() { return make({0, 1, 2, 3, 4, 5}, {2, 3}, Dtype::f32); }

// out[.., i, ..] = in[.., index[i], ..] for row-major `in` of shape `sizes`: the definition, by
// hand. Returns the row-major values of the result.
std::vector<double> select_ref(const std::vector<double>& in, const Shape& sizes, int dim,
                               const std::vector<int64_t>& index) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= sizes[d];
  for (size_t d = dim + 1; d < sizes.size(); ++d) inner *= sizes[d];
  const int64_t len = sizes[dim];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : index)
      for (int64_t i = 0; i < inner; ++i) out.push_back(in[static_cast<size_t>((o * len + j) * inner + i)]);
  return out;
}

std::vector<int64_t> random_index(size_t n, int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0, size - 1);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

Shape shape_of(const xd::Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end()); }

// ------------------------------------------------------------------ torch literals

TEST(IndexSelect, TorchLiterals) {
  // torch.index_select(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0, 0, 2], dtype=torch.int32))
  const xd::Tensor cols = xd::index_select(arange6(), 1, xd::tensor(std::vector<int32_t>{0, 0, 2}, {3}, dev()));
  EXPECT_EQ(shape_of(cols), (Shape{2, 3}));
  EXPECT_TRUE(all_equal(read(cols), {0, 0, 2, 3, 3, 5}));
  // ... 0, torch.tensor(1)): a 0-d index gives a dim of size 1, torch.Size([1, 3])
  const xd::Tensor row = xd::index_select(arange6(), 0, make_i64({1}, {}));
  EXPECT_EQ(shape_of(row), (Shape{1, 3}));
  EXPECT_TRUE(all_equal(read(row), {3, 4, 5}));
  // ... -1, empty index): torch.Size([2, 0])
  EXPECT_EQ(shape_of(xd::index_select(arange6(), -1, make_i64({}, {0}))), (Shape{2, 0}));
  // torch.index_select(torch.zeros(0, 3), 0, empty): torch.Size([0, 3])
  EXPECT_EQ(shape_of(xd::index_select(make({}, {0, 3}, Dtype::f32), 0, make_i64({}, {0}))), (Shape{0, 3}));
  // torch.index_select(torch.tensor(5.), 0, torch.tensor(0)): tensor(5.), 0-d
  const xd::Tensor s = xd::index_select(make({5}, {}, Dtype::f32), 0, make_i64({0}, {}));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(read(s), std::vector<double>{5});
  // bool [[F, T, T], [T, T, T]] at columns [2, 0]: torch prints [[True, False], [True, True]]
  const xd::Tensor b = xd::index_select(make({0, 1, 1, 1, 1, 1}, {2, 3}, Dtype::boolean), 1, make_i64({2, 0}, {2}));
  EXPECT_TRUE(all_equal(read(b), {1, 0, 1, 1}));
}

// ------------------------------------------------------------------ against the definition

TEST(IndexSelect, EveryDtypeEveryDimRepeatedIndices) {
  const Shape sizes = {4, 5, 6};
  uint32_t seed = 10;
  for (Dtype d : kEveryDtype) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor t = make(random_values(120, -100, 100, d, ++seed), {4, 5, 6}, d);
    const std::vector<double> in = read(t);
    for (int dim = 0; dim < 3; ++dim) {
      SCOPED_TRACE(dim);
      const auto idx = random_index(9, sizes[dim], ++seed);  // 9 draws: repeats and any order
      Shape out_sizes = sizes;
      out_sizes[dim] = 9;
      const xd::Tensor out = xd::index_select(t, dim - 3, make_i64(idx, {9}));  // negative dims
      EXPECT_EQ(out.dtype(), d);
      EXPECT_EQ(shape_of(out), out_sizes);
      EXPECT_TRUE(all_equal(read(out), select_ref(in, sizes, dim, idx)));
      std::vector<int32_t> idx32(idx.begin(), idx.end());
      EXPECT_TRUE(
          all_equal(read(xd::index_select(t, dim, xd::tensor(idx32, {9}, dev()))), select_ref(in, sizes, dim, idx)));
    }
  }
}

TEST(IndexSelect, StridedInputsAndIndex) {
  uint32_t seed = 50;
  for (Dtype d : {Dtype::f32, Dtype::bf16, Dtype::i64, Dtype::u8}) {
    SCOPED_TRACE(trace(d));
    const auto in = random_values(9 * 14, -50, 50, d, ++seed);
    const xd::Tensor t = make(in, {9, 14}, d);
    for (const xd::Tensor& v :
         {t.t(), t.slice(0, 1, 9, 2), t.slice(1, 3, 14, 3), make({7}, {1, 1}, d).expand({3, 5})}) {
      const Shape vs = shape_of(v);
      const std::vector<double> logical = read(v.contiguous());
      for (int dim = 0; dim < 2; ++dim) {
        SCOPED_TRACE(dim);
        // A strided index: every second entry of a longer one.
        const auto long_idx = random_index(12, vs[dim], ++seed);
        const xd::Tensor idx = make_i64(long_idx, {12}).slice(0, 1, 12, 2);
        std::vector<int64_t> used;
        for (size_t i = 1; i < 12; i += 2) used.push_back(long_idx[i]);
        EXPECT_TRUE(all_equal(read(xd::index_select(v, dim, idx)), select_ref(logical, vs, dim, used)));
      }
    }
  }
}

TEST(IndexSelect, SpecialValuesMoveBitForBit) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {std::numeric_limits<float>::quiet_NaN(), -0.0f, inf, -inf, 1e-45f, 3.5f};
  uint32_t payload = 0x7fc01234u;  // a NaN with a payload
  float nan_payload;
  std::memcpy(&nan_payload, &payload, 4);
  std::vector<float> v = in;
  v[0] = nan_payload;
  const xd::Tensor out = xd::index_select(xd::tensor(v, {6}, dev()), 0, make_i64({0, 1, 4, 0}, {4}));
  const std::vector<float> got = out.to_vector<float>();
  uint32_t bits;
  std::memcpy(&bits, &got[0], 4);
  EXPECT_EQ(bits, payload);
  std::memcpy(&bits, &got[3], 4);
  EXPECT_EQ(bits, payload);
  EXPECT_TRUE(got[1] == 0 && std::signbit(got[1]));
  EXPECT_EQ(got[2], 1e-45f);  // a subnormal, not flushed
}

TEST(IndexSelect, EmptyIndexOrEmptySelf) {
  for (Dtype d : kEveryDtype) {
    SCOPED_TRACE(trace(d));
    EXPECT_EQ(shape_of(xd::index_select(make({}, {0, 7}, d), 1, make_i64({6, 0}, {2}))), (Shape{0, 2}));
    EXPECT_EQ(shape_of(xd::index_select(make({1, 2, 3}, {3}, d), 0, make_i64({}, {0}))), (Shape{0}));
  }
}

// ------------------------------------------------------------------ embedding

TEST(Embedding, RowsOfWeightInTheIndicesShape) {
  uint32_t seed = 80;
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::f64}) {
    SCOPED_TRACE(trace(d));
    const auto w = read(make(random_values(5 * 3, -2, 2, d, ++seed), {5, 3}, d));
    const xd::Tensor weight = make(w, {5, 3}, d);
    const std::vector<int64_t> idx = {0, 4, 4, 1, 2, 0};
    const xd::Tensor out = xd::embedding(weight, make_i64(idx, {2, 3}));
    EXPECT_EQ(shape_of(out), (Shape{2, 3, 3}));
    EXPECT_TRUE(all_equal(read(out), select_ref(w, {5, 3}, 0, idx)));
    std::vector<int32_t> idx32(idx.begin(), idx.end());
    EXPECT_TRUE(
        all_equal(read(xd::embedding(weight, xd::tensor(idx32, {3, 2}, dev()), 4)), select_ref(w, {5, 3}, 0, idx)));
    // torch.nn.functional.embedding(torch.tensor(2), w): torch.Size([3])
    const xd::Tensor one = xd::embedding(weight, make_i64({2}, {}), -5);
    EXPECT_EQ(shape_of(one), (Shape{3}));
    EXPECT_TRUE(all_equal(read(one), {w[6], w[7], w[8]}));
    EXPECT_EQ(shape_of(xd::embedding(weight, make_i64({}, {0, 4}))), (Shape{0, 4, 3}));
    // A transposed weight and indices.
    const xd::Tensor wt = make(w, {3, 5}, d).t();
    std::vector<double> wt_rows;
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t c = 0; c < 3; ++c) wt_rows.push_back(w[static_cast<size_t>(c * 5 + r)]);
    EXPECT_TRUE(all_equal(read(xd::embedding(wt, make_i64(idx, {3, 2}).t())),
                          select_ref(wt_rows, {5, 3}, 0, {0, 4, 2, 4, 1, 0})));
  }
}

// ------------------------------------------------------------------ gather

TEST(Gather, TorchLiterals) {
  // torch.gather(torch.arange(6.).reshape(2, 3), 1, torch.tensor([[2, 0], [1, 1]])): [[2, 0], [4, 4]]
  const xd::Tensor cols = xd::gather(arange6(), 1, make_i64({2, 0, 1, 1}, {2, 2}));
  EXPECT_EQ(shape_of(cols), (Shape{2, 2}));
  EXPECT_TRUE(all_equal(read(cols), {2, 0, 4, 4}));
  // ... 0, torch.tensor([[1, 0, 1], [0, 0, 0], [1, 1, 1]])): more rows than self, torch.Size([3, 3])
  const xd::Tensor rows = xd::gather(arange6(), 0, make_i64({1, 0, 1, 0, 0, 0, 1, 1, 1}, {3, 3}));
  EXPECT_TRUE(all_equal(read(rows), {3, 1, 5, 0, 1, 2, 3, 4, 5}));
  // torch.gather(torch.tensor(5.), 0, torch.tensor(0)): tensor(5.); with torch.tensor([0]): tensor([5.])
  EXPECT_EQ(xd::gather(make({5}, {}, Dtype::f32), 0, make_i64({0}, {})).dim(), 0);
  EXPECT_EQ(shape_of(xd::gather(make({5}, {}, Dtype::f32), 0, make_i64({0}, {1}))), (Shape{1}));
  // An empty index: torch.Size([2, 0])
  EXPECT_EQ(shape_of(xd::gather(arange6(), 1, make_i64({}, {2, 0}))), (Shape{2, 0}));
}

TEST(Gather, EveryDtypeEveryDimAgainstTheDefinition) {
  const Shape sizes = {4, 5, 6};
  uint32_t seed = 40;
  for (Dtype d : kEveryDtype) {
    SCOPED_TRACE(trace(d));
    const std::vector<double> v = random_values(120, -100, 100, d, ++seed);
    const xd::Tensor t = make(v, {4, 5, 6}, d);
    for (int dim = 0; dim < 3; ++dim) {
      Shape ishape = {3, 4, 5};              // smaller than self outside dim ...
      ishape[static_cast<size_t>(dim)] = 9;  // ... and larger along it
      const int64_t n = numel_of(ishape);
      const std::vector<int64_t> idx = random_index(static_cast<size_t>(n), sizes[static_cast<size_t>(dim)], ++seed);
      std::vector<double> expected;
      for (int64_t f = 0; f < n; ++f) {
        Shape p = unravel(f, ishape);
        p[static_cast<size_t>(dim)] = idx[static_cast<size_t>(f)];
        expected.push_back(v[static_cast<size_t>((p[0] * 5 + p[1]) * 6 + p[2])]);
      }
      const xd::Tensor out = xd::gather(t, dim - 3, make_i64(idx, ishape));
      EXPECT_EQ(shape_of(out), ishape);
      EXPECT_TRUE(all_equal(read(out), expected)) << "dim " << dim;
      // The same through a transposed self and a transposed i32 index.
      const xd::Tensor tt = make(v, {4, 5, 6}, d).transpose(0, 2).contiguous().transpose(0, 2);
      std::vector<int32_t> idx32(idx.begin(), idx.end());
      Shape rev = {ishape[2], ishape[1], ishape[0]};
      std::vector<int32_t> idx32_t(idx32.size());
      for (int64_t f = 0; f < n; ++f) {
        const Shape p = unravel(f, ishape);
        idx32_t[static_cast<size_t>((p[2] * ishape[1] + p[1]) * ishape[0] + p[0])] = idx32[static_cast<size_t>(f)];
      }
      const xd::Tensor it = xd::tensor(idx32_t, rev, dev()).transpose(0, 2);
      EXPECT_FALSE(tt.is_contiguous());
      EXPECT_TRUE(all_equal(read(xd::gather(tt, dim, it)), expected)) << "strided, dim " << dim;
    }
  }
}

}  // namespace
