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
#include <tuple>
#include <vector>

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

std::string packed_entry(const gemm_args& g) { return xd::xpu::plan_gemm(g, 256, 65535, true, false, true).entry; }

TEST(XpuPlanGemm, PackedTensorCoreKernelsTakeMAndNOf1024AndMoreWhereTheDeviceHasThem) {
  EXPECT_EQ(packed_entry(dense_gemm(4096, 4096, 4096)), "xd_gemm_mma_packed_nn");
  EXPECT_EQ(packed_entry(dense_gemm(1024, 1024, 32)), "xd_gemm_mma_packed_nn");  // the smallest it takes
  gemm_args g = dense_gemm(1030, 1025, 40);
  g.b_k = 1, g.b_n = 40;  // B stored n x k
  EXPECT_EQ(packed_entry(g), "xd_gemm_mma_packed_nt");
  const xd::xpu::gemm_plan nt = xd::xpu::plan_gemm(g, 256, 65535, true, false, true);
  EXPECT_TRUE(nt.packed);
  EXPECT_STREQ(nt.unpacked_entry, "xd_gemm_mma_nt");  // without a workspace
  EXPECT_FALSE(nt.b_rows_k);
  const xd::xpu::gemm_plan nn = xd::xpu::plan_gemm(dense_gemm(1024, 1024, 32), 256, 65535, true, false, true);
  EXPECT_STREQ(nn.unpacked_entry, "xd_gemm_mma_nn");
  EXPECT_TRUE(nn.b_rows_k);
  // Below 1024 rows or columns (llama_mlp's 512 tokens): the unpacked kernels, no workspace.
  EXPECT_EQ(packed_entry(dense_gemm(1016, 4096, 4096)), "xd_gemm_mma_nn");
  EXPECT_EQ(packed_entry(dense_gemm(4096, 1016, 4096)), "xd_gemm_mma_nn");
  g = dense_gemm(512, 11008, 4096);
  g.b_k = 1, g.b_n = 4096;
  EXPECT_EQ(packed_entry(g), "xd_gemm_mma_nt");
  EXPECT_FALSE(xd::xpu::plan_gemm(g, 256, 65535, true, false, true).packed);
  // Decode shapes, unaligned operands and devices without the tensor-core kernels: never packed.
  EXPECT_EQ(packed_entry(dense_gemm(16, 16384, 16384)), "xd_gemm_mma_stream_nn");
  g = dense_gemm(4096, 4096, 4096);
  g.a_off = 4;
  EXPECT_EQ(packed_entry(g), "xd_gemm_big_dense");
  EXPECT_FALSE(xd::xpu::plan_gemm(dense_gemm(4096, 4096, 4096), 256, 65535, false, false, true).packed);
  EXPECT_EQ(mma_entry(dense_gemm(4096, 4096, 4096)), "xd_gemm_mma_nn") << "only where the device has them";
}

TEST(XpuPlanGemm, TheWgmmaKernelTakesThePackedCallsOfBothBLayoutsWhereTheDeviceHasIt) {
  const auto plan = [](const gemm_args& g, bool wgmma) {
    return xd::xpu::plan_gemm(g, 256, 65535, true, false, true, wgmma);
  };
  const xd::xpu::gemm_plan nn = plan(dense_gemm(4096, 4096, 4096), true);
  EXPECT_STREQ(nn.entry, "xd_gemm_wgmma_packed");
  EXPECT_TRUE(nn.packed && nn.wgmma && nn.b_rows_k);
  EXPECT_STREQ(nn.unpacked_entry, "xd_gemm_mma_nn");  // without a workspace
  EXPECT_EQ(nn.local[0], 128);                        // one warpgroup
  gemm_args g = dense_gemm(1030, 1025, 40);
  g.b_k = 1, g.b_n = 40;  // B stored n x k
  const xd::xpu::gemm_plan nt = plan(g, true);
  EXPECT_STREQ(nt.entry, "xd_gemm_wgmma_packed");
  EXPECT_FALSE(nt.b_rows_k);
  EXPECT_STREQ(nt.unpacked_entry, "xd_gemm_mma_nt");
  // Where the packed kernels are not taken, neither is it; without it, the mma.sync packed ones.
  EXPECT_EQ(std::string(plan(dense_gemm(1016, 4096, 4096), true).entry), "xd_gemm_mma_nn");
  EXPECT_FALSE(plan(dense_gemm(1016, 4096, 4096), true).wgmma);
  EXPECT_EQ(std::string(plan(dense_gemm(16, 16384, 16384), true).entry), "xd_gemm_mma_stream_nn");
  EXPECT_FALSE(xd::xpu::plan_gemm(dense_gemm(4096, 4096, 4096), 256, 65535, true, false, false, true).wgmma);
  EXPECT_STREQ(plan(dense_gemm(4096, 4096, 4096), false).entry, "xd_gemm_mma_packed_nn");
  EXPECT_FALSE(plan(dense_gemm(4096, 4096, 4096), false).wgmma);
}

