// The CPU backend's fast kernels (plugins/cpu/kernels/fast/) against its reference loops, each
// call run twice in one process: once as dispatch picks (the fast kernel, asserted by its call
// count) and once with the fast kernel disabled (the reference loop). Inputs are past the sizes
// under which the fast kernels leave work to the loops, and hold the values where vector code
// goes wrong: NaN, +-Inf, +-0, subnormals, values near f32's overflow, in f32, f16 and bf16.
// Under XD_CPU_KERNELS=reference (the cpu_kernels_test.reference CTest entry) there are no fast
// kernels; these tests then check that and skip.
#include <xd/backend.hpp>
#include <xd/error.hpp>
#include <xd/external.hpp>
#include <xd/runtime.hpp>

#include "test_util.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

using namespace xdt;
using xd::Dtype;
using xd::Tensor;

bool reference_only() {
  const char* v = std::getenv("XD_CPU_KERNELS");
  return v != nullptr && std::string(v) == "reference";
}

// Calls of a kernel over all the dtypes it is registered for.
uint64_t calls_of(const std::string& kernel) {
  uint64_t n = 0;
  for (const auto& k : xd::kernels())
    if (k.name == kernel) n += k.calls;
  return n;
}

// Values for n elements: ordinary ones in [-4, 4) with, when `special`, NaN, +-Inf, +-0,
// subnormals and +-3e38 sprinkled in (not in every row, so most rows stay finite).
std::vector<double> values(size_t n, Dtype d, bool special, uint32_t seed) {
  std::vector<double> v = random_values(n, -4, 4, d, seed);
  if (!special) return v;
  const double big = d == Dtype::f16 ? 60000.0 : 3e38;
  const double tiny = d == Dtype::f16 ? 3e-8 : (d == Dtype::bf16 ? 1e-39 : 1e-40);
  const double specials[] = {kNaN, kInf, -kInf, 0.0, -0.0, tiny, -tiny, big, -big};
  for (size_t i = 0; i < n; i += 997) v[i] = specials[(i / 997) % std::size(specials)];
  return v;
}

// Runs `op` as dispatch picks, expecting `fast` to run, then with `fast` disabled, and compares
// every output: NaN where the reference has NaN, equal infinities, the rest within `t`.
void expect_same(const std::string& fast, const std::function<std::vector<Tensor>()>& op, Tol t) {
  const uint64_t before = calls_of(fast);
  const std::vector<Tensor> got = op();
  ASSERT_GT(calls_of(fast), before) << fast << " did not run";
  ASSERT_TRUE(xd::set_kernel_enabled(fast, false));
  std::vector<Tensor> expected;
  try {
    expected = op();
  } catch (...) {
    xd::set_kernel_enabled(fast, true);
    throw;
  }
  xd::set_kernel_enabled(fast, true);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].dtype(), expected[i].dtype());
    EXPECT_TRUE(all_close(read(got[i]), read(expected[i]), t)) << fast << " output " << i;
  }
}

// rms_norm_backward(g, x) over rows of n, with x's rstd from rms_norm, through the fast kernel and
// the reference (the sums' order differs: 4x the dtype's rtol).
void expect_backward_same(const Tensor& g, const Tensor& x, const Tensor& w, int64_t n, Dtype d) {
  const auto [y, rstd] = xd::rms_norm(x, {n}, w, 1e-6);
  Tol bt = tol(d);
  bt.rtol *= 4;
  expect_same(
      "cpu.rms_norm_backward.fast",
      [&] {
        auto [dx, dw] = xd::rms_norm_backward(g, x, {n}, rstd, w);
        return std::vector<Tensor>{dx, dw};
      },
      bt);
}

class FastKernels : public ::testing::TestWithParam<Dtype> {
 protected:
  void SetUp() override {
    if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  }
  Dtype d() const { return GetParam(); }
  Tensor make_values(xd::IntList shape, bool special, uint32_t seed) const {
    size_t n = 1;
    for (const int64_t s : shape) n *= static_cast<size_t>(s);
    return make(values(n, d(), special, seed), shape, d());
  }
};

TEST_P(FastKernels, SoftmaxAndLogSoftmaxMatchTheReference) {
  for (const bool special : {false, true}) {
    const Tensor x = make_values({40, 1031}, special, 1);
    expect_same(
        "cpu.softmax.fast", [&] { return std::vector<Tensor>{xd::softmax(x, 1)}; }, tol(d()));
    expect_same(
        "cpu.log_softmax.fast", [&] { return std::vector<Tensor>{xd::log_softmax(x, -1)}; }, tol(d()));
  }
}

TEST_P(FastKernels, ASoftmaxRowWithANonFiniteMaximumIsNaN) {
  std::vector<double> v(2 * 8192, 1.0);
  v[3] = kInf;                                            // row 0: +Inf
  for (size_t i = 8192; i < v.size(); ++i) v[i] = -kInf;  // row 1: all -Inf
  const Tensor out = xd::softmax(make(v, {2, 8192}, d()), 1);
  for (const double y : read(out)) EXPECT_TRUE(std::isnan(y));
}

TEST_P(FastKernels, RmsNormForwardAndBackwardMatchTheReference) {
  for (const bool special : {false, true}) {
    const Tensor x = make_values({33, 1027}, special, 2);
    const Tensor g = make_values({33, 1027}, false, 3);
    const Tensor w = make(random_values(1027, 0.5, 1.5, d(), 4), {1027}, d());
    expect_same(
        "cpu.rms_norm.fast",
        [&] {
          auto [y, rstd] = xd::rms_norm(x, {1027}, w, 1e-6);
          return std::vector<Tensor>{y, rstd};
        },
        tol(d()));
    expect_backward_same(g, x, w, 1027, d());
  }
}

