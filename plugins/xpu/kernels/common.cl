// Shared by every xdispatch OpenCL C program: element types, the exact conversions of
// include/xd/numeric.hpp, the layout struct the host fills (plugins/xpu/common/layout.hpp
// mirrors it field for field), and index helpers.
//
// A program is specialised by build options:
//   -DXD_DT=<tag>   the dtype the program is keyed on (f64 f32 f16 bf16 i8 u8 i32 i64 b8 e4m3 e5m2)
//   -DXD_WT=<tag>   a second floating dtype (rms_norm weight), defaults to XD_DT
//   -DXD_HAS_FP64   the device has cl_khr_fp64 (double code is compiled only then)
// Written in OpenCL C 1.2 so that it also compiles as CL2.0 (the Level Zero variant).

// The CPU reference rounds every product and sum separately; contracting a*b+c into an fma would
// change last bits (rand would then differ from the CPU bit for bit). Matmul asks for fma() itself.
#pragma OPENCL FP_CONTRACT OFF
#ifdef XD_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define XD_CAT_(a, b) a##b
#define XD_CAT(a, b) XD_CAT_(a, b)
#define XD_CAT3(a, b, c) XD_CAT(XD_CAT(a, b), c)

#ifndef XD_ASM
#define XD_ASM asm  // inline PTX: the keyword NVIDIA's OpenCL compiler takes (clang alone wants __asm__)
#endif

#define XD_VEC 4
#define XD_MAX_DIMS 8
#define XD_MAX_OPS 4

// ---------------------------------------------------------------- layout (host mirror: layout.hpp)
// An index space walked by up to XD_MAX_OPS operands at once. Dims are collapsed on the host;
// size[0] is the innermost. A work-item covers XD_VEC consecutive elements of one "row" (all dims
// but the innermost): work = rows * col_blocks work-items.
typedef struct {
  long size[XD_MAX_DIMS];
  long stride[XD_MAX_OPS][XD_MAX_DIMS];  // elements
  long offset[XD_MAX_OPS];               // elements
  long ndim;
  long numel;
  long col_blocks;  // ceil(size[0] / XD_VEC)
  long work;        // rows * col_blocks
} xd_layout;

// Scalars of an op (alpha, fill value, arange start/step, rand bounds, seeds). Doubles travel as
// bits so that a device without fp64 still accepts the argument.
typedef struct {
  long d[2];   // double bits
  long i[2];   // integers
  float f[2];  // the doubles rounded to float on the host
  ulong u[2];  // seed, offset
} xd_scalars;

// 64-bit division is slow on GPUs; most indices fit 32 bits.
inline ulong xd_udiv(ulong a, ulong b) {
  return (a <= 0xffffffffUL && b <= 0xffffffffUL) ? (ulong)((uint)a / (uint)b) : a / b;
}

// ---------------------------------------------------------------- narrow float formats
// Bit-exact ports of numeric.hpp: round to nearest even, overflow to Inf (NaN for e4m3fn),
// NaN canonical.
inline float xd_f16_to_float_soft(ushort h) {
  const uint sign = ((uint)h & 0x8000u) << 16;
  const uint field = ((uint)h >> 10) & 0x1fu;
  const uint mant = (uint)h & 0x3ffu;
  if (field == 0x1fu) return as_float(sign | 0x7f800000u | (mant << 13));
  if (field == 0u) {
    const float v = (float)mant * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    return sign ? -v : v;
  }
  return as_float(sign | ((field + 112u) << 23) | (mant << 13));
}

inline ushort xd_float_to_f16_soft(float f) {
  const uint u = as_uint(f);
  const uint a = u & 0x7fffffffu;
  const uint sign = (u >> 16) & 0x8000u;
  if (a > 0x7f800000u) return (ushort)(sign | 0x7e00u);
  if (a >= 0x477ff000u) return (ushort)(sign | 0x7c00u);  // rounds to 65536 or more: Inf
  if (a >= 0x38800000u) {                                 // stays normal: rebias, RNE on 13 bits
    uint r = a - 0x38000000u;
    r += 0x0fffu + ((r >> 13) & 1u);
    return (ushort)(sign | (r >> 13));
  }
  if (a < 0x00800000u) return (ushort)sign;  // zero or a float subnormal: far below 2^-25
  // Subnormal f16: a multiple of 2^-24; rounding up to 1024 lands on the smallest normal.
  return (ushort)(sign | (uint)rint(as_float(a) * 16777216.0f));
}

