// Decode shapes (2 <= M <= 16) of MM, ADDMM, BMM, BADDBMM for f16 and bf16 on NVIDIA tensor cores,
// with B streamed from global memory straight into the mma fragments: no local memory, no copy
// pipeline, no barrier; and for f32 with wide B the same streaming on the CUDA cores (at the end).
// Appended by the OpenCL plugin after matmul_mma.cl (it uses that file's xd_mmk_mma,
// xd_skinny_steps, xd_skinny_out and mma_common.cl's xd_warp_sync); the Level Zero plugin never
// compiles it, and without XD_NV_MMA, or for another dtype, it is empty.
//
//   xd_gemm_mma_stream_nn  B (k x n) dense along n
//   xd_gemm_mma_stream_nt  B dense along k (stored n x k): x @ w.t(), nn.Linear's layout
//
// A work-group is XD_MMR_WARPS independent warps, warp w owning 64 columns of the output (8 tiles of
// mma.m16n8k16) over this split's k (xd_skinny_steps, in blocks of 32 k). Per block, lane (g, t)
// (g = lane / 4, t = lane % 4) loads 16 bytes of each of A's rows g and g + 8 at k0 + 8 t, and 8
// chunks of 16 bytes of B:
//   nn: rows k0 + 8 t + r (r = 0..7) at columns n0 + 8 g .. + 7; the halves of rows r and r + 1
//       are paired into one fragment register per column;
//   nt: rows n0 + 8 j + g (j = 0..7) at k0 + 8 t .. + 7, which are fragment registers as loaded.
// The eight threads of a row read 128 contiguous bytes (nn), the four of a row 64 (nt, whose next
// block reads the other half of each line). Since a product sums over k, the mma's logical k may
// be any permutation of the block's 32 k as long as A and B agree: lane t's logical k 2t, 2t + 1
// (and 2t + 8, 2t + 9) are the real k0 + 8t + {0, 1} (and {2, 3}) in the block's first mma and
// k0 + 8t + {4, 5} ({6, 7}) in its second, which is what lane t loaded for both operands. The
// columns are permuted as well where that keeps the loads whole: in nn, tile j's column c is the
// real column n0 + 8 c + j; in nt, n0 + 8 j + c. A lane has one block in flight (160 bytes): the
// bytes in flight come from the number of warps, which the host's split of k sets (loading two or
// three blocks ahead, or 128 columns a warp, measured slower: docs/performance.md).
//
// Rounding: as the other tensor-core kernels (products exact, f32 sums in the hardware's order
// within a block, blocks added in k order), then xd_gemm_store (alpha, beta, input, one rounding)
// or, split, the f32 sums kept for xd_gemm_skinny_reduce. The host (xpu::plan_gemm) takes this
// kernel only for operands whose offsets and strides are multiples of 8 elements and whose dense
// extents (k, and n for nn) are multiples of 8, so every 16-byte load is aligned and wholly inside
// or outside the matrix; loads outside read zero, outputs outside are never stored.

#if defined(XD_NV_MMA) && XD_CLASS == 1
#define XD_MMR_WARPS 4  // xpu::plan_gemm launches work-groups of 32 * XD_MMR_WARPS work-items

// The 16 bytes at p, or zeros outside the matrix.
inline uint4 xd_mmr_load(__global const T* p, int inside) {
  return inside ? *(__global const uint4*)p : (uint4)(0u);
}

#if XD_MMK == 1 || XD_MMK == 2

// The fragment register of tile j (column 8 g + j) for the rows k and k + 1 loaded as x and y:
// column j's halves of both, row k low.
inline uint xd_mmr_pair(uint4 x, uint4 y, int j) {
  const uint a = j < 2 ? x.s0 : j < 4 ? x.s1 : j < 6 ? x.s2 : x.s3;
  const uint b = j < 2 ? y.s0 : j < 4 ? y.s1 : j < 6 ? y.s2 : y.s3;
  return (j & 1) ? (a >> 16) | (b & 0xffff0000u) : (a & 0xffffu) | (b << 16);
}

