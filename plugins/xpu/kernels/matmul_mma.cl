// MM, ADDMM, BMM, BADDBMM for f16 and bf16 on NVIDIA tensor cores (inline PTX). Appended by the
// OpenCL plugin to matmul.cl's program after mma_common.cl (the copy and ldmatrix helpers; it uses
// matmul.cl's xd_gemm and xd_gemm_store); the Level Zero
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
#define xd_MMK_f32 3
#define XD_MMK XD_CAT(xd_MMK_, XD_DT)
#if XD_MMK == 1 || XD_MMK == 2 || XD_MMK == 3
#if XD_MMK == 2
#define XD_MMK_TY "bf16"
#else
#define XD_MMK_TY "f16"
#endif

#ifndef XD_MMK_STAGES
#define XD_MMK_STAGES 3  // 48 KiB of local memory; 2 (32 KiB) is the other choice
#endif
#define XD_MMK_CHUNKS 512   // 16-byte chunks of one operand's tile: 128 x 32 halves
#define XD_MMK_THREADS 128  // 4 warps (xpu::plan_gemm launches work-groups of this size)
#define XD_MMK_COPIES (XD_MMK_CHUNKS / XD_MMK_THREADS)  // chunks of each operand per work-item per step

// Every copy group complete but the newest XD_MMK_STAGES - 2.
#if XD_MMK_STAGES == 3
inline void xd_mmk_wait(void) { XD_ASM volatile("cp.async.wait_group 1;" : : : "memory"); }
#else
inline void xd_mmk_wait(void) { XD_ASM volatile("cp.async.wait_group 0;" : : : "memory"); }
#endif

// Columns col and col + 1 of row r through the matmul epilogue (xd_gemm_value, one rounding to T),
// where they are inside the output: for f16 and bf16 as one 4-byte store where the output is
// dense along n and the pair aligned, else element by element. The wgmma kernels store through
// it: element stores made their bf16 11-65% slower than f16 (docs/performance.md, "Tensor-map
// copies (TMA) from OpenCL after all").
inline void xd_gemm_store_pair(__global T* c, __global const T* in, const xd_gemm G, long bt, long r, long col,
                               float a0, float a1) {
  if (r >= G.m || col >= G.n) return;
  const int both = col + 1 < G.n;
  const CT v0 = xd_gemm_value(in, G, bt, r, col, a0);
  const CT v1 = both ? xd_gemm_value(in, G, bt, r, col + 1, a1) : v0;
  const long at = G.c_off + bt * G.c_b + r * G.c_m + col * G.c_n;
#if XD_MMK != 3
  if (both && G.c_n == 1 && (at & 1) == 0) {
    vstore2((ushort2)(XD_ENC(v0), XD_ENC(v1)), 0, (__global ushort*)c + at);
    return;
  }
#endif
  XD_ST(c, at, v0);
  if (both) XD_ST(c, at + G.c_n, v1);
}

// One accumulator fragment of mma.m16n8 (and of wgmma's m64nNk16, which has its layout): v.s0, s1
// at row r, columns col and col + 1; s2, s3 at row r + 8; each stored (xd_gemm_store) where it is
// inside the output. The mma.sync kernels keep element stores: pairs (xd_gemm_store_pair) ran
// their bf16 2.5% slower, f16 1% faster (docs/performance.md, "Pair stores for the mma.sync
// kernels").
inline void xd_gemm_store4(__global T* c, __global const T* in, const xd_gemm G, long bt, long r, long col, float4 v) {
  if (r < G.m && col < G.n) xd_gemm_store(c, in, G, bt, r, col, v.s0);
  if (r < G.m && col + 1 < G.n) xd_gemm_store(c, in, G, bt, r, col + 1, v.s1);
  if (r + 8 < G.m && col < G.n) xd_gemm_store(c, in, G, bt, r + 8, col, v.s2);
  if (r + 8 < G.m && col + 1 < G.n) xd_gemm_store(c, in, G, bt, r + 8, col + 1, v.s3);
}