TEST(XpuPlanGemm, TheTensorMapKernelTakesTheWgmmaCallsWhereTheDeviceEncodesMaps) {
  const auto plan = [](const gemm_args& g, bool tma) {
    return xd::xpu::plan_gemm(g, 256, 65535, true, false, true, true, 132, tma);
  };
  const xd::xpu::gemm_plan nn = plan(dense_gemm(4096, 4096, 4096), true);
  EXPECT_STREQ(nn.entry, "xd_gemm_wgmma_tma");
  EXPECT_TRUE(nn.tma && nn.wgmma && nn.packed && nn.b_rows_k) << "B stored k x n: MN-major for wgmma";
  EXPECT_STREQ(nn.unpacked_entry, "xd_gemm_mma_nn");
  EXPECT_EQ(nn.local[0], 128);
  gemm_args g = dense_gemm(1030, 1025, 40);
  g.b_k = 1, g.b_n = 40;
  EXPECT_FALSE(plan(g, true).b_rows_k);
  EXPECT_STREQ(plan(g, true).entry, "xd_gemm_wgmma_tma");
  // Without maps, the packed wgmma kernel; and never where wgmma or the packed calls are not taken.
  EXPECT_STREQ(plan(dense_gemm(4096, 4096, 4096), false).entry, "xd_gemm_wgmma_packed");
  EXPECT_FALSE(plan(dense_gemm(4096, 4096, 4096), false).tma);
  EXPECT_FALSE(xd::xpu::plan_gemm(dense_gemm(4096, 4096, 4096), 256, 65535, true, false, true, false, 132, true).tma);
  // With no packing to pay for, from two tiles along m and n (llama_mlp's 512 tokens) on.
  EXPECT_STREQ(plan(dense_gemm(512, 11008, 4096), true).entry, "xd_gemm_wgmma_tma");
  EXPECT_STREQ(plan(dense_gemm(512, 11008, 4096), false).entry, "xd_gemm_mma_nn");
  EXPECT_FALSE(plan(dense_gemm(255, 4096, 4096), true).tma);
  EXPECT_FALSE(plan(dense_gemm(4096, 255, 4096), true).tma);
  EXPECT_STREQ(plan(dense_gemm(16, 16384, 16384), true).entry, "xd_gemm_mma_stream_nn");
}

TEST(XpuPlanGemm, TensorMapsDescribeBothOperandsInTheBoxesTheKernelCopies) {
  gemm_args g = dense_gemm(1040, 1032, 264);  // A 1040 x 264, B 264 x 1032, row-major
  auto [a, b] = xd::xpu::tma_specs(g, true, true);
  EXPECT_TRUE(a.bf16 && b.bf16);
  EXPECT_EQ(a.dims[0], 264u);
  EXPECT_EQ(a.dims[1], 1040u);
  EXPECT_EQ(a.dims[2], 1u);
  EXPECT_EQ(a.strides[0], 264u * 2);
  EXPECT_EQ(a.strides[1], 1040u * 264 * 2) << "a batch of one steps past the matrix";
  EXPECT_EQ(a.box[0], 32u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.swizzle_bytes, 64);
  // B stored k x n: n innermost, boxes of 64 columns by 32 k rows in the 128-byte swizzle.
  EXPECT_EQ(b.dims[0], 1032u);
  EXPECT_EQ(b.dims[1], 264u);
  EXPECT_EQ(b.strides[0], 1032u * 2);
  EXPECT_EQ(b.box[0], 64u);
  EXPECT_EQ(b.box[1], 32u);
  EXPECT_EQ(b.swizzle_bytes, 128);
  // B stored n x k (K-major), batched with its own strides.
  g.batch = 3;
  g.b_k = 1, g.b_n = 264, g.b_b = 1032 * 264;
  g.a_b = 1040 * 264;
  std::tie(a, b) = xd::xpu::tma_specs(g, false, false);
  EXPECT_FALSE(b.bf16);
  EXPECT_EQ(b.dims[0], 264u);
  EXPECT_EQ(b.dims[1], 1032u);
  EXPECT_EQ(b.dims[2], 3u);
  EXPECT_EQ(b.strides[0], 264u * 2);
  EXPECT_EQ(b.strides[1], 1032u * 264 * 2);
  EXPECT_EQ(b.box[0], 32u);
  EXPECT_EQ(b.box[1], 128u);
  EXPECT_EQ(b.swizzle_bytes, 64);
  EXPECT_EQ(a.strides[1], 1040u * 264 * 2);
}

