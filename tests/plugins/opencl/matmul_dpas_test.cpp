// The matmul family's DPAS kernel (kernels/matmul_dpas.cl, Intel's matrix engines) on PoCL, with
// the extension's builtins emulated in OpenCL C: built twice, as opencl_dpas8_test with
// XD_OPENCL_MATMUL_DPAS=emulate8 (the sub-group size 8 operand layout) and opencl_dpas16_test with
// emulate16 (tests named *.sg8, *.sg16), the variable set before the library starts. What it checks is the kernel's
// tiling, index and bounds logic and the operand layouts as this project reads the extension, against the CPU
// reference; it says nothing about Intel hardware, on which none of this has run.
//
// Which kernel took a call is read from xd::kernels()' call counts: "opencl.<op>.dpas" before the
// general "opencl.<op>", which runs what the DPAS kernel's check declines.
#include "test_util.hpp"

#include <map>
#include <set>

namespace {

using namespace xdo;

constexpr Dtype kHalves[] = {Dtype::f16, Dtype::bf16};

// Runs before main, as test_util.hpp's cache folder does: the plugin reads the option at its init.
#ifdef XD_TEST_DPAS_MODE
const bool kDpasModeSet = [] {
  setenv("XD_OPENCL_MATMUL_DPAS", XD_TEST_DPAS_MODE, 1);
  return true;
}();
#endif

// The emulation must be on: without it PoCL registers no DPAS kernel, and every test here would
// check the portable kernels instead.
::testing::AssertionResult emulated() {
  const char* v = std::getenv("XD_OPENCL_MATMUL_DPAS");
  const std::string mode = v == nullptr ? "" : v;
  if (mode == "emulate" || mode == "emulate8" || mode == "emulate16") return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "run with XD_OPENCL_MATMUL_DPAS=emulate8 or emulate16 (ctest sets it); got '"
                                       << mode << "'";
}

// The opencl kernel of op/dtype d that took the one call f() made ("" when f made none, or several).
template <class F>
std::string kernel_that_ran(const std::string& op, Dtype d, F&& f) {
  std::map<std::string, uint64_t> before;
  for (const auto& k : xd::kernels())
    if (k.backend == "opencl" && k.op == op && k.dtype == d) before[k.name] = k.calls;
  f();
  std::string ran;
  uint64_t total = 0;
  for (const auto& k : xd::kernels())
    if (k.backend == "opencl" && k.op == op && k.dtype == d && k.calls != before[k.name]) {
      total += k.calls - before[k.name];
      ran = k.name;
    }
  return total == 1 ? ran : std::string();
}

// Runs op on CPU copies and on the device; checks the result and that `expected` took the call.
::testing::AssertionResult agrees(const std::string& op, Dtype d, const std::vector<Tensor>& in,
                                  const std::function<Tensor(const std::vector<Tensor>&)>& f, Tol tol,
                                  const std::string& expected) {
  ::testing::AssertionResult same = ::testing::AssertionSuccess();
  const std::string ran = kernel_that_ran(op, d, [&] { same = same_as_cpu(in, f, tol); });
  if (!same) return same;
  if (ran != expected)
    return ::testing::AssertionFailure() << "taken by '" << ran << "', expected '" << expected << "'";
  return ::testing::AssertionSuccess();
}

// f32 accumulation of products of values in [-1, 1), one rounding: f16/bf16 results within a unit
// or two of the last place.
Tol tol(Dtype d) { return d == Dtype::f16 ? Tol{2e-3, 2e-3} : Tol{1.6e-2, 1.6e-2}; }

Tensor operand(int64_t rows, int64_t cols, bool transposed, Dtype d, uint32_t seed) {
  return transposed ? random_tensor({cols, rows}, d, seed, -1, 1).t() : random_tensor({rows, cols}, d, seed, -1, 1);
}

struct Shape3 {
  int64_t m, k, n;
  bool ta = false, tb = false;  // operands given as transposed views (dense along m, along k)
};

// m, n and k off the tiles (32 rows, 4 * SG columns, k steps of 32 made of two k16 blocks), k under
// one block, k exactly one block, several tiles each way, both operands transposed.
const Shape3 kShapes[] = {{1, 1, 1},
                          {5, 3, 7},
                          {8, 15, 8},
                          {16, 16, 16},
                          {33, 17, 65},
                          {31, 40, 33},
                          {70, 45, 130},
                          {32, 64, 64},
                          {37, 50, 23, true},
                          {21, 19, 70, false, true},
                          {45, 33, 35, true, true}};

TEST(OpenclMatmulDpas, MmAndAddmmOverOddShapesMatchTheCpuAndTakeTheDpasKernel) {
  ASSERT_TRUE(emulated());
  for (Dtype d : kHalves)
    for (const Shape3& s : kShapes) {
      SCOPED_TRACE(name_of(d) + " " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
                   (s.ta ? " a transposed" : "") + (s.tb ? " b transposed" : ""));
      const Tensor a = operand(s.m, s.k, s.ta, d, 1), b = operand(s.k, s.n, s.tb, d, 2);
      const Tensor input = random_tensor({s.m, s.n}, d, 3, -1, 1), bias = random_tensor({s.n}, d, 4, -1, 1);
      EXPECT_TRUE(agrees(
          "mm", d, {a, b}, [](const auto& in) { return xd::mm(in[0], in[1]); }, tol(d), "opencl.mm.dpas"));
      EXPECT_TRUE(agrees(
          "addmm", d, {input, a, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 0.5, -2.0); }, tol(d),
          "opencl.addmm.dpas"));
      EXPECT_TRUE(agrees(
          "addmm", d, {bias, a, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 1.0, 1.0); }, tol(d),
          "opencl.addmm.dpas"))
          << "a broadcast input row";
    }
}

