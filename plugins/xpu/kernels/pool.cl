// MAX_POOL2D and AVG_POOL2D (plugins/cpu/kernels/pool.cpp gives the semantics): one work-item per
// output element, which reads its window straight from global memory (pooling is memory-bound;
// neighbouring work-items share most of their windows through the cache). The same scan order as
// the reference, so every result matches it bit for bit: max takes a tap when it is greater than
// the running maximum (from -inf) or NaN; avg sums row-major in CT and divides once.

#if XD_FLOATING

// The launcher's struct (common/pool.cpp, pool_args), all 64-bit so both sides lay it out alike:
// sizes, the [H, W] attributes, then each view's element offset and its [N, C, H, W] strides.
typedef struct {
  long N, C, H, W, Ho, Wo;
  long kh, kw, sh, sw, ph, pw, dh, dw;
  long has_indices, count_include_pad, divisor;
  long a_off, a_sn, a_sc, a_sh, a_sw;
  long o_off, o_sn, o_sc, o_sh, o_sw;
  long i_off, i_sn, i_sc, i_sh, i_sw;
} xd_pool_args;

// Output element g of [N, C, Ho, Wo] (row-major) as (plane n*C + c, ho, wo).
inline void xd_pool_coords(const xd_pool_args A, ulong g, long* n, long* c, long* ho, long* wo) {
  const ulong row = xd_udiv(g, (ulong)A.Wo);
  *wo = (long)(g - row * (ulong)A.Wo);
  const ulong plane = xd_udiv(row, (ulong)A.Ho);
  *ho = (long)(row - plane * (ulong)A.Ho);
  const ulong nn = xd_udiv(plane, (ulong)A.C);
  *c = (long)(plane - nn * (ulong)A.C);
  *n = (long)nn;
}

// The first of start, start + step, ... that is >= 0.
inline long xd_pool_first_tap(long start, long step) {
  return start >= 0 ? start : start + (-start + step - 1) / step * step;
}

__kernel void xd_max_pool2d(__global T* out, __global long* indices, __global const T* a, const xd_pool_args A) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)(A.N * A.C * A.Ho * A.Wo)) return;
  long n, c, ho, wo;
  xd_pool_coords(A, g, &n, &c, &ho, &wo);
  const long base = A.a_off + n * A.a_sn + c * A.a_sc;
  const long hs = ho * A.sh - A.ph, ws = wo * A.sw - A.pw;
  const long h_end = min(hs + (A.kh - 1) * A.dh + 1, A.H), w_end = min(ws + (A.kw - 1) * A.dw + 1, A.W);
  const long h0 = xd_pool_first_tap(hs, A.dh), w0 = xd_pool_first_tap(ws, A.dw);
  CT best = (CT)(-INFINITY);
  long best_index = h0 * A.W + w0;
  for (long h = h0; h < h_end; h += A.dh)
    for (long w = w0; w < w_end; w += A.dw) {
      const CT x = XD_LD(a, base + h * A.a_sh + w * A.a_sw);
      if (x > best || isnan(x)) {
        best = x;
        best_index = h * A.W + w;
      }
    }
  XD_ST(out, A.o_off + n * A.o_sn + c * A.o_sc + ho * A.o_sh + wo * A.o_sw, best);
  if (A.has_indices) indices[A.i_off + n * A.i_sn + c * A.i_sc + ho * A.i_sh + wo * A.i_sw] = best_index;
}

__kernel void xd_avg_pool2d(__global T* out, __global const T* a, const xd_pool_args A) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)(A.N * A.C * A.Ho * A.Wo)) return;
  long n, c, ho, wo;
  xd_pool_coords(A, g, &n, &c, &ho, &wo);
  const long base = A.a_off + n * A.a_sn + c * A.a_sc;
  long h0 = ho * A.sh - A.ph, w0 = wo * A.sw - A.pw;
  long h1 = min(h0 + A.kh, A.H + A.ph), w1 = min(w0 + A.kw, A.W + A.pw);
  const long padded_size = (h1 - h0) * (w1 - w0);
  h0 = max(h0, 0L);
  w0 = max(w0, 0L);
  h1 = min(h1, A.H);
  w1 = min(w1, A.W);
  CT result = (CT)0;
  if (h0 < h1 && w0 < w1) {
    CT sum = (CT)0;
    for (long h = h0; h < h1; ++h)
      for (long w = w0; w < w1; ++w) sum += XD_LD(a, base + h * A.a_sh + w * A.a_sw);
    const long d = A.divisor != 0 ? A.divisor : A.count_include_pad ? padded_size : (h1 - h0) * (w1 - w0);
    result = sum / (CT)d;
  }
  XD_ST(out, A.o_off + n * A.o_sn + c * A.o_sc + ho * A.o_sh + wo * A.o_sw, result);
}

#endif
