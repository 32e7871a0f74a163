// Pointwise ops on the opencl device against the CPU reference: unary, binary (with alpha and
// broadcasting), comparisons, where, fill and arange, for every dtype the reference registers,
// over contiguous, transposed, sliced, broadcast, empty, size-1 and odd shapes.
#include "test_util.hpp"

namespace {

using namespace xdo;

// Layout variants of one input: contiguous, a transposed view, a strided slice, and the
// shapes that have no interior (empty, one element).
std::vector<std::pair<std::string, std::function<Tensor(Dtype, uint32_t)>>> layouts() {
  return {
      {"contiguous 3x5x17", [](Dtype d, uint32_t s) { return random_tensor({3, 5, 17}, d, s); }},
      {"transposed 13x6", [](Dtype d, uint32_t s) { return random_tensor({6, 13}, d, s).t(); }},
      {"sliced 4x9 step 2", [](Dtype d, uint32_t s) { return random_tensor({4, 19}, d, s).slice(1, 1, 19, 2); }},
      {"empty 0x5", [](Dtype d, uint32_t s) { return random_tensor({0, 5}, d, s); }},
      {"one element", [](Dtype d, uint32_t s) { return random_tensor({1, 1}, d, s); }},
      {"odd 1031", [](Dtype d, uint32_t s) { return random_tensor({1031}, d, s); }},
  };
}

// Values every floating op must get right: signed zeros, infinities, NaN, tiny and large values.
Tensor special_values(Dtype d) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {0.0, -0.0, 1.0, -1.0, inf, -inf, std::nan(""), 1e-6, -1e-6, 3.5, -7.25, 60000.0};
  return make(v, {static_cast<int64_t>(v.size())}, d);
}

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> fn;
  bool exact;  // correctly rounded: must agree bit for bit
};

// gelu's 1 + erf(x) cancels for negative x, so one unit of erf's last place becomes a larger
// relative error of the result: judged against the size of x instead.
Tol tol_for(const UnaryCase& u, Dtype d) {
  if (u.exact) return kExact;
  Tol t = math_tol(d);
  if (std::string(u.name).rfind("gelu", 0) == 0) t.atol = d == Dtype::f64 ? 1e-14 : d == Dtype::f32 ? 5e-7 : 1e-4;
  return t;
}

std::vector<UnaryCase> float_unary() {
  return {{"exp", [](const Tensor& x) { return xd::exp(x); }, false},
          {"log", [](const Tensor& x) { return xd::log(xd::abs(x)); }, false},
          {"sqrt", [](const Tensor& x) { return xd::sqrt(x); }, true},
          {"rsqrt", [](const Tensor& x) { return xd::rsqrt(x); }, true},
          {"gelu", [](const Tensor& x) { return xd::gelu(x); }, false},
          {"gelu_tanh", [](const Tensor& x) { return xd::gelu(x, xd::GeluApproximate::tanh); }, false},
          {"silu", [](const Tensor& x) { return xd::silu(x); }, false},
          {"sigmoid", [](const Tensor& x) { return xd::sigmoid(x); }, false},
          {"tanh", [](const Tensor& x) { return xd::tanh(x); }, false},
          {"pow 2.5", [](const Tensor& x) { return xd::pow(x, 2.5); }, false},
          {"pow -1", [](const Tensor& x) { return xd::pow(x, -1.0); }, false}};
}

std::vector<UnaryCase> numeric_unary() {
  return {{"neg", [](const Tensor& x) { return xd::neg(x); }, true},
          {"abs", [](const Tensor& x) { return xd::abs(x); }, true},
          {"relu", [](const Tensor& x) { return xd::relu(x); }, true}};
}

TEST(OpenclPointwise, NumericUnaryOpsMatchTheCpuOnEveryLayout) {
  for (Dtype d : usable(numeric_dtypes()))
    for (const auto& [layout, make_input] : layouts())
      for (const auto& u : numeric_unary())
        EXPECT_TRUE(same_as_cpu({make_input(d, 7)}, [&](const auto& in) { return u.fn(in[0]); }, kExact))
            << u.name << " " << name_of(d) << " " << layout;
}

TEST(OpenclPointwise, IntegerNegAndAbsWrapAtTheMinimum) {
  for (Dtype d : {Dtype::i8, Dtype::i32, Dtype::i64}) {
    const double lo = d == Dtype::i8 ? -128 : d == Dtype::i32 ? -2147483648.0 : -9223372036854775808.0;
    const Tensor x = make({lo, -1, 0, 5}, {4}, d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::neg(in[0]); }, kExact)) << name_of(d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::abs(in[0]); }, kExact)) << name_of(d);
  }
}

