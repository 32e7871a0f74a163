// xd::compile end to end on the CPU backend (and on OpenCL where a device exists): results equal
// eager execution, guards re-trace or raise, functions that cannot be captured run eagerly with a
// reason, generated code that fails to build raises CompileError, and a graph built in one process
// costs no compiler invocation in the next.
#include <xd/compile.hpp>
#include <xd/xd.hpp>

#include "support/run_command.hpp"
#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using xd::Dtype;
using xd::Tensor;

// Elementwise closeness with NaN positions equal; `tol` relative to max(1, |expected|).
::testing::AssertionResult close(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  if (!std::ranges::equal(got.sizes(), want.sizes())) return ::testing::AssertionFailure() << "sizes differ";
  if (got.dtype() != want.dtype()) return ::testing::AssertionFailure() << "dtypes differ";
  const auto a = got.to(xd::cpu()).to(Dtype::f64).to_vector<double>();
  const auto b = want.to(xd::cpu()).to(Dtype::f64).to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i]))
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << b[i];
    if (!std::isnan(a[i]) && std::fabs(a[i] - b[i]) > tol * std::max(1.0, std::fabs(b[i])))
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << b[i];
  }
  return ::testing::AssertionSuccess();
}

Tensor chain6(const Tensor& x, const Tensor& y) {
  const Tensor half = xd::full({}, 0.5, x.dtype(), x.device());
  return xd::exp(xd::tanh(xd::sub(xd::mul(xd::gelu(xd::add(xd::mul(x, half), y)), y), x)));
}

