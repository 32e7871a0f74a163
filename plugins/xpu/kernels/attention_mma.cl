// SCALED_DOT_PRODUCT_ATTENTION for f16 and bf16 on NVIDIA tensor cores (inline PTX), the
// FlashAttention-2 scheme. Appended by the OpenCL plugin to attention.cl's program after
// mma_common.cl; the Level Zero plugin never compiles it, and without XD_NV_MMA, or for another
// dtype, it is empty. The host (common/attention.cpp) takes it for head dims of 64 or 128
// (E == Ev), no attn_mask, S > 0, at most INT32_MAX - 128 queries and keys (rows are counted in
// 32 bits), and views whose last dim is dense and whose other strides and offsets are multiples
// of 8 elements (every 16-byte copy aligned); every other call takes attention.cl's portable
// kernel.
//
// One work-group of 4 warps per (batch, 64 queries); each warp owns 16 query rows. Q's tile is
// copied into local memory once; at D = 128 its fragments are read from there (ldmatrix) for
// every key tile, at D = 64 once into registers. The keys are walked in tiles of 64: K's and V's
// tiles (16 KiB each at D = 128; with Q's, the 48 KiB NVIDIA's OpenCL allows a work-group) are
// copied into local memory by cp.async, V's copy overlapping S = Q K^T and the next K's copy
// overlapping the softmax and P V. S (16 x 64 per warp, f32) stays in the mma accumulators; the
// online softmax rescales the running output when a row's maximum grows, and P, rounded to the
// dtype, is fed straight back as the A operand of P V (the accumulator layout of m16n8 is the
// operand layout of m16k16, two tiles per k16). Causal: tiles past the block's last query are
// never loaded; inside, keys j > i score -inf.
//
// Rounding: each score is an f32 dot product on the tensor core (exact products, f32 sums in
// the hardware's order) times scale; the softmax in f32 (ex2.approx of log2(e)-scaled scores); P
// rounded to the dtype before P V (FlashAttention's and cuDNN's choice), sums of P V in f32,
// the output divided by the row sum in f32 and rounded once. A NaN or +inf score makes its row
// NaN; S = 0 is not taken (the portable kernel gives zeros).

#if defined(XD_NV_MMA) && XD_CLASS == 1
#define xd_FAK_f16 1
#define xd_FAK_bf16 2
#define XD_FAK XD_CAT(xd_FAK_, XD_DT)
#if XD_FAK == 1 || XD_FAK == 2
#if XD_FAK == 2
#define XD_FA_TY "bf16"
#else
#define XD_FA_TY "f16"
#endif

#define XD_FA_BM 64  // queries per work-group: 4 warps x 16
#define XD_FA_BN 64  // keys per tile
#define XD_FA_THREADS 128

// The launcher's struct (common/attention.cpp, attention_mma_args), all 64-bit.
typedef struct {
  long L, S, q_blocks, causal;
  long q_off, q_sb, q_sl;
  long k_off, k_sb, k_sl;
  long v_off, v_sb, v_sl;
  long o_off, o_sb, o_sl;
  float scale_log2;  // scale * log2(e)
  float pad_;
} xd_fa_args;

