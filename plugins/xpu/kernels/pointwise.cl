// Pointwise kernels of the program's dtype T: fill, arange, unary (clamp, floor and round among
// them), binary (maximum and minimum among them), comparisons, where and copies (to every dtype).
// Semantics are those of plugins/cpu/kernels/{creation,unary,binary,compare,copy}.cpp: compute in
// CT (float for f16/bf16, double for f64, long for integers), round once; integers wrap in two's
// complement.
//
// Every kernel walks an xd_layout: work-item g covers XD_VEC consecutive elements along the
// innermost dim (vector loads where that dim is dense), so contiguous, strided and broadcast
// operands share one kernel and one compiled binary.

// ---------------------------------------------------------------- skeletons
// out[i] = FN(a[i], S)
#define XD_MAP1(NAME, FN)                                                                            \
  __kernel void NAME(__global T* out, __global const T* a, const xd_layout L, const xd_scalars S) { \
    const ulong g = get_global_id(0);                                                              \
    if (g >= (ulong)L.work) return;                                                                \
    const xd_run r = xd_locate(L, g, 2);                                                           \
    const long so = L.stride[0][0], sa = L.stride[1][0];                                           \
    if (r.n == XD_VEC) {                                                                           \
      const CT4 x = xd_load4(a, r.o[1], sa);                                                       \
      xd_store4(out, r.o[0], so, (CT4)(FN(x.s0, S), FN(x.s1, S), FN(x.s2, S), FN(x.s3, S)));       \
    } else {                                                                                       \
      for (long j = 0; j < r.n; ++j) XD_ST(out, r.o[0] + j * so, FN(XD_LD(a, r.o[1] + j * sa), S)); \
    }                                                                                              \
  }

// out[i] = FN(a[i], b[i], S)
#define XD_MAP2(NAME, FN)                                                                              \
  __kernel void NAME(__global T* out, __global const T* a, __global const T* b, const xd_layout L,     \
                     const xd_scalars S) {                                                             \
    const ulong g = get_global_id(0);                                                                  \
    if (g >= (ulong)L.work) return;                                                                    \
    const xd_run r = xd_locate(L, g, 3);                                                               \
    const long so = L.stride[0][0], sa = L.stride[1][0], sb = L.stride[2][0];                          \
    if (r.n == XD_VEC) {                                                                               \
      const CT4 x = xd_load4(a, r.o[1], sa);                                                           \
      const CT4 y = xd_load4(b, r.o[2], sb);                                                           \
      xd_store4(out, r.o[0], so,                                                                       \
                (CT4)(FN(x.s0, y.s0, S), FN(x.s1, y.s1, S), FN(x.s2, y.s2, S), FN(x.s3, y.s3, S)));    \
    } else {                                                                                           \
      for (long j = 0; j < r.n; ++j)                                                                   \
        XD_ST(out, r.o[0] + j * so, FN(XD_LD(a, r.o[1] + j * sa), XD_LD(b, r.o[2] + j * sb), S));      \
    }                                                                                                  \
  }

// bool out[i] = a[i] OP b[i], compared exactly in CT (NaN unordered).
#define XD_COMPARE(NAME, OP)                                                                            \
  __kernel void NAME(__global uchar* out, __global const T* a, __global const T* b, const xd_layout L) { \
    const ulong g = get_global_id(0);                                                                   \
    if (g >= (ulong)L.work) return;                                                                     \
    const xd_run r = xd_locate(L, g, 3);                                                                \
    const long so = L.stride[0][0], sa = L.stride[1][0], sb = L.stride[2][0];                           \
    if (r.n == XD_VEC && so == 1) {                                                                     \
      const CT4 x = xd_load4(a, r.o[1], sa);                                                            \
      const CT4 y = xd_load4(b, r.o[2], sb);                                                            \
      XD_VSTORE4(uchar4,                                                                                \
                 (uchar4)((uchar)(x.s0 OP y.s0), (uchar)(x.s1 OP y.s1), (uchar)(x.s2 OP y.s2), (uchar)(x.s3 OP y.s3)), \
                 out + r.o[0]);                                                                         \
    } else {                                                                                            \
      for (long j = 0; j < r.n; ++j)                                                                    \
        out[r.o[0] + j * so] = (XD_LD(a, r.o[1] + j * sa) OP XD_LD(b, r.o[2] + j * sb)) ? 1 : 0;        \
    }                                                                                                   \
  }

