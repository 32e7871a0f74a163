// The CPU plugin's codegen table in process: kernels written by hand with the prelude's names only
// (docs/compiler.md), built by the system compiler, launched and compared with the eager ops and
// with include/xd/numeric.hpp bit for bit; and every bad input of target/build/get/launch.
#include <xd/numeric.hpp>

#include "codegen_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

namespace {

using xdcg::codegen;
using xdcg::cpu_codegen;
using xdcg::last_error;

std::string prelude(const codegen& cg) {
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  EXPECT_EQ(cg.api->target(cg.ctx, cg.device, XD_CODEGEN_CPP, &t), XD_OK) << last_error();
  return t.prelude != nullptr ? t.prelude : "";
}

xd_program build(const codegen& cg, const std::string& body) {
  const std::string source = prelude(cg) + "\n" + body;
  xd_program p = nullptr;
  EXPECT_EQ(cg.api->program_build(cg.ctx, cg.device, XD_CODEGEN_CPP, source.c_str(), &p), XD_OK) << last_error();
  return p;
}

xd_codegen_kernel kernel(const codegen& cg, xd_program p, const char* name) {
  xd_codegen_kernel k = nullptr;
  EXPECT_EQ(cg.api->kernel_get(cg.ctx, cg.device, p, name, &k), XD_OK) << last_error();
  return k;
}

xd_status launch(const codegen& cg, xd_codegen_kernel k, std::vector<xd_codegen_arg> args, uint64_t units,
                 uint64_t local) {
  const xd_codegen_grid grid{1, {units, 1, 1}, {local, 1, 1}};
  return cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, args.data(), static_cast<int32_t>(args.size()), &grid);
}

xd_codegen_arg buffer(void* p) { return {XD_CODEGEN_ARG_BUFFER, 0, p}; }

TEST(CpuCodegen, TargetDescribesTheCppLanguageOfThisMachine) {
  const codegen cg = cpu_codegen();
  ASSERT_NE(cg.api, nullptr);
  EXPECT_EQ(cg.api->languages, static_cast<uint32_t>(XD_CODEGEN_CPP));
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  ASSERT_EQ(cg.api->target(cg.ctx, cg.device, XD_CODEGEN_CPP, &t), XD_OK) << last_error();
  EXPECT_EQ(t.struct_size, sizeof t);
  ASSERT_NE(t.prelude, nullptr);
  for (const char* name : {"xd_T_bf16", "xd_dec_e4m3", "XD_PRELUDE_FROM(l, long)", "xd_bits_d", "xd_tanh_f",
                           "xd_isnan_d", "XD_KERNEL", "ulong"})
    EXPECT_NE(std::string(t.prelude).find(name), std::string::npos) << name;
  EXPECT_EQ(std::string(t.prelude).find("\n#include <xd/"), std::string::npos) << "the prelude must stand alone";
  ASSERT_NE(t.compiler, nullptr);
  EXPECT_FALSE(std::string(t.compiler).empty());
  EXPECT_TRUE(t.vector_width == 4 || t.vector_width == 8 || t.vector_width == 16) << t.vector_width;
  EXPECT_EQ(t.flags & XD_CODEGEN_FLAG_F64, static_cast<uint32_t>(XD_CODEGEN_FLAG_F64));
  EXPECT_EQ(t.work_group, 0u);
  EXPECT_EQ(t.max_groups, 0u);
}

TEST(CpuCodegen, TargetRejectsOpenclCAnotherDeviceAndANullOutput) {
  const codegen cg = cpu_codegen();
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  EXPECT_EQ(cg.api->target(cg.ctx, cg.device, XD_CODEGEN_OPENCL_C, &t), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("not language 1"), std::string::npos);
  EXPECT_EQ(cg.api->target(cg.ctx, 3, XD_CODEGEN_CPP, &t), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("device index 3 out of range"), std::string::npos);
  EXPECT_EQ(cg.api->target(cg.ctx, cg.device, XD_CODEGEN_CPP, nullptr), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("output is null"), std::string::npos);
}