// layer_norm through the fast kernel and the reference: with weight and bias, one of them, none;
// two normalized dims; special values; and rows of a large offset with a small spread, whose
// variance a mean rounded to f32 would get wrong (the fast kernel splits the mean in two floats).
TEST_P(FastKernels, LayerNormMatchesTheReference) {
  const Tensor w = make(random_values(1027, 0.5, 1.5, d(), 40), {1027}, d());
  const Tensor b = make(random_values(1027, -1, 1, d(), 41), {1027}, d());
  auto outputs = [](const std::tuple<Tensor, Tensor, Tensor>& t) {
    return std::vector<Tensor>{std::get<0>(t), std::get<1>(t), std::get<2>(t)};
  };
  for (const bool special : {false, true}) {
    const Tensor x = make_values({33, 1027}, special, 42);
    expect_same(
        "cpu.layer_norm.fast", [&] { return outputs(xd::layer_norm(x, {1027}, w, b, 1e-5)); }, tol(d()));
    expect_same(
        "cpu.layer_norm.fast", [&] { return outputs(xd::layer_norm(x, {1027}, w, std::nullopt, 1e-5)); }, tol(d()));
    expect_same(
        "cpu.layer_norm.fast", [&] { return outputs(xd::layer_norm(x, {1027}, std::nullopt, b, 1e-3)); }, tol(d()));
    const Tensor x3 = make_values({5, 13, 79}, special, 43);
    expect_same(
        "cpu.layer_norm.fast",
        [&] {
          return outputs(xd::layer_norm(x3, {13, 79}));
        },
        tol(d()));
  }
  std::vector<double> offset = random_values(16 * 4096, -0.01, 0.01, Dtype::f64, 44);
  for (size_t i = 0; i < offset.size(); ++i) offset[i] += (i / 4096) % 2 ? 1000.0 : -3000.0;
  const Tensor xo = make(offset, {16, 4096}, d());
  const Tensor w4 = make(random_values(4096, 0.5, 1.5, d(), 45), {4096}, d());
  expect_same(
      "cpu.layer_norm.fast", [&] { return outputs(xd::layer_norm(xo, {4096}, w4)); }, tol(d()));
}

TEST_P(FastKernels, ReductionsMatchTheReferenceEvenWhenTheSumCancels) {
  for (const bool special : {false, true}) {
    const Tensor x = make_values({17, 4099}, special, 5);
    Tol t = tol(d());
    t.rtol *= 64;  // sums of 4099 terms
    t.atol *= 64;
    expect_same(
        "cpu.sum.fast", [&] { return std::vector<Tensor>{xd::sum(x, {1})}; }, t);
    expect_same(
        "cpu.mean.fast", [&] { return std::vector<Tensor>{xd::mean(x, {1})}; }, t);
    expect_same(
        "cpu.amax.fast", [&] { return std::vector<Tensor>{xd::amax(x, {1})}; }, Tol{0, 0});
    expect_same(
        "cpu.amin.fast", [&] { return std::vector<Tensor>{xd::amin(x, {1})}; }, Tol{0, 0});
  }
  // +-big beside small values: any order but the reference's loses different small terms; the
  // fast kernel sums such a row again in the reference's order, so the results are equal.
  if (d() == Dtype::f32) {
    std::vector<double> v = random_values(8192, -1, 1, Dtype::f32, 6);
    v[10] = 3e38;
    v[5000] = -3e38;
    const Tensor x = make(v, {1, 8192}, Dtype::f32);
    expect_same(
        "cpu.sum.fast", [&] { return std::vector<Tensor>{xd::sum(x, {1})}; }, Tol{0, 0});
  }
}

TEST_P(FastKernels, BinaryOpsMatchTheReferenceWithBroadcasting) {
  for (const bool special : {false, true}) {
    const Tensor a = make_values({65, 517}, special, 7);
    const Tensor b = make_values({65, 517}, special, 8);
    const Tensor row = make_values({517}, special, 9);
    const Tensor col = make_values({65, 1}, special, 10);
    expect_same(
        "cpu.add.fast", [&] { return std::vector<Tensor>{xd::add(a, b, -0.5)}; }, tol(d()));
    expect_same(
        "cpu.add.fast", [&] { return std::vector<Tensor>{xd::add(a, row)}; }, tol(d()));
    expect_same(
        "cpu.sub.fast", [&] { return std::vector<Tensor>{xd::sub(a, col, 2.0)}; }, tol(d()));
    expect_same(
        "cpu.mul.fast", [&] { return std::vector<Tensor>{xd::mul(a, b)}; }, tol(d()));
    // Division rounds once, as the reference: bit for bit, zeros and infinities in both operands.
    expect_same(
        "cpu.div.fast", [&] { return std::vector<Tensor>{xd::div(a, b)}; }, Tol{0, 0});
    expect_same(
        "cpu.div.fast", [&] { return std::vector<Tensor>{xd::div(a, row)}; }, Tol{0, 0});
  }
}