// ---------------------------------------------------------------- fill, arange, where, copy
// The value arrives in the compute type and is rounded here with the reference's cast rules.
__kernel void xd_fill(__global T* out, const xd_layout L, const xd_scalars S) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)L.work) return;
  const xd_run r = xd_locate(L, g, 1);
  const T v = XD_ENC(XD_SCALAR(S, 0));
  const long so = L.stride[0][0];
  if (r.n == XD_VEC) {
    xd_raw_store4(out, r.o[0], so, (XD_CAT(T, 4))(v));
  } else {
    for (long j = 0; j < r.n; ++j) out[r.o[0] + j * so] = v;
  }
}

#if XD_CLASS != 4 && XD_CLASS != 5
// out[i] = start + i*step: floating dtypes in double and rounded once (in float on a device
// without fp64), integers with wrapping arithmetic.
__kernel void xd_arange(__global T* out, const xd_layout L, const xd_scalars S) {
  const ulong i = get_global_id(0);
  if (i >= (ulong)L.numel) return;
  const long o = xd_offset_of(L, 0, i);
#if XD_CLASS == 3
  out[o] = XD_ENC((long)((ulong)S.i[0] + i * (ulong)S.i[1]));
#elif defined(XD_HAS_FP64)
  out[o] = XD_CAT(xd_from_d_, XD_DT)(as_double(S.d[0]) + (double)i * as_double(S.d[1]));
#else
  out[o] = XD_ENC(S.f[0] + (float)i * S.f[1]);
#endif
}
#endif

// cond ? a : b, values moved bit for bit.
__kernel void xd_where(__global T* out, __global const uchar* cond, __global const T* a, __global const T* b,
                       const xd_layout L) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)L.work) return;
  const xd_run r = xd_locate(L, g, 4);
  const long so = L.stride[0][0], sc = L.stride[1][0], sa = L.stride[2][0], sb = L.stride[3][0];
  for (long j = 0; j < r.n; ++j)
    out[r.o[0] + j * so] = cond[r.o[1] + j * sc] != 0 ? a[r.o[2] + j * sa] : b[r.o[3] + j * sb];
}

// Same dtype: bits preserved (NaN payloads too).
__kernel void xd_copy_same(__global T* out, __global const T* a, const xd_layout L) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)L.work) return;
  const xd_run r = xd_locate(L, g, 2);
  const long so = L.stride[0][0], sa = L.stride[1][0];
  if (r.n == XD_VEC) {
    xd_raw_store4(out, r.o[0], so, xd_raw_load4(a, r.o[1], sa));
  } else {
    for (long j = 0; j < r.n; ++j) out[r.o[0] + j * so] = a[r.o[1] + j * sa];
  }
}

// Cast to dtype tag D: decode T to CT, then D's conversion from CT's kind.
#define XD_COPY_TO(D)                                                                                 \
  __kernel void XD_CAT(xd_copy_to_, D)(__global XD_CAT(xd_T_, D) * out, __global const T* a,          \
                                       const xd_layout L) {                                           \
    const ulong g = get_global_id(0);                                                                 \
    if (g >= (ulong)L.work) return;                                                                   \
    const xd_run r = xd_locate(L, g, 2);                                                              \
    const long so = L.stride[0][0], sa = L.stride[1][0];                                              \
    if (r.n == XD_VEC && so == 1) {                                                                   \
      const CT4 x = xd_load4(a, r.o[1], sa);                                                          \
      XD_VSTORE4(XD_CAT(XD_CAT(xd_T_, D), 4),                                                         \
                 (XD_CAT(XD_CAT(xd_T_, D), 4))(XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, D))(x.s0),          \
                                               XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, D))(x.s1),          \
                                               XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, D))(x.s2),          \
                                               XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, D))(x.s3)),         \
                 out + r.o[0]);                                                                       \
    } else {                                                                                          \
      for (long j = 0; j < r.n; ++j)                                                                  \
        out[r.o[0] + j * so] = XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, D))(XD_LD(a, r.o[1] + j * sa));   \
    }                                                                                                 \
  }

