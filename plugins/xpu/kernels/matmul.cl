// MM, ADDMM, BMM, BADDBMM as one batched problem (plugins/cpu/kernels/matmul*.cpp give the
// semantics): out[b] = alpha * (a[b] @ b[b]) + beta * input[b], input not read when beta == 0.
// Products accumulate in CT with fma (float for f32/f16/bf16, double for f64); the epilogue
// rounds once to T. Any strides: each tile loader reads along whichever axis of its operand is
// dense (vector loads there), so transposed operands cost no copy.
//
//   xd_gemm_tiled  XD_GT x XD_GT outputs per work-group of XD_GT x XD_GT work-items, one each:
//                  small, odd and skinny shapes.
//   xd_gemm_big    128 x 128 outputs per work-group of 256 work-items, each an 8 x 8 register
//                  tile (rows ty*4+i and 64+ty*4+i, columns tx*4+j and 64+tx*4+j, so that the
//                  local-memory reads are float4 and conflict free); K in steps of XD_BK staged
//                  in local memory, the next step's global loads issued before the current
//                  step's arithmetic.
//   xd_gemm_skinny_m1/4/8/16  at most 1/4/8/16 rows (decode shapes): B streamed once, K split over
//                  the work-group's work-items (below).
//   xd_gemm_big_dense  xd_gemm_big's tiles and arithmetic for operands dense along k (A) and n (B)
//                  whose offsets and row strides are multiples of 4 elements (xpu::plan_gemm
//                  checks), n and k multiples of 4: each loader's address is computed once and
//                  advanced by a pointer step, loads are aligned vectors with no tests. Rows past m
//                  and column groups past n read the last row / group (never stored); k's
//                  remainder is one masked step after the loop, not a branch inside it (tests and
//                  64-bit index arithmetic in the inner loop cost more than their instruction
//                  count; measured: docs/performance.md, "aligned fast paths for matmul and int4").

#if XD_FLOATING

typedef struct {
  long m, n, k, batch;
  long a_off, a_b, a_m, a_k;
  long b_off, b_b, b_k, b_n;
  long c_off, c_b, c_m, c_n;
  long i_off, i_b, i_m, i_n;
  long has_input;  // beta != 0
  long alpha_d, beta_d;  // double bits
  float alpha_f, beta_f;
} xd_gemm;

#if XD_CLASS == 2
#define XD_ALPHA(G) as_double((G).alpha_d)
#define XD_BETA(G) as_double((G).beta_d)
#else
#define XD_ALPHA(G) ((G).alpha_f)
#define XD_BETA(G) ((G).beta_f)
#endif

// alpha * acc (+ beta * input) for output (i, j) in the batch `bt`, in the compute type: the
// epilogue's value before its one rounding.
inline CT xd_gemm_value(__global const T* in, const xd_gemm G, long bt, long i, long j, CT acc) {
  CT v = XD_ALPHA(G) * acc;
  if (G.has_input) v += XD_BETA(G) * XD_LD(in, G.i_off + bt * G.i_b + i * G.i_m + j * G.i_n);
  return v;
}

// out = alpha * acc (+ beta * input), rounded once; (i, j) in the batch `bt`.
inline void xd_gemm_store(__global T* c, __global const T* in, const xd_gemm G, long bt, long i, long j, CT acc) {
  XD_ST(c, G.c_off + bt * G.c_b + i * G.c_m + j * G.c_n, xd_gemm_value(in, G, bt, i, j, acc));
}

// matmul_dpas.cl's programs take the argument struct and the epilogue above, not the kernels below
// (xpu::program_defines: -DXD_GEMM_EPILOGUE_ONLY).
#ifndef XD_GEMM_EPILOGUE_ONLY

// ---------------------------------------------------------------- tiled (small shapes)
#if XD_WG >= 256
#define XD_GT 16
#elif XD_WG >= 64
#define XD_GT 8
#else
#define XD_GT 4
#endif