TEST(OpenclPointwise, FloatingUnaryOpsMatchTheCpuOnEveryLayout) {
  for (Dtype d : usable(float_dtypes()))
    for (const auto& [layout, make_input] : layouts())
      for (const auto& u : float_unary())
        EXPECT_TRUE(same_as_cpu({make_input(d, 11)}, [&](const auto& in) { return u.fn(in[0]); },
                                tol_for(u, d)))
            << u.name << " " << name_of(d) << " " << layout;
}

TEST(OpenclPointwise, FloatingOpsHandleNanInfinityAndSignedZero) {
  for (Dtype d : usable(float_dtypes())) {
    const Tensor x = special_values(d);
    for (const auto& u : numeric_unary())
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return u.fn(in[0]); }, kExact)) << u.name << " " << name_of(d);
    for (const auto& u : float_unary())
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return u.fn(in[0]); }, tol_for(u, d)))
          << u.name << " " << name_of(d);
  }
}

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
};

std::vector<BinaryCase> binary_ops(Dtype d) {
  std::vector<BinaryCase> ops = {{"add", [](const Tensor& a, const Tensor& b) { return xd::add(a, b); }},
                                 {"add alpha 3", [](const Tensor& a, const Tensor& b) { return xd::add(a, b, 3); }},
                                 {"sub alpha 2", [](const Tensor& a, const Tensor& b) { return xd::sub(a, b, 2); }},
                                 {"mul", [](const Tensor& a, const Tensor& b) { return xd::mul(a, b); }},
                                 {"eq", [](const Tensor& a, const Tensor& b) { return xd::eq(a, b); }},
                                 {"lt", [](const Tensor& a, const Tensor& b) { return xd::lt(a, b); }},
                                 {"gt", [](const Tensor& a, const Tensor& b) { return xd::gt(a, b); }},
                                 {"ne", [](const Tensor& a, const Tensor& b) { return xd::ne(a, b); }},
                                 {"ge", [](const Tensor& a, const Tensor& b) { return xd::ge(a, b); }},
                                 {"le", [](const Tensor& a, const Tensor& b) { return xd::le(a, b); }}};
  if (xd::is_floating(d)) {
    ops.push_back({"div", [](const Tensor& a, const Tensor& b) { return xd::div(a, b); }});
    ops.push_back({"add alpha 0.5", [](const Tensor& a, const Tensor& b) { return xd::add(a, b, 0.5); }});
  }
  return ops;
}

// Pairs of operand shapes/layouts: equal, broadcast rows and columns, scalar, transposed.
std::vector<std::pair<std::string, std::function<std::vector<Tensor>(Dtype)>>> binary_layouts() {
  return {
      {"same 4x33", [](Dtype d) { return std::vector<Tensor>{random_tensor({4, 33}, d, 1), random_tensor({4, 33}, d, 2)}; }},
      {"row broadcast 5x3x8 + 8",
       [](Dtype d) { return std::vector<Tensor>{random_tensor({5, 3, 8}, d, 3), random_tensor({8}, d, 4)}; }},
      {"column broadcast 6x1 + 1x9",
       [](Dtype d) { return std::vector<Tensor>{random_tensor({6, 1}, d, 5), random_tensor({1, 9}, d, 6)}; }},
      {"scalar", [](Dtype d) { return std::vector<Tensor>{random_tensor({7, 5}, d, 7), random_tensor({}, d, 8)}; }},
      {"transposed", [](Dtype d) { return std::vector<Tensor>{random_tensor({9, 6}, d, 9).t(), random_tensor({6, 9}, d, 10)}; }},
      {"empty", [](Dtype d) { return std::vector<Tensor>{random_tensor({0, 3}, d, 11), random_tensor({3}, d, 12)}; }},
  };
}

TEST(OpenclPointwise, BinaryOpsAndComparisonsMatchTheCpuWithBroadcasting) {
  for (Dtype d : usable(numeric_dtypes()))
    for (const auto& [layout, inputs] : binary_layouts())
      for (const auto& op : binary_ops(d))
        EXPECT_TRUE(same_as_cpu(inputs(d), [&](const auto& in) { return op.fn(in[0], in[1]); }, kExact))
            << op.name << " " << name_of(d) << " " << layout;
}

TEST(OpenclPointwise, BinaryOpsPropagateNanAndInfinity) {
  for (Dtype d : usable(float_dtypes())) {
    const Tensor a = special_values(d);
    const Tensor b = xd::tensor(std::vector<double>{1, -0.0, 0, std::nan(""), -1, 2, 3, 0, 5, -2, 1e9, 0.5}, {12}, cpu())
                         .to(d);
    for (const auto& op : binary_ops(d))
      EXPECT_TRUE(same_as_cpu({a, b}, [&](const auto& in) { return op.fn(in[0], in[1]); }, kExact))
          << op.name << " " << name_of(d);
  }
}