TEST_P(FastKernels, CopiesAndCastsMatchTheReferenceBitForBit) {
  const Tensor x = make_values({181, 191}, true, 11);
  for (const Dtype to : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
    if (to == d()) continue;  // to() of the same dtype is the tensor itself, no copy
    expect_same(
        "cpu.copy.fast", [&] { return std::vector<Tensor>{x.to(to)}; }, Tol{0, 0});
  }
  expect_same(
      "cpu.copy.fast", [&] { return std::vector<Tensor>{x.clone()}; }, Tol{0, 0});
}

// Same-dtype copies larger than the stream threshold (16 MiB) are split over the threads with
// non-temporal stores; every dtype's bits arrive unchanged, from a source that starts off any
// vector boundary and into a destination with an odd length (a head and a tail outside the
// vector loop).
TEST(FastKernelsCopy, LargeSameDtypeCopiesArriveBitForBit) {
  if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  const int64_t n = (int64_t{17} << 20) / 4 + 3;  // past 16 MiB in i32, a tail of 3 elements
  for (const Dtype d : {Dtype::i32, Dtype::f64, Dtype::i8, Dtype::f32}) {
    SCOPED_TRACE(trace(d));
    const int64_t len = d == Dtype::i8 ? 4 * n : n;  // i8 too past the threshold
    std::vector<double> v = random_values(static_cast<size_t>(len + 1), -100, 100, d, 21);
    if (d == Dtype::f32 || d == Dtype::f64)
      for (size_t i = 0; i < v.size(); i += 4099) v[i] = i % 2 ? kNaN : -kInf;
    const Tensor src = make(v, {len + 1}, d).slice(0, 1, len + 1);  // starts one element in
    const uint64_t before = calls_of("cpu.copy.fast");
    const Tensor out = src.contiguous().clone();
    EXPECT_GT(calls_of("cpu.copy.fast"), before);
    const std::vector<double> expected(v.begin() + 1, v.end());
    EXPECT_TRUE(all_equal(read(out), expected));
    // Into a destination that starts three elements in: the head before its first vector boundary.
    Tensor dst = make(std::vector<double>(static_cast<size_t>(len + 3), 7.0), {len + 3}, d);
    dst.slice(0, 3, len + 3).copy_(src);
    const std::vector<double> whole = read(dst);
    EXPECT_TRUE(all_equal(std::vector<double>(whole.begin(), whole.begin() + 3), std::vector<double>(3, 7.0)));
    EXPECT_TRUE(all_equal(std::vector<double>(whole.begin() + 3, whole.end()), expected));
  }
}

// The elementwise math against the reference's libm calls over the whole f32 range: NaN, +-Inf,
// +-0, subnormals, +-3e38 and values where exp overflows (x > 88.72) or underflows (x < -103),
// and a 16 MiB output, which is streamed.
TEST_P(FastKernels, ElementwiseMathMatchesTheReference) {
  std::vector<double> v = values(37 * 1031, d(), true, 16);
  const double edges[] = {88.5, 88.72, 88.8, 100.0, 150.0, -87.0, -103.5, -104.5, -150.0, 1e-3, -1e-3, 10.0, -10.0};
  for (size_t i = 0; i < std::size(edges); ++i) v[1 + 3 * i] = edges[i];
  const Tensor x = make(v, {37, 1031}, d());
  const Tensor big = make_values({d() == Dtype::f32 ? 1025 : 2049, 4099}, true, 17);
  for (const Tensor* t : {&x, &big}) {
    expect_same(
        "cpu.exp.fast", [&] { return std::vector<Tensor>{xd::exp(*t)}; }, tol(d()));
    expect_same(
        "cpu.sigmoid.fast", [&] { return std::vector<Tensor>{xd::sigmoid(*t)}; }, tol(d()));
    expect_same(
        "cpu.silu.fast", [&] { return std::vector<Tensor>{xd::silu(*t)}; }, tol(d()));
    expect_same(
        "cpu.tanh.fast", [&] { return std::vector<Tensor>{xd::tanh(*t)}; }, tol(d()));
    expect_same(
        "cpu.gelu.fast", [&] { return std::vector<Tensor>{xd::gelu(*t, xd::GeluApproximate::tanh)}; }, tol(d()));
    expect_same(
        "cpu.gelu.fast", [&] { return std::vector<Tensor>{xd::gelu(*t)}; }, tol(d()));
    expect_same(
        "cpu.log.fast", [&] { return std::vector<Tensor>{xd::log(*t)}; }, tol(d()));
    expect_same(
        "cpu.log.fast", [&] { return std::vector<Tensor>{xd::log(xd::abs(*t))}; }, tol(d()));
    expect_same(
        "cpu.sqrt.fast", [&] { return std::vector<Tensor>{xd::sqrt(*t)}; }, Tol{0, 0});
    expect_same(
        "cpu.rsqrt.fast", [&] { return std::vector<Tensor>{xd::rsqrt(*t)}; }, Tol{0, 0});
    expect_same(
        "cpu.relu.fast", [&] { return std::vector<Tensor>{xd::relu(*t)}; }, Tol{0, 0});
    expect_same(
        "cpu.neg.fast", [&] { return std::vector<Tensor>{xd::neg(*t)}; }, Tol{0, 0});
    expect_same(
        "cpu.abs.fast", [&] { return std::vector<Tensor>{xd::abs(*t)}; }, Tol{0, 0});
    // Each of pow's forms (x^2, x^3, x^4, sqrt, reciprocals, log-exp), odd and even integers on
    // negative x, zeros and infinities fixed up as libm gives them.
    for (const double p : {2.0, 3.0, 4.0, -1.0, -2.0, 0.5, -0.5, 1.5, -1.7, 0.0, 7.0, 100.0})
      expect_same(
          "cpu.pow.fast", [&] { return std::vector<Tensor>{xd::pow(*t, p)}; }, tol(d()));
  }
}

