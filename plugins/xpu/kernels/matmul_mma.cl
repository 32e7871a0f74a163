// MM, ADDMM, BMM, BADDBMM for f16 and bf16 on NVIDIA tensor cores (inline PTX). Appended by the
// OpenCL plugin to matmul.cl's program (whose xd_gemm and xd_gemm_store it uses); the Level Zero
// plugin never compiles it (plugins/xpu/levelzero/CMakeLists.txt leaves it out of the SPIR-V
// modules), and without XD_NV_MMA, or for another dtype, it is empty.
//
//   xd_gemm_mma_nn  A (m x k) dense along k, B (k x n) dense along n: PyTorch's a @ b.
//   xd_gemm_mma_nt  A dense along k, B dense along k (stored n x k): x @ w.t(), nn.Linear's layout.
//
// Both: 128 x 128 outputs per work-group of 128 work-items (4 warps of 64 x 64 outputs, each
// 4 x 8 mma.m16n8k16 with f32 accumulators: 8 ldmatrix feed 32 mma per k16, where a 64 x 32 warp
// tile needs 6 for 16, so less local-memory traffic per product), K in
// steps of 32. A step's two tiles (8 KiB each) are copied from global to local memory by
// cp.async, three steps in flight (48 KiB: NVIDIA's OpenCL limit for a work-group), so the copies
// of steps k+1 and k+2 overlap the products of step k. Tiles reach the tensor cores through
// ldmatrix (.trans for B in the nn layout). Local memory rows are XOR-swizzled by 16-byte chunk so
// that the eight addresses of each ldmatrix matrix fall in eight different banks. Work-groups are
// ordered in bands of 8 tile rows so that consecutive groups share A's and B's tiles in L2.
//
// Rounding: each product and sum in f32 on the tensor core (exact products of f16/bf16 values,
// f32 additions in the hardware's order), then alpha * acc + beta * input in f32 and one rounding
// to T (xd_gemm_store), as matmul.cl's kernels. The host (xpu::plan_gemm) takes these kernels only
// for operands whose offsets and strides are multiples of 8 elements and whose dense extents (K,
// and N for nn) are multiples of 8, so every 16-byte copy is aligned and wholly inside or outside
// the matrix; copies outside are zero-filled (cp.async's source size 0), outputs outside are
// never stored.

#if defined(XD_NV_MMA) && XD_CLASS == 1
#define xd_MMK_f16 1
#define xd_MMK_bf16 2
#define XD_MMK XD_CAT(xd_MMK_, XD_DT)
#if XD_MMK == 1 || XD_MMK == 2
#if XD_MMK == 2
#define XD_MMK_TY "bf16"
#else
#define XD_MMK_TY "f16"
#endif

#ifndef XD_MMK_STAGES
#define XD_MMK_STAGES 3  // 48 KiB of local memory; 2 (32 KiB) is the other choice
#endif
#define XD_MMK_CHUNKS 512  // 16-byte chunks of one operand's tile: 128 x 32 halves
#define XD_MMK_THREADS 128  // 4 warps (xpu::plan_gemm launches work-groups of this size)
#define XD_MMK_COPIES (XD_MMK_CHUNKS / XD_MMK_THREADS)  // chunks of each operand per work-item per step

// The address of local memory as the shared state space sees it (ldmatrix, cp.async).
inline uint xd_mmk_shared(__local const uint4* p) { return (uint)(ulong)p; }

inline void xd_mmk_copy16(uint dst, __global const T* src, uint bytes) {
  XD_ASM volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" : : "r"(dst), "l"(src), "r"(bytes) : "memory");
}
inline void xd_mmk_commit(void) { XD_ASM volatile("cp.async.commit_group;" : : : "memory"); }
// Every copy group complete but the newest XD_MMK_STAGES - 2.
#if XD_MMK_STAGES == 3
inline void xd_mmk_wait(void) { XD_ASM volatile("cp.async.wait_group 1;" : : : "memory"); }
#else
inline void xd_mmk_wait(void) { XD_ASM volatile("cp.async.wait_group 0;" : : : "memory"); }
#endif

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

