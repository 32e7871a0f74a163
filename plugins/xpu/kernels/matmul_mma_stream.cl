// Decode shapes (2 <= M <= 16) of MM, ADDMM, BMM, BADDBMM for f16 and bf16 on NVIDIA tensor cores,
// with B streamed from global memory straight into the mma fragments: no local memory, no copy
// pipeline, no barrier. Appended by the OpenCL plugin after matmul_mma.cl (it uses that file's
// xd_mmk_mma, xd_skinny_steps and xd_skinny_out); the Level Zero plugin never compiles it, and
// without XD_NV_MMA, or for another dtype, it is empty.
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
#if XD_MMK == 1 || XD_MMK == 2

#define XD_MMR_WARPS 4  // xpu::plan_gemm launches work-groups of 32 * XD_MMR_WARPS and 64 * XD_MMR_WARPS columns

inline uint4 xd_mmr_load(__global const T* p, int inside) {
  return inside ? *(__global const uint4*)p : (uint4)(0u);
}

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
#endif  // XD_NV_MMA && XD_CLASS == 1