TEST(XpuPlanGemm, PackedOperandsAreWholeTilesOfWholeKStepsPerBatch) {
  gemm_args g = dense_gemm(300, 200, 72);
  g.batch = 3;
  const xd::xpu::gemm_pack p = xd::xpu::pack_of(g);
  EXPECT_EQ(p.a_tiles, 3);  // ceil(300 / 128)
  EXPECT_EQ(p.b_tiles, 2);  // ceil(200 / 128)
  EXPECT_EQ(p.steps, 5);    // ceil(72 / 16)
  EXPECT_EQ(p.a_chunks, 3 * 3 * 5 * 256);
  EXPECT_EQ(p.b_chunks, 3 * 2 * 5 * 256);
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
  EXPECT_EQ(mma_entry(dense_gemm(2, 16, 16)), "xd_gemm_mma_stream_nn");  // the smallest shape it takes
  gemm_args g = dense_gemm(5, 4096, 11008);
  g.b_k = 1, g.b_n = 11008;  // B stored n x k (x @ w.t())
  EXPECT_EQ(mma_entry(g), "xd_gemm_mma_stream_nt");
  xd::xpu::gemm_plan p = xd::xpu::plan_gemm(g, 256, 65535, true);
  EXPECT_EQ(p.local[0], 128);  // four warps of 64 columns each
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 16);  // ceil(4096 / 256)
  EXPECT_EQ(p.launches[0].groups[1], 1);
  p = xd::xpu::plan_gemm(dense_gemm(16, 16392, 16384), 256, 65535, true);
  EXPECT_EQ(p.entry, std::string("xd_gemm_mma_stream_nn"));
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 65);  // the last work-group has one warp at work, on columns 16384..16391
  g = dense_gemm(8, 4096, 4100);  // k not a multiple of 8: the CUDA-core kernel
  EXPECT_EQ(mma_entry(g), "xd_gemm_skinny_m8");
  EXPECT_EQ(gemm_entry(dense_gemm(16, 16384, 16384)), "xd_gemm_skinny_m16") << "only where the device has them";
}

TEST(XpuPlanGemm, NvidiaGemvsSplitKUntilEnoughWorkGroupsPerComputeUnitAreInFlight) {
  const auto plan = [](const gemm_args& g, bool mma, int64_t units) {
    return xd::xpu::plan_gemm(g, 256, 65535, mma, !mma, false, false, units);
  };
  // 64 work-groups of 256 columns on 132 units: six splits of k.
  xd::xpu::gemm_plan p = plan(dense_gemm(16, 16384, 16384), true, 132);
  EXPECT_TRUE(p.nv_skinny);
  EXPECT_EQ(p.splits, 6);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[1], 6);
  EXPECT_EQ(xd::xpu::skinny_part_floats(dense_gemm(16, 16384, 16384), p), 6 * 16 * 16384);
  EXPECT_EQ(plan(dense_gemm(16, 16384, 16384), false, 132).splits, 12);  // f32: 32 groups of 512 columns
  EXPECT_EQ(plan(dense_gemm(16, 4096, 11008), true, 132).splits, 16);   // 16 groups of 256 columns: at most 16
  EXPECT_EQ(plan(dense_gemm(16, 4096, 11008), false, 132).splits, 49);  // f32: 8 groups, splits of 8 steps
  EXPECT_EQ(plan(dense_gemm(16, 1024, 11008), false, 132).splits, 12);  // narrow f32: 32 groups of 32, 3 a unit
  EXPECT_EQ(plan(dense_gemm(16, 2048, 512), false, 132).splits, 4);     // f32 stream: each split >= 8 steps of 16
  EXPECT_EQ(plan(dense_gemm(16, 2048, 1 << 20), false, 132).splits, 64);  // f32 stream: at most 64
  EXPECT_EQ(plan(dense_gemm(16, 64, 1024), true, 132).splits, 2);       // each split >= 32 steps of 16
  EXPECT_EQ(plan(dense_gemm(16, 64, 1 << 20), true, 132).splits, 16);   // at most 16
  EXPECT_EQ(plan(dense_gemm(16, 16384, 256), true, 132).splits, 1);     // 16 steps: none
  EXPECT_EQ(plan(dense_gemm(16, 16384, 16384), true, 0).splits, 1);     // no unit count: none
  gemm_args g = dense_gemm(16, 4096, 4096);
  g.batch = 64, g.a_b = 16 * 4096, g.b_b = 4096 * 4096, g.c_b = 16 * 4096;
  EXPECT_EQ(plan(g, true, 132).splits, 1);  // 1024 work-groups fill the device
  g = dense_gemm(16, 2048, 4096);
  g.batch = 2, g.a_b = 16 * 4096, g.b_b = 4096 * 2048, g.c_b = 16 * 2048;
  p = plan(g, true, 132);
  EXPECT_EQ(p.splits, 8);  // 2 x 8 groups; 256 steps of 16, each split at least 32
  EXPECT_EQ(xd::xpu::skinny_part_floats(g, p), 2 * 8 * 16 * 2048);
  p = plan(dense_gemm(1, 16384, 16384), true, 132);  // one row: the portable gemv, never split
  EXPECT_FALSE(p.nv_skinny);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(xd::xpu::skinny_part_floats(dense_gemm(1, 16384, 16384), p), 0);
}

