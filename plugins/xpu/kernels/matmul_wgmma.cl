// MM, ADDMM, BMM, BADDBMM for f16 and bf16 on Hopper's warpgroup tensor-core instruction (wgmma),
// from operands packed along k by xd_gemm_pack_wgmma. Appended by the OpenCL plugin to matmul.cl's
// program after matmul_mma.cl; empty without XD_NV_WGMMA, which the plugin defines only where the
// program cache rewrites the program's PTX for sm_90a (XD_WGMMA_LIVE, below), and never
// part of a Level Zero module.
//
//   xd_gemm_wgmma_packed  A and B packed along k (B from either layout): 128 x 128 outputs per
//                         work-group of one warpgroup, two wgmma.m64n128k16 per k16 step
//                         (xd_wg_tile, below), the stages filled by bulk copies
//
// Rounding: each product and sum in f32 on the tensor core (exact products of f16/bf16 values,
// f32 additions in the hardware's order), then alpha * acc + beta * input in f32 and one rounding
// to T (xd_gemm_store), as the other matmul kernels.

#if defined(XD_NV_WGMMA) && defined(XD_NV_BULK) && defined(XD_NV_MMA) && (XD_MMK == 1 || XD_MMK == 2)

// ---------------------------------------------------------------- wgmma (Hopper, sm_90a)
// NVIDIA's OpenCL compiles source for `.target sm_90`, where ptxas rejects every wgmma
// instruction (they need sm_90a). So each wgmma line of an inline asm begins with XD_WGMMA_LIVE, a
// PTX comment: the compiler sees a statement that reads and writes its operands and places them in
// registers, and the program cache (program/program_cache.cpp, program/wgmma_ptx.hpp) takes the
// program's PTX, deletes the marker, names `.target sm_90a` and builds that PTX as the program's
// binary. A program built without that step would compute nothing, so the plugin defines
// XD_NV_WGMMA only together with it (the device's probe: program/program_cache.hpp, wgmma_route).
#define XD_WGMMA_LIVE "// XD_SM90A "

// The operands' image (xd_gemm_pack_wgmma): a stage's 128 rows by 32 bytes of k
// as 8 x 8 "core matrices" of 128 contiguous bytes (8 rows of 16 bytes), the two along k of 8
// rows next to each other: chunk c (along k) of row r at xd_wg_at(r, c). wgmma reads it without
// swizzling, core matrices XD_WG_LBO bytes apart along k and XD_WG_SBO bytes apart along the rows.
inline int xd_wg_at(int r, int c) { return ((r >> 3) * 2 + c) * 8 + (r & 7); }
#ifndef XD_WG_LBO
#define XD_WG_LBO 128
#endif
#ifndef XD_WG_SBO
#define XD_WG_SBO 256
#endif

// A shared-memory matrix descriptor: the start address and both offsets in 16-byte units, no
// swizzle (bits 62-63 zero), base offset 0.
inline ulong xd_wg_desc(uint addr) {
  return (ulong)((addr & 0x3FFFFu) >> 4) | ((ulong)(XD_WG_LBO >> 4) << 16) | ((ulong)(XD_WG_SBO >> 4) << 32);
}

#define XD_WG_F4(v) "+f"(v.s0), "+f"(v.s1), "+f"(v.s2), "+f"(v.s3)
#define XD_WG_ACC(D)                                                                                                  \
  XD_WG_F4(D[0]), XD_WG_F4(D[1]), XD_WG_F4(D[2]), XD_WG_F4(D[3]), XD_WG_F4(D[4]), XD_WG_F4(D[5]), XD_WG_F4(D[6]),    \
      XD_WG_F4(D[7]), XD_WG_F4(D[8]), XD_WG_F4(D[9]), XD_WG_F4(D[10]), XD_WG_F4(D[11]), XD_WG_F4(D[12]),             \
      XD_WG_F4(D[13]), XD_WG_F4(D[14]), XD_WG_F4(D[15])