// Comparisons compare in f32 (NaN false but for ne, -0 == +0) and write bool bytes; the operands
// share values often enough (b copies a's every third element) for eq/le/ge to be true somewhere.
TEST_P(FastKernels, ComparisonsMatchTheReference) {
  std::vector<double> av = values(37 * 1031, d(), true, 20), bv = values(37 * 1031, d(), true, 21);
  for (size_t i = 0; i < av.size(); i += 3) bv[i] = av[i];
  bv[1] = -0.0;
  av[1] = 0.0;
  const Tensor a = make(av, {37, 1031}, d()), b = make(bv, {37, 1031}, d());
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  const std::pair<const char*, Fn> ops[] = {{"cpu.eq.fast", xd::eq}, {"cpu.ne.fast", xd::ne}, {"cpu.lt.fast", xd::lt},
                                            {"cpu.le.fast", xd::le}, {"cpu.gt.fast", xd::gt}, {"cpu.ge.fast", xd::ge}};
  for (const auto& [name, fn] : ops) {
    expect_same(
        name, [&, fn = fn] { return std::vector<Tensor>{fn(a, b)}; }, Tol{0, 0});
    EXPECT_EQ(fn(a, b).dtype(), Dtype::boolean);
  }
  EXPECT_EQ(read(xd::eq(a, b))[1], 1.0);  // -0 == +0
}

// where moves bits: NaN payloads and signs of zero arrive unchanged, for 1-, 2-, 4- and 8-byte
// elements (bool, bf16/f16, f32/i32, f64/i64), with a condition that changes every element.
TEST(FastKernelsWhere, SelectsEveryDtypesBitsAsTheReference) {
  if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  const int64_t n = 4099;
  std::vector<double> k(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) k[static_cast<size_t>(i)] = (i * 7919) % 3 == 0 ? 1.0 : 0.0;
  const Tensor cond = make(k, {n}, Dtype::boolean);
  for (const Dtype dt :
       {Dtype::boolean, Dtype::u8, Dtype::bf16, Dtype::f16, Dtype::f32, Dtype::i32, Dtype::f64, Dtype::i64}) {
    const Tensor a = make(values(static_cast<size_t>(n), dt == Dtype::f64 ? Dtype::f32 : dt, true, 22), {n}, dt);
    const Tensor b = make(values(static_cast<size_t>(n), dt == Dtype::f64 ? Dtype::f32 : dt, true, 23), {n}, dt);
    const uint64_t before = calls_of("cpu.where.fast");
    const Tensor got = xd::where(cond, a, b);
    EXPECT_GT(calls_of("cpu.where.fast"), before) << xd::dtype_name(dt);
    ASSERT_TRUE(xd::set_kernel_enabled("cpu.where.fast", false));
    const Tensor expected = xd::where(cond, a, b);
    xd::set_kernel_enabled("cpu.where.fast", true);
    const size_t bytes = got.nbytes();
    ASSERT_EQ(expected.nbytes(), bytes);
    xd::synchronize(got.device());
    std::vector<uint8_t> g(bytes), e(bytes);
    std::memcpy(g.data(), xd::data_ptr(got).ptr, bytes);
    std::memcpy(e.data(), xd::data_ptr(expected).ptr, bytes);
    EXPECT_EQ(g, e) << xd::dtype_name(dt);
  }
}

// Broadcast operands (stride 0 along the innermost dim, or along an outer one) are walked as the
// reference walks them: a scalar, a row and a column, in every position of where and of a
// comparison, with rows long enough for several chunks.
TEST_P(FastKernels, ComparisonsAndWhereTakeBroadcastOperands) {
  const int64_t m = 7, n = 5003;
  const Tensor a = make_values({m, n}, true, 24);
  const Tensor row = make_values({n}, true, 25);
  const Tensor col = make_values({m, 1}, true, 26);
  const Tensor scalar = make({0.25}, {}, d());
  std::vector<double> kv(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) kv[static_cast<size_t>(i)] = i % 2 == 0 ? 1.0 : 0.0;
  const Tensor kcol = make(kv, {m, 1}, Dtype::boolean);
  const Tensor k = xd::gt(a, scalar);
  for (const Tensor* b : {&row, &col, &scalar}) {
    expect_same(
        "cpu.lt.fast", [&] { return std::vector<Tensor>{xd::lt(a, *b)}; }, Tol{0, 0});
    expect_same(
        "cpu.ge.fast", [&] { return std::vector<Tensor>{xd::ge(*b, a)}; }, Tol{0, 0});
    expect_same(
        "cpu.where.fast", [&] { return std::vector<Tensor>{xd::where(k, a, *b)}; }, Tol{0, 0});
    expect_same(
        "cpu.where.fast", [&] { return std::vector<Tensor>{xd::where(kcol, *b, a)}; }, Tol{0, 0});
  }
  expect_same(
      "cpu.where.fast", [&] { return std::vector<Tensor>{xd::where(kcol, row, scalar)}; }, Tol{0, 0});
}

