// SCALED_DOT_PRODUCT_ATTENTION for f16 and bf16 on NVIDIA tensor cores (inline PTX), the
// FlashAttention-2 scheme. Appended by the OpenCL plugin to attention.cl's program after
// mma_common.cl; the Level Zero plugin never compiles it, and without XD_NV_MMA, or for another
// dtype, it is empty. The host (common/attention.cpp) takes it for head dims of 64 or 128
// (E == Ev), no attn_mask, S > 0, and views whose last dim is dense and whose other strides and
// offsets are multiples of 8 elements (every 16-byte copy aligned); every other call takes
// attention.cl's portable kernel.
//
// One work-group of 4 warps per (batch, 64 queries); each warp owns 16 query rows. Q's fragments
// are loaded once (through local memory and ldmatrix) and stay in registers. The keys are walked
// in tiles of 64: K's and V's tiles (16 KiB each at D = 128) are copied into local memory by
// cp.async, V's copy overlapping S = Q K^T and the next K's copy overlapping the softmax and
// P V. S (16 x 64 per warp, f32) stays in the mma accumulators; the online softmax rescales the
// running output when a row's maximum grows, and P, rounded to the dtype, is fed straight back as
// the A operand of P V (the accumulator layout of m16n8 is the operand layout of m16k16, two
// tiles per k16). Causal: tiles past the block's last query are never loaded; inside, keys
// j > i score -inf.
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
// at or past `rows` are zero-filled.
inline void xd_fa_load(uint tile, __global const T* src, long base, long ld, long r0, long rows, const int D) {
  const int CH = D / 8;
  const int lid = (int)get_local_id(0);
  for (int i = lid; i < XD_FA_BN * CH; i += XD_FA_THREADS) {
    const int r = i / CH, c = i - r * CH;
    const int in = r0 + r < rows;
    xd_mmk_copy16(tile + (uint)(r * CH + (c ^ (r & 7))) * 16u, in ? src + base + (r0 + r) * ld + c * 8 : src,
                  in ? 16u : 0u);
  }
  xd_mmk_commit();
}

inline void xd_fa_wait1(void) { XD_ASM volatile("cp.async.wait_group 1;" : : : "memory"); }
inline void xd_fa_wait0(void) { XD_ASM volatile("cp.async.wait_group 0;" : : : "memory"); }