inline float4 xd_mmk_mma(float4 c, const uint* a, uint b0, uint b1) {
  XD_ASM("mma.sync.aligned.m16n8k16.row.col.f32." XD_MMK_TY "." XD_MMK_TY
         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
         : "+f"(c.s0), "+f"(c.s1), "+f"(c.s2), "+f"(c.s3)
         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  return c;
}

// ---------------------------------------------------------------- the gemvs' split of k
// A decode shape has few work-groups (one per BN columns), too few to keep enough bytes in flight
// on a large GPU, so the host may split k over the launch's dimension 1 (xpu::plan_gemm):
// work-group z of get_num_groups(1) takes the steps [z * per, (z + 1) * per) (of 16 k in
// xd_gemm_async_skinny*, of 32 in matmul_mma_stream.cl) and writes its 16 x BN f32 sums to the
// workspace `part`, which xd_gemm_skinny_reduce then adds in z order and stores. Unsplit (one
// group along dimension 1), the sums are stored directly.
inline void xd_skinny_steps(long steps, long* first, long* count) {
  const long splits = (long)get_num_groups(1), z = (long)get_group_id(1);
  const long per = (steps + splits - 1) / splits;
  *first = z * per;
  *count = max(0L, min(steps, *first + per) - *first);
}

// Where split z of `splits`, batch `bl` of the launch (its dimension 2), keeps its sum for (row,
// col): 16 rows of n per split.
inline long xd_skinny_part_at(const xd_gemm G, long part0, long splits, long bl, long z, long row, long col) {
  return part0 + ((bl * splits + z) * 16 + row) * G.n + col;
}

// A gemv's f32 sum for output (row, col), inside the output: stored (alpha, beta, input, one
// rounding) where k is not split, else kept in `part` for xd_gemm_skinny_reduce.
inline void xd_skinny_out(__global T* c, __global const T* in, const xd_gemm G, long bt, __global float* part,
                          long part0, long row, long col, float sum) {
  if (get_num_groups(1) > 1)
    part[xd_skinny_part_at(G, part0, get_num_groups(1), get_group_id(2), get_group_id(1), row, col)] = sum;
  else
    xd_gemm_store(c, in, G, bt, row, col, sum);
}

// xd_gemm_async_skinny*'s last step: the W warps' 16 x BN partial
// sums, warp w's (row, col) at red[(w * 16 + row) * BN + col], added in warp order, then
// xd_skinny_out.
inline void xd_skinny_partials_store(__global T* c, __global const T* in, const xd_gemm G, long bt, long n0,
                                     __local const float* red, const int BN, const int W, __global float* part,
                                     long part0) {
  for (int e = (int)get_local_id(0); e < 16 * BN; e += 32 * W) {
    const int row = e / BN, col = e % BN;
    if (row < G.m && n0 + col < G.n) {
      float sum = 0.0f;
#pragma unroll
      for (int w = 0; w < W; ++w) sum += red[(w * 16 + row) * BN + col];
      xd_skinny_out(c, in, G, bt, part, part0, row, n0 + col, sum);
    }
  }
}

// The split gemvs' second launch, over (n, m, batches of the first): each output's splits added in
// z order, then stored (alpha, beta, input, one rounding).
__kernel void xd_gemm_skinny_reduce(__global T* c, __global const T* in, const xd_gemm G, long batch0,
                                    __global const float* part, long part0, int splits) {
  const long col = get_global_id(0), row = get_global_id(1), bl = get_global_id(2);
  if (col >= G.n || row >= G.m) return;
  float sum = 0.0f;
  for (int z = 0; z < splits; ++z) sum += part[xd_skinny_part_at(G, part0, splits, bl, z, row, col)];
  xd_gemm_store(c, in, G, batch0 + bl, row, col, sum);
}

#if XD_MMK != 3  // the tensor-core kernels: f16, bf16

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

// sa, sb: S tiles of A and of B. Unpacked (P = 0): each work-item copies its 16-byte chunks
// with cp.async, S = XD_MMK_STAGES. Packed (P = 1): pa and pb hold A's and B's tiles already in
// the stages' image (xd_gemm_pack_mma, below): tile (bt, t, kt) of k16 steps at ((bt * tiles + t)
// * steps + kt) images of 256 chunks; work-item 0 fills a stage with two bulk copies,
// S = XD_MMK_PSTAGES with one mbarrier each in bars.
inline void xd_gemm_mma(__global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G,
                        long row0, long batch0, __local uint4* sa, __local uint4* sb, const int NT,
                        __global const uint4* pa, __global const uint4* pb, __local ulong* bars, const int P, const int S) {
  const int tid = (int)get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 1, wn = warp & 1;  // the warp's 64 rows and 64 columns of the tile

  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  const long bt = batch0 + (long)get_group_id(2);
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  const int steps = P ? (int)((G.k + 15) / 16) : (int)((G.k + 31) / 32);

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
  // Packed stages are one k16 step (rows of 2 chunks, xd_mmk_at2), the others two (rows of 4).
  const int KK = P ? 1 : 2;
  const uint stage_bytes = P ? XD_MMK_PCHUNKS * 16u : XD_MMK_CHUNKS * 16u;
  const uint a16 = P ? 512u : 1024u;  // bytes between A's 16-row tiles in a stage

  // ldmatrix addresses within a stage (bytes), per k16 half kk: A's four 16-row tiles are a16
  // bytes apart; B's four 16-column pairs p.
  uint la[2], lb[2][4];
#pragma unroll
  for (int kk = 0; kk < KK; ++kk) {
    la[kk] = P ? xd_mmk_lda2(wm * 64, lane) : xd_mmk_lda(wm * 64, lane, kk);
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      if (NT)
        lb[kk][p] = P ? xd_mmk_ldb2_nt(wn * 64 + p * 16, lane) : xd_mmk_ldb_nt(wn * 64 + p * 16, lane, kk);
      else
        lb[kk][p] = (uint)xd_mmk_at16(kk * 16 + (lane & 15), wn * 8 + p * 2 + (lane >> 4)) * 16u;
    }
  }

  float4 acc[4][8];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = (float4)(0.0f);

  // Packed: this tile's images of A and of B (m0 and n0 are multiples of 128).
  const uint bar0 = P ? (uint)(ulong)bars : 0u;
  if (P) {
    pa += ((bt * ((G.m + 127) / 128) + m0 / 128) * steps) * XD_MMK_PCHUNKS;
    pb += ((bt * ((G.n + 127) / 128) + n0 / 128) * steps) * XD_MMK_PCHUNKS;
    if (tid == 0) xd_mmk_bar_init(bar0, S);
    barrier(CLK_LOCAL_MEM_FENCE);
  }

#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (P) {
      if (s < steps && tid == 0)
        xd_mmk_bulk_stage(sa0 + s * stage_bytes, sb0 + s * stage_bytes, pa + s * XD_MMK_PCHUNKS,
                          pb + s * XD_MMK_PCHUNKS, bar0 + 8u * s, stage_bytes);
      continue;
    }
    if (s < steps) {
      xd_mmk_issue(ca, a, s, G.k, sa0 + s * stage_bytes);
      xd_mmk_issue(cb, b, s, G.k, sb0 + s * stage_bytes);
    }
    xd_mmk_commit();
  }
  int use = 0, fill = S - 1;  // the stage computed on, the stage being filled
  for (int kt = 0; kt < steps; ++kt) {
    const int next = kt + S - 1;
    if (P) {
      xd_mmk_bar_wait(bar0 + 8u * use, (uint)(kt / S) & 1u);  // step kt has landed
      // Every work-item is done with stage `fill` (step kt - 1) past the barrier, which orders
      // their ldmatrix reads before work-item 0's proxy fence, and that before the bulk copy's
      // writes (another proxy's). Per-stage "empty" mbarriers in place of the barrier measured the
      // same (docs/performance.md).
      barrier(CLK_LOCAL_MEM_FENCE);
      if (tid == 0 && next < steps) {
        xd_mmk_proxy_fence();
        xd_mmk_bulk_stage(sa0 + fill * stage_bytes, sb0 + fill * stage_bytes, pa + next * XD_MMK_PCHUNKS,
                          pb + next * XD_MMK_PCHUNKS, bar0 + 8u * fill, stage_bytes);
      }
    } else {
      xd_mmk_wait();
      barrier(CLK_LOCAL_MEM_FENCE);  // step kt is in every work-item's view; stage `fill` is free
      if (next < steps) {
        xd_mmk_issue(ca, a, next, G.k, sa0 + fill * stage_bytes);
        xd_mmk_issue(cb, b, next, G.k, sb0 + fill * stage_bytes);
      }
      xd_mmk_commit();
    }
    const uint ta = sa0 + use * stage_bytes, tb = sb0 + use * stage_bytes;
#pragma unroll
    for (int kk = 0; kk < KK; ++kk) {  // the stage's k16 steps
      uint af[4][4];
#pragma unroll
      for (int i = 0; i < 4; ++i) xd_mmk_ldsm(af[i], ta + la[kk] + i * a16);
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
    use = use == S - 1 ? 0 : use + 1;
    fill = fill == S - 1 ? 0 : fill + 1;
  }

  // Accumulator (i, j) of lane (g, t): rows g and g + 8 of the 16, columns 2t and 2t + 1 of the 8.
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      xd_gemm_store4(c, in, G, bt, m0 + wm * 64 + i * 16 + g, n0 + wn * 64 + j * 8 + 2 * t, acc[i][j]);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(XD_MMK_THREADS, 1, 1))) void xd_gemm_mma_nn(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local uint4 sa[XD_MMK_STAGES * XD_MMK_CHUNKS];
  __local uint4 sb[XD_MMK_STAGES * XD_MMK_CHUNKS];
  xd_gemm_mma(c, a, b, in, G, row0, batch0, sa, sb, 0, 0, 0, 0, 0, XD_MMK_STAGES);
}