// D (float4[16]: 64 f32 accumulators) += A (64 rows, descriptor DA) * B (128 rows, descriptor DB)
// over one k16 step, both K-major (transpose flags 0), scale-d 1: the accumulators are read.
// Operands of matmul_mma.cl's XD_MMK_TY (f16 or bf16). fp8 operands are not taken: Hopper's tensor
// cores sum fp8 products in wgmma at less than f32's precision (docs/performance.md, "wgmma,
// built").
#define XD_WG_MMA(D, DA, DB)                                                                                          \
  XD_ASM volatile(XD_WGMMA_LIVE "wgmma.mma_async.sync.aligned.m64n128k16.f32." XD_MMK_TY "." XD_MMK_TY               \
                                " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22," \
                                "%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43," \
                                "%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "   \
                                "%64, %65, 1, 1, 1, 0, 0;"                                                            \
                  : XD_WG_ACC(D)                                                                                      \
                  : "l"(DA), "l"(DB)                                                                                  \
                  : "memory")

// The products of a 128 x 128 output tile over `steps` packed k steps (pa, pb: the tile's first
// image of each operand, consecutive steps 256 chunks apart) into acc0 (rows 0-63) and acc1 (rows
// 64-127), on a work-group of one warpgroup (128 work-items). Work-item 0 fills the stages with
// bulk copies, XD_MMK_PSTAGES - 1 ahead; per step, after its stage's mbarrier, two wgmma left in
// flight while the previous step's stage is refilled.
// Accumulator j of warp w, lane (g, t) of a 64-row half: rows 16 w + g and + 8, columns 8 j + 2 t
// and + 1 (s0, s1; s2, s3 for the row + 8): the layout of mma.m16n8, one n8 tile per j.
inline __attribute__((always_inline)) void xd_wg_tile(__global const uint4* pa, __global const uint4* pb, int steps, __local uint4* sa,
                       __local uint4* sb, __local ulong* bars, float4* acc0, float4* acc1) {
  const int S = XD_MMK_PSTAGES;
  const int tid = (int)get_local_id(0);
  const uint sa0 = xd_mmk_shared(sa), sb0 = xd_mmk_shared(sb), bar0 = (uint)(ulong)bars;
  const uint stage_bytes = XD_MMK_PCHUNKS * 16u;
  if (tid == 0) xd_mmk_bar_init(bar0, S);
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int s = 0; s < S - 1; ++s)
    if (s < steps && tid == 0)
      xd_mmk_bulk_stage(sa0 + s * stage_bytes, sb0 + s * stage_bytes, pa + s * XD_MMK_PCHUNKS, pb + s * XD_MMK_PCHUNKS,
                        bar0 + 8u * s);
