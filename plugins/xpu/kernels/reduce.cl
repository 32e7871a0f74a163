// SUM, MEAN, AMAX, AMIN, ARGMAX over the dims of a mask (plugins/cpu/kernels/reduction.cpp gives
// the semantics). The host splits the input's index space into K (kept dims: operand 0 = output,
// operand 1 = input) and R (reduced dims: operand 0 = input, offset 0).
//
// Three kernels per op:
//   _group  one work-group per (output, split): work-items stride over the split's range, then a
//           tree in local memory. With one split it writes the result, else a partial.
//   _finish one work-group per output: combines the partials of the splits.
//   _lane   one work-item per output, walking its whole range (reduced dims outside the
//           innermost one: neighbouring work-items read neighbouring addresses).
// Accumulators: double for floating sums and means (float on a device without fp64), wrapping
// long for integer sums (the output is i64), the compute type for amax/amin. NaN propagates through amax/amin; argmax
// takes the first index of the maximum, a NaN counting as the maximum (first NaN wins).

#if XD_CLASS == 1 || XD_CLASS == 2 || XD_CLASS == 3

// Offset of reduced element r (R has one operand, offset 0).
inline long xd_red_offset(const xd_layout R, ulong r) {
  return R.ndim == 1 ? (long)r * R.stride[0][0] : xd_offset_of(R, 0, r);
}

#if XD_CLASS == 3
#define XD_SUM_ACC long
#define XD_SUM_OUT long
#define XD_SUM_STEP(a, x) ((long)((ulong)(a) + (ulong)(x)))
#define XD_SUM_FINISH(a, n) (a)
#define XD_MAX_INIT LONG_MIN
#define XD_MIN_INIT LONG_MAX
#define XD_ISNAN(x) 0
#else
// Floating sums accumulate in double wherever the device has it, as the reference does: values
// of very different magnitudes (or that cancel) then sum like the reference's.
#ifdef XD_HAS_FP64
#define XD_SUM_ACC double
#define XD_SUM_FINISH(a, n) XD_CAT(xd_from_d_, XD_DT)(a)
#define XD_MEAN_FINISH(a, n) XD_CAT(xd_from_d_, XD_DT)((n) == 0 ? (double)NAN : (a) / (double)(n))
#else
#define XD_SUM_ACC CT
#define XD_SUM_FINISH(a, n) XD_ENC(a)
#define XD_MEAN_FINISH(a, n) XD_ENC((n) == 0 ? (CT)NAN : (a) / (CT)(n))
#endif
#define XD_SUM_OUT T
#define XD_SUM_STEP(a, x) ((a) + (XD_SUM_ACC)(x))
#define XD_MAX_INIT (-INFINITY)
#define XD_MIN_INIT INFINITY
#define XD_ISNAN(x) isnan(x)
#endif

inline CT xd_max_step(CT a, CT x) { return XD_ISNAN(a) ? a : (XD_ISNAN(x) ? x : (x > a ? x : a)); }
inline CT xd_min_step(CT a, CT x) { return XD_ISNAN(a) ? a : (XD_ISNAN(x) ? x : (x < a ? x : a)); }

// NAME: op; ACC: accumulator; OUT: output storage type; INIT; STEP(acc, x) for an element (x in
// CT) and for combining two accumulators; FINISH(acc, n) -> OUT.
#define XD_REDUCTION(NAME, ACC, OUT, INIT, STEP, FINISH)                                                      \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void XD_CAT3(xd_, NAME, _group)(                 \
      __global OUT* out, __global const T* in, const xd_layout K, const xd_layout R, long splits, long chunk, \
      __global ACC* partial, long poff) {                                                                     \
    __local ACC scratch[XD_WG];                                                                               \
    const ulong grp = get_group_id(0);                                                                        \
    const int lid = (int)get_local_id(0);                                                                     \
    const ulong o = xd_udiv(grp, (ulong)splits);                                                              \
    const long s = (long)(grp - o * (ulong)splits);                                                           \
    const long base = xd_offset_of(K, 1, o);                                                                  \
    const long begin = s * chunk;                                                                             \
    const long end = min(R.numel, begin + chunk);                                                             \
    ACC acc = INIT;                                                                                           \
    if (R.ndim == 1) {                                                                                        \
      const long st = R.stride[0][0];                                                                         \
      for (long r = begin + lid; r < end; r += XD_WG) acc = STEP(acc, XD_LD(in, base + r * st));             \
    } else {                                                                                                  \
      for (long r = begin + lid; r < end; r += XD_WG) acc = STEP(acc, XD_LD(in, base + xd_offset_of(R, 0, r))); \
    }                                                                                                         \
    scratch[lid] = acc;                                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                             \
    for (int w = XD_WG / 2; w > 0; w >>= 1) {                                                                 \
      if (lid < w) scratch[lid] = STEP(scratch[lid], scratch[lid + w]);                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                           \
    }                                                                                                         \
    if (lid == 0) {                                                                                           \
      if (splits == 1)                                                                                        \
        out[xd_offset_of(K, 0, o)] = FINISH(scratch[0], R.numel);                                             \
      else                                                                                                    \
        partial[poff + (long)grp] = scratch[0];                                                               \
    }                                                                                                         \
  }                                                                                                           \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void XD_CAT3(xd_, NAME, _finish)(                \
      __global OUT* out, __global const ACC* partial, long poff, const xd_layout K, long splits, long n) {    \
    __local ACC scratch[XD_WG];                                                                               \
    const ulong o = get_group_id(0);                                                                          \
    const int lid = (int)get_local_id(0);                                                                     \
    ACC acc = INIT;                                                                                           \
    for (long s = lid; s < splits; s += XD_WG) acc = STEP(acc, partial[poff + (long)o * splits + s]);         \
    scratch[lid] = acc;                                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                             \
    for (int w = XD_WG / 2; w > 0; w >>= 1) {                                                                 \
      if (lid < w) scratch[lid] = STEP(scratch[lid], scratch[lid + w]);                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                           \
    }                                                                                                         \
    if (lid == 0) out[xd_offset_of(K, 0, o)] = FINISH(scratch[0], n);                                         \
  }                                                                                                           \
  __kernel void XD_CAT3(xd_, NAME, _lane)(__global OUT* out, __global const T* in, const xd_layout K,         \
                                          const xd_layout R) {                                                \
    const ulong o = get_global_id(0);                                                                         \
    if (o >= (ulong)K.numel) return;                                                                          \
    const long base = xd_offset_of(K, 1, o);                                                                  \
    ACC acc = INIT;                                                                                           \
    for (long r = 0; r < R.numel; ++r) acc = STEP(acc, XD_LD(in, base + xd_red_offset(R, (ulong)r)));        \
    out[xd_offset_of(K, 0, o)] = FINISH(acc, R.numel);                                                        \
  }

