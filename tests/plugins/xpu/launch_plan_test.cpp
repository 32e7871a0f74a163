// The XPU launchers' plans (plugins/xpu/common: xpu::plan_gemm, xpu::plan_int4_mm,
// xpu::plan_int_mm), which both variants follow: which kernel a shape, a layout and an alignment
// get. The aligned ("_dense") kernels load without alignment tests or bounds, so taking one for an
// operand they do not fit would read the wrong bytes; these tests pin the conditions. No device is
// needed.
#include "common/int4.hpp"
#include "common/matmul.hpp"
#include "common/quant_mm.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using xd::xpu::gemm_args;
using xd::xpu::int4_args;

// A row-major m x k times k x n product into a row-major output, offsets 0.
gemm_args dense_gemm(int64_t m, int64_t n, int64_t k) {
  gemm_args g{};
  g.m = m, g.n = n, g.k = k, g.batch = 1;
  g.a_m = k, g.a_k = 1, g.a_b = m * k;
  g.b_k = n, g.b_n = 1, g.b_b = k * n;
  g.c_m = n, g.c_n = 1, g.c_b = m * n;
  return g;
}

std::string gemm_entry(const gemm_args& g, int64_t wg = 256) { return xd::xpu::plan_gemm(g, wg, 65535).entry; }

TEST(XpuPlanGemm, AlignedRowMajorOperandsTakeTheDenseKernel) {
  EXPECT_EQ(gemm_entry(dense_gemm(256, 256, 256)), "xd_gemm_big_dense");
  // Edges past a tile and k past a step are handled inside the dense kernel.
  EXPECT_EQ(gemm_entry(dense_gemm(130, 132, 36)), "xd_gemm_big_dense");
  gemm_args batched = dense_gemm(200, 260, 100);
  batched.batch = 2;
  EXPECT_EQ(gemm_entry(batched), "xd_gemm_big_dense");
}

TEST(XpuPlanGemm, UnalignedOrTransposedOperandsTakeTheGeneralKernel) {
  gemm_args g = dense_gemm(256, 256, 256);
  g.a_off = 1;  // A's rows start off a 4-element boundary
  EXPECT_EQ(gemm_entry(g), "xd_gemm_big");
  g = dense_gemm(256, 256, 256);
  g.b_off = 2;
  EXPECT_EQ(gemm_entry(g), "xd_gemm_big");
  g = dense_gemm(256, 256, 256);
  g.a_m = 1, g.a_k = 256;  // A column-major (a transposed view)
  EXPECT_EQ(gemm_entry(g), "xd_gemm_big");
  g = dense_gemm(256, 256, 256);
  g.b_k = 1, g.b_n = 256;  // B column-major
  EXPECT_EQ(gemm_entry(g), "xd_gemm_big");
  EXPECT_EQ(gemm_entry(dense_gemm(256, 130, 256)), "xd_gemm_big");  // n not a multiple of 4
  EXPECT_EQ(gemm_entry(dense_gemm(256, 256, 257)), "xd_gemm_big");  // k (A's row stride) not either
  g = dense_gemm(256, 256, 256);
  g.batch = 2, g.a_b = 256 * 256 + 2;  // a batch stride off the boundary
  EXPECT_EQ(gemm_entry(g), "xd_gemm_big");
}

TEST(XpuPlanGemm, SmallShapesAndSmallWorkGroupsTakeTheTiledKernel) {
  EXPECT_EQ(gemm_entry(dense_gemm(64, 64, 64)), "xd_gemm_tiled");
  EXPECT_EQ(gemm_entry(dense_gemm(256, 16, 256)), "xd_gemm_tiled");
  EXPECT_EQ(gemm_entry(dense_gemm(256, 256, 256), 128), "xd_gemm_tiled");
}

std::string mma_entry(const gemm_args& g) { return xd::xpu::plan_gemm(g, 256, 65535, true).entry; }

TEST(XpuPlanGemm, TensorCoreKernelsTakeAlignedOperandsOfEitherBLayout) {
  EXPECT_EQ(mma_entry(dense_gemm(4096, 4096, 4096)), "xd_gemm_mma_nn");
  EXPECT_EQ(mma_entry(dense_gemm(17, 64, 32)), "xd_gemm_mma_nn");  // the smallest shape it takes
  gemm_args g = dense_gemm(512, 11008, 4096);
  g.b_k = 1, g.b_n = 4096;  // B stored n x k (x @ w.t())
  EXPECT_EQ(mma_entry(g), "xd_gemm_mma_nt");
  g.n = 11001;  // n needs no alignment when B is dense along k
  EXPECT_EQ(mma_entry(g), "xd_gemm_mma_nt");
  const xd::xpu::gemm_plan p = xd::xpu::plan_gemm(dense_gemm(300, 200, 64), 256, 65535, true);
  EXPECT_EQ(p.local[0], 128);  // four warps
  EXPECT_EQ(p.local[1], 1);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 2);  // ceil(200 / 128)
  EXPECT_EQ(p.launches[0].groups[1], 3);  // ceil(300 / 128)
}

