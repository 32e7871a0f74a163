// The NVIDIA helpers of the tensor-core and cp.async kernels (matmul_mma.cl, matmul_wgmma.cl,
// quant_mm_mma.cl, attention_mma.cl): inline PTX for asynchronous copies into local memory,
// ldmatrix, the swizzled tile layouts, the tiles' order and the packed kernels' bulk copies.
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

// The packing kernels' work-group: image (bt, t, kt) of `tiles` tiles and `steps` k steps per
// batch, the image's index in the workspace. In 32-bit arithmetic, cheaper than 64-bit division
// (xpu::run_matmul packs at most 2^31 - 1 images, 8 TiB).
inline void xd_mmk_image(int tiles, int steps, long* image, long* kt, long* t, long* bt) {
  const uint g = (uint)get_group_id(0), rest = g / (uint)steps;
  *image = (long)g;
  *kt = (long)(g - rest * (uint)steps);
  *t = (long)(rest % (uint)tiles);
  *bt = (long)(rest / (uint)tiles);
}

// The packed kernels' stage copies (matmul_mma.cl's xd_gemm_mma_packed_*, wgmma_common.cl's xd_wg_tile):
// one bulk copy of `bytes` per operand (whole 4 KiB images of one tile) into stage `st`, completing
// on its mbarrier `bar` (Hopper's bulk copy engine, PTX ISA 8.0, sm_90).
// Without XD_NV_BULK (compute capability < 9.0, where ptxas rejects these instructions) they are
// empty, and only the unpacked kernels, which never call them, exist.
// `count` mbarriers from bar0, each expecting one arrival (work-item 0's, with the copies' bytes).
inline void xd_mmk_bar_init(uint bar0, int count) {
#ifdef XD_NV_BULK
  for (int s = 0; s < count; ++s) XD_ASM volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(bar0 + 8u * s) : "memory");
  XD_ASM volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
#endif
}
inline void xd_mmk_bulk_stage(uint sa_st, uint sb_st, __global const uint4* pa, __global const uint4* pb, uint bar,
                              uint bytes) {
#ifdef XD_NV_BULK
  XD_ASM volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" : : "r"(bar), "r"(2u * bytes) : "memory");
  XD_ASM volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];"
                  : : "r"(sa_st), "l"(pa), "r"(bar), "r"(bytes) : "memory");
  XD_ASM volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];"
                  : : "r"(sb_st), "l"(pb), "r"(bar), "r"(bytes) : "memory");
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

#endif  // XD_NV_MMA