// On NVIDIA GPUs (XD_NV_SHFL: the compiler takes inline PTX) the conversion instructions, which
// round the same way (cvt.rn: to nearest even, overflow to Inf, subnormals exact) in one instruction
// instead of the branches above (measured with f16 rms_norm: docs/performance.md, "the row kernels'
// vector path, f16 conversions"). Only NaNs take the ports above, for their sign and payload bits.
#ifdef XD_NV_SHFL
inline float xd_f16_to_float(ushort h) {
  float f;
  XD_ASM("{ .reg .b16 l, u; mov.b32 {l, u}, %1; cvt.f32.f16 %0, l; }" : "=f"(f) : "r"((uint)h));
  // A NaN keeps its sign and payload (cvt may return a canonical NaN): the port's bits, written out
  // rather than by calling the port (measured: docs/performance.md, "Design choices measured
  // earlier, moved out of the kernels' comments").
  if ((h & 0x7fffu) > 0x7c00u) return as_float((((uint)h & 0x8000u) << 16) | 0x7f800000u | (((uint)h & 0x3ffu) << 13));
  return f;
}
inline ushort xd_float_to_f16(float f) {
  uint h;
  XD_ASM("{ .reg .b16 t; cvt.rn.f16.f32 t, %1; mov.b32 %0, {t, t}; }" : "=r"(h) : "f"(f));
  // A NaN becomes the port's quiet NaN with f's sign (written out, as above).
  if (isnan(f)) return (ushort)(((as_uint(f) >> 16) & 0x8000u) | 0x7e00u);
  return (ushort)(h & 0xffffu);
}
#else
inline float xd_f16_to_float(ushort h) { return xd_f16_to_float_soft(h); }
inline ushort xd_float_to_f16(float f) { return xd_float_to_f16_soft(f); }
#endif

inline float xd_bf16_to_float(ushort b) { return as_float((uint)b << 16); }