TEST(XpuPlanGemm, TensorCoreKernelsDeclineSkinnyUnalignedOrTransposedOperands) {
  EXPECT_EQ(mma_entry(dense_gemm(1, 4096, 4096)), "xd_gemm_skinny_m1");  // one row: the CUDA-core gemv
  EXPECT_EQ(mma_entry(dense_gemm(256, 32, 256)), "xd_gemm_big_dense");   // n < 64
  EXPECT_EQ(mma_entry(dense_gemm(256, 256, 16)), "xd_gemm_big_dense");   // k < 32
  EXPECT_EQ(mma_entry(dense_gemm(256, 256, 260)), "xd_gemm_big_dense");  // k not a multiple of 8
  EXPECT_EQ(mma_entry(dense_gemm(256, 260, 256)), "xd_gemm_big_dense");  // n either (nn)
  gemm_args g = dense_gemm(256, 256, 256);
  g.a_off = 4;
  EXPECT_EQ(mma_entry(g), "xd_gemm_big_dense");
  g = dense_gemm(256, 256, 256);
  g.a_m = 1, g.a_k = 256;  // A column-major
  EXPECT_EQ(mma_entry(g), "xd_gemm_big");
  g = dense_gemm(256, 256, 256);
  g.batch = 2, g.b_b = 256 * 256 + 4;
  EXPECT_EQ(mma_entry(g), "xd_gemm_big_dense");
  EXPECT_EQ(gemm_entry(dense_gemm(4096, 4096, 4096)), "xd_gemm_big_dense") << "only where the device has them";
}

TEST(XpuPlanGemm, DecodeShapesOfTwoToSixteenRowsTakeTheTensorCoreGemvWhereAligned) {
  EXPECT_EQ(mma_entry(dense_gemm(2, 16, 16)), "xd_gemm_mma_skinny_nn");  // the smallest shape it takes
  gemm_args g = dense_gemm(5, 4096, 11008);
  g.b_k = 1, g.b_n = 11008;  // B stored n x k (x @ w.t())
  EXPECT_EQ(mma_entry(g), "xd_gemm_mma_skinny_nt");
  xd::xpu::gemm_plan p = xd::xpu::plan_gemm(g, 256, 65535, true);
  EXPECT_EQ(p.local[0], 256);  // eight warps
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 128);  // ceil(4096 / 32)
  EXPECT_EQ(p.launches[0].groups[1], 1);
  // Wide B: 64 columns per work-group.
  p = xd::xpu::plan_gemm(dense_gemm(16, 16384, 16384), 256, 65535, true);
  EXPECT_EQ(p.entry, std::string("xd_gemm_mma_skinny64_nn"));
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 256);
  g = dense_gemm(8, 4096, 4100);  // k not a multiple of 8: the CUDA-core kernel
  EXPECT_EQ(mma_entry(g), "xd_gemm_skinny_m8");
  EXPECT_EQ(gemm_entry(dense_gemm(16, 16384, 16384)), "xd_gemm_skinny_m16") << "only where the device has them";
}