TEST(OpenclPointwise, IntegerArithmeticWraps) {
  for (Dtype d : int_dtypes()) {
    const Tensor a = make({127, 255, -100, 2147483647.0, 3}, {5}, d);
    const Tensor b = make({1, 1, 100, 2, -7}, {5}, d);
    for (const auto& op : binary_ops(d))
      EXPECT_TRUE(same_as_cpu({a, b}, [&](const auto& in) { return op.fn(in[0], in[1]); }, kExact))
          << op.name << " " << name_of(d);
  }
}

TEST(OpenclPointwise, BoolEqualityAndWhereMatchTheCpu) {
  const Tensor a = random_tensor({5, 7}, Dtype::boolean, 1);
  const Tensor b = random_tensor({7}, Dtype::boolean, 2);
  EXPECT_TRUE(same_as_cpu({a, b}, [](const auto& in) { return xd::eq(in[0], in[1]); }, kExact));
  for (Dtype d : usable({Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::u8, Dtype::i32, Dtype::i64,
                         Dtype::boolean})) {
    const Tensor x = random_tensor({5, 7}, d, 3).t();
    const Tensor y = random_tensor({1, 5}, d, 4);
    EXPECT_TRUE(same_as_cpu({a.t(), x, y}, [](const auto& in) { return xd::where(in[0], in[1], in[2]); }, kExact))
        << name_of(d);
    EXPECT_TRUE(same_as_cpu({b, x.t(), y.t()}, [](const auto& in) { return xd::where(in[0], in[1], in[2]); }, kExact))
        << name_of(d);
  }
}

TEST(OpenclPointwise, FillAndArangeMatchTheCpuInEveryDtype) {
  for (Dtype d : usable(all_dtypes())) {
    for (double v : {0.0, 1.0, -2.5, 300.7, 1e10}) {
      // A value the dtype cannot hold (300.7 in i8, 1e10 in f16) is the same ValueError on both.
      bool fits = true;
      try {
        (void)xd::full({1}, v, d, cpu());
      } catch (const xd::ValueError&) {
        fits = false;
      }
      if (!fits) {
        EXPECT_THROW((void)xd::full({3, 37}, v, d, ocl()), xd::ValueError) << "full " << v << " " << name_of(d);
        continue;
      }
      const Tensor want = xd::full({3, 37}, v, d, cpu());
      const Tensor got = xd::full({3, 37}, v, d, ocl());
      EXPECT_TRUE(all_close(read(got), read(want), kExact)) << "full " << v << " " << name_of(d);
    }
    EXPECT_TRUE(all_close(read(xd::zeros({0}, d, ocl())), {}, kExact));
  }
  for (Dtype d : usable(numeric_dtypes())) {
    const double step = xd::is_floating(d) ? 0.37 : 3;
    const Tensor want = xd::arange(-5, 100, step, d, cpu());
    const Tensor got = xd::arange(-5, 100, step, d, ocl());
    EXPECT_TRUE(all_close(read(got), read(want), kExact)) << "arange " << name_of(d);
  }
}

TEST(OpenclPointwise, EightDimensionalPermutedViewsMatchTheCpu) {
  for (Dtype d : usable({Dtype::f32, Dtype::i64, Dtype::bf16})) {
    const Tensor a = random_tensor({2, 3, 1, 2, 3, 2, 1, 5}, d, 30);
    const Tensor b = random_tensor({5, 1, 2, 3, 1, 1, 3, 2}, d, 31);
    EXPECT_TRUE(same_as_cpu({a, b}, [](const auto& in) {
      return xd::add(in[0].permute({7, 6, 5, 4, 3, 2, 1, 0}), in[1].permute({0, 1, 2, 3, 4, 5, 6, 7}).transpose(1, 6));
    }, kExact)) << name_of(d);
    EXPECT_TRUE(same_as_cpu({a}, [](const auto& in) { return xd::sum(in[0].permute({3, 1, 7, 0, 2, 5, 4, 6}), {0, 2, 5}); },
                            sum_tol(d)))
        << name_of(d);
  }
}

TEST(OpenclPointwise, OutputsCanBeWrittenThroughStridedViews) {
  for (Dtype d : usable({Dtype::f32, Dtype::f16, Dtype::i32})) {
    const Tensor src = random_tensor({6, 5}, d, 21);
    Tensor dst_cpu = xd::zeros({5, 12}, d, cpu());
    Tensor dst_ocl = xd::zeros({5, 12}, d, ocl());
    dst_cpu.slice(1, 0, 12, 2).copy_(xd::relu(src.t()));
    dst_ocl.slice(1, 0, 12, 2).copy_(xd::relu(src.to(ocl()).t()));
    EXPECT_TRUE(all_close(read(dst_ocl), read(dst_cpu), kExact)) << name_of(d);
  }
}

}  // namespace