inline float4 xd_mmk_mma(float4 c, const uint* a, uint b0, uint b1) {
  XD_ASM("mma.sync.aligned.m16n8k16.row.col.f32." XD_MMK_TY "." XD_MMK_TY
         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
         : "+f"(c.s0), "+f"(c.s1), "+f"(c.s2), "+f"(c.s3)
         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  return c;
}

// The chunk of a tile of rows of 4 chunks (A, and B in the nt layout) and of rows of 16 chunks (B
// in the nn layout: 32 rows along k) where chunk c of row r lives.
inline int xd_mmk_at4(int r, int c) { return r * 4 + (c ^ ((r >> 1) & 3)); }
inline int xd_mmk_at16(int r, int c) { return r * 16 + (c ^ (r & 7)); }

// The XD_MMK_COPIES chunks of one operand a work-item copies each step. Copy i reads
// src + i * next (a step moves src by `step`) into dst + i * 2048 bytes of the stage; it is
// inside the matrix while bit i of `rows` is set and k0 + i * dk + 32 * step_index < k.
typedef struct {
  __global const T* src;
  long next, step;
  int rows, k0, dk;
  uint dst;
} xd_mmk_copies;

inline void xd_mmk_issue(const xd_mmk_copies c, __global const T* fallback, int kt, long k, uint stage) {
  __global const T* s = c.src + kt * c.step;
#pragma unroll
  for (int i = 0; i < XD_MMK_COPIES; ++i) {
    const int in = ((c.rows >> i) & 1) && c.k0 + i * c.dk + 32L * kt < k;
    xd_mmk_copy16(stage + c.dst + (uint)i * 2048u, in ? s + i * c.next : fallback, in ? 16u : 0u);
  }
}

// sa, sb: XD_MMK_STAGES tiles of A and of B.
inline void xd_gemm_mma(__global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G,
                        long row0, long batch0, __local uint4* sa, __local uint4* sb, const int NT) {
  const int tid = (int)get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 1, wn = warp & 1;  // the warp's 64 rows and 64 columns of the tile

  // Bands of 8 tile rows: consecutive work-groups take the band's rows for one tile column.
  const long tiles_n = (long)get_num_groups(0), tiles_m = (long)get_num_groups(1);
  const long pid = (long)get_group_id(1) * tiles_n + (long)get_group_id(0);
  const long band = pid / (8 * tiles_n), band_rows = min(tiles_m - band * 8, 8L);
  const long in_band = pid - band * 8 * tiles_n;
  const long tm = band * 8 + in_band % band_rows, tn = in_band / band_rows;
  const long m0 = row0 + tm * 128, n0 = tn * 128;
  const long bt = batch0 + (long)get_group_id(2);
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  const int steps = (int)((G.k + 31) / 32);

  // Copies: A's rows r + 32 i (chunk ch along k), B's likewise in the nt layout; in the nn layout
  // B's k-rows kr + 8 i (chunk c16 along n). Each i lands 2048 bytes further in the stage.
  xd_mmk_copies ca, cb;
  {
    const int r = tid >> 2, ch = tid & 3;
    ca.src = a + abase + (m0 + r) * G.a_m + ch * 8;
    ca.next = 32 * G.a_m, ca.step = 32, ca.k0 = ch * 8, ca.dk = 0;
    ca.dst = (uint)xd_mmk_at4(r, ch) * 16u;
    ca.rows = 0;
    for (int i = 0; i < XD_MMK_COPIES; ++i) ca.rows |= (m0 + r + 32 * i < G.m) << i;
    if (NT) {
      cb.src = b + bbase + (n0 + r) * G.b_n + ch * 8;
      cb.next = 32 * G.b_n, cb.step = 32, cb.k0 = ch * 8, cb.dk = 0;
      cb.dst = ca.dst;
      cb.rows = 0;
      for (int i = 0; i < XD_MMK_COPIES; ++i) cb.rows |= (n0 + r + 32 * i < G.n) << i;
    } else {
      const int kr = tid >> 4, c16 = tid & 15;
      cb.src = b + bbase + kr * G.b_k + n0 + c16 * 8;
      cb.next = 8 * G.b_k, cb.step = 32 * G.b_k, cb.k0 = kr, cb.dk = 8;
      cb.dst = (uint)xd_mmk_at16(kr, c16) * 16u;
      cb.rows = n0 + c16 * 8 < G.n ? (1 << XD_MMK_COPIES) - 1 : 0;
    }
  }
  const uint sa0 = xd_mmk_shared(sa), sb0 = xd_mmk_shared(sb);
  const uint stage_bytes = XD_MMK_CHUNKS * 16u;

  // ldmatrix addresses within a stage (bytes), per k16 half kk: A's four 16-row tiles are 1024
  // bytes apart; B's four 16-column pairs p (1024 bytes apart in the nt layout).
  uint la[2], lb[2][4];
#pragma unroll
  for (int kk = 0; kk < 2; ++kk) {
    la[kk] = (uint)xd_mmk_at4(wm * 64 + (lane & 15), kk * 2 + (lane >> 4)) * 16u;
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      if (NT)
        lb[kk][p] = (uint)xd_mmk_at4(wn * 64 + p * 16 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)) * 16u;
      else
        lb[kk][p] = (uint)xd_mmk_at16(kk * 16 + (lane & 15), wn * 8 + p * 2 + (lane >> 4)) * 16u;
    }
  }

  float4 acc[4][8];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = (float4)(0.0f);