inline void xd_gemm_mma_stream(__global T* c, __global const T* a, __global const T* b, __global const T* in,
                               const xd_gemm G, long batch0, __global float* part, long part0, const int NT) {
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const long n0 = ((long)get_group_id(0) * XD_MMR_WARPS + warp) * 64;
  if (n0 >= G.n) return;  // no barrier follows: the other warps do not wait for this one
  const long bt = batch0 + (long)get_group_id(2);
  long first, blocks;  // this split's blocks of 32 k
  xd_skinny_steps((G.k + 31) / 32, &first, &blocks);

  __global const T* a0 = a + G.a_off + bt * G.a_b + g * G.a_m + 8 * t;
  __global const T* a1 = a0 + 8 * G.a_m;
  const int a0_in = g < G.m, a1_in = g + 8 < G.m;
  __global const T* bp = NT ? b + G.b_off + bt * G.b_b + (n0 + g) * G.b_n + 8 * t
                            : b + G.b_off + bt * G.b_b + 8 * t * G.b_k + n0 + 8 * g;
  int b_in[8];  // nt: row n0 + 8 j + g is inside; nn: the column chunk n0 + 8 g is (all eight alike)
#pragma unroll
  for (int j = 0; j < 8; ++j) b_in[j] = NT ? n0 + 8 * j + g < G.n : n0 + 8 * g < G.n;

  float4 acc[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) acc[j] = (float4)(0.0f);

  for (long i = 0; i < blocks; ++i) {
    const long k0 = (first + i) * 32;
    const int k_in = k0 + 8 * t < G.k;  // k is a multiple of 8: the chunk is whole
    const uint4 x = xd_mmr_load(a0 + k0, k_in && a0_in), y = xd_mmr_load(a1 + k0, k_in && a1_in);
    uint4 bv[8];  // nt: tile j's row; nn: row k0 + 8 t + j
#pragma unroll
    for (int j = 0; j < 8; ++j)
      bv[j] = xd_mmr_load(NT ? bp + 8 * j * G.b_n + k0 : bp + (k0 + j) * G.b_k, k_in && b_in[j]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // the block's two mma steps: real k 8t + 4h + {0..3}
      const uint af[4] = {h ? x.s2 : x.s0, h ? y.s2 : y.s0, h ? x.s3 : x.s1, h ? y.s3 : y.s1};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint b0, b1;
        if (NT) {
          b0 = h ? bv[j].s2 : bv[j].s0;
          b1 = h ? bv[j].s3 : bv[j].s1;
        } else {
          b0 = xd_mmr_pair(bv[4 * h], bv[4 * h + 1], j);
          b1 = xd_mmr_pair(bv[4 * h + 2], bv[4 * h + 3], j);
        }
        acc[j] = xd_mmk_mma(acc[j], af, b0, b1);
      }
    }
  }

  // Lane (g, t) holds, of tile j, rows g and g + 8 at the tile's columns 2t and 2t + 1.
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const float v[4] = {acc[j].s0, acc[j].s1, acc[j].s2, acc[j].s3};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const long row = g + 8 * (e >> 1), tc = 2 * t + (e & 1);
      const long col = NT ? n0 + 8 * j + tc : n0 + 8 * tc + j;
      if (row < G.m && col < G.n) xd_skinny_out(c, in, G, bt, part, part0, row, col, v[e]);
    }
  }
}

#define XD_GEMM_MMA_STREAM(NAME, NT)                                                                                \
  __kernel __attribute__((reqd_work_group_size(32 * XD_MMR_WARPS, 1, 1))) void NAME(                               \
      __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long batch0, \
      __global float* part, long part0) {                                                                          \
    xd_gemm_mma_stream(c, a, b, in, G, batch0, part, part0, NT);                                                   \
  }
XD_GEMM_MMA_STREAM(xd_gemm_mma_stream_nn, 0)
XD_GEMM_MMA_STREAM(xd_gemm_mma_stream_nt, 1)

#endif  // XD_MMK == 1 || XD_MMK == 2

#if XD_MMK == 3
// f32 decode shapes on the CUDA cores, for wide B: xd_gemm_f32_stream_nn / _nt, B streamed from
// global memory into registers as above (independent warps, no barrier), warp w owning 128 columns
// over this split's k (xd_skinny_steps, in blocks of 8 k), lane l four of them:
//   nn: columns n0 + 4 l .. + 3, one 16-byte load per k row (a warp's row: 512 contiguous bytes);
//   nt: columns n0 + l + 32 c (c = 0..3), two 16-byte loads per column (8 k: one 32-byte sector).
// A lane has one block of B in flight (128 bytes; loading the next block before this one's
// products took more registers and ran slower: docs/performance.md). A's 16 x 8 block is loaded
// one 16-byte chunk a lane into the warp's 512 bytes of local memory (bar.warp.sync before and
// after the products), from where every lane reads each row as two broadcast 16-byte loads at
// fixed offsets. Each of a lane's 16 x 4 sums adds its products by fma in k order (16 fma per
// element of B: the CUDA cores' share of the time, hidden behind the loads of the other warps);
// the splits' sums are added in split order (xd_gemm_skinny_reduce). Rows of A past m read zero.
// The host takes it for operands whose offsets, strides and dense extents are multiples of 4
// floats, so every 16-byte load is aligned and wholly inside or outside the matrix.

// The 8 x 4 floats of B a lane takes for the block at k0 (nn: b[j] is row k0 + j; nt: b[2 c + h]
// is column c's k0 + 4 h .. + 3).
inline void xd_f32s_fetch(float4* bv, __global const float* bp, const xd_gemm G, long k0, int col_in, const int NT) {
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    if (NT) {
      const int c = j >> 1, h = j & 1;
      bv[j] = as_float4(xd_mmr_load(bp + 32 * c * G.b_n + k0 + 4 * h, (col_in >> c & 1) && k0 + 4 * h < G.k));
    } else {
      bv[j] = as_float4(xd_mmr_load(bp + (k0 + j) * G.b_k, col_in && k0 + j < G.k));
    }
  }
}