inline float4 xd_fa_mma(float4 c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  XD_ASM("mma.sync.aligned.m16n8k16.row.col.f32." XD_FA_TY "." XD_FA_TY
         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
         : "+f"(c.s0), "+f"(c.s1), "+f"(c.s2), "+f"(c.s3)
         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  return c;
}

// Two f32 as the dtype's pair, `lo` in the low half (the lower column).
inline uint xd_fa_pack(float lo, float hi) {
  uint r;
  XD_ASM("cvt.rn." XD_FA_TY "x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// 2^x by the hardware's approximation (ex2.approx: relative error about 2^-22, below the rounding
// of P to the dtype that follows); 2^-inf = 0, NaN stays NaN.
inline float xd_fa_exp2(float x) {
  float r;
  XD_ASM("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

inline float xd_fa_xor(float v, int m) {
  float r;
  XD_ASM volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(m));
  return r;
}

// Max and sum over the 4 lanes that share a row (lanes 4g .. 4g+3).
inline float xd_fa_row_max(float v) {
  v = fmax(v, xd_fa_xor(v, 1));
  return fmax(v, xd_fa_xor(v, 2));
}
inline float xd_fa_row_sum(float v) {
  v += xd_fa_xor(v, 1);
  return v + xd_fa_xor(v, 2);
}

// Copies rows [r0, r0 + 64) of a [rows, D] operand (row stride `ld`, elements) into a tile of
// rows of D/8 16-byte chunks, XOR-swizzled (chunk c of row r at r * CH + (c ^ (r & 7))); rows
// at or past `rows` are zero-filled. Each work-item copies one chunk column of every
// (XD_FA_THREADS / CH)-th row, a multiple of 8 rows apart, so its swizzle is the same in each.
inline __attribute__((always_inline)) void xd_fa_load(uint tile, __global const T* src, long base, long ld, int r0,
                                                      int rows, const int D) {
  const int CH = D / 8, step = XD_FA_THREADS / CH;
  const int lid = (int)get_local_id(0), r = lid / CH, c = lid - r * CH;
  const uint dst = tile + (uint)(r * CH + (c ^ (r & 7))) * 16u;
  __global const T* p = src + base + (long)(r0 + r) * ld + c * 8;
  for (int i = 0; i < XD_FA_BN / step; ++i) {
    const int in = r0 + r + i * step < rows;
    xd_mmk_copy16(dst + (uint)(i * XD_FA_THREADS) * 16u, in ? p + (long)(i * step) * ld : src, in ? 16u : 0u);
  }
  xd_mmk_commit();
}

inline void xd_fa_wait2(void) { XD_ASM volatile("cp.async.wait_group 2;" : : : "memory"); }
inline void xd_fa_wait1(void) { XD_ASM volatile("cp.async.wait_group 1;" : : : "memory"); }
inline void xd_fa_wait0(void) { XD_ASM volatile("cp.async.wait_group 0;" : : : "memory"); }

// The kernel body for head dim D (64 or 128). Every loop over a register array runs to the
// array's constant size and breaks at D's bound, so it unrolls before inlining makes D a constant
// and the arrays stay in registers.
inline __attribute__((always_inline)) void xd_fa_body(__global T* out, __global const T* q, __global const T* k,
                                                      __global const T* v, const xd_fa_args A, __local uint4* sq,
                                                      __local uint4* sk, __local uint4* sv, const int D) {
  const int CH = D / 8, KD = D / 16, ND = D / 8;
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const long grp = (long)get_group_id(0);
  const long b = grp / A.q_blocks;
  const int L = (int)A.L, S = (int)A.S;  // the host takes no call within 128 rows of INT_MAX
  const int i0 = (int)(grp - b * A.q_blocks) * XD_FA_BM;
  const uint qs = xd_mmk_shared(sq), ks = xd_mmk_shared(sk), vs = xd_mmk_shared(sv);

  // This lane's ldmatrix addresses in Q's, K's and V's tiles. A tile row r's chunk c sits at
  // c ^ (r & 7), and every row a lane reads has r & 7 = lane & 7, so the chunks 8 apart differ by
  // a constant: four registers per tile (qx[c / 2 & 3], ...) and immediates for the rest, where
  // one address per (chunk, column) would hold dozens of registers across the loop.
  uint qx[4], kx[4], vx[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const int qr = warp * 16 + (lane & 15), qc = 2 * p + (lane >> 4);
    qx[p] = qs + (uint)(qr * CH + (qc ^ (lane & 7))) * 16u;
    const int kr = (lane & 7) + ((lane >> 4) << 3), kc = 2 * p + ((lane >> 3) & 1);
    kx[p] = ks + (uint)(kr * CH + (kc ^ (lane & 7))) * 16u;
    const int vr = (lane & 7) + (((lane >> 3) & 1) << 3), vc = 2 * p + (lane >> 4);
    vx[p] = vs + (uint)(vr * CH + (vc ^ (lane & 7))) * 16u;
  }

  // Q's tile in local memory. At D = 128 its fragments are read from there again for every key
  // tile: held in registers (32 more) they cost the third work-group per compute unit. At D = 64
  // (16 registers, and two groups' worth of registers to spare) they are read once, below.
  const int q_in_registers = D == 64;
  xd_fa_load(qs, q, A.q_off + b * A.q_sb, A.q_sl, i0, L, D);

  // Keys up to the block's last query (causal) or all of them.
  const int last = A.causal ? min(S, i0 + XD_FA_BM) : S;
  const int tiles = (last + XD_FA_BN - 1) / XD_FA_BN;
  const long kbase = A.k_off + b * A.k_sb, vbase = A.v_off + b * A.v_sb;
  xd_fa_load(ks, k, kbase, A.k_sl, 0, S, D);
  xd_fa_load(vs, v, vbase, A.v_sl, 0, S, D);
  uint qr[4][4];
  if (q_in_registers) {
    xd_fa_wait2();  // Q's tile (K's and V's may be in flight)
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) xd_mmk_ldsm(qr[kk], qx[kk]);
  }

  // Rows g and g + 8 of the warp's 16: running maximum (log2-scaled), sum, output.
  const int row_a = i0 + warp * 16 + g, row_b = row_a + 8;
  float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.0f, l_b = 0.0f;
  float4 o[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) o[j] = (float4)(0.0f);

  for (int tile = 0; tile < tiles; ++tile) {
    const int j0 = tile * XD_FA_BN;
    xd_fa_wait1();  // Q's and K's tiles (V's, issued after them, may still be in flight)
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 s[8];
#pragma unroll
    for (int n = 0; n < 8; ++n) s[n] = (float4)(0.0f);
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      if (kk >= KD) break;
      uint qa[4];  // a0..a3 of the k16 chunk kk for this warp's 16 rows
      if (q_in_registers) {
        qa[0] = qr[kk & 3][0];
        qa[1] = qr[kk & 3][1];
        qa[2] = qr[kk & 3][2];
        qa[3] = qr[kk & 3][3];
      } else {
        xd_mmk_ldsm(qa, qx[kk & 3] + (uint)((kk >> 2) * 8) * 16u);
      }
#pragma unroll
      for (int n = 0; n < 8; n += 2) {
        uint bk[4];
        xd_mmk_ldsm(bk, kx[kk & 3] + (uint)(n * 8 * CH + (kk >> 2) * 8) * 16u);
        s[n] = xd_fa_mma(s[n], qa[0], qa[1], qa[2], qa[3], bk[0], bk[1]);
        s[n + 1] = xd_fa_mma(s[n + 1], qa[0], qa[1], qa[2], qa[3], bk[2], bk[3]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with K's tile
    if (tile + 1 < tiles) {
      xd_fa_load(ks, k, kbase, A.k_sl, j0 + XD_FA_BN, S, D);
    } else {
      xd_mmk_commit();  // an empty group keeps wait_group 1 meaning "V's tile has landed"
    }

    // Scale, mask, and the online softmax (log2 domain). Only a tile that crosses the causal
    // diagonal or the end of the keys needs the per-element mask.
    float mx_a = -INFINITY, mx_b = -INFINITY;
    const int masked = j0 + XD_FA_BN > S || (A.causal && j0 + XD_FA_BN - 1 > i0 + warp * 16);
    if (masked) {
      const int lim_a = min(S - j0, A.causal ? row_a - j0 + 1 : XD_FA_BN);
      const int lim_b = min(S - j0, A.causal ? row_b - j0 + 1 : XD_FA_BN);
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        const int c0 = n * 8 + 2 * t, c1 = c0 + 1;
        s[n].s0 = c0 < lim_a ? s[n].s0 * A.scale_log2 : -INFINITY;
        s[n].s1 = c1 < lim_a ? s[n].s1 * A.scale_log2 : -INFINITY;
        s[n].s2 = c0 < lim_b ? s[n].s2 * A.scale_log2 : -INFINITY;
        s[n].s3 = c1 < lim_b ? s[n].s3 * A.scale_log2 : -INFINITY;
      }
    } else {
#pragma unroll
      for (int n = 0; n < 8; ++n) s[n] *= A.scale_log2;
    }
#pragma unroll
    for (int n = 0; n < 8; ++n) {
      mx_a = fmax(mx_a, fmax(s[n].s0, s[n].s1));
      mx_b = fmax(mx_b, fmax(s[n].s2, s[n].s3));
    }
    const float mn_a = fmax(m_a, xd_fa_row_max(mx_a)), mn_b = fmax(m_b, xd_fa_row_max(mx_b));
    // A row with no key yet (every key so far masked) keeps -inf: subtract 0 then, so masked
    // scores give exp2(-inf) = 0 rather than NaN.
    const float base_a = mn_a == -INFINITY ? 0.0f : mn_a, base_b = mn_b == -INFINITY ? 0.0f : mn_b;
    const float alpha_a = xd_fa_exp2(m_a - base_a), alpha_b = xd_fa_exp2(m_b - base_b);
    m_a = mn_a;
    m_b = mn_b;
    float sum_a = 0.0f, sum_b = 0.0f;
    uint pa[4][4];
#pragma unroll
    for (int n = 0; n < 8; ++n) {
      const float p0 = xd_fa_exp2(s[n].s0 - base_a), p1 = xd_fa_exp2(s[n].s1 - base_a);
      const float p2 = xd_fa_exp2(s[n].s2 - base_b), p3 = xd_fa_exp2(s[n].s3 - base_b);
      sum_a += p0 + p1;
      sum_b += p2 + p3;
      pa[n >> 1][(n & 1) * 2] = xd_fa_pack(p0, p1);
      pa[n >> 1][(n & 1) * 2 + 1] = xd_fa_pack(p2, p3);
    }
    l_a = l_a * alpha_a + xd_fa_row_sum(sum_a);
    l_b = l_b * alpha_b + xd_fa_row_sum(sum_b);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      o[j].s0 *= alpha_a;
      o[j].s1 *= alpha_a;
      o[j].s2 *= alpha_b;
      o[j].s3 *= alpha_b;
    }

    xd_fa_wait1();  // V's tile (the next K's may still be in flight)
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
      for (int j = 0; j < 16; j += 2) {
        if (j >= ND) break;
        uint bv[4];
        xd_mmk_ldsm_t(bv, vx[(j >> 1) & 3] + (uint)(kk * 16 * CH + (j >> 3) * 8) * 16u);
        o[j] = xd_fa_mma(o[j], pa[kk][0], pa[kk][1], pa[kk][2], pa[kk][3], bv[0], bv[1]);
        o[j + 1] = xd_fa_mma(o[j + 1], pa[kk][0], pa[kk][1], pa[kk][2], pa[kk][3], bv[2], bv[3]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with V's tile
    if (tile + 1 < tiles) {
      xd_fa_load(vs, v, vbase, A.v_sl, j0 + XD_FA_BN, S, D);
    } else {
      xd_mmk_commit();
    }
  }
  xd_fa_wait0();

  // out = o / l, rounded once; 0 / 0 (no key) is NaN, as the contract says.
  const long obase = A.o_off + b * A.o_sb;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    if (j >= ND) break;
    const int c = j * 8 + 2 * t;
    if (row_a < L) {
      XD_ST(out, obase + (long)row_a * A.o_sl + c, o[j].s0 / l_a);
      XD_ST(out, obase + (long)row_a * A.o_sl + c + 1, o[j].s1 / l_a);
    }
    if (row_b < L) {
      XD_ST(out, obase + (long)row_b * A.o_sl + c, o[j].s2 / l_b);
      XD_ST(out, obase + (long)row_b * A.o_sl + c + 1, o[j].s3 / l_b);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(XD_FA_THREADS, 1, 1))) void xd_attention_mma_d128(
    __global T* out, __global const T* q, __global const T* k, __global const T* v, const xd_fa_args A) {
  __local uint4 sq[XD_FA_BM * 16];
  __local uint4 sk[XD_FA_BN * 16];
  __local uint4 sv[XD_FA_BN * 16];
  xd_fa_body(out, q, k, v, A, sq, sk, sv, 128);
}

__kernel __attribute__((reqd_work_group_size(XD_FA_THREADS, 1, 1))) void xd_attention_mma_d64(
    __global T* out, __global const T* q, __global const T* k, __global const T* v, const xd_fa_args A) {
  __local uint4 sq[XD_FA_BM * 8];
  __local uint4 sk[XD_FA_BN * 8];
  __local uint4 sv[XD_FA_BN * 8];
  xd_fa_body(out, q, k, v, A, sq, sk, sv, 64);
}

#endif  // XD_FAK
#endif  // XD_NV_MMA