#pragma unroll
  for (int s = 0; s < XD_MMK_STAGES - 1; ++s) {
    if (s < steps) {
      xd_mmk_issue(ca, a, s, G.k, sa0 + s * stage_bytes);
      xd_mmk_issue(cb, b, s, G.k, sb0 + s * stage_bytes);
    }
    xd_mmk_commit();
  }
  int use = 0, fill = XD_MMK_STAGES - 1;  // the stage computed on, the stage being filled
  for (int kt = 0; kt < steps; ++kt) {
    xd_mmk_wait();
    barrier(CLK_LOCAL_MEM_FENCE);  // step kt is in every work-item's view; stage `fill` is free
    const int next = kt + XD_MMK_STAGES - 1;
    if (next < steps) {
      xd_mmk_issue(ca, a, next, G.k, sa0 + fill * stage_bytes);
      xd_mmk_issue(cb, b, next, G.k, sb0 + fill * stage_bytes);
    }
    xd_mmk_commit();
    const uint ta = sa0 + use * stage_bytes, tb = sb0 + use * stage_bytes;
#pragma unroll
    for (int kk = 0; kk < 2; ++kk) {  // two k16 steps of the 32
      uint af[4][4];
#pragma unroll
      for (int i = 0; i < 4; ++i) xd_mmk_ldsm(af[i], ta + la[kk] + i * 1024u);
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        uint r[4];
        if (NT)
          xd_mmk_ldsm(r, tb + lb[kk][p]);
        else
          xd_mmk_ldsm_t(r, tb + lb[kk][p]);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          acc[i][2 * p] = xd_mmk_mma(acc[i][2 * p], af[i], r[0], r[1]);
          acc[i][2 * p + 1] = xd_mmk_mma(acc[i][2 * p + 1], af[i], r[2], r[3]);
        }
      }
    }
    use = use == XD_MMK_STAGES - 1 ? 0 : use + 1;
    fill = fill == XD_MMK_STAGES - 1 ? 0 : fill + 1;
  }

  // Accumulator (i, j) of lane (g, t): rows g and g + 8 of the 16, columns 2t and 2t + 1 of the 8.
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const long r = m0 + wm * 64 + i * 16 + g, col = n0 + wn * 64 + j * 8 + 2 * t;
      if (r < G.m && col < G.n) xd_gemm_store(c, in, G, bt, r, col, acc[i][j].s0);
      if (r < G.m && col + 1 < G.n) xd_gemm_store(c, in, G, bt, r, col + 1, acc[i][j].s1);
      if (r + 8 < G.m && col < G.n) xd_gemm_store(c, in, G, bt, r + 8, col, acc[i][j].s2);
      if (r + 8 < G.m && col + 1 < G.n) xd_gemm_store(c, in, G, bt, r + 8, col + 1, acc[i][j].s3);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(XD_MMK_THREADS, 1, 1))) void xd_gemm_mma_nn(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local uint4 sa[XD_MMK_STAGES * XD_MMK_CHUNKS];
  __local uint4 sb[XD_MMK_STAGES * XD_MMK_CHUNKS];
  xd_gemm_mma(c, a, b, in, G, row0, batch0, sa, sb, 0);
}

__kernel __attribute__((reqd_work_group_size(XD_MMK_THREADS, 1, 1))) void xd_gemm_mma_nt(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local uint4 sa[XD_MMK_STAGES * XD_MMK_CHUNKS];
  __local uint4 sb[XD_MMK_STAGES * XD_MMK_CHUNKS];
  xd_gemm_mma(c, a, b, in, G, row0, batch0, sa, sb, 1);
}

#endif  // f16, bf16
#endif  // XD_NV_MMA