// relu(-0) is +0 and neg/abs flip or clear only the sign, as the reference's: bit for bit, which
// all_close (which takes -0 == +0) would not see.
TEST_P(FastKernels, ReluNegAndAbsKeepTheReferencesSignsOfZero) {
  std::vector<double> v(1024, -0.0);
  for (size_t i = 0; i < v.size(); i += 2) v[i] = 0.0;
  const Tensor x = make(v, {1024}, d());
  for (const double y : read(xd::relu(x))) EXPECT_FALSE(std::signbit(y));
  const std::vector<double> n = read(xd::neg(x)), a = read(xd::abs(x));
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(std::signbit(n[i]), !std::signbit(v[i])) << i;
    EXPECT_FALSE(std::signbit(a[i])) << i;
  }
}

// argmax takes rows in blocks of 2048 (kernels/fast/argmax_fast.cpp): the first index of the
// maximum even when a later block holds it again, the first NaN even when it is in a later block
// than a larger value, index 0 for a row of -Inf, the first of -0 and +0, exact i64 indices.
TEST_P(FastKernels, ArgmaxFindsTheFirstMaximumAcrossBlocks) {
  const int64_t n = 5000;
  std::vector<double> v = values(static_cast<size_t>(6 * n), d(), false, 18);
  auto at = [&](int64_t row, int64_t j) -> double& { return v[static_cast<size_t>(row * n + j)]; };
  at(0, 100) = 7.5;  // row 0: a tie in blocks 0 and 2
  at(0, 4500) = 7.5;
  at(1, 3000) = 7.5;  // row 1: the maximum in block 1, NaN in block 2
  at(1, 4999) = kNaN;
  at(1, 4998) = kNaN;
  for (int64_t j = 0; j < n; ++j) at(2, j) = -kInf;  // row 2: all -Inf
  for (int64_t j = 0; j < n; ++j) at(3, j) = j % 2 == 0 ? -5.0 : -6.0;
  at(3, 2100) = -0.0;  // row 3: -0 first, then +0
  at(3, 4000) = 0.0;
  at(4, 4097) = kInf;  // row 4: +Inf in block 2
  const Tensor x = make(v, {6, n}, d());
  expect_same(
      "cpu.argmax.fast", [&] { return std::vector<Tensor>{xd::argmax(x, 1, false)}; }, Tol{0, 0});
  const std::vector<double> got = read(xd::argmax(x, 1, false));
  EXPECT_EQ(got[0], 100);
  EXPECT_EQ(got[1], 4998);
  EXPECT_EQ(got[2], 0);
  EXPECT_EQ(got[3], 2100);
  EXPECT_EQ(got[4], 4097);
  for (const bool special : {false, true}) {
    const Tensor y = make_values({17, 4099}, special, 19);
    expect_same(
        "cpu.argmax.fast", [&] { return std::vector<Tensor>{xd::argmax(y, -1, true)}; }, Tol{0, 0});
  }
}

// Outputs of 16 MiB or more are written with non-temporal stores (fast/options.cpp), narrow ones
// straight from the vector loops; rows of an odd length start at every alignment, so the elements
// before each row's first aligned vector take the single-store path too.
// rms_norm_backward's fast sums are f32 (then double): where one overflows f32 (rows of gradients
// near 1e38, groups of rows of opposite sign for dw) the kernel redoes it in double, so dx and dw
// stay the reference's finite values rather than Inf or NaN.
TEST_P(FastKernels, RmsNormBackwardSumsThatOverflowF32MatchTheReference) {
  const int64_t rows = 40, n = 1027;
  const double big = d() == Dtype::f16 ? 30000.0 : 1e38;
  std::vector<double> gv(static_cast<size_t>(rows * n));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j)
      gv[static_cast<size_t>(i * n + j)] = i < 16 ? big : i < 32 ? -big : 0.25 * static_cast<double>(j % 7);
  const Tensor g = make(gv, {rows, n}, d());
  const Tensor x = make(std::vector<double>(static_cast<size_t>(rows * n), 1.0), {rows, n}, d());
  const Tensor w = make(random_values(static_cast<size_t>(n), 0.5, 1.5, d(), 16), {n}, d());
  expect_backward_same(g, x, w, n, d());
  const auto [y, rstd] = xd::rms_norm(x, {n}, w, 1e-6);
  auto [dx, dw] = xd::rms_norm_backward(g, x, {n}, rstd, w);
  for (const double v : read(dw)) EXPECT_TRUE(std::isfinite(v));
  for (const double v : read(dx)) EXPECT_FALSE(std::isnan(v));
}

TEST_P(FastKernels, OutputsLargerThanTheCachesAreStreamedAndMatchTheReference) {
  const int64_t rows = d() == Dtype::f32 ? 1025 : 2049, n = 4099;  // >= 16 MiB in each dtype
  const Tensor x = make_values({rows, n}, true, 12);
  const Tensor b = make_values({rows, n}, true, 13);
  const Tensor row = make_values({n}, false, 14);
  const Tensor w = make(random_values(static_cast<size_t>(n), 0.5, 1.5, d(), 15), {n}, d());
  expect_same(
      "cpu.add.fast", [&] { return std::vector<Tensor>{xd::add(x, row)}; }, tol(d()));
  expect_same(
      "cpu.mul.fast", [&] { return std::vector<Tensor>{xd::mul(x, b)}; }, tol(d()));
  expect_same(
      "cpu.softmax.fast", [&] { return std::vector<Tensor>{xd::softmax(x, 1)}; }, tol(d()));
  expect_same(
      "cpu.log_softmax.fast", [&] { return std::vector<Tensor>{xd::log_softmax(x, 1)}; }, tol(d()));
  expect_same(
      "cpu.rms_norm.fast",
      [&] {
        auto [y, rstd] = xd::rms_norm(x, {n}, w, 1e-6);
        return std::vector<Tensor>{y, rstd};
      },
      tol(d()));
  expect_backward_same(b, x, w, n, d());
  for (const Dtype to : {Dtype::f32, Dtype::f16, Dtype::bf16})
    if (to != d())
      expect_same(
          "cpu.copy.fast", [&] { return std::vector<Tensor>{x.to(to)}; }, Tol{0, 0});
}