inline ushort xd_float_to_bf16(float f) {
  const uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// OCP FP8 with E exponent and M mantissa bits; `ieee`: the top exponent encodes Inf/NaN (e5m2),
// otherwise (e4m3fn) only S.1111.111 is NaN and there is no Inf.
inline uint xd_fp8_encode(float f, int E, int M, int ieee) {
  const int bias = (1 << (E - 1)) - 1;
  const int emin = 1 - bias;
  const uint sign = (as_uint(f) >> 31) ? (1u << (E + M)) : 0u;
  const uint inf_bits = ((1u << E) - 1u) << M;
  const uint nan_bits = ieee ? (inf_bits | (1u << (M - 1))) : (inf_bits | ((1u << M) - 1u));
  const uint max_finite = ieee ? ((((1u << E) - 2u) << M) | ((1u << M) - 1u)) : (inf_bits | ((1u << M) - 2u));
  const uint over = ieee ? inf_bits : nan_bits;
  const uint a = as_uint(f) & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | nan_bits;
  if (a == 0x7f800000u) return sign | over;
  if (a < 0x00800000u) return sign;  // zero or float subnormal: rounds to zero in both formats
  const float af = as_float(a);
  int e = (int)(a >> 23) - 127;  // af = 1.xxx * 2^e
  uint bits;
  if (e < emin) {
    bits = (uint)rint(ldexp(af, M - emin));  // subnormal: a multiple of 2^(emin - M)
  } else {
    float q = rint(ldexp(af, M - e));  // in [2^M, 2^(M+1)]
    if (q >= (float)(1u << (M + 1))) {
      q = (float)(1u << M);
      ++e;
    }
    const int field = e + bias;
    if (field >= (1 << E)) return sign | over;
    bits = ((uint)field << M) | ((uint)q - (1u << M));
  }
  if (bits > max_finite) return sign | over;
  return sign | bits;
}

inline float xd_fp8_decode(uint bits, int E, int M, int ieee) {
  const int bias = (1 << (E - 1)) - 1;
  const int emin = 1 - bias;
  const uint sign_bit = 1u << (E + M);
  const uint field = (bits >> M) & ((1u << E) - 1u);
  const uint mant = bits & ((1u << M) - 1u);
  const uint nan_bits = (((1u << E) - 1u) << M) | ((1u << M) - 1u);
  float v;
  if (ieee && field == (1u << E) - 1u) {
    v = mant ? NAN : INFINITY;
  } else if (!ieee && (bits & ~sign_bit) == nan_bits) {
    v = NAN;
  } else if (field == 0u) {
    v = ldexp((float)mant, emin - M);
  } else {
    v = ldexp((float)(mant + (1u << M)), (int)field - bias - M);
  }
  return (bits & sign_bit) ? -v : v;
}

// ---------------------------------------------------------------- per-dtype tags
// For each tag: storage type xd_T_<tag>, compute type xd_C_<tag> (float for the narrow floats,
// double for f64, long for integers and bool, as the CPU reference computes), its kind
// (xd_K_<tag>: f, d or l), and the conversion of each compute kind into the tag's storage,
// xd_from_<kind>_<tag>, with the reference's casting rules:
//   to bool: x != 0 (NaN is true); to a float format: through float, RNE, non-saturating;
//   float to integer: NaN -> 0, clamp to the range, truncate; integer to integer: modular.
// xd_N_<tag>: 1 float-computed (f32, f16, bf16), 2 double, 3 integer, 4 bool, 5 fp8 (float-computed,
// storage only: the reference has no arithmetic on fp8).
#define xd_N_f32 1
#define xd_N_f16 1
#define xd_N_bf16 1
#define xd_N_e4m3 5
#define xd_N_e5m2 5
#define xd_N_f64 2
#define xd_N_i8 3
#define xd_N_u8 3
#define xd_N_i32 3
#define xd_N_i64 3
#define xd_N_b8 4
#define xd_T_f32 float
#define xd_C_f32 float
#define xd_K_f32 f
#define xd_T_f16 ushort
#define xd_C_f16 float
#define xd_K_f16 f
#define xd_T_bf16 ushort
#define xd_C_bf16 float
#define xd_K_bf16 f
#define xd_T_e4m3 uchar
#define xd_C_e4m3 float
#define xd_K_e4m3 f
#define xd_T_e5m2 uchar
#define xd_C_e5m2 float
#define xd_K_e5m2 f
#define xd_T_i8 char
#define xd_C_i8 long
#define xd_K_i8 l
#define xd_T_u8 uchar
#define xd_C_u8 long
#define xd_K_u8 l
#define xd_T_i32 int
#define xd_C_i32 long
#define xd_K_i32 l
#define xd_T_i64 long
#define xd_C_i64 long
#define xd_K_i64 l
#define xd_T_b8 uchar
#define xd_C_b8 long
#define xd_K_b8 l
#define xd_T_f64 double
#define xd_C_f64 double
#define xd_K_f64 d

// Storage -> compute.
inline float xd_dec_f32(float x) { return x; }
inline float xd_dec_f16(ushort x) { return xd_f16_to_float(x); }
inline float xd_dec_bf16(ushort x) { return xd_bf16_to_float(x); }
inline float xd_dec_e4m3(uchar x) { return xd_fp8_decode(x, 4, 3, 0); }
inline float xd_dec_e5m2(uchar x) { return xd_fp8_decode(x, 5, 2, 1); }
inline long xd_dec_i8(char x) { return (long)x; }
inline long xd_dec_u8(uchar x) { return (long)x; }
inline long xd_dec_i32(int x) { return (long)x; }
inline long xd_dec_i64(long x) { return x; }
inline long xd_dec_b8(uchar x) { return x != 0 ? 1L : 0L; }

// Float to integer: NaN -> 0, clamp, truncate (the bounds compare in the source precision, which
// gives the reference's answer: e.g. (float)INT_MAX is 2^31).
#define XD_SAT(CT, IT, LO, HI, x) \
  (isnan(x) ? (IT)0 : ((x) <= (CT)(LO) ? (IT)(LO) : ((x) >= (CT)(HI) ? (IT)(HI) : (IT)(x))))

// float (kind f) -> storage
inline float xd_from_f_f32(float x) { return x; }
inline ushort xd_from_f_f16(float x) { return xd_float_to_f16(x); }
inline ushort xd_from_f_bf16(float x) { return xd_float_to_bf16(x); }
inline uchar xd_from_f_e4m3(float x) { return (uchar)xd_fp8_encode(x, 4, 3, 0); }
inline uchar xd_from_f_e5m2(float x) { return (uchar)xd_fp8_encode(x, 5, 2, 1); }
inline char xd_from_f_i8(float x) { return XD_SAT(float, char, -128, 127, x); }
inline uchar xd_from_f_u8(float x) { return XD_SAT(float, uchar, 0, 255, x); }
inline int xd_from_f_i32(float x) { return XD_SAT(float, int, INT_MIN, INT_MAX, x); }
inline long xd_from_f_i64(float x) { return XD_SAT(float, long, LONG_MIN, LONG_MAX, x); }
inline uchar xd_from_f_b8(float x) { return x != 0.0f ? 1 : 0; }

// long (kind l) -> storage; integer targets wrap.
inline float xd_from_l_f32(long x) { return convert_float_rte(x); }
inline ushort xd_from_l_f16(long x) { return xd_float_to_f16(convert_float_rte(x)); }
inline ushort xd_from_l_bf16(long x) { return xd_float_to_bf16(convert_float_rte(x)); }
inline uchar xd_from_l_e4m3(long x) { return (uchar)xd_fp8_encode(convert_float_rte(x), 4, 3, 0); }
inline uchar xd_from_l_e5m2(long x) { return (uchar)xd_fp8_encode(convert_float_rte(x), 5, 2, 1); }
inline char xd_from_l_i8(long x) { return (char)x; }
inline uchar xd_from_l_u8(long x) { return (uchar)x; }
inline int xd_from_l_i32(long x) { return (int)x; }
inline long xd_from_l_i64(long x) { return x; }
inline uchar xd_from_l_b8(long x) { return x != 0 ? 1 : 0; }

#ifdef XD_HAS_FP64
inline double xd_dec_f64(double x) { return x; }
inline double xd_from_f_f64(float x) { return (double)x; }
inline double xd_from_l_f64(long x) { return convert_double_rte(x); }
inline double xd_from_d_f64(double x) { return x; }
inline float xd_from_d_f32(double x) { return convert_float_rte(x); }
inline ushort xd_from_d_f16(double x) { return xd_float_to_f16(convert_float_rte(x)); }
inline ushort xd_from_d_bf16(double x) { return xd_float_to_bf16(convert_float_rte(x)); }
inline uchar xd_from_d_e4m3(double x) { return (uchar)xd_fp8_encode(convert_float_rte(x), 4, 3, 0); }
inline uchar xd_from_d_e5m2(double x) { return (uchar)xd_fp8_encode(convert_float_rte(x), 5, 2, 1); }
inline char xd_from_d_i8(double x) { return XD_SAT(double, char, -128, 127, x); }
inline uchar xd_from_d_u8(double x) { return XD_SAT(double, uchar, 0, 255, x); }
inline int xd_from_d_i32(double x) { return XD_SAT(double, int, INT_MIN, INT_MAX, x); }
inline long xd_from_d_i64(double x) { return XD_SAT(double, long, LONG_MIN, LONG_MAX, x); }
inline uchar xd_from_d_b8(double x) { return x != 0.0 ? 1 : 0; }
#endif

// ---------------------------------------------------------------- the program's dtype
#ifndef XD_DT
#define XD_DT f32
#endif
#ifndef XD_WT
#define XD_WT XD_DT
#endif
#define T XD_CAT(xd_T_, XD_DT)
#define CT XD_CAT(xd_C_, XD_DT)
#define CT4 XD_CAT(CT, 4)
#define XD_KIND XD_CAT(xd_K_, XD_DT)
#define XD_CLASS XD_CAT(xd_N_, XD_DT)
#define XD_FLOATING (XD_CLASS == 1 || XD_CLASS == 2)
// storage -> compute, compute -> storage
#define XD_DEC(x) XD_CAT(xd_dec_, XD_DT)(x)
#define XD_ENC(x) XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, XD_DT))(x)
#define XD_LD(p, i) XD_DEC((p)[i])
#define XD_ST(p, i, v) ((p)[i] = XD_ENC(v))

// vload4/vstore4 only assume the scalar's alignment, so compilers emit four scalar accesses; a
// vector-aligned address takes one wide access instead (V4: the vector type, p: the address).
#define XD_VLOAD4(V4, p) \
  ((((ulong)(p)) & (sizeof(V4) - 1)) == 0 ? *(__global const V4*)(p) : vload4(0, (p)))
#define XD_VSTORE4(V4, v, p)                                  \
  do {                                                        \
    if ((((ulong)(p)) & (sizeof(V4) - 1)) == 0)               \
      *(__global V4*)(p) = (v);                               \
    else                                                      \
      vstore4((v), 0, (p));                                   \
  } while (0)

// Four consecutive elements (any element-aligned address) or four strided/broadcast ones.
inline CT4 xd_load4(__global const T* p, long o, long s) {
  if (s == 1) {
    const XD_CAT(T, 4) v = XD_VLOAD4(XD_CAT(T, 4), p + o);
    return (CT4)(XD_DEC(v.s0), XD_DEC(v.s1), XD_DEC(v.s2), XD_DEC(v.s3));
  }
  if (s == 0) return (CT4)(XD_DEC(p[o]));
  return (CT4)(XD_DEC(p[o]), XD_DEC(p[o + s]), XD_DEC(p[o + 2 * s]), XD_DEC(p[o + 3 * s]));
}

// Four consecutive elements at a vector-aligned address (the caller guarantees the alignment).
inline CT4 xd_vec4(__global const T* p) {
  const XD_CAT(T, 4) v = *(__global const XD_CAT(T, 4)*)p;
  return (CT4)(XD_DEC(v.s0), XD_DEC(v.s1), XD_DEC(v.s2), XD_DEC(v.s3));
}

// The same store at a vector-aligned address.
inline void xd_vec_store4(__global T* p, CT4 v) {
  *(__global XD_CAT(T, 4)*)p = (XD_CAT(T, 4))(XD_ENC(v.s0), XD_ENC(v.s1), XD_ENC(v.s2), XD_ENC(v.s3));
}

// Whether p is a multiple of `bytes` (a power of two): the row kernels' test for their
// vector-only path, made once per row instead of once per access.
inline int xd_vec_aligned(__global const void* p, ulong bytes) { return ((ulong)p & (bytes - 1)) == 0; }

inline void xd_store4(__global T* p, long o, long s, CT4 v) {
  const XD_CAT(T, 4) e = (XD_CAT(T, 4))(XD_ENC(v.s0), XD_ENC(v.s1), XD_ENC(v.s2), XD_ENC(v.s3));
  if (s == 1) {
    XD_VSTORE4(XD_CAT(T, 4), e, p + o);
  } else {
    p[o] = e.s0;
    p[o + s] = e.s1;
    p[o + 2 * s] = e.s2;
    p[o + 3 * s] = e.s3;
  }
}


// ---------------------------------------------------------------- locating a work-item's run
// The first element of the XD_VEC-long run of work-item g, per operand, and the run's length.
typedef struct {
  long o[XD_MAX_OPS];
  long n;
} xd_run;

inline xd_run xd_locate(const xd_layout L, ulong g, int nops) {
  xd_run r;
  ulong row = 0, cb = g;
  if (L.ndim > 1) {
    row = xd_udiv(g, (ulong)L.col_blocks);
    cb = g - row * (ulong)L.col_blocks;
  }
  const long c0 = (long)cb * XD_VEC;
  r.n = min((long)XD_VEC, L.size[0] - c0);
  for (int k = 0; k < nops; ++k) r.o[k] = L.offset[k] + c0 * L.stride[k][0];
  for (int d = 1; d < L.ndim; ++d) {
    const ulong sz = (ulong)L.size[d];
    const ulong q = xd_udiv(row, sz);
    const long idx = (long)(row - q * sz);
    row = q;
    for (int k = 0; k < nops; ++k) r.o[k] += idx * L.stride[k][d];
  }
  return r;
}

// Element offset of operand k for the linear (row-major) index i of the layout.
inline long xd_offset_of(const xd_layout L, int k, ulong i) {
  long o = L.offset[k];
  for (int d = 0; d < L.ndim; ++d) {
    const ulong sz = (ulong)L.size[d];
    const ulong q = xd_udiv(i, sz);
    o += (long)(i - q * sz) * L.stride[k][d];
    i = q;
  }
  return o;
}

// Index `row` (< L.numel) of operand k (a row of the row kernels, an element of random.cl's): one
// multiply-add where the layout has a single dim, instead of xd_offset_of's division per dim.
inline long xd_row_offset(const xd_layout L, int k, ulong row) {
  return L.ndim == 1 ? L.offset[k] + (long)row * L.stride[k][0] : xd_offset_of(L, k, row);
}

// An op's scalar (alpha, fill value, exponent) in the compute type.
#if XD_CLASS == 1 || XD_CLASS == 5
#define XD_SCALAR(S, k) ((S).f[k])
#elif XD_CLASS == 2
#define XD_SCALAR(S, k) as_double((S).d[k])
#else
#define XD_SCALAR(S, k) ((S).i[k])
#endif

// Four storage values moved bit for bit (copies within a dtype, where).
inline XD_CAT(T, 4) xd_raw_load4(__global const T* p, long o, long s) {
  if (s == 1) return XD_VLOAD4(XD_CAT(T, 4), p + o);
  if (s == 0) return (XD_CAT(T, 4))(p[o]);
  return (XD_CAT(T, 4))(p[o], p[o + s], p[o + 2 * s], p[o + 3 * s]);
}

inline void xd_raw_store4(__global T* p, long o, long s, XD_CAT(T, 4) v) {
  if (s == 1) {
    XD_VSTORE4(XD_CAT(T, 4), v, p + o);
  } else {
    p[o] = v.s0;
    p[o + s] = v.s1;
    p[o + 2 * s] = v.s2;
    p[o + 3 * s] = v.s3;
  }
}

// Rows that softmax.cl and rms_norm.cl cache in registers: XD_WG * 4 * XD_ROW_ITEMS elements,
// half that in their _short kernels (row_is_short in plugins/xpu/common/rows.hpp picks them). At
// least two items per work-item there: PoCL 3.1 (LLVM 15) miscompiles the one-item variant (rstd and
// dw left unwritten) unless optimisations are off.
#ifndef XD_ROW_ITEMS
#define XD_ROW_ITEMS 8
#endif
#if XD_ROW_ITEMS < 4
#error "XD_ROW_ITEMS must be at least 4"
#endif
#define XD_SHORT_ITEMS (XD_ROW_ITEMS / 2)

// Work-group reductions over XD_WG work-items: through local memory on every device (OpenCL 1.2
// has no portable sub-group shuffles), warp shuffles first on NVIDIA GPUs (XD_NV_SHFL, below).
// `scratch` holds XD_WG values; every work-item gets the result.
#ifndef XD_WG
#define XD_WG 256
#endif

// Two levels and three barriers instead of a log2(XD_WG)-level tree: XD_WG_LANES work-items each
// fold a strided column of the XD_WG values (work-item l reads l, l + LANES, ...: only it writes
// slot l afterwards, so no barrier is needed between its reads and its write), then every
// work-item folds the LANES partials itself (broadcast reads). A row kernel waits on every barrier
// between its loads and its stores, and the tree has nine per reduction at XD_WG = 256 (measured:
// docs/performance.md, "NVIDIA H100 through NVIDIA's OpenCL", softmax).
#if XD_WG >= 256
#define XD_WG_LANES 16
#elif XD_WG >= 16
#define XD_WG_LANES 4
#else
#define XD_WG_LANES 1
#endif


// On NVIDIA GPUs (the host defines XD_NV_SHFL where the compiler takes inline PTX) a warp folds its
// 32 values through register shuffles first, so one barrier publishes the warps' partials and a
// second guards the scratch's reuse: two barriers and no local-memory round trips inside a warp.
// Every lane ends with the same bits (the butterfly applies OP to the same pair on both sides) and
// every work-item folds the partials in the same order, so the result is one value.
#if defined(XD_NV_SHFL) && XD_FLOATING && XD_WG >= 64 && XD_WG % 32 == 0
#define XD_WG_SHFL 1
inline uint xd_shfl_xor_u(uint v, int m) {
  uint r;
  XD_ASM volatile("shfl.sync.bfly.b32 %0, %1, %2, 31, -1;" : "=r"(r) : "r"(v), "r"(m));
  return r;
}
#if XD_CLASS == 2
inline CT xd_shfl_xor(CT v, int m) {
  const uint2 u = as_uint2(v);
  return as_double((uint2)(xd_shfl_xor_u(u.x, m), xd_shfl_xor_u(u.y, m)));
}
#else
inline CT xd_shfl_xor(CT v, int m) { return as_float(xd_shfl_xor_u(as_uint(v), m)); }
#endif
#endif

// OP(a, b) folds two partials; it must be associative and commutative (up to rounding).
#ifdef XD_WG_SHFL
#define XD_WG_REDUCE(OP, v, scratch, out)                                        \
  do {                                                                           \
    const int lid_ = (int)get_local_id(0);                                       \
    CT w_ = (v);                                                                 \
    for (int m_ = 16; m_ > 0; m_ >>= 1) w_ = OP(w_, xd_shfl_xor(w_, m_));        \
    if ((lid_ & 31) == 0) (scratch)[lid_ >> 5] = w_;                             \
    barrier(CLK_LOCAL_MEM_FENCE);                                                \
    CT all_ = (scratch)[0];                                                      \
    for (int i_ = 1; i_ < XD_WG / 32; ++i_) all_ = OP(all_, (scratch)[i_]);      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                \
    (out) = all_;                                                                \
  } while (0)
#else
#define XD_WG_REDUCE(OP, v, scratch, out)                                   \
  do {                                                                      \
    const int lid_ = (int)get_local_id(0);                                  \
    (scratch)[lid_] = (v);                                                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                           \
    if (lid_ < XD_WG_LANES) {                                               \
      CT acc_ = (scratch)[lid_];                                            \
      for (int i_ = lid_ + XD_WG_LANES; i_ < XD_WG; i_ += XD_WG_LANES)      \
        acc_ = OP(acc_, (scratch)[i_]);                                     \
      (scratch)[lid_] = acc_;                                               \
    }                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                           \
    CT all_ = (scratch)[0];                                                 \
    for (int i_ = 1; i_ < XD_WG_LANES; ++i_) all_ = OP(all_, (scratch)[i_]); \
    barrier(CLK_LOCAL_MEM_FENCE);                                           \
    (out) = all_;                                                           \
  } while (0)
#endif

inline CT xd_add_ct(CT a, CT b) { return a + b; }

inline CT xd_wg_sum(CT v, __local CT* scratch) {
  CT r;
  XD_WG_REDUCE(xd_add_ct, v, scratch, r);
  return r;
}
