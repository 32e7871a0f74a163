// The NVIDIA helpers of the tensor-core and cp.async kernels (matmul_mma.cl, quant_mm_mma.cl,
// matmul_wgmma.cl): inline PTX for asynchronous copies into local memory,
// ldmatrix, the swizzled tile layouts, the packed kernels' bulk copies and the wgmma main loop.
// Part of those programs only (kernel_list.cpp's program_sources); empty without XD_NV_MMA, and
// never part of a Level Zero module.
#ifdef XD_NV_MMA

// The address of local memory as the shared state space sees it (ldmatrix, cp.async).
inline uint xd_mmk_shared(__local const uint4* p) { return (uint)(ulong)p; }

// 16 bytes from global memory into local memory, asynchronously (bytes = 0: the 16 are zeros).
inline void xd_mmk_copy16(uint dst, __global const void* src, uint bytes) {
  XD_ASM volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" : : "r"(dst), "l"(src), "r"(bytes) : "memory");
}
inline void xd_mmk_commit(void) { XD_ASM volatile("cp.async.commit_group;" : : : "memory"); }

// Four 8 x 8 matrices of 16-bit elements (or 8 x 16 bytes) from local memory into the fragment
// layout of mma: lane l gives the address of row l % 8 of matrix l / 8.
inline void xd_mmk_ldsm(uint* r, uint addr) {
  XD_ASM volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                  : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                  : "r"(addr));
}
inline void xd_mmk_ldsm_t(uint* r, uint addr) {
  XD_ASM volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                  : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                  : "r"(addr));
}

// The chunk of a tile of rows of 4 chunks (16 bytes each) and of rows of 16 chunks where chunk c of
// row r lives: XOR-swizzled so that the eight rows an ldmatrix matrix reads fall in eight
// different banks.
inline int xd_mmk_at4(int r, int c) { return r * 4 + (c ^ ((r >> 1) & 3)); }
inline int xd_mmk_at16(int r, int c) { return r * 16 + (c ^ (r & 7)); }
// Rows of 2 chunks (the packed k16 stages): the eight rows of an ldmatrix matrix (r0 a multiple of
// 8) fall on slots 2r and 2r + 1 XOR (r / 4) % 2 of 128 bytes, eight different ones.
inline int xd_mmk_at2(int r, int c) { return r * 2 + (c ^ ((r >> 2) & 1)); }

// ldmatrix addresses (bytes within a stage) in tiles of rows of 4 chunks: A's 16 rows from r0 for
// the k16 half kk (mma's a0..a3), and B stored n x k, its 16 columns from n0 for the k16 half kk
// (b0 and b1 of two n8 tiles: registers 0, 1 and 2, 3).
inline uint xd_mmk_lda(int r0, int lane, int kk) {
  return (uint)xd_mmk_at4(r0 + (lane & 15), kk * 2 + (lane >> 4)) * 16u;
}
inline uint xd_mmk_ldb_nt(int n0, int lane, int kk) {
  return (uint)xd_mmk_at4(n0 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)) * 16u;
}
// The same in rows of 2 chunks (one k16 step).
inline uint xd_mmk_lda2(int r0, int lane) { return (uint)xd_mmk_at2(r0 + (lane & 15), lane >> 4) * 16u; }
inline uint xd_mmk_ldb2_nt(int n0, int lane) {
  return (uint)xd_mmk_at2(n0 + (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1) * 16u;
}

// The origin of this work-group's 128 x 128 output tile, ordered in bands of 8 tile rows so that
// consecutive work-groups take the band's rows for one tile column and share A's and B's tiles in
// L2 (dim 0 of the grid: tile columns, dim 1: tile rows from row0).
inline void xd_mmk_tile_origin(long row0, long* m0, long* n0) {
  const long tiles_n = (long)get_num_groups(0), tiles_m = (long)get_num_groups(1);
  const long pid = (long)get_group_id(1) * tiles_n + (long)get_group_id(0);
  const long band = pid / (8 * tiles_n), band_rows = min(tiles_m - band * 8, 8L);
  const long in_band = pid - band * 8 * tiles_n;
  *m0 = row0 + (band * 8 + in_band % band_rows) * 128;
  *n0 = (in_band / band_rows) * 128;
}

inline void xd_warp_sync(void) { XD_ASM volatile("bar.warp.sync 0xffffffff;" : : : "memory"); }

// ---------------------------------------------------------------- packed stages
// A packed stage: one k step of a 128-row tile of each operand, 256 chunks of 16 bytes (128 x 16
// halves, or 128 x 32 bytes), in the image the packing kernels write; XD_MMK_PSTAGES of them.
#define XD_MMK_PCHUNKS 256
#ifndef XD_MMK_PSTAGES
#define XD_MMK_PSTAGES 4
#endif

// The packed kernels' stage copies (xd_gemm_mma_packed_*, xd_gemm_wgmma_packed):
// one bulk copy of 4 KiB per operand into stage `st`, completing on its mbarrier `bar` (Hopper's
// bulk copy engine, PTX ISA 8.0, sm_90).
// Without XD_NV_BULK (compute capability < 9.0, where ptxas rejects these instructions) they are
// empty, and only the unpacked kernels, which never call them, exist.
// `count` mbarriers from bar0, each expecting one arrival (work-item 0's, with the copies' bytes).
inline void xd_mmk_bar_init(uint bar0, int count) {
#ifdef XD_NV_BULK
  for (int s = 0; s < count; ++s) XD_ASM volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(bar0 + 8u * s) : "memory");
  XD_ASM volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
#endif
}
inline void xd_mmk_bulk_stage(uint sa_st, uint sb_st, __global const uint4* pa, __global const uint4* pb, uint bar) {
#ifdef XD_NV_BULK
  XD_ASM volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 8192;" : : "r"(bar) : "memory");
  XD_ASM volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];"
                  : : "r"(sa_st), "l"(pa), "r"(bar) : "memory");
  XD_ASM volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];"
                  : : "r"(sb_st), "l"(pb), "r"(bar) : "memory");