// weight_int4_mm through the fast kernels (the packed one, and oneDNN's on dequantized blocks)
// and the reference: the same products (each weight dequantized with one rounding), summed in
// another order, so each output is judged against
// sum |x * w| of its row and column. Shapes cover tiles of 1 to 4 rows and a partial one, groups
// of 32 to 128, a column block and a partial one; x holds +-Inf and NaN in its special rows.
TEST_P(FastKernels, WeightInt4MmMatchesTheReference) {
  struct shape {
    int64_t m, k, n, g;
  };
  // From 16 rows on, oneDNN's kernel takes the call where the plugin has it (two blocks of 256
  // weight rows and a partial one below); the packed kernel otherwise.
  bool have_dnnl = false;  // builds without oneDNN register no such kernel
  for (const auto& k : xd::kernels()) have_dnnl = have_dnnl || k.name == "cpu.weight_int4_mm.dnnl";
  std::vector<std::string> in_front = {"cpu.weight_int4_mm.fast"};
  if (have_dnnl) in_front.push_back("cpu.weight_int4_mm.dnnl");
  for (const shape sh :
       {shape{1, 64, 7, 32}, shape{2, 256, 130, 64}, shape{3, 384, 1, 128}, shape{4, 128, 65, 32},
        shape{5, 256, 70, 128}, shape{9, 64, 131, 64}, shape{16, 128, 600, 32}, shape{21, 256, 17, 128}}) {
    const std::string kernel = sh.m >= 16 && have_dnnl ? "cpu.weight_int4_mm.dnnl" : "cpu.weight_int4_mm.fast";
    const int64_t groups = sh.k / sh.g;
    std::vector<double> xv = random_values(static_cast<size_t>(sh.m * sh.k), -1, 1, d(), 20);
    if (sh.m > 2) {
      xv[static_cast<size_t>(sh.k + 3)] = kInf;      // row 1
      xv[static_cast<size_t>(2 * sh.k + 5)] = kNaN;  // row 2
    }
    const std::vector<double> codes = random_values(static_cast<size_t>(sh.n * sh.k / 2), 0, 256, Dtype::u8, 21);
    const std::vector<double> sv = random_values(static_cast<size_t>(groups * sh.n), 0.01, 0.1, d(), 22);
    const std::vector<double> zv = random_values(static_cast<size_t>(groups * sh.n), 0, 16, Dtype::i8, 23);
    const Tensor x = make(xv, {sh.m, sh.k}, d());
    const Tensor wq = make(codes, {sh.n, sh.k / 2}, Dtype::u8);
    const Tensor sc = make(sv, {groups, sh.n}, d());
    const Tensor zp = make(zv, {groups, sh.n}, Dtype::i8);
    const std::vector<double> xr = read(x), sr = read(sc);
    std::vector<double> scale(static_cast<size_t>(sh.m * sh.n), 0.0);
    for (int64_t i = 0; i < sh.m; ++i)
      for (int64_t j = 0; j < sh.n; ++j)
        for (int64_t k = 0; k < sh.k; ++k) {
          const auto byte = static_cast<unsigned>(codes[static_cast<size_t>(j * sh.k / 2 + k / 2)]);
          const double q = k % 2 == 0 ? byte & 15u : byte >> 4;
          const size_t gz = static_cast<size_t>((k / sh.g) * sh.n + j);
          const double xa = std::fabs(xr[static_cast<size_t>(i * sh.k + k)]);
          if (std::isfinite(xa)) scale[static_cast<size_t>(i * sh.n + j)] += xa * std::fabs((q - zv[gz]) * sr[gz]);
        }
    const uint64_t before = calls_of(kernel);
    const Tensor got = xd::weight_int4_mm(x, wq, sc, zp, sh.g);
    ASSERT_GT(calls_of(kernel), before) << kernel << " did not run";
    for (const std::string& k : in_front) ASSERT_TRUE(xd::set_kernel_enabled(k, false));
    const Tensor expected = xd::weight_int4_mm(x, wq, sc, zp, sh.g);
    for (const std::string& k : in_front) ASSERT_TRUE(xd::set_kernel_enabled(k, true));
    Tol t = tol(d());
    t.rtol *= 4;
    EXPECT_TRUE(all_close(read(got), read(expected), t, scale))
        << "m " << sh.m << " k " << sh.k << " n " << sh.n << " g " << sh.g;
  }
}