// y = tanh(x) * 2 in f16, as the eager ops compute it (within one f16 ulp: the vector tanh of
// libmvec may round the float differently from libm's).
TEST(CpuCodegen, AGeneratedF16KernelMatchesTheEagerOps) {
  const codegen cg = cpu_codegen();
  xd_program p = build(cg, R"(
XD_KERNEL void tanh2(void* const* args, long begin, long end) {
  const xd_T_f16* x = (const xd_T_f16*)args[0];
  xd_T_f16* y = (xd_T_f16*)args[1];
  const long off = *(const long*)args[2];
#pragma omp simd
  for (long i = begin; i < end; ++i) y[i] = xd_from_f_f16(xd_tanh_f(xd_dec_f16(x[off + i])) * xd_bits_f(0x40000000u));
}
)");
  ASSERT_NE(p, nullptr);
  const int64_t n = 10007;
  std::vector<uint16_t> x(n + 3), y(n, 0xffff);
  for (int64_t i = 0; i < n + 3; ++i) x[i] = xd::half(static_cast<float>(std::sin(0.37 * i) * 6.0)).bits;
  x[3 + 5] = 0x7e00;  // NaN
  x[3 + 6] = 0xfc00;  // -Inf
  const long offset = 3;
  ASSERT_EQ(launch(cg, kernel(cg, p, "tanh2"), {buffer(x.data()), buffer(y.data()), {XD_CODEGEN_ARG_VALUE, 8, &offset}},
                   n, 512),
            XD_OK)
      << last_error();

  const xd::Tensor xt = xd::from_host(x.data() + 3, xd::Dtype::f16, {n}, xd::cpu());
  const xd::Tensor two = xd::full({1}, 2.0, xd::Dtype::f16, xd::cpu());
  const std::vector<uint8_t> bytes = xd::mul(xd::tanh(xt), two).to_bytes();
  ASSERT_EQ(bytes.size(), static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < n; ++i) {
    uint16_t want;
    std::memcpy(&want, bytes.data() + 2 * i, 2);
    const float a = xd::half::from_bits(y[i]), b = xd::half::from_bits(want);
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << i;
      continue;
    }
    EXPECT_LE(std::abs(int(y[i]) - int(want)), 1) << "element " << i << ": " << a << " vs eager " << b;
  }
  EXPECT_EQ(y[6], xd::half(-2.0f).bits);
}

// Units [0, global) in ranges of whole blocks of local units, each unit exactly once.
TEST(CpuCodegen, LaunchCoversEveryUnitOnceInBlocksOfLocal) {
  const codegen cg = cpu_codegen();
  xd_program p = build(cg, R"(
XD_KERNEL void mark(void* const* args, long begin, long end) {
  long* first = (long*)args[0];
  long* count = (long*)args[1];
  for (long i = begin; i < end; ++i) { first[i] = begin; count[i] += 1; }
}
)");
  const int64_t n = 100003, local = 1000;
  std::vector<long> first(n, -1), count(n, 0);
  ASSERT_EQ(launch(cg, kernel(cg, p, "mark"), {buffer(first.data()), buffer(count.data())}, n, local), XD_OK)
      << last_error();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(count[i], 1) << i;
    ASSERT_EQ(first[i] % local, 0) << i;
  }
  // An empty grid calls nothing.
  std::vector<long> untouched(4, 7);
  ASSERT_EQ(launch(cg, kernel(cg, p, "mark"), {buffer(untouched.data()), buffer(untouched.data())}, 0, 1), XD_OK);
  EXPECT_EQ(untouched, std::vector<long>(4, 7));
}