XD_COPY_TO(f32)
XD_COPY_TO(f16)
XD_COPY_TO(bf16)
XD_COPY_TO(e4m3)
XD_COPY_TO(e5m2)
XD_COPY_TO(i8)
XD_COPY_TO(u8)
XD_COPY_TO(i32)
XD_COPY_TO(i64)
XD_COPY_TO(b8)
#ifdef XD_HAS_FP64
XD_COPY_TO(f64)
#endif

// ---------------------------------------------------------------- arithmetic
#if XD_CLASS == 3
// Integers: two's-complement wrapping through unsigned arithmetic (signed overflow is undefined).
inline long xd_wadd(long a, long b) { return (long)((ulong)a + (ulong)b); }
inline long xd_wsub(long a, long b) { return (long)((ulong)a - (ulong)b); }
inline long xd_wmul(long a, long b) { return (long)((ulong)a * (ulong)b); }
inline long xd_neg_op(long x, const xd_scalars S) { return (long)(0UL - (ulong)x); }
inline long xd_abs_op(long x, const xd_scalars S) { return x < 0 ? (long)(0UL - (ulong)x) : x; }
inline long xd_relu_op(long x, const xd_scalars S) { return x > 0 ? x : 0L; }
inline long xd_add_op(long a, long b, const xd_scalars S) { return xd_wadd(a, xd_wmul(S.i[0], b)); }
inline long xd_sub_op(long a, long b, const xd_scalars S) { return xd_wsub(a, xd_wmul(S.i[0], b)); }
inline long xd_mul_op(long a, long b, const xd_scalars S) { return xd_wmul(a, b); }
inline long xd_maximum_op(long a, long b, const xd_scalars S) { return a < b ? b : a; }
inline long xd_minimum_op(long a, long b, const xd_scalars S) { return b < a ? b : a; }
// clamp: S.i[0], S.i[1] the bounds in the dtype's range (plugin_abi.h); floor and round copy.
inline long xd_clamp_op(long x, const xd_scalars S) {
  const long y = x < S.i[0] ? S.i[0] : x;
  return S.i[1] < y ? S.i[1] : y;
}
inline long xd_floor_op(long x, const xd_scalars S) { return x; }
inline long xd_round_op(long x, const xd_scalars S) { return x; }
#elif XD_FLOATING
inline CT xd_neg_op(CT x, const xd_scalars S) { return -x; }
inline CT xd_abs_op(CT x, const xd_scalars S) { return fabs(x); }
// relu(NaN) = NaN and relu(-0) = +0, as PyTorch's clamp_min(x, 0).
inline CT xd_relu_op(CT x, const xd_scalars S) { return (x > (CT)0 || isnan(x)) ? x : (CT)0; }
inline CT xd_add_op(CT a, CT b, const xd_scalars S) { return a + XD_SCALAR(S, 0) * b; }
inline CT xd_sub_op(CT a, CT b, const xd_scalars S) { return a - XD_SCALAR(S, 0) * b; }
inline CT xd_mul_op(CT a, CT b, const xd_scalars S) { return a * b; }
inline CT xd_div_op(CT a, CT b, const xd_scalars S) { return a / b; }
// maximum/minimum (plugin_abi.h): NaN in either operand gives NaN, of two equal values a; not
// fmax/fmin, which return the number beside a NaN and either zero of +-0.
inline CT xd_maximum_op(CT a, CT b, const xd_scalars S) { return isnan(a) ? a : isnan(b) ? b : (a < b ? b : a); }
inline CT xd_minimum_op(CT a, CT b, const xd_scalars S) { return isnan(a) ? a : isnan(b) ? b : (b < a ? b : a); }
inline CT xd_exp_op(CT x, const xd_scalars S) { return exp(x); }
inline CT xd_log_op(CT x, const xd_scalars S) { return log(x); }
inline CT xd_sqrt_op(CT x, const xd_scalars S) { return sqrt(x); }
inline CT xd_rsqrt_op(CT x, const xd_scalars S) { return (CT)1 / sqrt(x); }
// tanh and erf are exactly +-1 in CT beyond these arguments; some math libraries (PoCL's) stop
// one unit short, which gelu's 1 + tanh(...) would turn into a wrong sign of zero or -inf * tiny.
#if XD_CLASS == 2
#define XD_TANH_SAT 20.0
#define XD_ERF_SAT 6.0
#else
#define XD_TANH_SAT 9.0f
#define XD_ERF_SAT 4.0f
#endif
inline CT xd_tanh_sat(CT x) { return fabs(x) >= XD_TANH_SAT ? copysign((CT)1, x) : tanh(x); }
inline CT xd_erf_sat(CT x) { return fabs(x) >= XD_ERF_SAT ? copysign((CT)1, x) : erf(x); }
// S.i[0]: 0 exact erf form, 1 tanh approximation; the operation order is the reference's.
inline CT xd_gelu_op(CT x, const xd_scalars S) {
  if (S.i[0] != 0) {
    const CT beta = (CT)0.79788456080286535588;
    const CT kappa = (CT)0.044715;
    return (CT)0.5 * x * ((CT)1 + xd_tanh_sat(beta * (x + kappa * x * x * x)));
  }
  return x * (CT)0.5 * ((CT)1 + xd_erf_sat(x * (CT)0.70710678118654752440));
}
inline CT xd_silu_op(CT x, const xd_scalars S) { return x / ((CT)1 + exp(-x)); }
inline CT xd_sigmoid_op(CT x, const xd_scalars S) { return (CT)1 / ((CT)1 + exp(-x)); }
inline CT xd_tanh_op(CT x, const xd_scalars S) { return xd_tanh_sat(x); }
inline CT xd_pow_op(CT x, const xd_scalars S) { return pow(x, XD_SCALAR(S, 0)); }
// clamp (plugin_abi.h): bounds exact in the dtype, so CT compares exactly; PyTorch's comparisons,
// not fmax/fmin: a NaN element stays NaN, an element equal to a bound is kept, lo > hi gives hi.
inline CT xd_clamp_op(CT x, const xd_scalars S) {
  const CT lo = XD_SCALAR(S, 0), hi = XD_SCALAR(S, 1);
  if (isnan(lo) || isnan(hi)) return lo + hi;  // both bounds given, one NaN: NaN everywhere
  const CT y = x < lo ? lo : x;
  return hi < y ? hi : y;
}
inline CT xd_floor_op(CT x, const xd_scalars S) { return floor(x); }
// rint rounds half to even. S.i[0] is the sign of decimals, XD_SCALAR(S, 0) the scale 10^|d| in
// CT, each step rounded in CT as the reference does (the float quotient is correctly rounded: the
// programs are built with -cl-fp32-correctly-rounded-divide-sqrt where the device offers it).
inline CT xd_round_op(CT x, const xd_scalars S) {
  const CT s = XD_SCALAR(S, 0);
  if (S.i[0] == 0) return rint(x);
  return S.i[0] > 0 ? rint(x * s) / s : rint(x / s) * s;
}
#endif