// scaled_dot_product_attention through the fast kernel and the reference. Shapes: tiles of 4
// query rows and a partial one; head dims that are not multiples of a vector (and over 4 vectors,
// so the values run in two column blocks); causal with L < S, L = S and L > S (tiles that cross
// the last key); an additive mask per batch and one broadcast over rows and batches (stride 0);
// a bool mask with a row that masks every key (NaN); q, k and v as transposed views; decode (one
// query row a batch, the batches split over the threads).
TEST_P(FastKernels, AttentionMatchesTheReference) {
  struct shape {
    int64_t b, l, s, e, ev;
  };
  Tol t = tol(d());
  t.rtol *= 8;  // sums in another order, exp within 1 ulp, and scores of 70 products
  t.atol *= 8;
  int seed = 30;
  for (const shape sh : {shape{2, 9, 13, 8, 8}, shape{1, 7, 7, 70, 19}, shape{3, 18, 5, 16, 80},
                         shape{1, 5, 40, 33, 64}, shape{4, 1, 37, 16, 16}}) {
    const Tensor q = make_values({sh.b, sh.l, sh.e}, false, seed++);
    const Tensor k = make_values({sh.b, sh.s, sh.e}, false, seed++);
    const Tensor v = make_values({sh.b, sh.s, sh.ev}, false, seed++);
    const std::string where = "b " + std::to_string(sh.b) + " l " + std::to_string(sh.l) + " s " +
                              std::to_string(sh.s) + " e " + std::to_string(sh.e) + " ev " + std::to_string(sh.ev);
    for (const bool causal : {false, true})
      expect_same(
          "cpu.scaled_dot_product_attention.fast",
          [&] { return std::vector<Tensor>{xd::scaled_dot_product_attention(q, k, v, std::nullopt, causal)}; }, t);
    const Tensor mask = make_values({sh.b, sh.l, sh.s}, false, seed++);
    const Tensor row_mask = make_values({1, 1, sh.s}, false, seed++).expand({sh.b, sh.l, sh.s});
    for (const Tensor& m : {mask, row_mask})
      expect_same(
          "cpu.scaled_dot_product_attention.fast",
          [&] { return std::vector<Tensor>{xd::scaled_dot_product_attention(q, k, v, m, false, 0.3)}; }, t);
    // Transposed views: q, k and v's rows strided, their elements not.
    const Tensor qt = make_values({sh.b, sh.e, sh.l}, false, seed++).transpose(1, 2);
    const Tensor kt = make_values({sh.b, sh.e, sh.s}, false, seed++).transpose(1, 2);
    const Tensor vt = make_values({sh.b, sh.ev, sh.s}, false, seed++).transpose(1, 2);
    expect_same(
        "cpu.scaled_dot_product_attention.fast",
        [&] { return std::vector<Tensor>{xd::scaled_dot_product_attention(qt, kt, vt, std::nullopt, true)}; }, t);
    SCOPED_TRACE(where);
  }
  // Special values: NaN and +-Inf in q, k and v, a bool mask with one row all false (NaN out).
  const Tensor q = make_values({2, 6, 24}, true, 50);
  const Tensor k = make_values({2, 11, 24}, true, 51);
  const Tensor v = make_values({2, 11, 17}, true, 52);
  std::vector<double> keep(2 * 6 * 11, 1.0);
  for (size_t j = 0; j < 11; ++j) keep[3 * 11 + j] = 0.0;  // batch 0, row 3
  for (size_t j = 0; j < keep.size(); j += 5) keep[j] = 0.0;
  const Tensor bool_mask = make(keep, {2, 6, 11}, Dtype::boolean);
  expect_same(
      "cpu.scaled_dot_product_attention.fast",
      [&] { return std::vector<Tensor>{xd::scaled_dot_product_attention(q, k, v, bool_mask)}; }, t);
  expect_same(
      "cpu.scaled_dot_product_attention.fast",
      [&] { return std::vector<Tensor>{xd::scaled_dot_product_attention(q, k, v, std::nullopt, true)}; }, t);
  // Causal rows never reach a later key, whatever it holds: NaN and Inf in the last keys' values.
  std::vector<double> late = random_values(9 * 21, -1, 1, d(), 56);
  for (size_t c = 0; c < 21; ++c) late[8 * 21 + c] = c % 2 ? kNaN : kInf;
  for (size_t c = 0; c < 21; ++c) late[5 * 21 + c] = kNaN;
  const Tensor vl = make(late, {1, 9, 21}, d());
  const Tensor ql = make_values({1, 9, 12}, false, 57), kl = make_values({1, 9, 12}, false, 58);
  expect_same(
      "cpu.scaled_dot_product_attention.fast",
      [&] { return std::vector<Tensor>{xd::scaled_dot_product_attention(ql, kl, vl, std::nullopt, true)}; }, t);
  const std::vector<double> early = read(xd::scaled_dot_product_attention(ql, kl, vl, std::nullopt, true));
  for (size_t i = 0; i < 5 * 21; ++i) EXPECT_TRUE(std::isfinite(early[i])) << "row " << i / 21 << " saw a later key";
  const Tensor out =
      xd::scaled_dot_product_attention(make_values({2, 6, 24}, false, 53), make_values({2, 11, 24}, false, 54),
                                       make_values({2, 11, 17}, false, 55), bool_mask);
  const std::vector<double> o = read(out);
  for (size_t c = 0; c < 17; ++c) EXPECT_TRUE(std::isnan(o[3 * 17 + c])) << "a row with every key masked is NaN";
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FastKernels, ::testing::Values(Dtype::f32, Dtype::f16, Dtype::bf16),
                         [](const auto& info) { return std::string(xd::dtype_name(info.param)); });

// ------------------------------------------------------------------------------------------------