TEST(XpuPlanGemm, F32DecodeShapesStreamWideBIntoRegistersAndNarrowBThroughLocalMemory) {
  const auto f32_entry = [](const gemm_args& g) {
    return std::string(xd::xpu::plan_gemm(g, 256, 65535, false, true).entry);
  };
  const xd::xpu::gemm_plan wide = xd::xpu::plan_gemm(dense_gemm(16, 16384, 16384), 256, 65535, false, true);
  EXPECT_EQ(wide.entry, std::string("xd_gemm_f32_stream_nn"));  // 128 columns a warp, four warps
  EXPECT_EQ(wide.local[0], 128);
  ASSERT_EQ(wide.launches.size(), 1u);
  EXPECT_EQ(wide.launches[0].groups[0], 32);
  EXPECT_EQ(f32_entry(dense_gemm(16, 2048, 64)), "xd_gemm_f32_stream_nn");      // from kF32StreamMinN columns
  EXPECT_EQ(f32_entry(dense_gemm(16, 2044, 4096)), "xd_gemm_async_skinny_nn");  // narrower: 32 columns, 8 warps
  EXPECT_EQ(f32_entry(dense_gemm(2, 16, 16)), "xd_gemm_async_skinny_nn");
  gemm_args g = dense_gemm(16, 4096, 11008);
  g.b_k = 1, g.b_n = 11008;
  EXPECT_EQ(f32_entry(g), "xd_gemm_f32_stream_nt");
  g = dense_gemm(16, 1024, 4096);
  g.b_k = 1, g.b_n = 4096;
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

TEST(XpuPlanScaledMm, FastAccumulationTakesTheWgmmaKernelOnPackedOperandsOf1024RowsAndColumns) {
  xd::xpu::qmm_args g{};
  g.m = 4096, g.n = 4096, g.k = 4096;
  g.a_m = 4096, g.a_k = 1;
  g.b_k = 1, g.b_n = 4096;
  g.c_m = 4096, g.c_n = 1;
  // Without the call's use_fast_accum (or a device with wgmma) the f32-accumulating kernel runs.
  EXPECT_STREQ(xd::xpu::plan_scaled_mm(g, 256, 65535, true, false).entry, "xd_scaled_mm_mma_nt_b_e4m3");
  EXPECT_FALSE(xd::xpu::plan_scaled_mm(g, 256, 65535, true, false).packed);
  xd::xpu::qmm_plan p = xd::xpu::plan_scaled_mm(g, 256, 65535, true, true);
  EXPECT_STREQ(p.entry, "xd_scaled_mm_wgmma_b_e4m3");
  EXPECT_TRUE(p.packed);
  EXPECT_STREQ(p.unpacked_entry, "xd_scaled_mm_mma_nt_b_e4m3");  // where no workspace can be had
  EXPECT_EQ(p.steps, 128);                                       // k steps of 32
  EXPECT_EQ(p.block, 128);
  EXPECT_EQ(p.local[0], 128);
  g.b_fmt = 1;
  g.k = 4112, g.a_m = 4112, g.b_n = 4112;
  p = xd::xpu::plan_scaled_mm(g, 256, 65535, true, true);
  EXPECT_STREQ(p.entry, "xd_scaled_mm_wgmma_b_e5m2");
  EXPECT_EQ(p.steps, 129);  // the last step zero-filled past k
  g.m = 1016;               // too few rows to repay the packing
  p = xd::xpu::plan_scaled_mm(g, 256, 65535, true, true);
  EXPECT_STREQ(p.entry, "xd_scaled_mm_mma_nt_b_e5m2");
  EXPECT_FALSE(p.packed);
  g.m = 4096, g.a_off = 8;  // operands the tensor cores do not take: neither kernel
  EXPECT_STREQ(xd::xpu::plan_scaled_mm(g, 256, 65535, true, true).entry, "xd_scaled_mm");
  EXPECT_FALSE(xd::xpu::plan_scaled_mm(g, 256, 65535, true, true).packed);
  g.a_off = 0;
  EXPECT_FALSE(xd::xpu::plan_scaled_mm(g, 256, 65535, false, true).packed) << "nor without the mma kernels";
}

// ---------------------------------------------------------------- DPAS (matmul_dpas.cl)
std::string dpas_program(const gemm_args& g, int32_t dtype = XD_DTYPE_F16, int sg = 16) {
  const char* p = xd::xpu::plan_gemm_dpas(g, dtype, sg, 65535).program;
  return p == nullptr ? "declined" : p;
}
std::string dpas_reason(const gemm_args& g, int32_t dtype = XD_DTYPE_F16, int sg = 16) {
  return xd::xpu::plan_gemm_dpas(g, dtype, sg, 65535).why_not;
}

TEST(XpuPlanGemmDpas, F16AndBf16OfAnyShapeAndDenseLayoutTakeTheProgramOfTheSubGroupSize) {
  EXPECT_EQ(dpas_program(dense_gemm(4096, 4096, 4096)), "matmul_dpas16");
  EXPECT_EQ(dpas_program(dense_gemm(4096, 4096, 4096), XD_DTYPE_BF16, 8), "matmul_dpas8");
  // Off the tiles, k under one k16 block, a single element: the kernel handles the edges.
  EXPECT_EQ(dpas_program(dense_gemm(33, 65, 17)), "matmul_dpas16");
  EXPECT_EQ(dpas_program(dense_gemm(5, 7, 3)), "matmul_dpas16");
  EXPECT_EQ(dpas_program(dense_gemm(1, 1, 1)), "matmul_dpas16");
  gemm_args g = dense_gemm(100, 90, 80);
  g.a_m = 1, g.a_k = 100;    // A transposed (dense along m)
  g.b_k = 1, g.b_n = 80;     // B transposed (dense along k)
  g.a_off = 3, g.b_off = 5;  // no alignment needed
  EXPECT_EQ(dpas_program(g), "matmul_dpas16");
  const xd::xpu::dpas_plan p = xd::xpu::plan_gemm_dpas(dense_gemm(70, 130, 40), XD_DTYPE_F16, 16, 65535);
  EXPECT_EQ(p.local[0], 64);  // four sub-groups of 16
  EXPECT_EQ(p.tile_m, 32);
  EXPECT_EQ(p.tile_n, 64);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].groups[0], 3);  // ceil(130 / 64)
  EXPECT_EQ(p.launches[0].groups[1], 3);  // ceil(70 / 32)
  EXPECT_EQ(xd::xpu::plan_gemm_dpas(dense_gemm(70, 130, 40), XD_DTYPE_F16, 8, 65535).launches[0].groups[0], 5)
      << "32 columns a work-group at sub-group size 8";
  // An empty problem is taken, with nothing to launch; k = 0 launches (the output is beta * input).
  EXPECT_TRUE(xd::xpu::plan_gemm_dpas(dense_gemm(0, 8, 8), XD_DTYPE_F16, 16, 65535).launches.empty());
  EXPECT_EQ(xd::xpu::plan_gemm_dpas(dense_gemm(8, 8, 0), XD_DTYPE_F16, 16, 65535).launches.size(), 1u);
}