// The products of one block: A's row r at sa[2 r] (k0 .. + 3) and sa[2 r + 1] (k0 + 4 .. + 7).
inline void xd_f32s_block(float4* acc, const float4* bv, __local const float4* sa, const int NT) {
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    const float4 x0 = sa[2 * r], x1 = sa[2 * r + 1];
    const float x[8] = {x0.s0, x0.s1, x0.s2, x0.s3, x1.s0, x1.s1, x1.s2, x1.s3};
    if (NT) {
      float s[4] = {acc[r].s0, acc[r].s1, acc[r].s2, acc[r].s3};
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float4 lo = bv[2 * c], hi = bv[2 * c + 1];
        s[c] = fma(x[0], lo.s0, s[c]);
        s[c] = fma(x[1], lo.s1, s[c]);
        s[c] = fma(x[2], lo.s2, s[c]);
        s[c] = fma(x[3], lo.s3, s[c]);
        s[c] = fma(x[4], hi.s0, s[c]);
        s[c] = fma(x[5], hi.s1, s[c]);
        s[c] = fma(x[6], hi.s2, s[c]);
        s[c] = fma(x[7], hi.s3, s[c]);
      }
      acc[r] = (float4)(s[0], s[1], s[2], s[3]);
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[r] = fma((float4)(x[j]), bv[j], acc[r]);
    }
  }
}

inline void xd_gemm_f32_stream(__global T* c, __global const T* a, __global const T* b, __global const T* in,
                               const xd_gemm G, long batch0, __global float* part, long part0, __local float4* sm,
                               const int NT) {
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5;
  const long n0 = ((long)get_group_id(0) * XD_MMR_WARPS + warp) * 128;
  if (n0 >= G.n) return;  // no work-group barrier follows
  const long bt = batch0 + (long)get_group_id(2);
  long first, blocks;  // this split's blocks of 8 k
  xd_skinny_steps((G.k + 7) / 8, &first, &blocks);

  // Lane l copies A's row l / 2 at k0 + 4 (l % 2) into sa[l].
  __local float4* sa = sm + warp * 32;
  const int arow = lane >> 1, acol = 4 * (lane & 1);
  __global const float* ap = a + G.a_off + bt * G.a_b + arow * G.a_m + acol;
  const int a_in = arow < G.m;
  __global const float* bp = NT ? b + G.b_off + bt * G.b_b + (n0 + lane) * G.b_n
                                : b + G.b_off + bt * G.b_b + n0 + 4 * lane;
  int col_in = 0;  // nt: bit c for column n0 + lane + 32 c; nn: the chunk n0 + 4 lane (n is a multiple of 4)
  if (NT) {
#pragma unroll
    for (int q = 0; q < 4; ++q) col_in |= (n0 + lane + 32 * q < G.n) << q;
  } else {
    col_in = n0 + 4 * lane < G.n;
  }

  float4 acc[16];
#pragma unroll
  for (int r = 0; r < 16; ++r) acc[r] = (float4)(0.0f);
  for (long i = 0; i < blocks; ++i) {
    const long k0 = (first + i) * 8;
    float4 bv[8];
    xd_f32s_fetch(bv, bp, G, k0, col_in, NT);
    sa[lane] = as_float4(xd_mmr_load(ap + k0, a_in && k0 + acol < G.k));
    xd_warp_sync();  // the block's A is in every lane's view
    xd_f32s_block(acc, bv, sa, NT);
    xd_warp_sync();  // every lane has read it: the next block may overwrite it
  }

#pragma unroll
  for (int r = 0; r < 16; ++r) {
    const float v[4] = {acc[r].s0, acc[r].s1, acc[r].s2, acc[r].s3};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const long col = NT ? n0 + lane + 32 * q : n0 + 4 * lane + q;
      if (r < G.m && col < G.n) xd_skinny_out(c, in, G, bt, part, part0, r, col, v[q]);
    }
  }
}

#define XD_GEMM_F32_STREAM(NAME, NT)                                                                                \
  __kernel __attribute__((reqd_work_group_size(32 * XD_MMR_WARPS, 1, 1))) void NAME(                               \
      __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long batch0, \
      __global float* part, long part0) {                                                                          \
    __local float4 sm[XD_MMR_WARPS * 32];                                                                          \
    xd_gemm_f32_stream(c, a, b, in, G, batch0, part, part0, sm, NT);                                               \
  }
XD_GEMM_F32_STREAM(xd_gemm_f32_stream_nn, 0)
XD_GEMM_F32_STREAM(xd_gemm_f32_stream_nt, 1)
#endif  // XD_MMK == 3
#endif  // XD_NV_MMA && XD_CLASS == 1
