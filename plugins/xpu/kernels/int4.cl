// WEIGHT_INT4_MM and QUANTIZE_INT4 (plugins/cpu/kernels/int4.cpp gives the semantics, docs/ops/int4.md
// the layout). T is the input's dtype (f32, f16, bf16); the weight is u8 [N, K/2], two int4 per
// byte (even k in the low nibble), scales T [K/g, N], zero points i8 [K/g, N]. Every operand is
// dense row-major (the host copies others first); offsets arrive in elements (bytes for u8/i8).
//
//   xd_int4_gemv_m<MB>  M <= MB (1, 2, 4, 8, 16): the decode case, bound by reading the weights.
//                       A work-group of XD_WG work-items owns XD_I4_COLS output columns, with
//                       XD_I4_LANES work-items per column splitting K into 32-element chunks: a
//                       chunk is one 16-byte load of the column's weight row, so a column's lanes
//                       read consecutive 16-byte pieces (coalesced), and a 32-chunk never straddles
//                       a group (g is a multiple of 32): one scale and zero point per chunk. The
//                       chunk's 32 values are dequantized in registers (q - zero, exact, through
//                       the 2^23 float trick), dotted with each of the MB input rows and scaled
//                       once. Input rows are staged per K tile in local memory (shared by every
//                       column), padded so that the lanes' float4 reads do not collide in banks;
//                       each column's weight load is issued before the staging, overlapping it.
//                       The lanes' partial sums meet in local memory at the end.
//   xd_int4_mm_tiled    larger M: XD_I4_T x XD_I4_T output tiles; the weight tile is dequantized
//                       into local memory once and used by every row of the tile.
//   xd_quantize_int4    a work-item per (group, row): min/max, scale, zero point and codes with
//                       the reference's exact rounding (round_quotient below), bit for bit.

#if XD_CLASS == 1

// Field for field as xpu::int4_args (plugins/xpu/common/xpu_int4.hpp). For quantize_int4 `x` is
// the float weight [N, K] and `w` the packed output.
typedef struct {
  long m, n, k, group;
  long x_off, w_off, s_off, z_off, o_off;
} xd_int4;

#if XD_WG >= 16
#define XD_I4_LANES 16
#else
#define XD_I4_LANES XD_WG
#endif
#define XD_I4_COLS (XD_WG / XD_I4_LANES)
#define XD_I4_KT (XD_I4_LANES * 32)  // k per staged tile
#define XD_I4_PAD 36                 // floats per staged 32-chunk: lanes' float4 reads hit distinct banks

// 2^23 as float bits: OR-ing a nibble into the mantissa gives 2^23 + q exactly.
#define XD_I4_MAGIC 0x4B000000u

inline uint4 xd_i4_load16(__global const uchar* p, long o) {
  __global const uchar* a = p + o;
  return (((ulong)a) & 15) == 0 ? *(__global const uint4*)a : as_uint4(vload16(0, a));
}

// Eight codes of one little-endian word, minus the zero point: out[i] = q(k0 + i) - zero.
inline void xd_i4_word(uint v, float zb, float* out) {
#pragma unroll
  for (int i = 0; i < 8; ++i) out[i] = as_float(XD_I4_MAGIC | ((v >> (4 * i)) & 0xFu)) - zb;
}

