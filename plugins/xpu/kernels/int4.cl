// WEIGHT_INT4_MM and QUANTIZE_INT4 (plugins/cpu/kernels/int4.cpp gives the semantics, docs/ops/int4.md
// the layout). T is the input's dtype (f32, f16, bf16); the weight is u8 [N, K/2], two int4 per
// byte (even k in the low nibble), scales T [K/g, N], zero points i8 [K/g, N]. Every operand is
// dense row-major (the host copies others first); offsets arrive in elements (bytes for u8/i8).
//
//   xd_int4_gemv_m1     M = 1, the decode case, bound by reading the weights: see below.
//   xd_int4_gemv_m1_dense  the same where every operand is aligned for wide loads (host-checked).
//   xd_int4_gemv_m<MB>  M <= MB (2, 4, 8, 16). A work-group of XD_WG work-items owns XD_I4_COLS
//                       output columns, with XD_I4_LANES work-items per column splitting K into
//                       32-element chunks: a chunk is one 16-byte load of the column's weight row,
//                       so a column's lanes read consecutive 16-byte pieces (coalesced), and a
//                       32-chunk never straddles a group (g is a multiple of 32): one scale and
//                       zero point per chunk. The chunk's 32 values are dequantized in registers
//                       (q - zero, exact, through the float trick of xd_i4_word), dotted with each of
//                       the MB input rows and scaled once. Input rows are staged per K tile in
//                       local memory (shared by every column), padded so that the lanes' float4
//                       reads do not collide in banks; each column's weight load is issued before
//                       the staging, overlapping it. The lanes' partial sums meet in local memory
//                       at the end.
//   xd_int4_mma_m8/16   NVIDIA only (XD_NV_MMA): f16/bf16 on the tensor cores, in int4_mma.cl,
//                       which the OpenCL plugin appends to this file's program.
//   xd_int4_mm_tiled    larger M: XD_I4_T x XD_I4_T output tiles; the weight tile is dequantized
//                       into local memory once and used by every row of the tile.
//   xd_quantize_int4    a work-item per (group, row): min/max, scale, zero point and codes with
//                       the reference's exact rounding (round_quotient below), bit for bit.

#if XD_CLASS == 1

// Field for field as xpu::int4_args (plugins/xpu/common/int4.hpp). For quantize_int4 `x` is
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

// quantize_int4's weight dtypes (1: f32, 2: bf16; 0: none), and whether T is f16.
#define xd_I4Q_f32 1
#define xd_I4Q_bf16 2
#define XD_I4_QUANT XD_CAT(xd_I4Q_, XD_DT)
#define xd_I4H_f16 1
#define XD_I4_FP16 XD_CAT(xd_I4H_, XD_DT)

// Decoding without a shift per code: a nibble at bits 4i..4i+3 (i = 0..3), masked and OR-ed into
// the bits of 2^(23 - 4i), is the float 2^(23 - 4i) + q exactly (the mantissa's last place there
// is 2^(-4i)), so one LOP3 per code; the upper four nibbles take one shift per word first.
// xd_i4_zc gives the four constants 2^(23 - 4i) + zero, subtracted exactly.
inline float4 xd_i4_zc(float zero) { return (float4)(8388608.0f, 524288.0f, 32768.0f, 2048.0f) + zero; }

inline uint4 xd_i4_load16(__global const uchar* p, long o) {
  __global const uchar* a = p + o;
  return (((ulong)a) & 15) == 0 ? *(__global const uint4*)a : as_uint4(vload16(0, a));
}