TEST(CpuCodegen, ASourceThatDoesNotCompileReportsTheLogAndTheSourcePath) {
  const codegen cg = cpu_codegen();
  const std::string source = prelude(cg) + "\nXD_KERNEL void broken(void* const* a, long b, long e) { int x = ; }\n";
  xd_program p = nullptr;
  ASSERT_EQ(cg.api->program_build(cg.ctx, cg.device, XD_CODEGEN_CPP, source.c_str(), &p), XD_ERR_INVALID_ARGUMENT);
  const std::string msg = last_error();
  EXPECT_NE(msg.find("does not compile"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected primary-expression"), std::string::npos) << msg;  // the compiler's own words
  const size_t at = msg.find("source kept at ");
  ASSERT_NE(at, std::string::npos) << msg;
  const std::string path = msg.substr(at + 15, msg.find(')', at) - at - 15);
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_NE(path.find(XD_TEST_CACHE_DIR), std::string::npos) << path;
}

TEST(CpuCodegen, BuildRejectsANullSourceOrOutput) {
  const codegen cg = cpu_codegen();
  xd_program p = nullptr;
  EXPECT_EQ(cg.api->program_build(cg.ctx, cg.device, XD_CODEGEN_CPP, nullptr, &p), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("the source is null"), std::string::npos);
  EXPECT_EQ(cg.api->program_build(cg.ctx, cg.device, XD_CODEGEN_CPP, "int x;", nullptr), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("the output is null"), std::string::npos);
  EXPECT_EQ(cg.api->program_build(cg.ctx, cg.device, XD_CODEGEN_OPENCL_C, "int x;", &p), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("are C++"), std::string::npos);
}

TEST(CpuCodegen, KernelGetOfAMissingNameNamesItAndTheObject) {
  const codegen cg = cpu_codegen();
  xd_program p = build(cg, "XD_KERNEL void present(void* const*, long, long) {}\n");
  ASSERT_NE(p, nullptr);
  xd_codegen_kernel k = nullptr;
  ASSERT_EQ(cg.api->kernel_get(cg.ctx, cg.device, p, "absent", &k), XD_ERR_INVALID_ARGUMENT);
  const std::string msg = last_error();
  EXPECT_NE(msg.find("no kernel absent in "), std::string::npos) << msg;
  EXPECT_NE(msg.find(".so"), std::string::npos) << msg;
  EXPECT_EQ(cg.api->kernel_get(cg.ctx, cg.device, nullptr, "present", &k), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("the program is null"), std::string::npos);
  EXPECT_EQ(cg.api->kernel_get(cg.ctx, cg.device, p, nullptr, &k), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("name is null or empty"), std::string::npos);
  EXPECT_EQ(cg.api->kernel_get(cg.ctx, cg.device, p, "present", nullptr), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("the output is null"), std::string::npos);
}

TEST(CpuCodegen, LaunchRejectsEachMalformedCall) {
  const codegen cg = cpu_codegen();
  xd_codegen_kernel k = kernel(cg, build(cg, "XD_KERNEL void nop(void* const*, long, long) {}\n"), "nop");
  const long v = 1;
  const xd_codegen_arg good[1] = {{XD_CODEGEN_ARG_VALUE, 8, &v}};
  const xd_codegen_grid grid{1, {4, 1, 1}, {1, 1, 1}};
  auto expect = [&](xd_status s, const char* words) {
    EXPECT_EQ(s, XD_ERR_INVALID_ARGUMENT) << words;
    const std::string msg = last_error();
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  };
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, nullptr, good, 1, &grid), "the kernel is null");
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, good, -1, &grid), "num_args is -1");
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, nullptr, 2, &grid), "args is null with num_args 2");
  const xd_codegen_arg no_bytes[1] = {{XD_CODEGEN_ARG_VALUE, 8, nullptr}};
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, no_bytes, 1, &grid),
         "argument 0 is a value without bytes");
  const xd_codegen_arg bad_kind[1] = {{7, 8, &v}};
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, bad_kind, 1, &grid), "argument 0 has kind 7");
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, good, 1, nullptr), "the grid is null");
  const xd_codegen_grid two_dims{2, {4, 4, 1}, {1, 1, 1}};
  expect(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, good, 1, &two_dims), "has 1 dim");
  EXPECT_EQ(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, good, 1, &grid), XD_OK) << last_error();
  EXPECT_EQ(cg.api->kernel_launch(cg.ctx, cg.device, nullptr, k, nullptr, 0, &grid), XD_OK) << last_error();
}

}  // namespace