inline void xd_int4_gemv(__global T* out, __global const T* x, __global const uchar* w, __global const T* s,
                         __global const char* z, const xd_int4 A, __local float* xs, const int MB) {
  const int lid = (int)get_local_id(0);
  const int col = lid / XD_I4_LANES, lane = lid % XD_I4_LANES;
  const long n = (long)get_group_id(0) * XD_I4_COLS + col;
  const int live = n < A.n;
  const long chunks = A.k / 32;
  const long row = A.w_off + n * (A.k / 2);
  float acc[16];
#pragma unroll
  for (int m = 0; m < MB; ++m) acc[m] = 0.0f;

  for (long c0 = 0; c0 < chunks; c0 += XD_I4_LANES) {
    const long c = c0 + lane;
    const int mine = live && c < chunks;
    uint4 q = (uint4)(0u);
    float sc = 0.0f, zb = 0.0f;
    if (mine) {  // issued before the staging so that the loads overlap it
      q = xd_i4_load16(w, row + c * 16);
      const long gi = (c * 32) / A.group;
      sc = XD_LD(s, A.s_off + gi * A.n + n);
      zb = 8388608.0f + (float)z[A.z_off + gi * A.n + n];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous tile's readers are done
    for (int e = lid; e < MB * XD_I4_KT; e += XD_WG) {
      const int m = e / XD_I4_KT, kk = e % XD_I4_KT;
      const long k = c0 * 32 + kk;
      xs[m * (XD_I4_LANES * XD_I4_PAD) + (kk / 32) * XD_I4_PAD + kk % 32] =
          (m < A.m && k < A.k) ? XD_LD(x, A.x_off + m * A.k + k) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (mine) {
      float wv[32];
      xd_i4_word(q.s0, zb, wv);
      xd_i4_word(q.s1, zb, wv + 8);
      xd_i4_word(q.s2, zb, wv + 16);
      xd_i4_word(q.s3, zb, wv + 24);
#pragma unroll
      for (int m = 0; m < MB; ++m) {
        __local const float4* xr = (__local const float4*)(xs + m * (XD_I4_LANES * XD_I4_PAD) + lane * XD_I4_PAD);
        float d = 0.0f;
#pragma unroll
        for (int t = 0; t < 8; ++t) {
          const float4 v = xr[t];
          d = fma(v.s0, wv[4 * t], d);
          d = fma(v.s1, wv[4 * t + 1], d);
          d = fma(v.s2, wv[4 * t + 2], d);
          d = fma(v.s3, wv[4 * t + 3], d);
        }
        acc[m] = fma(d, sc, acc[m]);
      }
    }
  }

  // The XD_I4_LANES partials of each (row, column), summed in lane order.
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int m = 0; m < MB; ++m) xs[m * XD_WG + lid] = acc[m];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < XD_I4_COLS * MB) {
    const int oc = lid % XD_I4_COLS, m = lid / XD_I4_COLS;
    const long on = (long)get_group_id(0) * XD_I4_COLS + oc;
    if (m < A.m && on < A.n) {
      float t = 0.0f;
      for (int l = 0; l < XD_I4_LANES; ++l) t += xs[m * XD_WG + oc * XD_I4_LANES + l];
      XD_ST(out, A.o_off + m * A.n + on, t);
    }
  }
}

// Local memory per entry point: MB staged rows (which also hold the MB * XD_WG partials).
#define XD_I4_GEMV(MB)                                                                                      \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_int4_gemv_m##MB(                      \
      __global T* out, __global const T* x, __global const uchar* w, __global const T* s, __global const char* z, \
      const xd_int4 A) {                                                                                    \
    __local float4 xs4[(MB * XD_I4_LANES * XD_I4_PAD) / 4];                                                 \
    xd_int4_gemv(out, x, w, s, z, A, (__local float*)xs4, MB);                                              \
  }
XD_I4_GEMV(1)
XD_I4_GEMV(2)
XD_I4_GEMV(4)
XD_I4_GEMV(8)
XD_I4_GEMV(16)

// ---------------------------------------------------------------- tiled (M above 16)
#if XD_WG >= 256
#define XD_I4_T 16
#elif XD_WG >= 64
#define XD_I4_T 8
#else
#define XD_I4_T 4
#endif