// The kernel body for head dim D (64 or 128). Every loop over a register array runs to the
// array's constant size and breaks at D's bound, so it unrolls before inlining makes D a constant
// and the arrays stay in registers.
inline __attribute__((always_inline)) void xd_fa_body(__global T* out, __global const T* q, __global const T* k, __global const T* v,
                       const xd_fa_args A, __local uint4* sk, __local uint4* sv, const int D) {
  const int CH = D / 8, KD = D / 16, ND = D / 8;
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const long grp = (long)get_group_id(0);
  const long b = grp / A.q_blocks;
  const long i0 = (grp - b * A.q_blocks) * XD_FA_BM;
  const uint ks = xd_mmk_shared(sk), vs = xd_mmk_shared(sv);

  // Q's tile through V's buffer, then its fragments into registers: qa[kk] holds a0..a3 of the
  // k16 chunk kk for this warp's 16 rows.
  xd_fa_load(vs, q, A.q_off + b * A.q_sb, A.q_sl, i0, A.L, D);
  xd_fa_wait0();
  barrier(CLK_LOCAL_MEM_FENCE);
  uint qa[8][4];
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    if (kk >= KD) break;
    const int r = warp * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
    xd_mmk_ldsm(qa[kk], vs + (uint)(r * CH + (c ^ (r & 7))) * 16u);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Keys up to the block's last query (causal) or all of them.
  const long last = A.causal ? min(A.S, i0 + XD_FA_BM) : A.S;
  const long tiles = (last + XD_FA_BN - 1) / XD_FA_BN;
  const long kbase = A.k_off + b * A.k_sb, vbase = A.v_off + b * A.v_sb;
  xd_fa_load(ks, k, kbase, A.k_sl, 0, A.S, D);
  xd_fa_load(vs, v, vbase, A.v_sl, 0, A.S, D);

  // Rows g and g + 8 of the warp's 16: running maximum (log2-scaled), sum, output.
  const long row_a = i0 + warp * 16 + g, row_b = row_a + 8;
  float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.0f, l_b = 0.0f;
  float4 o[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) o[j] = (float4)(0.0f);

  for (long tile = 0; tile < tiles; ++tile) {
    const long j0 = tile * XD_FA_BN;
    xd_fa_wait1();  // K's tile (V's, issued after it, may still be in flight)
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 s[8];
#pragma unroll
    for (int n = 0; n < 8; ++n) s[n] = (float4)(0.0f);
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      if (kk >= KD) break;
#pragma unroll
      for (int n = 0; n < 8; n += 2) {
        uint bk[4];
        const int r = n * 8 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
        xd_mmk_ldsm(bk, ks + (uint)(r * CH + (c ^ (r & 7))) * 16u);
        s[n] = xd_fa_mma(s[n], qa[kk][0], qa[kk][1], qa[kk][2], qa[kk][3], bk[0], bk[1]);
        s[n + 1] = xd_fa_mma(s[n + 1], qa[kk][0], qa[kk][1], qa[kk][2], qa[kk][3], bk[2], bk[3]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with K's tile
    if (tile + 1 < tiles) {
      xd_fa_load(ks, k, kbase, A.k_sl, j0 + XD_FA_BN, A.S, D);
    } else {
      xd_mmk_commit();  // an empty group keeps wait_group 1 meaning "V's tile has landed"
    }

    // Scale, mask, and the online softmax (log2 domain). Only a tile that crosses the causal
    // diagonal or the end of the keys needs the per-element mask.
    float mx_a = -INFINITY, mx_b = -INFINITY;
    const int masked = j0 + XD_FA_BN > A.S || (A.causal && j0 + XD_FA_BN - 1 > i0 + warp * 16);
    if (masked) {
      const int lim_a = (int)min(A.S - j0, A.causal ? row_a - j0 + 1 : (long)XD_FA_BN);
      const int lim_b = (int)min(A.S - j0, A.causal ? row_b - j0 + 1 : (long)XD_FA_BN);
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
        const int r = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), c = j + (lane >> 4);
        xd_mmk_ldsm_t(bv, vs + (uint)(r * CH + (c ^ (r & 7))) * 16u);
        o[j] = xd_fa_mma(o[j], pa[kk][0], pa[kk][1], pa[kk][2], pa[kk][3], bv[0], bv[1]);
        o[j + 1] = xd_fa_mma(o[j + 1], pa[kk][0], pa[kk][1], pa[kk][2], pa[kk][3], bv[2], bv[3]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with V's tile
    if (tile + 1 < tiles) {
      xd_fa_load(vs, v, vbase, A.v_sl, j0 + XD_FA_BN, A.S, D);
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
    if (row_a < A.L) {
      XD_ST(out, obase + row_a * A.o_sl + c, o[j].s0 / l_a);
      XD_ST(out, obase + row_a * A.o_sl + c + 1, o[j].s1 / l_a);
    }
    if (row_b < A.L) {
      XD_ST(out, obase + row_b * A.o_sl + c, o[j].s2 / l_b);
      XD_ST(out, obase + row_b * A.o_sl + c + 1, o[j].s3 / l_b);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(XD_FA_THREADS, 1, 1))) void xd_attention_mma_d128(
    __global T* out, __global const T* q, __global const T* k, __global const T* v, const xd_fa_args A) {
  __local uint4 sk[XD_FA_BN * 16];
  __local uint4 sv[XD_FA_BN * 16];
  xd_fa_body(out, q, k, v, A, sk, sv, 128);
}

__kernel __attribute__((reqd_work_group_size(XD_FA_THREADS, 1, 1))) void xd_attention_mma_d64(
    __global T* out, __global const T* q, __global const T* k, __global const T* v, const xd_fa_args A) {
  __local uint4 sk[XD_FA_BN * 8];
  __local uint4 sv[XD_FA_BN * 8];
  xd_fa_body(out, q, k, v, A, sk, sv, 64);
}

#endif  // XD_FAK
#endif  // XD_NV_MMA