__kernel __attribute__((reqd_work_group_size(XD_GT, XD_GT, 1))) void xd_gemm_tiled(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local CT As[XD_GT][XD_GT + 1];
  __local CT Bs[XD_GT][XD_GT + 1];
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const long j = (long)get_global_id(0);
  const long i = row0 + (long)get_global_id(1);
  const long bt = batch0 + (long)get_global_id(2);
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  const long i_tile = row0 + (long)get_group_id(1) * XD_GT, j_tile = (long)get_group_id(0) * XD_GT;
  CT acc = (CT)0;
  for (long k0 = 0; k0 < G.k; k0 += XD_GT) {
    // As[r][kk] = a[i_tile + r, k0 + kk]; work-item (tx, ty) loads r = ty, kk = tx.
    const long ar = i_tile + ty, ak = k0 + tx;
    As[ty][tx] = (ar < G.m && ak < G.k) ? XD_LD(a, abase + ar * G.a_m + ak * G.a_k) : (CT)0;
    const long bk = k0 + ty, bc = j_tile + tx;
    Bs[ty][tx] = (bk < G.k && bc < G.n) ? XD_LD(b, bbase + bk * G.b_k + bc * G.b_n) : (CT)0;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < XD_GT; ++kk) acc = fma(As[ty][kk], Bs[kk][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < G.m && j < G.n) xd_gemm_store(c, in, G, bt, i, j, acc);
}

// Four consecutive elements along an operand's dense axis (stride s) starting at (r, kk) of a
// rows x cols matrix (bounds: the 4 along that axis), zero outside.
inline CT4 xd_tile4(__global const T* p, long base, long r, long kk, long rs, long ks, long rows, long cols, int along_k) {
  if (along_k) {
    if (r < rows && kk + 3 < cols) return xd_load4(p, base + r * rs + kk * ks, ks);
    CT4 v = (CT4)((CT)0);
    if (r < rows) {
      if (kk < cols) v.s0 = XD_LD(p, base + r * rs + kk * ks);
      if (kk + 1 < cols) v.s1 = XD_LD(p, base + r * rs + (kk + 1) * ks);
      if (kk + 2 < cols) v.s2 = XD_LD(p, base + r * rs + (kk + 2) * ks);
    }
    return v;
  }
  if (kk < cols && r + 3 < rows) return xd_load4(p, base + r * rs + kk * ks, rs);
  CT4 v = (CT4)((CT)0);
  if (kk < cols) {
    if (r < rows) v.s0 = XD_LD(p, base + r * rs + kk * ks);
    if (r + 1 < rows) v.s1 = XD_LD(p, base + (r + 1) * rs + kk * ks);
    if (r + 2 < rows) v.s2 = XD_LD(p, base + (r + 2) * rs + kk * ks);
  }
  return v;
}

// ---------------------------------------------------------------- register-tiled (large shapes)
#if XD_WG >= 256
#if XD_CLASS == 2
#define XD_BK 8
#else
#define XD_BK 16
#endif
#define XD_LPT (XD_BK / 8)  // float4 loads per work-item per operand and K step

// One K step's arithmetic on the staged tiles: rows ty*4+i and 64+ty*4+i, columns tx*4+j and
// 64+tx*4+j (a macro so that acc stays in registers in both kernels).
#define XD_GEMM_BIG_STEP()                                                             \
  _Pragma("unroll") for (int kk = 0; kk < XD_BK; ++kk) {                               \
    const CT4 a0 = As4[kk][ty], a1 = As4[kk][16 + ty];                                 \
    const CT4 b0 = Bs4[kk][tx], b1 = Bs4[kk][16 + tx];                                 \
    const CT av[8] = {a0.s0, a0.s1, a0.s2, a0.s3, a1.s0, a1.s1, a1.s2, a1.s3};         \
    const CT bv[8] = {b0.s0, b0.s1, b0.s2, b0.s3, b1.s0, b1.s1, b1.s2, b1.s3};         \
    _Pragma("unroll") for (int i = 0; i < 8; ++i) {                                    \
      _Pragma("unroll") for (int j = 0; j < 8; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]); \
    }                                                                                  \
  }