__kernel __attribute__((reqd_work_group_size(XD_I4_T, XD_I4_T, 1))) void xd_int4_mm_tiled(
    __global T* out, __global const T* x, __global const uchar* w, __global const T* s, __global const char* z,
    const xd_int4 A, long row0) {
  __local float Xs[XD_I4_T][XD_I4_T + 1];
  __local float Ws[XD_I4_T][XD_I4_T + 1];  // Ws[kk][col]
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const long j = (long)get_global_id(0);
  const long i = row0 + (long)get_global_id(1);
  const long i_tile = row0 + (long)get_group_id(1) * XD_I4_T, j_tile = (long)get_group_id(0) * XD_I4_T;
  float acc = 0.0f;
  for (long k0 = 0; k0 < A.k; k0 += XD_I4_T) {
    const long xr = i_tile + ty, xk = k0 + tx;
    Xs[ty][tx] = (xr < A.m && xk < A.k) ? XD_LD(x, A.x_off + xr * A.k + xk) : 0.0f;
    // Work-item (tx, ty) dequantizes element k0 + tx of weight row j_tile + ty: a row's bytes are
    // read by consecutive work-items.
    const long wn = j_tile + ty, wk = k0 + tx;
    float wq = 0.0f;
    if (wn < A.n && wk < A.k) {
      const uint byte = w[A.w_off + wn * (A.k / 2) + wk / 2];
      const uint q = (wk & 1) ? (byte >> 4) : (byte & 0xFu);
      const long gi = wk / A.group;
      wq = (float)((int)q - (int)z[A.z_off + gi * A.n + wn]) * XD_LD(s, A.s_off + gi * A.n + wn);
    }
    Ws[tx][ty] = wq;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < XD_I4_T; ++kk) acc = fma(Xs[ty][kk], Ws[kk][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < A.m && j < A.n) XD_ST(out, A.o_off + i * A.n + j, acc);
}

// ---------------------------------------------------------------- quantize (f32 and bf16 weights)
#define xd_I4Q_f32 1
#define xd_I4Q_bf16 2
#define XD_I4_QUANT XD_CAT(xd_I4Q_, XD_DT)

#if XD_I4_QUANT

// Round half to even of the exact quotient w / s (s > 0): GPU division may be off by ulps, so the
// approximate quotient is corrected by the exact signs of w - (n +- 0.5) * s (fma rounds once).
inline float xd_i4_round_quotient(float w, float s) {
  float n = rint(w / s);
  if (isnan(n)) return 0.0f;
  n = fmin(fmax(n, -64.0f), 64.0f);
  const int odd = (((int)n) & 1) != 0;
  const float up = fma(-(n + 0.5f), s, w);
  const float down = fma(-(n - 0.5f), s, w);
  if (up > 0.0f || (up == 0.0f && odd)) return n + 1.0f;
  if (down < 0.0f || (down == 0.0f && odd)) return n - 1.0f;
  return n;
}

inline float xd_i4_clamp15(float v) { return fmin(fmax(v, 0.0f), 15.0f); }

__kernel void xd_quantize_int4(__global uchar* packed, __global T* scales, __global char* zeros,
                               __global const T* wt, const xd_int4 A) {
  const long gid = (long)get_global_id(0);
  const long groups = A.k / A.group;
  if (gid >= groups * A.n) return;
  // Consecutive work-items take consecutive rows of one group: their scales and zero points are
  // neighbours in memory.
  const long n = gid % A.n, gi = gid / A.n;
  const long src = A.x_off + n * A.k + gi * A.group;
  float lo = 0.0f, hi = 0.0f;  // zero is always representable
  for (long j = 0; j < A.group; ++j) {
    const float v = XD_LD(wt, src + j);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  const float range = hi - lo;
  float sc = range * 0x1.111112p-4f;  // 1/15 rounded to float, as the reference writes it
  if (fma(-15.0f, sc, range) > 0.0f) sc = nextafter(sc, INFINITY);
  if (!(sc >= FLT_EPSILON)) sc = FLT_EPSILON;
  const long so = gi * A.n + n;
#if XD_I4_QUANT == 2
  ushort b = xd_float_to_bf16(sc);
  if (xd_bf16_to_float(b) < sc) b = (ushort)(b + 1);  // rounded up, so 15 steps still cover the range
  scales[A.s_off + so] = b;
  sc = xd_bf16_to_float(b);
#else
  scales[A.s_off + so] = sc;
#endif
  const float zero = xd_i4_clamp15(xd_i4_round_quotient(-lo, sc));
  zeros[A.z_off + so] = (char)(int)zero;
  const long dst = A.w_off + n * (A.k / 2) + gi * (A.group / 2);
  for (long j = 0; j < A.group; j += 2) {
    const uint q0 = (uint)xd_i4_clamp15(xd_i4_round_quotient(XD_LD(wt, src + j), sc) + zero);
    const uint q1 = (uint)xd_i4_clamp15(xd_i4_round_quotient(XD_LD(wt, src + j + 1), sc) + zero);
    packed[dst + j / 2] = (uchar)(q0 | (q1 << 4));
  }
}

#endif  // XD_I4_QUANT

#endif  // XD_CLASS == 1