TEST(OpenclMatmulDpas, SumsEqualTheCpuLoopBitForBit) {
  // The emulated builtin adds each product with one fma in k order from the f32 accumulator, the
  // CPU reference loop likewise (products of f16/bf16 values are exact in f32), and alpha = 1,
  // beta = 0 round once: the results must be identical, not just close. (Hardware DPAS sums a k16
  // block in an order the extension does not specify; this holds for the emulation only.)
  ASSERT_TRUE(emulated());
  for (Dtype d : kHalves) {
    std::set<std::string> faster;  // every cpu mm kernel before the loop
    std::vector<std::string> slot;
    for (const auto& k : xd::kernels())
      if (k.backend == "cpu" && k.op == "mm" && k.dtype == d) slot.push_back(k.name);
    ASSERT_FALSE(slot.empty());
    faster.insert(slot.begin(), slot.end() - 1);
    for (const auto& n : faster) xd::set_kernel_enabled(n, false);
    for (const Shape3& s : kShapes) {
      const Tensor a = operand(s.m, s.k, s.ta, d, 11), b = operand(s.k, s.n, s.tb, d, 12);
      EXPECT_TRUE(agrees(
          "mm", d, {a, b}, [](const auto& in) { return xd::mm(in[0], in[1]); }, kExact, "opencl.mm.dpas"))
          << name_of(d) << " " << s.m << "x" << s.k << "x" << s.n;
    }
    for (const auto& n : faster) xd::set_kernel_enabled(n, true);
  }
}

TEST(OpenclMatmulDpas, BetaZeroIgnoresNanInTheInputAndOtherBetasPropagateIt) {
  ASSERT_TRUE(emulated());
  for (Dtype d : kHalves) {
    const Tensor nan_input = xd::full({37, 41}, std::nan(""), d, cpu());
    const Tensor a = operand(37, 20, false, d, 5), b = operand(20, 41, true, d, 6);
    EXPECT_TRUE(agrees(
        "addmm", d, {nan_input, a, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 0.0, 1.5); }, tol(d),
        "opencl.addmm.dpas"))
        << name_of(d) << " beta = 0";
    EXPECT_TRUE(agrees(
        "addmm", d, {nan_input, a, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 0.25, 1.0); }, tol(d),
        "opencl.addmm.dpas"))
        << name_of(d) << " beta = 0.25: every element NaN";
  }
}

TEST(OpenclMatmulDpas, BmmAndBaddbmmOverBatchesMatchTheCpu) {
  ASSERT_TRUE(emulated());
  for (Dtype d : kHalves) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = random_tensor({3, 35, 18}, d, 7, -1, 1);
    const Tensor b = random_tensor({3, 40, 18}, d, 8, -1, 1).transpose(1, 2);  // each batch's b dense along k
    const Tensor input = random_tensor({35, 1}, d, 9, -1, 1);                  // broadcast over batches and columns
    EXPECT_TRUE(agrees(
        "bmm", d, {a, b}, [](const auto& in) { return xd::bmm(in[0], in[1]); }, tol(d), "opencl.bmm.dpas"));
    EXPECT_TRUE(agrees(
        "baddbmm", d, {input, a, b}, [](const auto& in) { return xd::baddbmm(in[0], in[1], in[2], -1.0, 0.75); },
        tol(d), "opencl.baddbmm.dpas"));
    // A batch that starts past an offset, and a batch of one.
    const Tensor big_a = random_tensor({4, 9, 33}, d, 10, -1, 1), big_b = random_tensor({4, 33, 12}, d, 11, -1, 1);
    EXPECT_TRUE(agrees(
        "bmm", d, {big_a, big_b}, [](const auto& in) { return xd::bmm(in[0].slice(0, 1, 3), in[1].slice(0, 2, 4)); },
        tol(d), "opencl.bmm.dpas"));
    EXPECT_TRUE(agrees(
        "bmm", d, {big_a, big_b}, [](const auto& in) { return xd::bmm(in[0].slice(0, 3, 4), in[1].slice(0, 0, 1)); },
        tol(d), "opencl.bmm.dpas"));
  }
}