TEST(XpuPlanGemm, F32DecodeShapesTakeTheAsyncGemvWhereTheDeviceHasIt) {
  const auto f32_entry = [](const gemm_args& g) {
    return std::string(xd::xpu::plan_gemm(g, 256, 65535, false, true).entry);
  };
  EXPECT_EQ(f32_entry(dense_gemm(16, 4096, 16384)), "xd_gemm_async_skinny_nn");
  const xd::xpu::gemm_plan wide = xd::xpu::plan_gemm(dense_gemm(16, 16384, 16384), 256, 65535, false, true);
  EXPECT_EQ(wide.entry, std::string("xd_gemm_async_skinny64_nn"));  // wide B: 64 columns, four warps
  EXPECT_EQ(wide.local[0], 128);
  ASSERT_EQ(wide.launches.size(), 1u);
  EXPECT_EQ(wide.launches[0].groups[0], 256);
  EXPECT_EQ(f32_entry(dense_gemm(2, 16, 16)), "xd_gemm_async_skinny_nn");
  gemm_args g = dense_gemm(16, 4096, 11008);
  g.b_k = 1, g.b_n = 11008;
  EXPECT_EQ(f32_entry(g), "xd_gemm_async_skinny_nt");
  EXPECT_EQ(f32_entry(dense_gemm(1, 16384, 16384)), "xd_gemm_skinny_m1");  // one row: the gemv streams B alone
  EXPECT_EQ(f32_entry(dense_gemm(16, 4096, 4098)), "xd_gemm_skinny_m16");  // k not a multiple of 4
  EXPECT_EQ(f32_entry(dense_gemm(32, 4096, 4096)), "xd_gemm_big_dense");   // more than 16 rows
  const xd::xpu::gemm_plan p = xd::xpu::plan_gemm(dense_gemm(16, 100, 64), 256, 65535, false, true);
  EXPECT_EQ(p.local[0], 256);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 4);  // ceil(100 / 32)
}

TEST(XpuPlanGemm, DecodeShapesTakeTheSkinnyKernelForTheirRowCount) {
  EXPECT_EQ(gemm_entry(dense_gemm(1, 16384, 16384)), "xd_gemm_skinny_m1");
  EXPECT_EQ(gemm_entry(dense_gemm(3, 4096, 4096)), "xd_gemm_skinny_m4");
  EXPECT_EQ(gemm_entry(dense_gemm(8, 4096, 11008)), "xd_gemm_skinny_m8");
  EXPECT_EQ(gemm_entry(dense_gemm(16, 11008, 4096)), "xd_gemm_skinny_m16");
  gemm_args g = dense_gemm(16, 4096, 4096);
  g.b_k = 1, g.b_n = 4096, g.a_off = 3;  // any layout and alignment
  g.batch = 3;
  const xd::xpu::gemm_plan p = xd::xpu::plan_gemm(g, 256, 65535);
  EXPECT_EQ(p.entry, std::string("xd_gemm_skinny_m16"));
  EXPECT_EQ(p.local[0], 256);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 128);  // 32 columns per work-group
  EXPECT_EQ(p.launches[0].groups[1], 1);
  EXPECT_EQ(p.launches[0].groups[2], 3);
  EXPECT_EQ(gemm_entry(dense_gemm(17, 4096, 4096)), "xd_gemm_tiled");     // more rows than 16
  EXPECT_EQ(gemm_entry(dense_gemm(4, 64, 64)), "xd_gemm_tiled");          // too small to stream
  EXPECT_EQ(gemm_entry(dense_gemm(4, 4096, 4096), 32), "xd_gemm_tiled");  // work-groups under 64
}

int4_args int4(int64_t m, int64_t n, int64_t k, int64_t group) {
  int4_args a{};
  a.m = m, a.n = n, a.k = k, a.group = group;
  return a;
}

std::string int4_entry(const int4_args& a, bool mma = false) { return xd::xpu::plan_int4_mm(a, 256, 65535, mma).entry; }

TEST(XpuPlanInt4, OneAlignedRowTakesTheDenseGemv) {
  EXPECT_EQ(int4_entry(int4(1, 16384, 16384, 128)), "xd_int4_gemv_m1_dense");
  EXPECT_EQ(int4_entry(int4(1, 72, 256, 64)), "xd_int4_gemv_m1_dense");
}

TEST(XpuPlanInt4, OneUnalignedRowTakesTheGeneralGemv) {
  int4_args a = int4(1, 64, 4096, 128);
  a.w_off = 1;  // a weight starting one byte into its buffer
  EXPECT_EQ(int4_entry(a), "xd_int4_gemv_m1");
  a = int4(1, 64, 4096, 128);
  a.x_off = 2;
  EXPECT_EQ(int4_entry(a), "xd_int4_gemv_m1");
  a = int4(1, 64, 4096, 128);
  a.s_off = 3;
  EXPECT_EQ(int4_entry(a), "xd_int4_gemv_m1");
  a = int4(1, 64, 4096, 128);
  a.z_off = 1;
  EXPECT_EQ(int4_entry(a), "xd_int4_gemv_m1");
  EXPECT_EQ(int4_entry(int4(1, 300, 4096, 128)), "xd_int4_gemv_m1");  // N not a multiple of 8
  EXPECT_EQ(int4_entry(int4(1, 1, 32, 32)), "xd_int4_gemv_m1");
}