std::string temp_dir(const std::string& name) {
  const auto p =
      std::filesystem::temp_directory_path() / ("xd_compile_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

TEST(Compile, SixOpChainEqualsEagerAndRunsAsOneKernel) {
  auto f = xd::compile(chain6);
  const Tensor x = xd::randn({33, 65}), y = xd::randn({33, 65});
  const Tensor first = f(x, y);   // traced: the eager result
  const Tensor second = f(x, y);  // the fused kernel
  EXPECT_TRUE(close(first, chain6(x, y)));
  EXPECT_TRUE(close(second, chain6(x, y)));
  const xd::CompileStats s = f.stats();
  EXPECT_EQ(s.traces, 1);
  EXPECT_EQ(s.graph_calls, 1);
  EXPECT_EQ(s.kernels, 1);
  EXPECT_EQ(s.eager_nodes, 0);
  EXPECT_EQ(s.eager_reason, "");
}

TEST(Compile, RowReductionsFuseWithTheirPrologueAndEpilogue) {
  const Tensor x = xd::randn({7, 3, 40}), y = xd::randn({40}), w = xd::randn({40});
  auto rms = xd::compile([](const Tensor& a, const Tensor& b, const Tensor& c) {
    return xd::silu(std::get<0>(xd::rms_norm(xd::add(a, b), {40}, c)));
  });
  auto soft = xd::compile([](const Tensor& a, const Tensor& b) { return xd::log_softmax(xd::mul(a, b), -1); });
  auto sum = xd::compile([](const Tensor& a, const Tensor& b) { return xd::neg(xd::sum(xd::mul(a, b), {-1})); });
  auto amax = xd::compile([](const Tensor& a) { return xd::exp(xd::amax(a, {1, 2}, true)); });
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(close(rms(x, y, w), xd::silu(std::get<0>(xd::rms_norm(xd::add(x, y), {40}, w)))));
    EXPECT_TRUE(close(soft(x, y), xd::log_softmax(xd::mul(x, y), -1)));
    EXPECT_TRUE(close(sum(x, y), xd::neg(xd::sum(xd::mul(x, y), {-1}))));
    EXPECT_TRUE(close(amax(x), xd::exp(xd::amax(x, {1, 2}, true))));
  }
  for (const xd::CompileStats& s : {rms.stats(), soft.stats(), sum.stats(), amax.stats()}) {
    EXPECT_EQ(s.graph_calls, 1);
    EXPECT_EQ(s.kernels, 1);
    EXPECT_EQ(s.eager_nodes, 0);
  }
}

// A value computed before a reduction to one value per row and also returned (or read after it)
// is written by the reduction's pass: sum, mean, amax and amin have no element pass of their own.
void expect_stored_prologue_values(const xd::Device& dev, std::vector<int64_t> shape) {
  const Tensor x = xd::randn(shape, Dtype::f32, dev), y = xd::randn(shape, Dtype::f32, dev);
  using Reduce = Tensor (*)(const Tensor&);
  const std::vector<std::pair<const char*, Reduce>> reductions = {
      {"sum", [](const Tensor& t) { return xd::sum(t, {-1}); }},
      {"mean", [](const Tensor& t) { return xd::mean(t, {-1}); }},
      {"amax", [](const Tensor& t) { return xd::amax(t, {-1}); }},
      {"amin", [](const Tensor& t) { return xd::amin(t, {-1}, true); }}};
  for (const auto& [name, reduce] : reductions) {
    auto eager = [reduce](const Tensor& a, const Tensor& b) {
      const Tensor t = xd::tanh(xd::sub(a, b));
      return std::vector<Tensor>{xd::sigmoid(reduce(t)), t, xd::exp(t)};
    };
    auto f = xd::compile(eager);
    const std::vector<Tensor> want = eager(x, y);
    for (int i = 0; i < 2; ++i) {
      const std::vector<Tensor> got = f(x, y);
      ASSERT_EQ(got.size(), 3u);
      for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(close(got[k], want[k])) << name << " output " << k << " call " << i;
    }
    EXPECT_EQ(f.stats().graph_calls, 1) << name << ": " << f.stats().eager_reason;
  }
}

TEST(Compile, ValuesStoredBeforeARowReductionAreWrittenByItsPass) {
  expect_stored_prologue_values(xd::cpu(), {9, 37});
  expect_stored_prologue_values(xd::cpu(), {4, 512});
}

TEST(Compile, MatmulsRunThroughTheDispatchTableBetweenFusedKernels) {
  auto mlp = xd::compile([](const Tensor& x, const Tensor& wg, const Tensor& wu, const Tensor& wd) {
    return xd::mm(xd::mul(xd::silu(xd::mm(x, wg)), xd::mm(x, wu)), wd);
  });
  const Tensor x = xd::randn({5, 16}), wg = xd::randn({16, 24}), wu = xd::randn({16, 24}), wd = xd::randn({24, 16});
  mlp(x, wg, wu, wd);
  EXPECT_TRUE(close(mlp(x, wg, wu, wd), xd::mm(xd::mul(xd::silu(xd::mm(x, wg)), xd::mm(x, wu)), wd), 1e-4));
  const xd::CompileStats s = mlp.stats();
  EXPECT_EQ(s.kernels, 1);
  EXPECT_EQ(s.eager_nodes, 3);
}

TEST(Compile, CastsBroadcastsAndNonContiguousInputsAgreeWithEager) {
  auto f = xd::compile([](const Tensor& a, const Tensor& b) {
    return xd::where(xd::gt(a, b), xd::maximum(a, b).to(Dtype::f16), xd::relu(b).to(Dtype::f16));
  });
  const Tensor a = xd::randn({9, 13}).transpose(0, 1);  // 13x9, strided
  const Tensor b = xd::randn({1, 9});                   // broadcast over rows
  f(a, b);
  const Tensor want = xd::where(xd::gt(a, b), xd::maximum(a, b).to(Dtype::f16), xd::relu(b).to(Dtype::f16));
  EXPECT_TRUE(close(f(a, b), want, 0));
  auto ints = xd::compile([](const Tensor& a, const Tensor& b) { return xd::sub(xd::mul(a, b), a, 3.0); });
  const Tensor ia = xd::arange(0, 40, 1, Dtype::i8).view({5, 8}), ib = xd::full({5, 8}, 7.0, Dtype::i8);
  ints(ia, ib);
  EXPECT_TRUE(close(ints(ia, ib), xd::sub(xd::mul(ia, ib), ia, 3.0), 0));  // wraps as int8 does
}

TEST(Compile, NeGeLeFuseAndKeepIeeesAnswersForNanAndSignedZero) {
  const auto fn = [](const Tensor& a, const Tensor& b) {
    const Tensor zero = xd::full({}, 0.0, a.dtype(), a.device());
    return xd::where(xd::ne(a, b), xd::where(xd::ge(a, b), a, zero), xd::where(xd::le(a, b), b, zero));
  };
  auto f = xd::compile(fn);
  const double nan = std::nan("");
  const std::vector<double> av = {nan, 1.0, nan, -0.0, 2.0, 3.0, -1.0, 5.0};
  const std::vector<double> bv = {nan, nan, 1.0, 0.0, 2.0, 1.0, 4.0, -5.0};
  for (Dtype d : {Dtype::f32, Dtype::bf16, Dtype::i32}) {
    SCOPED_TRACE(xd::dtype_name(d));
    const Tensor a = xd::tensor(av, {8}).to(d), b = xd::tensor(bv, {8}).to(d);
    f(a, b);  // traced
    EXPECT_TRUE(close(f(a, b), fn(a, b), 0));
  }
  const xd::CompileStats s = f.stats();
  EXPECT_EQ(s.graph_calls, 3);
  EXPECT_EQ(s.eager_nodes, 0);
}

TEST(Compile, AnotherShapeOrDtypeTracesAgain) {
  auto f = xd::compile(chain6);
  const Tensor a = xd::randn({4, 5}), b = xd::randn({6, 7}), c = xd::randn({6, 7}).to(Dtype::bf16);
  EXPECT_TRUE(close(f(a, a), chain6(a, a)));
  EXPECT_TRUE(close(f(b, b), chain6(b, b)));
  EXPECT_TRUE(close(f(c, c), chain6(c, c), 1e-2));
  EXPECT_TRUE(close(f(b, b), chain6(b, b)));
  const xd::CompileStats s = f.stats();
  EXPECT_EQ(s.traces, 3);
  EXPECT_EQ(s.graph_calls, 1);
}

TEST(Compile, MoreSignaturesThanMaxGraphsRaiseValueErrorNamingTheGuard) {
  xd::CompileOptions o;
  o.max_graphs = 1;
  auto f = xd::compile([](const Tensor& x) { return xd::exp(x); }, o);
  f(xd::randn({2, 3}));
  EXPECT_THROWS_EXACTLY(xd::ValueError, f(xd::randn({2, 3}).to(Dtype::f16)), "argument 0 has dtype f16",
                        "the trace's f32", "max_graphs");
  EXPECT_THROWS_EXACTLY(xd::ValueError, f(xd::randn({2, 3, 1})), "argument 0 has rank 3", "the trace's 2");
  EXPECT_THROWS_EXACTLY(xd::ValueError, f(xd::randn({3, 2}).transpose(0, 1)), "argument 0 has strides [1, 2]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::compile([](const Tensor& x) { return x; }, xd::CompileOptions{0, {}}),
                        "max_graphs must be at least 1");
}

TEST(Compile, FunctionsThatCannotBeCapturedRunEagerlyAndSayWhy) {
  const Tensor outside = xd::randn({3});
  struct Case {
    std::function<Tensor(const Tensor&)> fn;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {[](const Tensor& x) { return xd::full({3}, x.to_vector<float>()[0]); }, "reads a tensor's values on the host"},
      {[&](const Tensor& x) { return xd::add(x, outside); }, "not given as an argument"},
      {[](const Tensor& x) {
         Tensor y = xd::exp(x);
         y.copy_(x);
         return y;
       },
       "in place"},
      {[](const Tensor& x) { return xd::add(x, xd::rand({3})); }, "draws random numbers"},
      {[](const Tensor& x) {
         return xd::add(x, xd::tensor(std::vector<float>{1, 2, 3}, {3}));
       },
       "copies host data"},
  };
  for (const Case& c : cases) {
    auto f = xd::compile([&](const Tensor& x) { return c.fn(x); });
    const Tensor x = xd::full({3}, 0.5);
    f(x);
    const Tensor again = f(x);
    ASSERT_EQ(again.numel(), 3);
    const xd::CompileStats s = f.stats();
    EXPECT_EQ(s.graph_calls, 0) << c.reason;
    EXPECT_EQ(s.eager_calls, 1) << c.reason;
    EXPECT_NE(s.eager_reason.find(c.reason), std::string::npos) << s.eager_reason;
  }
  auto empty = xd::compile([](const Tensor& x) { return xd::exp(xd::neg(x)); });
  const Tensor e = xd::randn({0, 5});
  empty(e);
  EXPECT_EQ(empty(e).numel(), 0);
  EXPECT_EQ(empty.stats().graph_calls, 0);
  EXPECT_NE(empty.stats().eager_reason.find("tensors with no elements"), std::string::npos)
      << empty.stats().eager_reason;
}

TEST(Compile, ExceptionsOfTheFunctionPropagateAndCacheNothing) {
  auto f = xd::compile([](const Tensor& a, const Tensor& b) { return xd::add(a, b); });
  EXPECT_THROWS_EXACTLY(xd::ShapeError, f(xd::randn({2, 3}), xd::randn({4})), "add");
  EXPECT_EQ(f.stats().traces, 0);
}

TEST(Compile, ReturnsArgumentsViewsAndSeveralResults) {
  auto f = xd::compile([](const Tensor& a, const Tensor& b) {
    return std::make_tuple(a, xd::exp(a).transpose(0, 1), xd::sum(xd::mul(a, b), {-1}));
  });
  const Tensor a = xd::randn({3, 4}), b = xd::randn({3, 4});
  f(a, b);
  const auto [r0, r1, r2] = f(a, b);
  EXPECT_TRUE(close(r0, a, 0));
  EXPECT_TRUE(close(r1, xd::exp(a).transpose(0, 1)));
  EXPECT_TRUE(close(r2, xd::sum(xd::mul(a, b), {-1})));
}

TEST(Compile, OneCompiledFunctionServesManyThreads) {
  auto f = xd::compile(chain6);
  const Tensor x = xd::randn({17, 31}), y = xd::randn({17, 31});
  const Tensor want = chain6(x, y);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (!close(f(x, y), want)) ++bad;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(f.stats().traces, 1);
}

TEST(Compile, WithoutACompilerGraphsRunEagerlyAndSaySo) {
  setenv("XD_CXX", "/nonexistent/c++", 1);
  auto f = xd::compile(chain6);
  const Tensor x = xd::randn({4, 4});
  f(x, x);
  EXPECT_TRUE(close(f(x, x), chain6(x, x)));
  const xd::CompileStats s = f.stats();
  EXPECT_EQ(s.graph_calls, 0);
  EXPECT_NE(s.eager_reason.find("no C++ compiler"), std::string::npos) << s.eager_reason;
}

TEST(Compile, GeneratedCodeThatDoesNotBuildRaisesCompileErrorWithLogAndSourcePath) {
  const std::string dir = temp_dir("broken_cxx");
  const std::string script = dir + "/broken-c++";
  // Answers the plugin's identity probe, fails every build.
  std::ofstream(script)
      << "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --version ] && { echo 'broken-c++ 1.0'; exit 0; }; done\n"
         "echo 'error: injected compiler failure' >&2\nexit 1\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  setenv("XD_CXX", script.c_str(), 1);
  setenv("XD_CACHE_DIR", (dir + "/cache").c_str(), 1);
  auto f = xd::compile(chain6);
  const Tensor x = xd::randn({4, 4});
  EXPECT_THROWS_EXACTLY(xd::CompileError, f(x, x), "injected compiler failure", ".cpp", "runs eagerly");
  EXPECT_TRUE(close(f(x, x), chain6(x, x)));  // the graph now runs eagerly
  EXPECT_TRUE(close(xd::add(x, x), xd::mul(x, xd::full({}, 2.0))));
  std::filesystem::remove_all(dir);
}

TEST(Compile, AGraphBuiltInOneProcessCostsNoCompilerInvocationInTheNext) {
  const std::string dir = temp_dir("warm");
  const std::string log = dir + "/invocations.log";
  const std::string script = dir + "/logging-c++";
  std::ofstream(script) << "#!/bin/sh\necho run >> '" << log << "'\nexec c++ \"$@\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const std::string env = "XD_LOG=error XD_CXX='" + script + "' XD_CACHE_DIR='" + dir + "/cache' ";
  auto lines = [&] {
    std::ifstream in(log);
    int n = 0;
    for (std::string l; std::getline(in, l);) ++n;
    return n;
  };
  const auto first = xd::test::run_command(env + XD_COMPILE_PROBE);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("graph_calls=1 kernels=1"), std::string::npos) << first.output;
  EXPECT_EQ(lines(), 1);
  const auto second = xd::test::run_command(env + XD_COMPILE_PROBE);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("graph_calls=1 kernels=1"), std::string::npos) << second.output;
  EXPECT_EQ(lines(), 1) << "the second process invoked the compiler";
  std::filesystem::remove_all(dir);
}