TEST(XpuPlanGemmDpas, OperandsWithoutAUnitStrideGoToThePortableKernelsWithTheReason) {
  gemm_args g = dense_gemm(64, 64, 64);
  g.a_m = 128, g.a_k = 2;  // a[::2, ::2] of a 128-column matrix
  EXPECT_EQ(dpas_program(g), "declined");
  EXPECT_EQ(
      dpas_reason(g),
      "xd_gemm_dpas declines: a has no unit stride (stride 128 along m, 2 along k): the kernel loads each operand "
      "along a dense axis");
  EXPECT_EQ(gemm_entry(g), "xd_gemm_tiled") << "the general kernel takes it";
  g = dense_gemm(64, 64, 64);
  g.b_k = 192, g.b_n = 3;
  EXPECT_EQ(
      dpas_reason(g),
      "xd_gemm_dpas declines: b has no unit stride (stride 192 along k, 3 along n): the kernel loads each operand "
      "along a dense axis");
  // A size-1 dimension's stride moves no address: such an operand is dense along it.
  g = dense_gemm(1, 64, 64);
  g.a_m = 7, g.a_k = 1;
  EXPECT_EQ(dpas_program(g), "matmul_dpas16");
  g = dense_gemm(64, 64, 1);
  g.a_m = 3, g.a_k = 5, g.b_k = 9, g.b_n = 9;  // k = 1: one column of A (dense along k), one row of B
  const xd::xpu::dpas_plan p = xd::xpu::plan_gemm_dpas(g, XD_DTYPE_F16, 16, 65535);
  ASSERT_NE(p.program, nullptr) << p.why_not;
  EXPECT_EQ(p.args.a_k, 1) << "the kernel gets the size-1 stride as 1";
  EXPECT_EQ(p.args.b_k, 1);
  EXPECT_EQ(p.args.a_m, 3);
  EXPECT_EQ(p.args.b_n, 9);
  g.k = 2;  // now A and B have no unit stride
  EXPECT_EQ(dpas_program(g), "declined");
}