__kernel __attribute__((reqd_work_group_size(XD_MMK_THREADS, 1, 1))) void xd_gemm_mma_nt(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local uint4 sa[XD_MMK_STAGES * XD_MMK_CHUNKS];
  __local uint4 sb[XD_MMK_STAGES * XD_MMK_CHUNKS];
  xd_gemm_mma(c, a, b, in, G, row0, batch0, sa, sb, 1, 0, 0, 0, 0, XD_MMK_STAGES);
}

#ifdef XD_NV_BULK
// The packed form: A and B already in the stages' image (xd_gemm_pack_mma), so a stage (one k16
// step) is two bulk copies of 4 KiB instead of 512 copies of 16 bytes, whose rate caps the
// unpacked kernels (docs/performance.md, "The copies' ceiling"). XD_MMK_PSTAGES stages of 8 KiB
// (with their mbarriers under NVIDIA's 48 KiB of local memory).
// One kernel per B layout; NT as in xd_gemm_mma.
#define XD_MMK_PACKED_KERNEL(NAME, NT)                                                                           \
  __kernel __attribute__((reqd_work_group_size(XD_MMK_THREADS, 1, 1))) void NAME(                              \
      __global T* c, __global const uint4* pa, __global const uint4* pb, __global const T* in, const xd_gemm G, \
      long row0, long batch0, long pa0, long pb0) {                                                            \
    __local uint4 sa[XD_MMK_PSTAGES * XD_MMK_PCHUNKS];                                                         \
    __local uint4 sb[XD_MMK_PSTAGES * XD_MMK_PCHUNKS];                                                         \
    __local ulong bars[XD_MMK_PSTAGES];                                                                        \
    xd_gemm_mma(c, 0, 0, in, G, row0, batch0, sa, sb, NT, pa + pa0, pb + pb0, bars, 1, XD_MMK_PSTAGES);        \
  }