TEST(Compile, OpenClGraphsAgreeWithEagerWhereADeviceExists) {
  xd::Device dev;
  try {
    dev = xd::Device::parse("opencl");
    (void)dev.properties();
  } catch (const xd::Error&) {
    GTEST_SKIP() << "no OpenCL device";
  }
  auto f = xd::compile(chain6);
  auto g =
      xd::compile([](const Tensor& x, const Tensor& w) { return xd::silu(std::get<0>(xd::rms_norm(x, {129}, w))); });
  const Tensor x = xd::randn({37, 129}, Dtype::f32, dev), y = xd::randn({37, 129}, Dtype::f32, dev);
  const Tensor w = xd::randn({129}, Dtype::f32, dev);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(close(f(x, y), chain6(x, y), 1e-5));
    EXPECT_TRUE(close(g(x, w), xd::silu(std::get<0>(xd::rms_norm(x, {129}, w))), 1e-5));
  }
  EXPECT_EQ(f.stats().graph_calls, 1) << f.stats().eager_reason;
  EXPECT_EQ(g.stats().graph_calls, 1) << g.stats().eager_reason;
  expect_stored_prologue_values(dev, {9, 37});    // the scalar row loop
  expect_stored_prologue_values(dev, {4, 1024});  // the unrolled vector passes
}

}  // namespace