#if XD_CLASS == 1 || XD_CLASS == 2 || XD_CLASS == 3
XD_MAP1(xd_neg, xd_neg_op)
XD_MAP1(xd_abs, xd_abs_op)
XD_MAP1(xd_relu, xd_relu_op)
XD_MAP2(xd_add, xd_add_op)
XD_MAP2(xd_sub, xd_sub_op)
XD_MAP2(xd_mul, xd_mul_op)
XD_MAP2(xd_maximum, xd_maximum_op)
XD_MAP2(xd_minimum, xd_minimum_op)
XD_MAP1(xd_clamp, xd_clamp_op)
XD_MAP1(xd_floor, xd_floor_op)
XD_MAP1(xd_round, xd_round_op)
XD_COMPARE(xd_lt, <)
XD_COMPARE(xd_gt, >)
XD_COMPARE(xd_ge, >=)
XD_COMPARE(xd_le, <=)
#endif
#if XD_CLASS != 5
XD_COMPARE(xd_eq, ==)
XD_COMPARE(xd_ne, !=)
#endif
#if XD_FLOATING
XD_MAP2(xd_div, xd_div_op)
XD_MAP1(xd_exp, xd_exp_op)
XD_MAP1(xd_log, xd_log_op)
XD_MAP1(xd_sqrt, xd_sqrt_op)
XD_MAP1(xd_rsqrt, xd_rsqrt_op)
XD_MAP1(xd_gelu, xd_gelu_op)
XD_MAP1(xd_silu, xd_silu_op)
XD_MAP1(xd_sigmoid, xd_sigmoid_op)
XD_MAP1(xd_tanh, xd_tanh_op)
XD_MAP1(xd_pow, xd_pow_op)
#endif