TEST(XpuPlanGemmDpas, OtherDtypesDecodeShapesAndDevicesWithoutDpasAreDeclinedSayingWhy) {
  EXPECT_EQ(dpas_reason(dense_gemm(64, 64, 64), XD_DTYPE_F32), "xd_gemm_dpas declines: it takes f16 and bf16 only");
  EXPECT_EQ(dpas_reason(dense_gemm(64, 64, 64), XD_DTYPE_F16, 0),
            "xd_gemm_dpas declines: no DPAS sub-group size on this device (8 or 16; got 0)");
  EXPECT_EQ(dpas_reason(dense_gemm(64, 64, 64), XD_DTYPE_F16, 32),
            "xd_gemm_dpas declines: no DPAS sub-group size on this device (8 or 16; got 32)");
  // Decode shapes stay with the skinny kernels, which split k over a work-group.
  EXPECT_EQ(dpas_reason(dense_gemm(4, 4096, 4096)),
            "xd_gemm_dpas declines: a decode shape (m = 4 rows against k * n = 16777216): the skinny kernels split k "
            "over a work-group");
  EXPECT_EQ(gemm_entry(dense_gemm(4, 4096, 4096)), "xd_gemm_skinny_m4");
  EXPECT_EQ(dpas_program(dense_gemm(17, 4096, 4096)), "matmul_dpas16") << "more rows than a decode shape";
  EXPECT_EQ(dpas_program(dense_gemm(4, 64, 64)), "matmul_dpas16") << "small enough that there is nothing to split";
}

TEST(XpuPlanGemmDpas, GridsAreCutWhereRowsOrBatchesExceedTheDeviceLimit) {
  gemm_args g = dense_gemm(200, 40, 24);
  g.batch = 5;
  const xd::xpu::dpas_plan p = xd::xpu::plan_gemm_dpas(g, XD_DTYPE_BF16, 8, 2);
  // 200 rows in tiles of 32 = 7 row groups, at most 2 a launch: 4 row launches; 5 batches: 3.
  ASSERT_EQ(p.launches.size(), 12u);
  for (const auto& l : p.launches) {
    EXPECT_LE(l.groups[1], 2);
    EXPECT_LE(l.groups[2], 2);
    EXPECT_EQ(l.row0 % 64, 0);
  }
}

TEST(XpuPlanGemmDpas, TheDpasSubGroupSizeIsTheSmallestWhenItIs8Or16) {
  using sizes = std::vector<int64_t>;
  EXPECT_EQ(xd::xpu::dpas_sub_group_size(sizes{8, 16, 32}), 8);
  EXPECT_EQ(xd::xpu::dpas_sub_group_size(sizes{32, 16}), 16);
  EXPECT_EQ(xd::xpu::dpas_sub_group_size(sizes{32}), 0);
  EXPECT_EQ(xd::xpu::dpas_sub_group_size(sizes{4, 8}), 0) << "the extension requires the smallest size";
  EXPECT_EQ(xd::xpu::dpas_sub_group_size(sizes{}), 0);
}