// The epilogue of both register-tiled kernels: work-item (tx, ty)'s 8 x 8 outputs of the tile
// at (m0, n0), clipped to m x n.
inline void xd_gemm_big_store(__global T* c, __global const T* in, const xd_gemm G, long bt, long m0, long n0, int tx,
                              int ty, CT acc[8][8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const long r = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (r >= G.m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long c0 = n0 + h * 64 + tx * 4;
      if (!G.has_input && G.c_n == 1 && c0 + 3 < G.n) {
        const CT al = XD_ALPHA(G);
        xd_store4(c, G.c_off + bt * G.c_b + r * G.c_m + c0, 1,
                  (CT4)(al * acc[i][h * 4], al * acc[i][h * 4 + 1], al * acc[i][h * 4 + 2], al * acc[i][h * 4 + 3]));
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (c0 + j < G.n) xd_gemm_store(c, in, G, bt, r, c0 + j, acc[i][h * 4 + j]);
      }
    }
  }
}

__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void xd_gemm_big(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  // Declared as vectors so that the inner loop's reads are single wide local loads. A's tile is
  // stored transposed, scalar by scalar: a row of 33 vectors (132 scalars) spreads those stores
  // over banks.
  __local CT4 As4[XD_BK][33];
  __local CT4 Bs4[XD_BK][32];
  __local CT* As = (__local CT*)As4;  // As[kk * 132 + row]
  __local CT* Bs = (__local CT*)Bs4;  // Bs[kk * 128 + col]
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const int t = ty * 16 + tx;
  const long bt = batch0 + (long)get_global_id(2);
  const long m0 = row0 + (long)get_group_id(1) * 128, n0 = (long)get_group_id(0) * 128;
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  // A's dense axis: k unless A is column-major; B's: n unless B is column-major.
  const int a_along_k = G.a_m != 1 || G.a_k == 1;
  const int b_along_n = G.b_k != 1 || G.b_n == 1;

  CT4 ra[XD_LPT], rb[XD_LPT];
  // Global -> registers for the K step starting at k0.
#define XD_FETCH(k0)                                                                                    \
  _Pragma("unroll") for (int l = 0; l < XD_LPT; ++l) {                                                  \
    const int e = t + 256 * l;                                                                          \
    if (a_along_k)                                                                                      \
      ra[l] = xd_tile4(a, abase, m0 + e / (XD_BK / 4), (k0) + (e % (XD_BK / 4)) * 4, G.a_m, G.a_k, G.m, G.k, 1); \
    else                                                                                                \
      ra[l] = xd_tile4(a, abase, m0 + (e % 32) * 4, (k0) + e / 32, G.a_m, G.a_k, G.m, G.k, 0);          \
    if (b_along_n)                                                                                      \
      rb[l] = xd_tile4(b, bbase, n0 + (e % 32) * 4, (k0) + e / 32, G.b_n, G.b_k, G.n, G.k, 0);          \
    else                                                                                                \
      rb[l] = xd_tile4(b, bbase, n0 + e / (XD_BK / 4), (k0) + (e % (XD_BK / 4)) * 4, G.b_n, G.b_k, G.n, G.k, 1); \
  }

  CT acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = (CT)0;

  XD_FETCH(0)
  for (long k0 = 0; k0 < G.k; k0 += XD_BK) {
    // Registers -> local memory: As[kk][row], Bs[kk][col].
#pragma unroll
    for (int l = 0; l < XD_LPT; ++l) {
      const int e = t + 256 * l;
      if (a_along_k) {
        const int r = e / (XD_BK / 4), kq = (e % (XD_BK / 4)) * 4;
        As[kq * 132 + r] = ra[l].s0;
        As[(kq + 1) * 132 + r] = ra[l].s1;
        As[(kq + 2) * 132 + r] = ra[l].s2;
        As[(kq + 3) * 132 + r] = ra[l].s3;
      } else {
        As4[e / 32][e % 32] = ra[l];
      }
      if (b_along_n) {
        Bs4[e / 32][e % 32] = rb[l];
      } else {
        const int col = e / (XD_BK / 4), kq = (e % (XD_BK / 4)) * 4;
        Bs[kq * 128 + col] = rb[l].s0;
        Bs[(kq + 1) * 128 + col] = rb[l].s1;
        Bs[(kq + 2) * 128 + col] = rb[l].s2;
        Bs[(kq + 3) * 128 + col] = rb[l].s3;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k0 + XD_BK < G.k) {
      XD_FETCH(k0 + XD_BK)
    }
    XD_GEMM_BIG_STEP()
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#undef XD_FETCH

  xd_gemm_big_store(c, in, G, bt, m0, n0, tx, ty, acc);
}
__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void xd_gemm_big_dense(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local CT4 As4[XD_BK][33];
  __local CT4 Bs4[XD_BK][32];
  __local CT* As = (__local CT*)As4;  // As[kk * 132 + row]
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const int t = ty * 16 + tx;
  const long bt = batch0 + (long)get_global_id(2);
  const long m0 = row0 + (long)get_group_id(1) * 128, n0 = (long)get_group_id(0) * 128;
  // Loader l of this work-item: A's row ar, k offset akq (4 along k); B's k row bk, columns bc..bc+3.
  __global const T* pa[XD_LPT];
  __global const T* pb[XD_LPT];
  int ar[XD_LPT], akq[XD_LPT], bk[XD_LPT], bc[XD_LPT];
#pragma unroll
  for (int l = 0; l < XD_LPT; ++l) {
    const int e = t + 256 * l;
    ar[l] = e / (XD_BK / 4);
    akq[l] = (e % (XD_BK / 4)) * 4;
    bk[l] = e / 32;
    bc[l] = (e % 32) * 4;
    pa[l] = a + G.a_off + bt * G.a_b + min(m0 + ar[l], G.m - 1) * G.a_m + akq[l];
    pb[l] = b + G.b_off + bt * G.b_b + bk[l] * G.b_k + min(n0 + bc[l], G.n - 4);
  }
  const long b_step = XD_BK * G.b_k;
  const long steps = G.k / XD_BK;
  const int rest = (int)(G.k % XD_BK);  // a multiple of 4
  CT4 ra[XD_LPT], rb[XD_LPT];
  // Global -> registers for the next K step (`tail`: the masked remainder step).
#define XD_FETCH(tail)                                                \
  _Pragma("unroll") for (int l = 0; l < XD_LPT; ++l) {                \
    ra[l] = !(tail) || akq[l] < rest ? xd_vec4(pa[l]) : (CT4)((CT)0); \
    rb[l] = !(tail) || bk[l] < rest ? xd_vec4(pb[l]) : (CT4)((CT)0);  \
    pa[l] += XD_BK;                                                   \
    pb[l] += b_step;                                                  \
  }

  CT acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = (CT)0;

  // Registers -> local memory: As[kk][row], Bs[kk][col].
#define XD_STAGE()                                     \
  _Pragma("unroll") for (int l = 0; l < XD_LPT; ++l) { \
    As[akq[l] * 132 + ar[l]] = ra[l].s0;               \
    As[(akq[l] + 1) * 132 + ar[l]] = ra[l].s1;         \
    As[(akq[l] + 2) * 132 + ar[l]] = ra[l].s2;         \
    As[(akq[l] + 3) * 132 + ar[l]] = ra[l].s3;         \
    Bs4[bk[l]][bc[l] / 4] = rb[l];                     \
  }
  if (steps > 0) {
    XD_FETCH(0)
  }
  for (long s = 0; s < steps; ++s) {
    XD_STAGE()
    barrier(CLK_LOCAL_MEM_FENCE);
    if (s + 1 < steps) {
      XD_FETCH(0)
    }
    XD_GEMM_BIG_STEP()
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (rest > 0) {  // k's last rest (< XD_BK) columns, the step's others zero
    XD_FETCH(1)
    XD_STAGE()
    barrier(CLK_LOCAL_MEM_FENCE);
    XD_GEMM_BIG_STEP()
  }
#undef XD_STAGE
#undef XD_FETCH
  xd_gemm_big_store(c, in, G, bt, m0, n0, tx, ty, acc);
}
#endif

// ---------------------------------------------------------------- skinny (decode shapes)
// M <= MR rows (1, 4, 8 or 16): the product streams B once and is bound by its bytes. A
// work-group takes 4 * XD_SQ columns over all of K: work-item (cq, ks) takes columns n0 .. n0 + 3
// and the k-chunks of 4 at ks, ks + XD_SK, ..., accumulating every row; the XD_SK partial sums of
// a column meet in local memory and are added in ks order. The lanes of a warp walk B's dense
// axis: n (consecutive cq) when B is k x n, k (consecutive ks) when B is stored n x k, so that
// each load instruction reads whole lines. A's rows (small) are read along with B (cached).
#if XD_WG >= 64
#define XD_SQ 8
#define XD_SK (XD_WG / XD_SQ)
#ifndef XD_SU
#define XD_SU 1  // chunks of B per work-item between two barriers (MR > 1)
#endif
#ifndef XD_S1U
#define XD_S1U 2  // chunks of B per work-item loaded together (MR == 1)
#endif

// B[k .. k+3][n0 .. n0+3] as four CT4 rows over the columns (zero past n and past k).
inline void xd_skinny_b(__global const T* b, long bbase, const xd_gemm G, long k, long n0, int along_k, CT4* br) {
  if (along_k) {
    CT4 col[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) col[j] = xd_tile4(b, bbase, n0 + j, k, G.b_n, G.b_k, G.n, G.k, 1);
    br[0] = (CT4)(col[0].s0, col[1].s0, col[2].s0, col[3].s0);
    br[1] = (CT4)(col[0].s1, col[1].s1, col[2].s1, col[3].s1);
    br[2] = (CT4)(col[0].s2, col[1].s2, col[2].s2, col[3].s2);
    br[3] = (CT4)(col[0].s3, col[1].s3, col[2].s3, col[3].s3);
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) br[i] = xd_tile4(b, bbase, n0, k + i, G.b_n, G.b_k, G.n, G.k, 0);
}

// A[r][k .. k+3] (zero past k, and past M: rows the work-group stages but has not).
inline CT4 xd_skinny_a(__global const T* a, long abase, const xd_gemm G, long r, long k) {
  return xd_tile4(a, abase, r, k, G.a_m, G.a_k, G.m, G.k, 1);
}

// Four undecoded elements at an address aligned for them, and their values.
#define XD_T4 XD_CAT(T, 4)
inline XD_T4 xd_raw4(__global const T* p) { return *(__global const XD_T4*)p; }
inline CT4 xd_dec4(const XD_T4 v) { return (CT4)(XD_DEC(v.s0), XD_DEC(v.s1), XD_DEC(v.s2), XD_DEC(v.s3)); }

// B[k .. k+3][n .. n+3] of a whole chunk (k + 3 < K) as four CT4 rows over the columns, by plain
// vector loads with no test (the caller checked alignment and clamped n inside B): AK, B dense
// along k (four columns of 4 k each), else along n (four rows of 4 columns). Loads first, then
// the decoding, so that the loads of a chunk are in flight together.
inline void xd_skinny_b_vec(__global const T* b, long bbase, const xd_gemm G, long k, long n, long n_last, const int AK,
                            CT4* br) {
  XD_T4 r[4];
  if (AK) {
#pragma unroll
    for (int j = 0; j < 4; ++j) r[j] = xd_raw4(b + bbase + min(n + j, n_last) * G.b_n + k);
    const CT4 c0 = xd_dec4(r[0]), c1 = xd_dec4(r[1]), c2 = xd_dec4(r[2]), c3 = xd_dec4(r[3]);
    br[0] = (CT4)(c0.s0, c1.s0, c2.s0, c3.s0);
    br[1] = (CT4)(c0.s1, c1.s1, c2.s1, c3.s1);
    br[2] = (CT4)(c0.s2, c1.s2, c2.s2, c3.s2);
    br[3] = (CT4)(c0.s3, c1.s3, c2.s3, c3.s3);
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) r[i] = xd_raw4(b + bbase + (k + i) * G.b_k + min(n, n_last));
#pragma unroll
    for (int i = 0; i < 4; ++i) br[i] = xd_dec4(r[i]);
  }
}

// One row (M = 1), the whole chunks from kc on while XD_S1U of them fit, by vector loads (A dense
// along k, B as xd_skinny_b_vec takes it): the next chunk index.
inline long xd_skinny1_vec(__global const T* a, __global const T* b, long abase, long bbase, const xd_gemm G, long n0,
                           long n_last, long kc, long full, const int AK, CT4* acc) {
  for (; kc + (XD_S1U - 1) * XD_SK < full; kc += XD_S1U * XD_SK) {
    XD_T4 ra[XD_S1U];
    CT4 br[XD_S1U][4];
#pragma unroll
    for (int u = 0; u < XD_S1U; ++u) {
      const long k = (kc + u * XD_SK) * 4;
      ra[u] = xd_raw4(a + abase + k);
      xd_skinny_b_vec(b, bbase, G, k, n0, n_last, AK, br[u]);
    }
#pragma unroll
    for (int u = 0; u < XD_S1U; ++u) {
      const CT4 av = xd_dec4(ra[u]);
      acc[0] = fma((CT4)(av.s0), br[u][0], acc[0]);
      acc[0] = fma((CT4)(av.s1), br[u][1], acc[0]);
      acc[0] = fma((CT4)(av.s2), br[u][2], acc[0]);
      acc[0] = fma((CT4)(av.s3), br[u][3], acc[0]);
    }
  }
  return kc;
}

// red: XD_WG partial sums; al: MR * XD_SU * XD_SK chunks of A (MR > 1).
inline void xd_gemm_skinny(__global T* c, __global const T* a, __global const T* b, __global const T* in,
                           const xd_gemm G, long batch0, __local CT4* red, __local CT4* al, const int MR) {
  const int lid = (int)get_local_id(0);
  const int along_k = G.b_k == 1 && G.b_n != 1;
  const int cq = along_k ? lid / XD_SK : lid % XD_SQ;
  const int ks = along_k ? lid % XD_SK : lid / XD_SQ;
  const long n0 = (long)get_group_id(0) * (4 * XD_SQ) + 4 * cq;
  const long bt = batch0 + (long)get_group_id(2);
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  const long rows = G.m;  // <= MR (xpu::plan_gemm)
  CT4 acc[16];  // rows past MR are never touched (MR is a constant once inlined)
#pragma unroll
  for (int r = 0; r < MR; ++r) acc[r] = (CT4)((CT)0);
  const long chunks = (G.k + 3) / 4, full = G.k / 4;
  // Whole chunks of B by plain vector loads (xd_skinny_b_vec) where every such load is aligned:
  // B dense along k with a column stride, or dense along n with a row stride and N, multiples of
  // 4 elements (offsets too). Columns past N then read column N - 1 (or the last quad) and are
  // never stored. The test is uniform over the grid.
  const int vec_b = along_k ? (G.b_n % 4 == 0 && bbase % 4 == 0)
                            : (G.b_n == 1 && G.b_k % 4 == 0 && G.n % 4 == 0 && bbase % 4 == 0);
  const long n_last = along_k ? G.n - 1 : G.n - 4;
  if (MR == 1) {
    long kc = ks;
    if (vec_b && G.a_k == 1 && abase % 4 == 0) {
      if (along_k)
        kc = xd_skinny1_vec(a, b, abase, bbase, G, n0, n_last, kc, full, 1, acc);
      else
        kc = xd_skinny1_vec(a, b, abase, bbase, G, n0, n_last, kc, full, 0, acc);
    }
    // The rest in the same order: every chunk where the loads must be tested, else the last
    // chunks of fewer than XD_S1U and a partial one.
    for (; kc < chunks; kc += XD_SK) {
      const long k = kc * 4;
      CT4 br[4];
      xd_skinny_b(b, bbase, G, k, n0, along_k, br);
      const CT4 av = xd_skinny_a(a, abase, G, 0, k);
      acc[0] = fma((CT4)(av.s0), br[0], acc[0]);
      acc[0] = fma((CT4)(av.s1), br[1], acc[0]);
      acc[0] = fma((CT4)(av.s2), br[2], acc[0]);
      acc[0] = fma((CT4)(av.s3), br[3], acc[0]);
    }
  } else {
    // Several rows: a block of XD_SU * XD_SK chunks of A's rows is staged in local memory once per
    // work-group (each A value then read from global memory once per work-group, not once per
    // column quad). Each work-item's XD_SU chunks of B are loaded first, so that their latency
    // passes while A's block is staged.
    for (long kb = 0; kb < chunks; kb += XD_SU * XD_SK) {
      CT4 br[XD_SU][4];
      if (vec_b && kb + XD_SU * XD_SK <= full) {  // uniform over the work-group
#pragma unroll
        for (int u = 0; u < XD_SU; ++u) {
          if (along_k)
            xd_skinny_b_vec(b, bbase, G, (kb + u * XD_SK + ks) * 4, n0, n_last, 1, br[u]);
          else
            xd_skinny_b_vec(b, bbase, G, (kb + u * XD_SK + ks) * 4, n0, n_last, 0, br[u]);
        }
      } else {
#pragma unroll
        for (int u = 0; u < XD_SU; ++u) xd_skinny_b(b, bbase, G, (kb + u * XD_SK + ks) * 4, n0, along_k, br[u]);
      }
      for (int e = lid; e < MR * XD_SU * XD_SK; e += XD_WG) {
        const int r = e / (XD_SU * XD_SK), j = e - r * (XD_SU * XD_SK);
        al[e] = xd_skinny_a(a, abase, G, r, (kb + j) * 4);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
      for (int u = 0; u < XD_SU; ++u) {
#pragma unroll
        for (int r = 0; r < MR; ++r) {
          const CT4 av = al[r * (XD_SU * XD_SK) + u * XD_SK + ks];
          acc[r] = fma((CT4)(av.s0), br[u][0], acc[r]);
          acc[r] = fma((CT4)(av.s1), br[u][1], acc[r]);
          acc[r] = fma((CT4)(av.s2), br[u][2], acc[r]);
          acc[r] = fma((CT4)(av.s3), br[u][3], acc[r]);
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
#pragma unroll
  for (int r = 0; r < MR; ++r) {
    if (r < rows) {  // uniform over the work-group
      red[lid] = acc[r];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (ks == 0) {
        CT4 s = (CT4)((CT)0);
        for (int j = 0; j < XD_SK; ++j) s += red[along_k ? cq * XD_SK + j : j * XD_SQ + cq];
        if (n0 < G.n) xd_gemm_store(c, in, G, bt, r, n0, s.s0);
        if (n0 + 1 < G.n) xd_gemm_store(c, in, G, bt, r, n0 + 1, s.s1);
        if (n0 + 2 < G.n) xd_gemm_store(c, in, G, bt, r, n0 + 2, s.s2);
        if (n0 + 3 < G.n) xd_gemm_store(c, in, G, bt, r, n0 + 3, s.s3);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

#define XD_GEMM_SKINNY(MR)                                                                                           \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_gemm_skinny_m##MR(                            \
      __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,     \
      long batch0) {                                                                                                 \
    (void)row0;                                                                                                      \
    __local CT4 red[XD_WG];                                                                                          \
    __local CT4 al[MR > 1 ? MR * XD_SU * XD_SK : 1];                                                                 \
    xd_gemm_skinny(c, a, b, in, G, batch0, red, al, MR);                                                             \
  }
XD_GEMM_SKINNY(1)
XD_GEMM_SKINNY(4)
XD_GEMM_SKINNY(8)
XD_GEMM_SKINNY(16)
#endif

#endif  // XD_GEMM_EPILOGUE_ONLY
#endif
