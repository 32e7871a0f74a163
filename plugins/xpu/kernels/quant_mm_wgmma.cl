// SCALED_MM with fast accumulation on Hopper's warpgroup tensor-core instruction (wgmma), from
// operands packed along k by xd_qmm_pack_wgmma: xd_scaled_mm_wgmma_b_e4m3 / _b_e5m2 (fp8 programs,
// keyed on a's format; mat2's format picks the entry), for a dense along k and mat2 stored n x k, as
// quant_mm_mma.cl's kernels. Taken only for calls that allow fast accumulation
// (xd_attrs_scaled_mm; xpu::plan_scaled_mm). Appended by the OpenCL plugin to quant_mm.cl's
// program after quant_mm_mma.cl and wgmma_common.cl; empty without XD_NV_WGMMA, never part of a
// Level Zero module.
//
// 128 x 128 outputs per work-group of one warpgroup, two wgmma.m64n128k32 per k32 step
// (wgmma_common.cl: xd_wg_tile; a stage is 128 rows by 32 bytes of each operand, 4 KiB). Products
// of fp8 values exact, summed by the tensor core in its own order and at its own precision, below
// f32's (docs/ops/matmul.md, "Fast accumulation"), across steps in f32; then (acc * scale_a[i]) *
// scale_b[j] (+ bias[j]) and one rounding to out's dtype (xd_qmma_scaled_store4), as xd_scaled_mm.

#if defined(XD_NV_WGMMA) && defined(XD_NV_BULK) && defined(XD_NV_MMA) && XD_CLASS == 5

inline __attribute__((always_inline)) void xd_scaled_mm_wgmma(__global uchar* c, __global const uint4* pa, __global const uint4* pb,
                               __global const float* sa, __global const float* sb, __global const uchar* bias,
                               const xd_qmm G, long row0, __local uint4* ta, __local uint4* tb, __local ulong* bars,
                               const int b_e5m2) {
  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  const int steps = (int)((G.k + 31) / 32);
  float4 acc0[16], acc1[16];  // rows 0-63 and 64-127 of the tile
  xd_wg_tile(pa + (m0 / 128) * steps * XD_MMK_PCHUNKS, pb + (n0 / 128) * steps * XD_MMK_PCHUNKS, steps, ta, tb, bars,
             acc0, acc1, 2 + 2 * XD_QA + b_e5m2, 1, XD_MMK_PSTAGES, 0, 0, 0, 0, 0, 0, 0);  // stages of one k32 step
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5, g = lane >> 2, t = lane & 3;
  // The scales of this work-item's 4 rows first; each column pair's scales and bias before its
  // stores (xd_qmma_scaled_store4).
  const long r0 = m0 + warp * 16 + g, r1 = r0 + 64;
  const float sa00 = xd_qmma_scale_a(sa, G, r0), sa08 = xd_qmma_scale_a(sa, G, r0 + 8);
  const float sa10 = xd_qmma_scale_a(sa, G, r1), sa18 = xd_qmma_scale_a(sa, G, r1 + 8);
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const long col = n0 + j * 8 + 2 * t;
    const float2 sbj = xd_qmma_scale_b(sb, G, col), bj = xd_qmma_bias(bias, G, col);
    xd_qmma_scaled_store4(c, G, r0, col, acc0[j], sa00, sa08, sbj, bj);
    xd_qmma_scaled_store4(c, G, r1, col, acc1[j], sa10, sa18, sbj, bj);
  }
}

// mat2's format is a runtime property of the call (the program is keyed on a's): one entry each.
#define XD_SCALED_MM_WGMMA(NAME, B_E5M2)                                                                      \
  __kernel __attribute__((reqd_work_group_size(128, 1, 1))) void NAME(                                       \
      __global uchar* c, __global const uint4* pa, __global const uint4* pb, __global const float* sa,       \
      __global const float* sb, __global const uchar* bias, const xd_qmm G, long pa0, long pb0, long row0) { \
    __local uint4 ta[XD_MMK_PSTAGES * XD_MMK_PCHUNKS];                                                        \
    __local uint4 tb[XD_MMK_PSTAGES * XD_MMK_PCHUNKS];                                                        \
    __local ulong bars[XD_MMK_PSTAGES];                                                                       \
    xd_scaled_mm_wgmma(c, pa + pa0, pb + pb0, sa, sb, bias, G, row0, ta, tb, bars, B_E5M2);                   \
  }
XD_SCALED_MM_WGMMA(xd_scaled_mm_wgmma_b_e4m3, 0)
XD_SCALED_MM_WGMMA(xd_scaled_mm_wgmma_b_e5m2, 1)

// Packs one fp8 operand stored rows x k, dense along k, one work-item per 16-byte chunk of the
// image and one work-group per image (mma_common.cl: xd_mmk_image): image (t, kt) of the
// operand's `tiles` tiles of 128 rows and `steps` k steps of 32 holds at chunk xd_wg_at(r, c) the
// 16 bytes of row t * 128 + r from k = kt * 32 + c * 16, zeros outside the matrix. `off` and `ld`
// are multiples of 16, as is k (xpu::plan_scaled_mm's conditions), so a chunk is wholly inside or
// outside.
__kernel __attribute__((reqd_work_group_size(XD_MMK_PCHUNKS, 1, 1))) void xd_qmm_pack_wgmma(
    __global uint4* dst, long dst0, __global const uchar* src, long off, long ld, long rows, long k, int tiles,
    int steps) {
  const int q = (int)get_local_id(0);  // = xd_wg_at(r, c)
  long image, kt, t, bt;
  xd_mmk_image(tiles, steps, &image, &kt, &t, &bt);
  const long row = t * 128 + (q >> 4) * 8 + (q & 7), k0 = kt * 32 + ((q >> 3) & 1) * 16;
  uint4 v = (uint4)(0u);
  if (row < rows && k0 < k) v = *(__global const uint4*)(src + off + row * ld + k0);
  dst[dst0 + image * XD_MMK_PCHUNKS + q] = v;
}

#endif  // XD_NV_WGMMA, fp8