TEST(OpenclMatmulDpas, EmptyProblemsAndZeroKMatchTheCpu) {
  ASSERT_TRUE(emulated());
  for (Dtype d : kHalves) {
    SCOPED_TRACE(name_of(d));
    // K = 0: the output is beta * input (alpha times an empty sum), written by the DPAS kernel.
    EXPECT_TRUE(agrees(
        "addmm", d, {random_tensor({6, 9}, d, 12), operand(6, 0, false, d, 13), operand(0, 9, false, d, 14)},
        [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 2.0, 3.0); }, kExact, "opencl.addmm.dpas"));
    // No rows, no columns, no batches: empty results, whichever kernel the core hands them to.
    EXPECT_TRUE(same_as_cpu(
        {operand(0, 5, false, d, 15), operand(5, 7, false, d, 16)}, [](const auto& in) { return xd::mm(in[0], in[1]); },
        kExact));
    EXPECT_TRUE(same_as_cpu(
        {operand(4, 5, false, d, 15), operand(5, 0, false, d, 16)}, [](const auto& in) { return xd::mm(in[0], in[1]); },
        kExact));
    EXPECT_TRUE(same_as_cpu(
        {random_tensor({0, 3, 5}, d, 17), random_tensor({0, 5, 2}, d, 18)},
        [](const auto& in) { return xd::bmm(in[0], in[1]); }, kExact));
  }
}

TEST(OpenclMatmulDpas, CallsItDeclinesRunOnTheGeneralKernelWhichSaysWhy) {
  ASSERT_TRUE(emulated());
  const Dtype d = Dtype::bf16;
  // a[::2, ::3] (taken on each side: a copy to the device is dense): no unit stride along either axis.
  const auto every_other = [](const Tensor& t) { return t.slice(0, 0, 40, 2).slice(1, 0, 60, 3); };
  const Tensor big = random_tensor({40, 60}, d, 19, -1, 1), b = operand(20, 24, false, d, 20);
  EXPECT_TRUE(agrees(
      "mm", d, {big, b}, [&](const auto& in) { return xd::mm(every_other(in[0]), in[1]); }, tol(d), "opencl.mm"));
  // A decode shape: the skinny kernels take it.
  const Tensor row = operand(2, 512, false, d, 21), wide = operand(512, 256, true, d, 22);
  EXPECT_TRUE(agrees(
      "mm", d, {row, wide}, [](const auto& in) { return xd::mm(in[0], in[1]); }, tol(d), "opencl.mm"));
  // f32 has no DPAS kernel at all.
  const Tensor a32 = operand(33, 17, false, Dtype::f32, 23), b32 = operand(17, 40, false, Dtype::f32, 24);
  EXPECT_TRUE(agrees(
      "mm", Dtype::f32, {a32, b32}, [](const auto& in) { return xd::mm(in[0], in[1]); }, {1e-5, 1e-5}, "opencl.mm"));
  // With the general kernel off, the error carries the DPAS kernel's reason.
  xd::set_kernel_enabled("opencl.mm", false);
  try {
    (void)xd::mm(every_other(big.to(ocl())), b.to(ocl()));
    ADD_FAILURE() << "the strided call ran with only the DPAS kernel enabled";
  } catch (const xd::NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("a has no unit stride"), std::string::npos) << e.what();
  }
  xd::set_kernel_enabled("opencl.mm", true);
}

TEST(OpenclMatmulDpas, TheDpasKernelsComeFirstInTheirSlotsForF16AndBf16Only) {
  ASSERT_TRUE(emulated());
  std::map<std::pair<std::string, Dtype>, std::vector<std::string>> slots;
  for (const auto& k : xd::kernels())
    if (k.backend == "opencl") slots[{k.op, k.dtype}].push_back(k.name);
  for (const std::string op : {"mm", "addmm", "bmm", "baddbmm"}) {
    const std::vector<std::string> specialised = {"opencl." + op + ".dpas", "opencl." + op}, general = {"opencl." + op};
    for (Dtype d : kHalves) EXPECT_EQ(slots[std::make_pair(op, d)], specialised) << op;
    EXPECT_EQ(slots[std::make_pair(op, Dtype::f32)], general) << op;
  }
}

}  // namespace