XD_MMK_PACKED_KERNEL(xd_gemm_mma_packed_nn, 0)
XD_MMK_PACKED_KERNEL(xd_gemm_mma_packed_nt, 1)
#endif  // XD_NV_BULK

// Packs one operand into the packed stages' image, one work-item per 16-byte chunk and one
// work-group per image (xd_mmk_image): image (bt, t, kt) of the operand's `tiles` tiles of 128 rows (A's m, or B's n) and `steps` k steps of
// 16 holds at chunk xd_mmk_at2(r, ch) the 8 elements of row t * 128 + r from k = kt * 16 + ch * 8
// (A, and B stored n x k: rows_k = 0), or, for B stored k x n (rows_k = 1), at xd_mmk_at16(kr,
// c16) the 8 elements of k row kt * 16 + kr from column t * 128 + c16 * 8, zeros outside the
// matrix: the layouts xd_gemm_mma's ldmatrix addresses read. `off`, `ld`
// (elements between rows of the source) and `bs` (between batches) are multiples of 8, as are
// the dense extent and k (xpu::plan_gemm's conditions), so a chunk is wholly inside or outside.
__kernel __attribute__((reqd_work_group_size(XD_MMK_PCHUNKS, 1, 1))) void xd_gemm_pack_mma(
    __global uint4* dst, long dst0, __global const T* src, long off, long ld, long bs, long rows, long k, int tiles,
    int steps, int rows_k) {
  const int q = (int)get_local_id(0);
  long image, kt, t, bt;
  xd_mmk_image(tiles, steps, &image, &kt, &t, &bt);
  long row, col;
  int at;
  if (rows_k) {
    const int kr = q >> 4, c16 = q & 15;
    row = kt * 16 + kr, col = t * 128 + c16 * 8;
    at = xd_mmk_at16(kr, c16);
  } else {
    const int r = q >> 1, ch = q & 1;
    row = t * 128 + r, col = kt * 16 + ch * 8;
    at = xd_mmk_at2(r, ch);
  }
  const int inside = rows_k ? (row < k && col < rows) : (row < rows && col < k);
  uint4 v = (uint4)(0u);
  if (inside) v = *(__global const uint4*)(src + off + bt * bs + row * ld + col);
  dst[dst0 + image * XD_MMK_PCHUNKS + at] = v;
}