// With the reference loop disabled, the fast kernel alone says why it does not take a call.
void expect_declines(const std::string& reference, const std::function<void()>& op, const std::string& reason) {
  ASSERT_TRUE(xd::set_kernel_enabled(reference, false));
  try {
    op();
    ADD_FAILURE() << "expected NotImplementedError";
  } catch (const xd::NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
  xd::set_kernel_enabled(reference, true);
}

TEST(FastKernelsDecline, LayoutsTheyDoNotTakeWithAReason) {
  if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  const Tensor x = make(random_values(300 * 200, -1, 1, Dtype::f32, 12), {300, 200}, Dtype::f32);
  const Tensor xt = x.t();
  expect_declines(
      "cpu.softmax", [&] { (void)xd::softmax(xt, 1); },
      "cpu.softmax.fast: takes rows contiguous along dim; strided rows run the reference loop");
  expect_declines(
      "cpu.sum", [&] { (void)xd::sum(x, {0}); }, "cpu.sum.fast: takes reduced dims that are one contiguous run");
  expect_declines(
      "cpu.exp", [&] { (void)xd::exp(xt); },
      "cpu.exp.fast: takes dense tensors; strided or broadcast ones run the reference loop");
  expect_declines(
      "cpu.lt",
      [&] {
        (void)xd::lt(x, make(random_values(300 * 200, -1, 1, Dtype::f32, 13), {200, 300}, Dtype::f32).t());
      },
      "cpu.lt.fast: takes operands unit-stride along the innermost dim, or broadcast along it; others run the "
      "reference "
      "loop");
  expect_declines(
      "cpu.pow", [&] { (void)xd::pow(x, kInf); }, "cpu.pow.fast: a non-finite exponent runs the reference loop");
  expect_declines(
      "cpu.argmax", [&] { (void)xd::argmax(x, 0, false); },
      "cpu.argmax.fast: takes a dim of contiguous elements; a strided one runs the reference loop");
  expect_declines(
      "cpu.silu", [&] { (void)xd::silu(make(random_values(255, -1, 1, Dtype::f32, 14), {255}, Dtype::f32)); },
      "cpu.silu.fast: tensors under 256 elements run the reference loop");
}

// Small binary ops and copies are taken by the fast kernel and handed to the reference loop's
// code inline (a decline would cost the small-op call a second candidate): with the reference
// kernel disabled they still compute the reference's result.
// Binary ops and copies have no check(): what their vectors do not take (a transposed operand
// here) is handed to the reference loop's code inline, with the same result.
TEST(FastKernelsDecline, BinaryOpsHandOtherLayoutsToTheReferenceLoop) {
  if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  const Tensor x = make(random_values(300 * 200, -1, 1, Dtype::f32, 12), {300, 200}, Dtype::f32);
  const Tensor y = make(random_values(300 * 200, -1, 1, Dtype::f32, 13), {200, 300}, Dtype::f32).t();
  expect_same(
      "cpu.add.fast", [&] { return std::vector<Tensor>{xd::add(x, y)}; }, Tol{0, 0});
  expect_same(
      "cpu.copy.fast", [&] { return std::vector<Tensor>{y.contiguous()}; }, Tol{0, 0});
}

// a + alpha*b rounds the product, then the sum, as the reference loop does: a compiler that
// fuses the two into one fma (GCC's default on targets with FMA, which the vector code has) gives
// other last bits for most elements of an alpha that is not a power of two.
TEST(FastKernelsArithmetic, AddAndSubWithAlphaRoundTwiceAsTheReferenceDoes) {
  if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  const Tensor a = make(random_values(64 * 1024, -4, 4, Dtype::f32, 21), {64, 1024}, Dtype::f32);
  const Tensor b = make(random_values(64 * 1024, -4, 4, Dtype::f32, 22), {64, 1024}, Dtype::f32);
  expect_same(
      "cpu.add.fast", [&] { return std::vector<Tensor>{xd::add(a, b, 0.1)}; }, Tol{0, 0});
  expect_same(
      "cpu.sub.fast", [&] { return std::vector<Tensor>{xd::sub(a, b, 1.7)}; }, Tol{0, 0});
}

TEST(FastKernelsDecline, SmallTensorsRunTheReferenceLoopInline) {
  if (reference_only()) GTEST_SKIP() << "XD_CPU_KERNELS=reference: no fast kernels";
  const Tensor a = make({1.0, -2.5}, {2}, Dtype::f32), b = make({2.0, kInf}, {2}, Dtype::f32);
  ASSERT_TRUE(xd::set_kernel_enabled("cpu.add", false));
  ASSERT_TRUE(xd::set_kernel_enabled("cpu.copy", false));
  const uint64_t before = calls_of("cpu.add.fast");
  const std::vector<double> sum = read(xd::add(a, b, 0.5));
  const std::vector<double> copy = read(a.to(Dtype::bf16));
  xd::set_kernel_enabled("cpu.add", true);
  xd::set_kernel_enabled("cpu.copy", true);
  EXPECT_EQ(calls_of("cpu.add.fast"), before + 1);
  EXPECT_EQ(sum, (std::vector<double>{2.0, kInf}));
  EXPECT_EQ(copy, (std::vector<double>{1.0, -2.5}));
}

TEST(FastKernelsOption, ReferenceRegistersNoFastKernel) {
  if (!reference_only()) GTEST_SKIP() << "run with XD_CPU_KERNELS=reference (cpu_kernels_test.reference)";
  for (const auto& k : xd::kernels()) EXPECT_EQ(k.name.find(".fast"), std::string::npos) << k.name;
}

}  // namespace