#endif
}
inline void xd_mmk_bar_wait(uint bar, uint phase) {
#ifdef XD_NV_BULK
  uint done = 0;
  while (!done)
    XD_ASM volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                    : "=r"(done)
                    : "r"(bar), "r"(phase)
                    : "memory");
#endif
}
inline void xd_mmk_proxy_fence(void) {
#ifdef XD_NV_BULK
  XD_ASM volatile("fence.proxy.async.shared::cta;" : : : "memory");
#endif
}


#ifdef XD_NV_WGMMA
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
// over one k step, both K-major, scale-d 1: the accumulators are read. TY: the operands' types,
// "f16.f16" or "bf16.bf16"; K: XD_WG_K16, the step and the transpose flags (0: K-major). fp8
// operands are not taken: Hopper's tensor cores sum fp8 products in wgmma at less than f32's
// precision (docs/performance.md, "wgmma, built").
#define XD_WG_K16 "k16", ", 0, 0"
#define XD_WG_MMA(D, DA, DB, K, TY) XD_WG_MMA_(D, DA, DB, K, TY)
#define XD_WG_MMA_(D, DA, DB, K, TAIL, TY)                                                                            \
  XD_ASM volatile(XD_WGMMA_LIVE "wgmma.mma_async.sync.aligned.m64n128" K ".f32." TY                                   \
                                " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22," \
                                "%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43," \
                                "%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "   \
                                "%64, %65, 1, 1, 1" TAIL ";"                                                            \
                  : XD_WG_ACC(D)                                                                                      \
                  : "l"(DA), "l"(DB)                                                                                  \
                  : "memory")

// The products of a 128 x 128 output tile over `steps` packed k steps (pa, pb: the tile's first
// image of each operand, consecutive steps 256 chunks apart) into acc0 (rows 0-63) and acc1 (rows
// 64-127), on a work-group of one warpgroup (128 work-items). Work-item 0 fills the stages with
// bulk copies, XD_MMK_PSTAGES - 1 ahead; per step, after its stage's mbarrier, two wgmma left in
// flight while the previous step's stage is refilled. `kind`: 0 f16, 1 bf16 (a constant after
// inlining).
// Accumulator j of warp w, lane (g, t) of a 64-row half: rows 16 w + g and + 8, columns 8 j + 2 t
// and + 1 (s0, s1; s2, s3 for the row + 8): the layout of mma.m16n8, one n8 tile per j.
inline __attribute__((always_inline)) void xd_wg_tile(__global const uint4* pa, __global const uint4* pb, int steps, __local uint4* sa,
                       __local uint4* sb, __local ulong* bars, float4* acc0, float4* acc1, const int kind) {
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
    if (kind == 0) {
      XD_WG_MMA(acc0, da0, db, XD_WG_K16, "f16.f16");
      XD_WG_MMA(acc1, da1, db, XD_WG_K16, "f16.f16");
    } else {
      XD_WG_MMA(acc0, da0, db, XD_WG_K16, "bf16.bf16");
      XD_WG_MMA(acc1, da1, db, XD_WG_K16, "bf16.bf16");
    }
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
#endif  // XD_NV_WGMMA

#endif  // XD_NV_MMA