TEST(XpuPlanInt4, TensorCoreKernelsNeedWholeTilesAndAlignmentForTheDenseVariant) {
  EXPECT_EQ(int4_entry(int4(16, 64, 256, 128), true), "xd_int4_mma_m16_dense");
  EXPECT_EQ(int4_entry(int4(8, 32, 256, 128), true), "xd_int4_mma_m8_dense");
  EXPECT_EQ(int4_entry(int4(16, 40, 512, 256), true), "xd_int4_mma_m16");  // N not whole tiles of 32
  int4_args a = int4(16, 64, 256, 128);
  a.x_off = 4;  // input rows 8-byte but not 16-byte aligned
  EXPECT_EQ(int4_entry(a, true), "xd_int4_mma_m16");
  a = int4(16, 64, 256, 128);
  a.s_off = 4;  // scales 8-byte but not 16-byte aligned
  EXPECT_EQ(int4_entry(a, true), "xd_int4_mma_m16");
  a = int4(16, 64, 256, 128);
  a.z_off = 2;  // zero points 2-byte but not 4-byte aligned
  EXPECT_EQ(int4_entry(a, true), "xd_int4_mma_m16");
  // Group sizes that are not multiples of 128, or no tensor cores: the CUDA-core gemv.
  EXPECT_EQ(int4_entry(int4(16, 64, 256, 64), true), "xd_int4_gemv_m16");
  EXPECT_EQ(int4_entry(int4(16, 64, 256, 128), false), "xd_int4_gemv_m16");
  // One row keeps the gemv even where the tensor cores are there.
  EXPECT_EQ(int4_entry(int4(1, 64, 256, 128), true), "xd_int4_gemv_m1_dense");
}

}  // namespace

TEST(XpuPlanIntMm, TensorCoresTakeAlignedOperandsWithMat2StoredNByK) {
  xd::xpu::qmm_args g{};
  g.m = 4096, g.n = 4096, g.k = 4096;
  g.a_m = 4096, g.a_k = 1;  // a row-major
  g.b_k = 1, g.b_n = 4096;  // mat2 stored n x k
  g.c_m = 4096, g.c_n = 1;
  xd::xpu::qmm_plan p = xd::xpu::plan_int_mm(g, 256, 65535, true);
  EXPECT_EQ(std::string(p.entry), "xd_int_mm_mma_nt");
  EXPECT_EQ(p.local[0], 128);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 32);
  EXPECT_EQ(p.launches[0].groups[1], 32);
  EXPECT_EQ(std::string(xd::xpu::plan_int_mm(g, 256, 65535, false).entry), "xd_int_mm")
      << "only where the device has them";
  xd::xpu::qmm_args h = g;
  h.b_k = 4096, h.b_n = 1;  // mat2 row-major: the portable kernel
  EXPECT_EQ(std::string(xd::xpu::plan_int_mm(h, 256, 65535, true).entry), "xd_int_mm");
  h = g;
  h.k = 4100, h.a_m = 4100, h.b_n = 4100;  // k not a multiple of 16
  EXPECT_EQ(std::string(xd::xpu::plan_int_mm(h, 256, 65535, true).entry), "xd_int_mm");
  h = g;
  h.m = 16;  // decode rows
  EXPECT_EQ(std::string(xd::xpu::plan_int_mm(h, 256, 65535, true).entry), "xd_int_mm");
}

TEST(XpuPlanScaledMm, TensorCoresTakeAlignedOperandsAndMat2sFormatPicksTheEntry) {
  xd::xpu::qmm_args g{};
  g.m = 4096, g.n = 4096, g.k = 4096;
  g.a_m = 4096, g.a_k = 1;
  g.b_k = 1, g.b_n = 4096;  // mat2 stored n x k
  g.c_m = 4096, g.c_n = 1;
  EXPECT_EQ(std::string(xd::xpu::plan_scaled_mm(g, 256, 65535, true).entry), "xd_scaled_mm_mma_nt_b_e4m3");
  g.b_fmt = 1;  // e5m2
  EXPECT_EQ(std::string(xd::xpu::plan_scaled_mm(g, 256, 65535, true).entry), "xd_scaled_mm_mma_nt_b_e5m2");
  EXPECT_EQ(std::string(xd::xpu::plan_scaled_mm(g, 256, 65535, false).entry), "xd_scaled_mm");
  g.a_off = 8;  // not a multiple of 16
  EXPECT_EQ(std::string(xd::xpu::plan_scaled_mm(g, 256, 65535, true).entry), "xd_scaled_mm");
}
