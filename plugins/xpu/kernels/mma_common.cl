// The NVIDIA helpers of the tensor-core and cp.async kernels (matmul_mma.cl, quant_mm_mma.cl):
// inline PTX for asynchronous copies into local memory, ldmatrix, and the swizzled tile layouts.
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

inline void xd_warp_sync(void) { XD_ASM volatile("bar.warp.sync 0xffffffff;" : : : "memory"); }

#endif  // XD_NV_MMA