#define XD_PASS(a, n) XD_ENC(a)
XD_REDUCTION(sum, XD_SUM_ACC, XD_SUM_OUT, (XD_SUM_ACC)0, XD_SUM_STEP, XD_SUM_FINISH)
XD_REDUCTION(amax, CT, T, XD_MAX_INIT, xd_max_step, XD_PASS)
XD_REDUCTION(amin, CT, T, XD_MIN_INIT, xd_min_step, XD_PASS)
#if XD_FLOATING
// An empty range gives NaN (0/0), as PyTorch's mean does.
XD_REDUCTION(mean, XD_SUM_ACC, T, (XD_SUM_ACC)0, XD_SUM_STEP, XD_MEAN_FINISH)
#endif

// ---------------------------------------------------------------- argmax
// (value, index) pairs; index -1 is "nothing yet". The combination is associative and
// commutative, so the result does not depend on how the range is split.
inline void xd_arg_step(CT* v, long* i, CT w, long j) {
  if (j < 0) return;
  if (*i < 0) {
    *v = w;
    *i = j;
    return;
  }
  // bool, not int: for integers XD_ISNAN is the constant 0, and `&&` on constant ints is an
  // error under the SPIR-V build's -Werror (-Wconstant-logical-operand).
  const bool vn = XD_ISNAN(*v), wn = XD_ISNAN(w);
  if (vn && wn) {
    if (j < *i) *i = j;
    return;
  }
  if (vn) return;
  if (wn || w > *v || (w == *v && j < *i)) {
    *v = w;
    *i = j;
  }
}

// Combines every work-item's (value, index) pair of the work-group; the result lands in sv[0],
// si[0], visible to every work-item after the final barrier.
inline void xd_arg_wg(CT v, long idx, __local CT* sv, __local long* si) {
  const int lid = (int)get_local_id(0);
  sv[lid] = v;
  si[lid] = idx;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = XD_WG / 2; w > 0; w >>= 1) {
    if (lid < w) {
      CT a = sv[lid];
      long ai = si[lid];
      xd_arg_step(&a, &ai, sv[lid + w], si[lid + w]);
      sv[lid] = a;
      si[lid] = ai;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// The reduced dim has one operand stride: argmax reduces exactly one dim.
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_argmax_group(
    __global long* out, __global const T* in, const xd_layout K, const xd_layout R, long splits, long chunk,
    __global CT* pval, long pvoff, __global long* pidx, long pioff) {
  __local CT sv[XD_WG];
  __local long si[XD_WG];
  const ulong grp = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const ulong o = xd_udiv(grp, (ulong)splits);
  const long s = (long)(grp - o * (ulong)splits);
  const long base = xd_offset_of(K, 1, o);
  const long begin = s * chunk;
  const long end = min(R.numel, begin + chunk);
  CT v = (CT)0;
  long idx = -1;
  for (long r = begin + lid; r < end; r += XD_WG) xd_arg_step(&v, &idx, XD_LD(in, base + xd_red_offset(R, (ulong)r)), r);
  xd_arg_wg(v, idx, sv, si);
  if (lid == 0) {
    if (splits == 1) {
      out[xd_offset_of(K, 0, o)] = si[0];
    } else {
      pval[pvoff + (long)grp] = sv[0];
      pidx[pioff + (long)grp] = si[0];
    }
  }
}

__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_argmax_finish(
    __global long* out, __global const CT* pval, long pvoff, __global const long* pidx, long pioff, const xd_layout K,
    long splits) {
  __local CT sv[XD_WG];
  __local long si[XD_WG];
  const ulong o = get_group_id(0);
  const int lid = (int)get_local_id(0);
  CT v = (CT)0;
  long idx = -1;
  for (long s = lid; s < splits; s += XD_WG) {
    const long p = (long)o * splits + s;
    xd_arg_step(&v, &idx, pval[pvoff + p], pidx[pioff + p]);
  }
  xd_arg_wg(v, idx, sv, si);
  if (lid == 0) out[xd_offset_of(K, 0, o)] = si[0];
}

__kernel void xd_argmax_lane(__global long* out, __global const T* in, const xd_layout K, const xd_layout R) {
  const ulong o = get_global_id(0);
  if (o >= (ulong)K.numel) return;
  const long base = xd_offset_of(K, 1, o);
  CT v = (CT)0;
  long idx = -1;
  for (long r = 0; r < R.numel; ++r) xd_arg_step(&v, &idx, XD_LD(in, base + xd_red_offset(R, (ulong)r)), r);
  out[xd_offset_of(K, 0, o)] = idx;
}

#endif