#endif  // XD_MMK != 3

#if XD_MMK == 3
// ---------------------------------------------------------------- f32 decode shapes (2 <= M <= 16)
// xd_gemm_async_skinny_nn / _nt, for narrow B (wider B takes matmul_mma_stream.cl's
// xd_gemm_f32_stream_*, whose 128 columns a warp leave narrow B's work-groups too few): B streamed
// once through local memory, each warp running its own cp.async pipeline with no work-group
// barrier, the products on the CUDA cores (f32 has no tensor-core form with f32's rounding). BN
// (32) columns per work-group of W (8) warps, lane l owning columns n0 + l + 32 h for all 16 rows; warp w takes the
// k16 steps first + w, first + w + W, ... of its split (xd_skinny_steps), two in flight (A 16 x 16
// and B 16 x BN floats), copied by cp.async and made visible by bar.warp.sync. Each row's products
// are summed in k order within a warp (fma), the W warps' partials added in warp order, then stored
// with xd_gemm_store or kept for xd_gemm_skinny_reduce. A's rows are read as float4 broadcasts; B
// in the nt layout sits XOR-swizzled by 16-byte chunk so that a lane's float4 of its column meets
// no other lane's bank.

// The copies of step kt into the stage at byte address `st`: A's 16 rows of 4 chunks, then B:
// rows n of 4 chunks along k (NT), or rows k of BN / 4 chunks along n.
inline void xd_mmf_issue(__global const T* a, __global const T* b, const xd_gemm G, long abase, long bbase, long n0,
                         long kt, int lane, uint st, const int NT, const int BN) {
  const long k0 = kt * 16;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int q = lane + 32 * i, r = q >> 2, c = q & 3;
    const int in = r < G.m && k0 + c * 4 < G.k;
    xd_mmk_copy16(st + (uint)q * 16u, in ? a + abase + r * G.a_m + k0 + c * 4 : a, in ? 16u : 0u);
  }
#pragma unroll
  for (int i = 0; i < BN / 8; ++i) {
    const int q = lane + 32 * i;
    int in;
    uint at;
    __global const T* src;
    if (NT) {
      const int n = q >> 2, c = q & 3;
      in = n0 + n < G.n && k0 + c * 4 < G.k;
      src = b + bbase + (n0 + n) * G.b_n + k0 + c * 4;
      at = (uint)xd_mmk_at4(n, c);
    } else {
      const int kr = q / (BN / 4), c = q % (BN / 4);
      in = k0 + kr < G.k && n0 + c * 4 < G.n;
      src = b + bbase + (k0 + kr) * G.b_k + n0 + c * 4;
      at = (uint)q;
    }
    xd_mmk_copy16(st + 1024u + at * 16u, in ? src : b, in ? 16u : 0u);
  }
}

