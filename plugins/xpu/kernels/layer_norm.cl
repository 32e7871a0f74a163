// LAYER_NORM and LAYER_NORM_BACKWARD (plugins/cpu/kernels/layer_norm*.cpp give the semantics). x,
// the weight and the bias have dtype T (XD_DT); sums accumulate in CT (float; double for f64); mean
// and rstd are RT (float; double for f64). Rows are x's leading dims, a row the normalized
// trailing dims (n elements).
//
// Layouts from the host: `L` walks the rows (forward: 0 x, 1 y, 2 mean, 3 rstd; backward: 0 g,
// 1 x, 2 dx), `SL` the backward's statistics over the same rows (0 mean, 1 rstd), `RL` the
// elements of one row (forward: 0 x, 1 y, 2 w, 3 b; backward: 0 g, 1 x, 2 w, 3 dx; dw and db: 0 g,
// 1 x, 2 dw, 3 db) with offsets 0 except those of the weight, the bias, dw and db.
//
// Forward and dx: one work-group per row with common.cl's xd_wg_sum, two passes for the
// statistics (the mean, then the squared deviations from it) as the CPU reference computes them.
// dw and db: a work-item per row element walking every row in order, so the sums do not depend
// on timing.

#if XD_FLOATING

#if XD_CLASS == 2
#define RT double
#define XD_LN_EPS(S) as_double((S).d[0])
#else
#define RT float
#define XD_LN_EPS(S) ((S).f[0])
#endif

// flags: bit 0 weight present, bit 1 bias present.
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_layer_norm(
    __global T* y, __global RT* mean, __global RT* rstd, __global const T* x, __global const T* w,
    __global const T* b, long flags, const xd_layout L, const xd_layout RL, long n, const xd_scalars S) {
  __local CT scratch[XD_WG];
  const ulong row = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const int has_w = (flags & 1) != 0, has_b = (flags & 2) != 0;
  const long xo = xd_row_offset(L, 0, row), yo = xd_row_offset(L, 1, row);
  CT s = (CT)0;
  for (long j = lid; j < n; j += XD_WG) s += XD_LD(x, xo + xd_row_offset(RL, 0, (ulong)j));
  const CT mu = xd_wg_sum(s, scratch) / (CT)n;
  CT ss = (CT)0;
  for (long j = lid; j < n; j += XD_WG) {
    const CT d = XD_LD(x, xo + xd_row_offset(RL, 0, (ulong)j)) - mu;
    ss += d * d;
  }
  const RT r = (RT)((CT)1 / sqrt(xd_wg_sum(ss, scratch) / (CT)n + XD_LN_EPS(S)));
  if (lid == 0) {
    mean[xd_row_offset(L, 2, row)] = (RT)mu;
    rstd[xd_row_offset(L, 3, row)] = r;
  }
  for (long j = lid; j < n; j += XD_WG) {
    CT v = (XD_LD(x, xo + xd_row_offset(RL, 0, (ulong)j)) - mu) * (CT)r;
    if (has_w) v *= XD_LD(w, xd_row_offset(RL, 2, (ulong)j));
    if (has_b) v += XD_LD(b, xd_row_offset(RL, 3, (ulong)j));
    XD_ST(y, yo + xd_row_offset(RL, 1, (ulong)j), v);
  }
}

// dx = rstd * (gw - mean(gw) - xh * mean(gw * xh)) for one row per work-group. flags: bit 0
// weight present.
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_layer_norm_backward(
    __global T* dx, __global const T* g, __global const T* x, __global const RT* mean, __global const RT* rstd,
    __global const T* w, long flags, const xd_layout L, const xd_layout SL, const xd_layout RL, long n) {
  __local CT scratch[XD_WG];
  const ulong row = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const int has_w = (flags & 1) != 0;
  const long go = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row), dxo = xd_row_offset(L, 2, row);
  const CT mu = (CT)mean[xd_row_offset(SL, 0, row)], r = (CT)rstd[xd_row_offset(SL, 1, row)];
  CT s1 = (CT)0, s2 = (CT)0;
  for (long j = lid; j < n; j += XD_WG) {
    CT gw = XD_LD(g, go + xd_row_offset(RL, 0, (ulong)j));
    if (has_w) gw *= XD_LD(w, xd_row_offset(RL, 2, (ulong)j));
    s1 += gw;
    s2 += gw * ((XD_LD(x, xo + xd_row_offset(RL, 1, (ulong)j)) - mu) * r);
  }
  const CT m1 = xd_wg_sum(s1, scratch) / (CT)n;
  const CT m2 = xd_wg_sum(s2, scratch) / (CT)n;
  for (long j = lid; j < n; j += XD_WG) {
    CT gw = XD_LD(g, go + xd_row_offset(RL, 0, (ulong)j));
    if (has_w) gw *= XD_LD(w, xd_row_offset(RL, 2, (ulong)j));
    const CT xh = (XD_LD(x, xo + xd_row_offset(RL, 1, (ulong)j)) - mu) * r;
    XD_ST(dx, dxo + xd_row_offset(RL, 3, (ulong)j), r * (gw - m1 - xh * m2));
  }
}

// dw = sum over rows of g * xh, db = sum over rows of g, for row element j = the global id (the
// host launches ceil(n / XD_WG) work-groups). flags: bit 0 dw wanted, bit 1 db wanted. With no
// rows both are zero.
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_layer_norm_dwdb(
    __global T* dw, __global T* db, __global const T* g, __global const T* x, __global const RT* mean,
    __global const RT* rstd, long flags, const xd_layout L, const xd_layout SL, const xd_layout RL, long n) {
  const long j = (long)get_global_id(0);
  if (j >= n) return;
  const int want_dw = (flags & 1) != 0, want_db = (flags & 2) != 0;
  const long og = xd_row_offset(RL, 0, (ulong)j), ox = xd_row_offset(RL, 1, (ulong)j);
  CT sw = (CT)0, sb = (CT)0;
  for (ulong row = 0; row < (ulong)L.numel; ++row) {
    const CT gv = XD_LD(g, xd_row_offset(L, 0, row) + og);
    sb += gv;
    if (want_dw) {
      const CT mu = (CT)mean[xd_row_offset(SL, 0, row)], r = (CT)rstd[xd_row_offset(SL, 1, row)];
      sw += gv * ((XD_LD(x, xd_row_offset(L, 1, row) + ox) - mu) * r);
    }
  }
  if (want_dw) XD_ST(dw, xd_row_offset(RL, 2, (ulong)j), sw);
  if (want_db) XD_ST(db, xd_row_offset(RL, 3, (ulong)j), sb);
}

#endif