// The four exponents OR-ed in above, held in registers (xd_i4_magic): mask-and-OR is then one
// LOP3, where two literals would cost an AND and an OR (a LOP3 holds one immediate). `k` is the
// problem's K: k >> 62 is 0 for every valid K, but not known to be, so the compiler cannot fold
// the constants back into immediates. On NVIDIA (XD_NV_SHFL: the compiler takes inline PTX) the
// LOP3 is written out, since the compiler re-associates the plain expression into two ops again.
inline uint4 xd_i4_magic(long k) {
  return (uint4)(0x4B000000u, 0x49000000u, 0x47000000u, 0x45000000u) | (uint)(k >> 62);
}
#ifdef XD_NV_SHFL
#define XD_I4_LOP(NAME, MASK)                                                       \
  inline uint NAME(uint v, uint magic) {                                            \
    uint d;                                                                         \
    XD_ASM("lop3.b32 %0, %1, " #MASK ", %2, 0xEA;" : "=r"(d) : "r"(v), "r"(magic)); \
    return d;                                                                       \
  }
#else
#define XD_I4_LOP(NAME, MASK) \
  inline uint NAME(uint v, uint magic) { return (v & MASK) | magic; }
#endif
XD_I4_LOP(xd_i4_nib0, 0xF)
XD_I4_LOP(xd_i4_nib1, 0xF0)
XD_I4_LOP(xd_i4_nib2, 0xF00)
XD_I4_LOP(xd_i4_nib3, 0xF000)

// Eight codes of one little-endian word, minus the zero point: out[i] = q(k0 + i) - zero
// (mg: xd_i4_magic).
inline void xd_i4_word(uint v, uint4 mg, float4 zc, float* out) {
  const uint h = v >> 16;
  out[0] = as_float(xd_i4_nib0(v, mg.s0)) - zc.s0;
  out[1] = as_float(xd_i4_nib1(v, mg.s1)) - zc.s1;
  out[2] = as_float(xd_i4_nib2(v, mg.s2)) - zc.s2;
  out[3] = as_float(xd_i4_nib3(v, mg.s3)) - zc.s3;
  out[4] = as_float(xd_i4_nib0(h, mg.s0)) - zc.s0;
  out[5] = as_float(xd_i4_nib1(h, mg.s1)) - zc.s1;
  out[6] = as_float(xd_i4_nib2(h, mg.s2)) - zc.s2;
  out[7] = as_float(xd_i4_nib3(h, mg.s3)) - zc.s3;
}

// `count` consecutive scales (zero points) from index o, those at or past `avail` as 0: wide loads
// where all are in range, element by element otherwise.
inline void xd_i4_scales(__global const T* s, long o, long avail, float* out, const int count) {
  if (avail >= count && count % 4 == 0) {
    for (int i = 0; i < count; i += 4) {
      const float4 v = xd_load4(s, o + i, 1);
      out[i] = v.s0;
      out[i + 1] = v.s1;
      out[i + 2] = v.s2;
      out[i + 3] = v.s3;
    }
  } else {
    for (int i = 0; i < count; ++i) out[i] = i < avail ? XD_LD(s, o + i) : 0.0f;
  }
}

inline void xd_i4_zeros(__global const char* z, long o, long avail, float* out, const int count) {
  if (avail >= count && count % 4 == 0) {
    for (int i = 0; i < count; i += 4) {
      const char4 v = XD_VLOAD4(char4, z + o + i);
      out[i] = (float)v.s0;
      out[i + 1] = (float)v.s1;
      out[i + 2] = (float)v.s2;
      out[i + 3] = (float)v.s3;
    }
  } else {
    for (int i = 0; i < count; ++i) out[i] = i < avail ? (float)z[o + i] : 0.0f;
  }
}

#if XD_I4_FP16 && defined(XD_NV_SHFL)
// Four f16 values at an 8-byte-aligned address, converted by the hardware's cvt.f32.f16 through
// inline PTX rather than by NVIDIA's vload_half (measured: docs/performance.md, "aligned fast paths
// for matmul and int4", f16 inputs).
inline float2 xd_i4_half2(uint v) {
  float a, b;
  XD_ASM("{ .reg .b16 l, h; mov.b32 {l, h}, %2; cvt.f32.f16 %0, l; cvt.f32.f16 %1, h; }"
         : "=f"(a), "=f"(b)
         : "r"(v));
  return (float2)(a, b);
}
inline float4 xd_i4_half4(__global const T* p) {
  const uint2 u = *(__global const uint2*)p;
  return (float4)(xd_i4_half2(u.x), xd_i4_half2(u.y));
}
#endif

// The same where the host has checked that o's address is vector-aligned and all `count` (a
// multiple of 4) exist: plain wide loads with no tests (the _dense kernels).
inline void xd_i4_scales_aligned(__global const T* s, float* out, const int count) {
#pragma unroll
  for (int i = 0; i < count; i += 4) {
#if XD_I4_FP16 && defined(XD_NV_SHFL)
    const float4 v = xd_i4_half4(s + i);  // the hardware's conversion, not the bit-level decode
#else
    const float4 v = xd_vec4(s + i);
#endif
    out[i] = v.s0, out[i + 1] = v.s1, out[i + 2] = v.s2, out[i + 3] = v.s3;
  }
}

inline void xd_i4_zeros_aligned(__global const char* z, float* out, const int count) {
#pragma unroll
  for (int i = 0; i < count; i += 4) {
    const char4 v = *(__global const char4*)(z + i);
    out[i] = (float)v.s0, out[i + 1] = (float)v.s1, out[i + 2] = (float)v.s2, out[i + 3] = (float)v.s3;
  }
}

// One output element in the reference's order and roundings (plugins/cpu/kernels/int4.cpp): x
// times w = float(q - zero) * scale, summed over k in order. The fast routes reassociate
// (x * (q - zero) before the scale; sum x * q - zero * sum x), which overflows or meets
// Inf - Inf where the reference gives a finite value or +-Inf; an output they leave non-finite
// is redone here, so every device agrees on such inputs. A cold path: finite inputs in range
// never reach it.
inline float xd_i4_exact(__global const T* x, __global const uchar* w, __global const T* s, __global const char* z,
                         const xd_int4 A, long m, long n) {
  float acc = 0.0f;
  for (long k = 0; k < A.k; ++k) {
    const uint byte = w[A.w_off + n * (A.k / 2) + k / 2];
    const int q = (k & 1) ? (int)(byte >> 4) : (int)(byte & 0xFu);
    const long gi = k / A.group;
    const float wq = (float)(q - (int)z[A.z_off + gi * A.n + n]) * XD_LD(s, A.s_off + gi * A.n + n);
    acc += XD_LD(x, A.x_off + m * A.k + k) * wq;
  }
  return acc;
}

inline void xd_int4_gemv(__global T* out, __global const T* x, __global const uchar* w, __global const T* s,
                         __global const char* z, const xd_int4 A, __local float* xs, const int MB) {
  const int lid = (int)get_local_id(0);
  const int col = lid / XD_I4_LANES, lane = lid % XD_I4_LANES;
  const long n = (long)get_group_id(0) * XD_I4_COLS + col;
  const int live = n < A.n;
  const long chunks = A.k / 32;
  const long row = A.w_off + n * (A.k / 2);
  const uint4 mg = xd_i4_magic(A.k);
  float acc[16];
#pragma unroll
  for (int m = 0; m < MB; ++m) acc[m] = 0.0f;

  for (long c0 = 0; c0 < chunks; c0 += XD_I4_LANES) {
    const long c = c0 + lane;
    const int mine = live && c < chunks;
    uint4 q = (uint4)(0u);
    float sc = 0.0f;
    float4 zc = xd_i4_zc(0.0f);
    if (mine) {  // issued before the staging so that the loads overlap it
      q = xd_i4_load16(w, row + c * 16);
      const long gi = (c * 32) / A.group;
      sc = XD_LD(s, A.s_off + gi * A.n + n);
      zc = xd_i4_zc((float)z[A.z_off + gi * A.n + n]);
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
      xd_i4_word(q.s0, mg, zc, wv);
      xd_i4_word(q.s1, mg, zc, wv + 8);
      xd_i4_word(q.s2, mg, zc, wv + 16);
      xd_i4_word(q.s3, mg, zc, wv + 24);
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
      if (!isfinite(t)) t = xd_i4_exact(x, w, s, z, A, m, on);
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
XD_I4_GEMV(2)
XD_I4_GEMV(4)
XD_I4_GEMV(8)
XD_I4_GEMV(16)

// ---------------------------------------------------------------- M = 1: the input read directly
// One input row is only K values, cached on chip, so nothing is staged and no barrier stands in the
// loop: XD_I4D_L work-items per column run along K, each owning XD_I4D_R neighbouring columns
// (their scales are neighbours) and keeping XD_I4D_U chunks of each in flight (16 bytes each,
// issued before any arithmetic), so a work-item has XD_I4D_R * XD_I4D_U loads outstanding. The
// input chunk it reads is reused for its XD_I4D_R columns. Blocks of columns are taken
// grid-stride, so any grid is correct (the host sizes it from the same constants).
#ifndef XD_I4D_L
#if XD_WG >= 32
#define XD_I4D_L 32
#else
#define XD_I4D_L XD_WG
#endif
#endif
#ifndef XD_I4D_R
#define XD_I4D_R 8
#endif
#ifndef XD_I4D_U
#define XD_I4D_U 1
#endif
#define XD_I4D_CG (XD_WG / XD_I4D_L)      // column groups per work-group
#define XD_I4D_COLS (XD_I4D_CG * XD_I4D_R)  // columns per block


// One 32-chunk of XD_I4D_R columns: acc[r] += sc[r] * sum_i x_i * (q_r,i - zr[r]), computed as
// sum x * q - zero * sum x: the codes decode without the zero point, so its constants need no
// registers per column, and the input's sum is shared by the columns. `xp`: the chunk's 32
// inputs; `aligned`: xp is 4-element aligned (wide loads without a test).
inline void xd_i4d_chunk(const uint4* q, const float* sc, const float* zr, __global const T* xp, const int aligned,
                         uint4 mg, float* acc) {
  float d[XD_I4D_R];
#pragma unroll
  for (int r = 0; r < XD_I4D_R; ++r) d[r] = 0.0f;
  float xs = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
#if XD_I4_FP16 && defined(XD_NV_SHFL)
    // f16 on NVIDIA: one cvt per value (inline PTX); half-to-float is exact.
    const float4 x0 = aligned ? xd_i4_half4(xp + 8 * j) : vload_half4(0, (__global const half*)(xp + 8 * j));
    const float4 x1 =
        aligned ? xd_i4_half4(xp + 8 * j + 4) : vload_half4(0, (__global const half*)(xp + 8 * j + 4));
#elif XD_I4_FP16
    // f16 through vload_half4 (2-byte alignment; the hardware's conversion where there is one)
    // rather than common.cl's bit-level decode: the input feeds arithmetic only, and
    // half-to-float is exact either way.
    (void)aligned;
    const float4 x0 = vload_half4(0, (__global const half*)(xp + 8 * j));
    const float4 x1 = vload_half4(0, (__global const half*)(xp + 8 * j + 4));
#else
    const float4 x0 = aligned ? xd_vec4(xp + 8 * j) : xd_load4(xp, 8 * j, 1);
    const float4 x1 = aligned ? xd_vec4(xp + 8 * j + 4) : xd_load4(xp, 8 * j + 4, 1);
#endif
    xs += ((x0.s0 + x0.s1) + (x0.s2 + x0.s3)) + ((x1.s0 + x1.s1) + (x1.s2 + x1.s3));
    const float xv[8] = {x0.s0, x0.s1, x0.s2, x0.s3, x1.s0, x1.s1, x1.s2, x1.s3};
#pragma unroll
    for (int r = 0; r < XD_I4D_R; ++r) {
      const uint v = j == 0 ? q[r].s0 : j == 1 ? q[r].s1 : j == 2 ? q[r].s2 : q[r].s3;
      float wv[8];
      xd_i4_word(v, mg, xd_i4_zc(0.0f), wv);
#pragma unroll
      for (int i = 0; i < 8; ++i) d[r] = fma(xv[i], wv[i], d[r]);
    }
  }
#pragma unroll
  for (int r = 0; r < XD_I4D_R; ++r) acc[r] = fma(fma(-zr[r], xs, d[r]), sc[r], acc[r]);
}

// The end of an M = 1 column block b: the XD_I4D_L partials of each column (acc: this work-item's
// XD_I4D_R), summed in lane order, and the columns below N stored. Every work-item calls it (barriers).
inline void xd_i4d_store(__global T* out, __global const T* x, __global const uchar* w, __global const T* s,
                         __global const char* z, const xd_int4 A, __local float* part, const float* acc, long b,
                         int lid) {
  barrier(CLK_LOCAL_MEM_FENCE);  // the previous block's readers are done
#pragma unroll
  for (int r = 0; r < XD_I4D_R; ++r) part[r * XD_WG + lid] = acc[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < XD_I4D_COLS) {
    const int oc = lid / XD_I4D_R, r = lid % XD_I4D_R;
    const long n = (b * XD_I4D_CG + oc) * XD_I4D_R + r;
    if (n < A.n) {
      float t = 0.0f;
      for (int l = 0; l < XD_I4D_L; ++l) t += part[r * XD_WG + oc * XD_I4D_L + l];
      if (!isfinite(t)) t = xd_i4_exact(x, w, s, z, A, 0, n);
      XD_ST(out, A.o_off + n, t);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_int4_gemv_m1(
    __global T* out, __global const T* x, __global const uchar* w, __global const T* s, __global const char* z,
    const xd_int4 A) {
  __local float part[XD_I4D_R * XD_WG];
  const int lid = (int)get_local_id(0);
  const int lane = lid % XD_I4D_L, cg = lid / XD_I4D_L;
  const long chunks = A.k / 32, half_k = A.k / 2;
  const long blocks = (A.n + XD_I4D_COLS - 1) / XD_I4D_COLS;
  const uint4 mg = xd_i4_magic(A.k);
  for (long b = (long)get_group_id(0); b < blocks; b += (long)get_num_groups(0)) {
    const long n0 = (b * XD_I4D_CG + cg) * XD_I4D_R;
    float acc[XD_I4D_R];
#pragma unroll
    for (int r = 0; r < XD_I4D_R; ++r) acc[r] = 0.0f;
    for (long c0 = lane; c0 < chunks; c0 += XD_I4D_L * XD_I4D_U) {
      uint4 q[XD_I4D_U][XD_I4D_R];
      float sc[XD_I4D_U][XD_I4D_R], zr[XD_I4D_U][XD_I4D_R];
#pragma unroll
      for (int u = 0; u < XD_I4D_U; ++u) {
        const long c = c0 + (long)u * XD_I4D_L;
        const long gi = (c * 32) / A.group;
        const long avail = c < chunks ? A.n - n0 : 0;
        // The weights first: the scales and zero points are converted to float as they are loaded,
        // and a use between two loads holds the later load back.
#pragma unroll
        for (int r = 0; r < XD_I4D_R; ++r)
          q[u][r] = r < avail ? xd_i4_load16(w, A.w_off + (n0 + r) * half_k + c * 16) : (uint4)(0u);
        // The columns' scales and zero points are neighbours: a few wide loads, not 2R narrow ones.
        xd_i4_scales(s, A.s_off + gi * A.n + n0, avail, sc[u], XD_I4D_R);
        xd_i4_zeros(z, A.z_off + gi * A.n + n0, avail, zr[u], XD_I4D_R);
      }
#pragma unroll
      for (int u = 0; u < XD_I4D_U; ++u) {
        const long c = c0 + (long)u * XD_I4D_L;
        if (c < chunks) xd_i4d_chunk(q[u], sc[u], zr[u], x + A.x_off + c * 32, 0, mg, acc);
      }
    }
    xd_i4d_store(out, x, w, s, z, A, part, acc, b, lid);
  }
}

// ---------------------------------------------------------------- M = 1, aligned operands
// xd_int4_gemv_m1's split and arithmetic where the host has checked alignment (xpu::plan_int4_mm):
// the weight's offset a multiple of 16 bytes, the input's, scales' and zero points' offsets
// multiples of 4 elements, N a multiple of XD_I4D_R (itself a multiple of 4). Every load is one
// aligned vector with no test, indices are 32-bit within a row, and a column group past N
// recomputes the last group (never stored). Tests and 64-bit index arithmetic in the loop cost more
// than their instruction count (measured: docs/performance.md, "aligned fast paths for matmul and
// int4").
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_int4_gemv_m1_dense(
    __global T* out, __global const T* x, __global const uchar* w, __global const T* s, __global const char* z,
    const xd_int4 A) {
  __local float part[XD_I4D_R * XD_WG];
  const int lid = (int)get_local_id(0);
  const int lane = lid % XD_I4D_L, cg = lid / XD_I4D_L;
  const int chunks = (int)(A.k / 32), group = (int)A.group;
  const long blocks = (A.n + XD_I4D_COLS - 1) / XD_I4D_COLS;
  const uint4 mg = xd_i4_magic(A.k);
  __global const T* xr = x + A.x_off;
  for (long b = (long)get_group_id(0); b < blocks; b += (long)get_num_groups(0)) {
    const long n0 = min((b * XD_I4D_CG + cg) * XD_I4D_R, A.n - XD_I4D_R);
    __global const uint4* wr = (__global const uint4*)(w + A.w_off) + n0 * chunks;
    __global const T* sr = s + A.s_off + n0;
    __global const char* zp = z + A.z_off + n0;
    float acc[XD_I4D_R];
#pragma unroll
    for (int r = 0; r < XD_I4D_R; ++r) acc[r] = 0.0f;
    for (int c = lane; c < chunks; c += XD_I4D_L) {
      // The weights first (a use between two loads holds the later one back), then the
      // neighbouring columns' scales and zero points in wide loads.
      uint4 q[XD_I4D_R];
#pragma unroll
      for (int r = 0; r < XD_I4D_R; ++r) q[r] = wr[r * chunks + c];
      const long gi = (long)((c * 32) / group) * A.n;
      float sc[XD_I4D_R], zr[XD_I4D_R];
      xd_i4_scales_aligned(sr + gi, sc, XD_I4D_R);
      xd_i4_zeros_aligned(zp + gi, zr, XD_I4D_R);
      xd_i4d_chunk(q, sc, zr, xr + c * 32, 1, mg, acc);
    }
    xd_i4d_store(out, x, w, s, z, A, part, acc, b, lid);
  }
}

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