inline void xd_gemm_async_skinny(__global T* c, __global const T* a, __global const T* b, __global const T* in,
                                 const xd_gemm G, long batch0, __global float* part, long part0, __local uint4* sm,
                                 const int NT, const int BN, const int W) {
  const int tid = (int)get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int stage = 64 + 4 * BN;  // 16-byte chunks: A 16 x 16 floats, B 16 x BN
  const long n0 = (long)get_group_id(0) * BN;
  const long bt = batch0 + (long)get_group_id(2);
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  long first, steps;  // this split's k16 steps
  xd_skinny_steps((G.k + 15) / 16, &first, &steps);
  const long mine = steps > warp ? (steps - warp + W - 1) / W : 0;
  __local uint4* mine_sm = sm + warp * 2 * stage;  // this warp's two stages
  const uint base = xd_mmk_shared(mine_sm);

  float acc[2][16];  // [h][row]: columns lane + 32 h (h < BN / 32)
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int r = 0; r < 16; ++r) acc[h][r] = 0.0f;

  if (mine > 0) xd_mmf_issue(a, b, G, abase, bbase, n0, first + warp, lane, base, NT, BN);
  xd_mmk_commit();
  for (long j = 0; j < mine; ++j) {
    XD_ASM volatile("cp.async.wait_group 0;" : : : "memory");
    xd_warp_sync();  // step j is in every lane's view; the other stage (step j - 1) is free
    if (j + 1 < mine)
      xd_mmf_issue(a, b, G, abase, bbase, n0, first + warp + (j + 1) * W, lane,
                   base + (uint)((j + 1) & 1) * (uint)stage * 16u, NT, BN);
    xd_mmk_commit();
    __local const float4* sa = (__local const float4*)(mine_sm + (j & 1) * stage);
    __local const float* sb = (__local const float*)(sa + 64);
#pragma unroll
    for (int kq = 0; kq < 4; ++kq) {
      float4 bv[2];
#pragma unroll
      for (int h = 0; h < BN / 32; ++h) {
        const int col = lane + 32 * h;
        if (NT) {
          bv[h] = ((__local const float4*)sb)[xd_mmk_at4(col, kq)];
        } else {
          bv[h].s0 = sb[(kq * 4 + 0) * BN + col];
          bv[h].s1 = sb[(kq * 4 + 1) * BN + col];
          bv[h].s2 = sb[(kq * 4 + 2) * BN + col];
          bv[h].s3 = sb[(kq * 4 + 3) * BN + col];
        }
      }
#pragma unroll
      for (int r = 0; r < 16; ++r) {
        const float4 av = sa[r * 4 + kq];
#pragma unroll
        for (int h = 0; h < BN / 32; ++h) {
          acc[h][r] = fma(av.s0, bv[h].s0, acc[h][r]);
          acc[h][r] = fma(av.s1, bv[h].s1, acc[h][r]);
          acc[h][r] = fma(av.s2, bv[h].s2, acc[h][r]);
          acc[h][r] = fma(av.s3, bv[h].s3, acc[h][r]);
        }
      }
    }
  }
  XD_ASM volatile("cp.async.wait_group 0;" : : : "memory");
  barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with its stages: they hold the partials now

  __local float* red = (__local float*)sm;  // partial (row, col) of warp w at (w * 16 + row) * BN + col
#pragma unroll
  for (int h = 0; h < BN / 32; ++h)
#pragma unroll
    for (int r = 0; r < 16; ++r) red[(warp * 16 + r) * BN + lane + 32 * h] = acc[h][r];
  barrier(CLK_LOCAL_MEM_FENCE);
  xd_skinny_partials_store(c, in, G, bt, n0, red, BN, W, part, part0);
}

#define XD_GEMM_ASYNC_SKINNY(NAME, NT, BN, W)                                                                     \
  __kernel __attribute__((reqd_work_group_size(32 * W, 1, 1))) void NAME(                                       \
      __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long batch0, \
      __global float* part, long part0) {                                                                         \
    __local uint4 sm[W * 2 * (64 + 4 * BN)];                                                                      \
    xd_gemm_async_skinny(c, a, b, in, G, batch0, part, part0, sm, NT, BN, W);                                     \
  }
XD_GEMM_ASYNC_SKINNY(xd_gemm_async_skinny_nn, 0, 32, 8)
XD_GEMM_ASYNC_SKINNY(xd_gemm_async_skinny_nt, 1, 32, 8)

#endif  // f32

#endif  // f16, bf16, f32
#endif  // XD_NV_MMA