#pragma unroll
  for (int j = 0; j < 16; ++j) acc0[j] = acc1[j] = (float4)(0.0f);

  int use = 0, fill = S - 1;
  for (int kt = 0; kt < steps; ++kt) {
    xd_mmk_bar_wait(bar0 + 8u * use, (uint)(kt / S) & 1u);
    const uint ta = sa0 + use * stage_bytes, tb = sb0 + use * stage_bytes;
    const ulong db = xd_wg_desc(tb), da0 = xd_wg_desc(ta), da1 = xd_wg_desc(ta + 8u * XD_WG_SBO);
    XD_ASM volatile(XD_WGMMA_LIVE "wgmma.fence.sync.aligned;" : : : "memory");
    XD_WG_MMA(acc0, da0, db);
    XD_WG_MMA(acc1, da1, db);
    XD_ASM volatile(XD_WGMMA_LIVE "wgmma.commit_group.sync.aligned;" : : : "memory");
    // Step kt's products stay in flight; step kt - 1's are done in this warp, and past the barrier
    // in every warp, so its stage (`fill`) takes step kt + S - 1 while the tensor cores work.
    XD_ASM volatile(XD_WGMMA_LIVE "wgmma.wait_group.sync.aligned 1;" : : : "memory");
    barrier(CLK_LOCAL_MEM_FENCE);
    const int next = kt + S - 1;
    if (tid == 0 && next < steps) {
      xd_mmk_proxy_fence();
      xd_mmk_bulk_stage(sa0 + fill * stage_bytes, sb0 + fill * stage_bytes, pa + next * XD_MMK_PCHUNKS,
                        pb + next * XD_MMK_PCHUNKS, bar0 + 8u * fill);
    }
    use = use == S - 1 ? 0 : use + 1;
    fill = fill == S - 1 ? 0 : fill + 1;
  }
  XD_ASM volatile(XD_WGMMA_LIVE "wgmma.wait_group.sync.aligned 0;" : : : "memory");
  // The accumulators as operands of an empty statement after the wait: the compiler keeps every
  // later use of them after it.
  XD_ASM volatile("" : XD_WG_ACC(acc0) : : "memory");
  XD_ASM volatile("" : XD_WG_ACC(acc1) : : "memory");
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void xd_gemm_wgmma_packed(
    __global T* c, __global const uint4* pa, __global const uint4* pb, __global const T* in, const xd_gemm G,
    long row0, long batch0, long pa0, long pb0) {
  __local uint4 sa[XD_MMK_PSTAGES * XD_MMK_PCHUNKS];
  __local uint4 sb[XD_MMK_PSTAGES * XD_MMK_PCHUNKS];
  __local ulong bars[XD_MMK_PSTAGES];
  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  const long bt = batch0 + (long)get_group_id(2);
  const int steps = (int)((G.k + 15) / 16);
  pa += pa0 + ((bt * ((G.m + 127) / 128) + m0 / 128) * steps) * XD_MMK_PCHUNKS;
  pb += pb0 + ((bt * ((G.n + 127) / 128) + n0 / 128) * steps) * XD_MMK_PCHUNKS;
  float4 acc0[16], acc1[16];  // rows 0-63 and 64-127 of the tile
  xd_wg_tile(pa, pb, steps, sa, sb, bars, acc0, acc1);

  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      xd_gemm_store4(c, in, G, bt, m0 + h * 64 + warp * 16 + g, n0 + j * 8 + 2 * t, h ? acc1[j] : acc0[j]);
    }
  }
}

// Packs one operand along k, one work-item per 16-byte chunk of the image, in image order, and one
// work-group per image (xd_mmk_image): image
// (bt, t, kt) of the operand's `tiles` tiles of 128 rows (A's m, or B's n) and `steps` k steps of
// 16 holds at chunk xd_wg_at(r, c) the 8 elements of row t * 128 + r from k = kt * 16 + c * 8,
// zeros outside the matrix. `rows_k` = 0: the source is dense along k (A; B stored n x k), a
// chunk one 16-byte load; 1: the source is stored k x n (B in the nn layout), a chunk gathered
// from 8 k rows. `off`, `ld` (elements between the source's rows) and `bs` (between batches) are
// multiples of 8, as are k and, for rows_k, the row count (xpu::plan_gemm's conditions), so a
// chunk is wholly inside or outside.
__kernel __attribute__((reqd_work_group_size(XD_MMK_PCHUNKS, 1, 1))) void xd_gemm_pack_wgmma(
    __global uint4* dst, long dst0, __global const T* src, long off, long ld, long bs, long rows, long k, int tiles,
    int steps, int rows_k) {
  const int q = (int)get_local_id(0);  // = xd_wg_at(r, c)
  long image, kt, t, bt;
  xd_mmk_image(tiles, steps, &image, &kt, &t, &bt);
  const long row = t * 128 + (q >> 4) * 8 + (q & 7), k0 = kt * 16 + ((q >> 3) & 1) * 8;
  uint4 v = (uint4)(0u);
  if (row < rows && k0 < k) {
    __global const T* s = src + off + bt * bs;
    if (!rows_k) {
      v = *(__global const uint4*)(s + row * ld + k0);
    } else {
      __global const ushort* e = (__global const ushort*)s + k0 * ld + row;
      ushort h[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) h[i] = e[i * ld];
      v = (uint4)(h[0] | (uint)h[1] << 16, h[2] | (uint)h[3] << 16, h[4] | (uint)h[5] << 16, h[6] | (uint)h[7] << 16);
    }
  }
  dst[dst0 + image * XD_MMK_PCHUNKS + q] = v;
}

#endif  // XD_NV_WGMMA
