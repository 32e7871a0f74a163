// RMS_NORM and RMS_NORM_BACKWARD (plugins/cpu/kernels/rms_norm*.cpp give the semantics). x has
// dtype T (XD_DT), the weight W (XD_WT, any floating dtype). Rows are x's leading dims, a row
// the normalized trailing dims. Sums accumulate in CT (float; double for f64); rstd is float
// (double for f64).
//
// Layouts from the host: `L` walks the rows (forward: 0 x, 1 y, 2 rstd; backward: 0 g, 1 x,
// 2 rstd, 3 dx), `RL` walks the elements of one row (forward: 0 x, 1 y, 2 w; backward: 0 g, 1 x,
// 2 w, 3 dx) with offsets 0 except the weight's.
//
// Forward: one work-group per row. A dense row of at most XD_WG * 4 * XD_ROW_ITEMS elements is
// held in registers between the sum of squares and the scaling, so x is read once; the
// work-group reduction is common.cl's xd_wg_sum.
// Backward: each work-group walks rows g, g + G, ...: per row it reduces sum(g*w*xh) to write dx
// and adds g*xh to its own partial of dw (registers for dense rows, its own row of the partial
// buffer otherwise); xd_rms_norm_dw then sums the G partials of each column in order.

#if XD_FLOATING

#define WT XD_CAT(xd_T_, XD_WT)
#define XD_WDEC(v) ((CT)XD_CAT(xd_dec_, XD_WT)(v))
#if XD_CLASS == 2
#define RT double
#else
#define RT float
#endif

// Weights j..j+3 of a dense weight starting at o (those below n; the rest read as 0), or ones
// without a weight.
inline CT4 xd_roww4(__global const WT* w, long o, long j, long n, int has_w) {
  if (!has_w) return (CT4)((CT)1);
  if (j + 4 <= n) {
    const XD_CAT(WT, 4) v = XD_VLOAD4(XD_CAT(WT, 4), w + o + j);
    return (CT4)(XD_WDEC(v.s0), XD_WDEC(v.s1), XD_WDEC(v.s2), XD_WDEC(v.s3));
  }
  CT4 v = (CT4)((CT)0);
  if (j < n) v.s0 = XD_WDEC(w[o + j]);
  if (j + 1 < n) v.s1 = XD_WDEC(w[o + j + 1]);
  if (j + 2 < n) v.s2 = XD_WDEC(w[o + j + 2]);
  return v;
}

// Loads elements j..j+3 of a dense row (those below n; the rest read as 0).
inline CT4 xd_row4(__global const T* p, long o, long j, long n) {
  if (j + 4 <= n) return xd_load4(p, o + j, 1);
  CT4 v = (CT4)((CT)0);
  if (j < n) v.s0 = XD_LD(p, o + j);
  if (j + 1 < n) v.s1 = XD_LD(p, o + j + 1);
  if (j + 2 < n) v.s2 = XD_LD(p, o + j + 2);
  return v;
}

inline void xd_row_store4(__global T* p, long o, long j, long n, CT4 v) {
  if (j + 4 <= n) {
    xd_store4(p, o + j, 1, v);
  } else if (j < n) {
    XD_ST(p, o + j, v.s0);
    if (j + 1 < n) XD_ST(p, o + j + 1, v.s1);
    if (j + 2 < n) XD_ST(p, o + j + 2, v.s2);
  }
}

// The dense rows' fast path (rows starting at a 4-vector boundary, n a multiple of 4): whole
// vectors with no alignment or tail tests, zero past n.
inline CT4 xd_rowv4(__global const T* p, long j, long n) { return j < n ? xd_vec4(p + j) : (CT4)((CT)0); }
inline CT4 xd_rowwv4(__global const WT* w, long j, long n, int has_w) {
  if (!has_w) return (CT4)((CT)1);
  if (j >= n) return (CT4)((CT)0);
  const XD_CAT(WT, 4) v = *(__global const XD_CAT(WT, 4)*)(w + j);
  return (CT4)(XD_WDEC(v.s0), XD_WDEC(v.s1), XD_WDEC(v.s2), XD_WDEC(v.s3));
}

// The kernels are macros over `items`: dense rows of up to XD_WG * 4 * items elements are cached
// in registers (xd_rms_norm: XD_ROW_ITEMS; the _short kernels half that and half the registers,
// so more work-groups fit on a compute unit). S.d[0] / S.f[0]: eps.
#if XD_CLASS == 2
#define XD_RMS_EPS(S) as_double((S).d[0])
#else
#define XD_RMS_EPS(S) ((S).f[0])
#endif
#define XD_RMS_NORM_KERNEL(NAME, items)                                                                         \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void NAME(                                            \
      __global T* y, __global RT* rstd, __global const T* x, __global const WT* w, long has_weight,               \
      const xd_layout L, const xd_layout RL, long n, const xd_scalars S) {                                        \
  __local CT scratch[XD_WG];                                                                                        \
  const ulong row = get_group_id(0);                                                                                 \
  const int lid = (int)get_local_id(0);                                                                              \
  const int has_w = has_weight != 0;                                                                                 \
  const long xo = xd_row_offset(L, 0, row), yo = xd_row_offset(L, 1, row), ro = xd_row_offset(L, 2, row);            \
  const CT eps = XD_RMS_EPS(S);                                                                                      \
  const long wo = RL.offset[2];                                                                                      \
  const int dense = RL.ndim == 1 && RL.stride[0][0] == 1 && RL.stride[1][0] == 1 && (!has_w || RL.stride[2][0] == 1); \
  if (dense && n <= (long)XD_WG * 4 * items) {                                                                       \
    CT4 cache[items];                                                                                         \
    CT ss = (CT)0;                                                                                                   \
    CT4 wc[items];                                                                                                   \
    const int vec = n % 4 == 0 && xd_vec_aligned(x + xo, 4 * sizeof(T)) && xd_vec_aligned(y + yo, 4 * sizeof(T)) &&   \
                    (!has_w || xd_vec_aligned(w + wo, 4 * sizeof(WT)));                                             \
    if (vec) {                                                                                                       \
_Pragma("unroll")                                                                                                    \
      for (int k = 0; k < items; ++k) cache[k] = xd_rowv4(x + xo, ((long)k * XD_WG + lid) * 4, n);                     \
_Pragma("unroll")                                                                                                    \
      for (int k = 0; k < items; ++k) wc[k] = xd_rowwv4(w + wo, ((long)k * XD_WG + lid) * 4, n, has_w);                \
    } else {                                                                                                         \
_Pragma("unroll")                                                                                                    \
      for (int k = 0; k < items; ++k) cache[k] = xd_row4(x, xo, ((long)k * XD_WG + lid) * 4, n);                       \
      /* The weights too, so that their latency hides behind the reduction. */                                       \
_Pragma("unroll")                                                                                                    \
      for (int k = 0; k < items; ++k) wc[k] = xd_roww4(w, wo, ((long)k * XD_WG + lid) * 4, n, has_w);                 \
    }                                                                                                                \
    /* Loads first, then their uses: the loads sit in branches, which the compiler does not move */                  \
    /* a load across, so interleaving them with the arithmetic would serialise their latencies. */                   \
_Pragma("unroll")                                                                                                    \
    for (int k = 0; k < items; ++k) {                                                                         \
      const CT4 sq = cache[k] * cache[k];                                                                            \
      ss += (sq.s0 + sq.s1) + (sq.s2 + sq.s3);                                                                       \
    }                                                                                                                \
    ss = xd_wg_sum(ss, scratch);                                                                                     \
    const RT r = (RT)((CT)1 / sqrt(ss / (CT)n + eps));                                                               \
    if (lid == 0) rstd[ro] = r;                                                                                      \
_Pragma("unroll")                                                                                                    \
    for (int k = 0; k < items; ++k) {                                                                                \
      const long j = ((long)k * XD_WG + lid) * 4;                                                                      \
      if (j >= n) continue;                                                                                          \
      if (vec)                                                                                                       \
        xd_vec_store4(y + yo + j, (cache[k] * (CT)r) * wc[k]);                                                      \
      else                                                                                                           \
        xd_row_store4(y, yo, j, n, (cache[k] * (CT)r) * wc[k]);                                                      \
    }                                                                                                                \
    return;                                                                                                          \
  }                                                                                                                  \
  /* Long or strided rows: two passes over global memory. */                                                         \
  CT ss = (CT)0;                                                                                                     \
  for (long j = lid; j < n; j += XD_WG) {                                                                            \
    const CT v = XD_LD(x, xo + (RL.ndim == 1 ? j * RL.stride[0][0] : xd_offset_of(RL, 0, (ulong)j)));                \
    ss += v * v;                                                                                                     \
  }                                                                                                                  \
  ss = xd_wg_sum(ss, scratch);                                                                                       \
  const RT r = (RT)((CT)1 / sqrt(ss / (CT)n + eps));                                                                 \
  if (lid == 0) rstd[ro] = r;                                                                                        \
  for (long j = lid; j < n; j += XD_WG) {                                                                            \
    long ox, oy, ow;                                                                                                 \
    if (RL.ndim == 1) {                                                                                              \
      ox = j * RL.stride[0][0];                                                                                      \
      oy = j * RL.stride[1][0];                                                                                      \
      ow = wo + j * RL.stride[2][0];                                                                                 \
    } else {                                                                                                         \
      ox = xd_offset_of(RL, 0, (ulong)j);                                                                            \
      oy = xd_offset_of(RL, 1, (ulong)j);                                                                            \
      ow = xd_offset_of(RL, 2, (ulong)j);                                                                            \
    }                                                                                                                \
    CT v = XD_LD(x, xo + ox) * (CT)r;                                                                                \
    if (has_w) v *= XD_WDEC(w[ow]);                                                                                  \
    XD_ST(y, yo + oy, v);                                                                                            \
  }                                                                                                                  \
}
XD_RMS_NORM_KERNEL(xd_rms_norm, XD_ROW_ITEMS)
XD_RMS_NORM_KERNEL(xd_rms_norm_short, XD_SHORT_ITEMS)

// flags: bit 0 weight present, bit 1 dx wanted, bit 2 dw wanted. `part` (offset poff) holds G rows
// of n partial dw sums, one per work-group. `items` as in the forward pass.
#define XD_RMS_NORM_BACKWARD_KERNEL(NAME, items)                                                             \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void NAME(                                         \
      __global T* dx, __global CT* part, long poff, __global const T* g, __global const T* x,                     \
      __global const RT* rstd, __global const WT* w, long flags, const xd_layout L, const xd_layout RL, long n) { \
  __local CT scratch[XD_WG];                                                                                        \
  const int lid = (int)get_local_id(0);                                                                              \
  const ulong grp = get_group_id(0), groups = get_num_groups(0);                                                     \
  const int has_w = (flags & 1) != 0, want_dx = (flags & 2) != 0, want_dw = (flags & 4) != 0;                        \
  const long wo = RL.offset[2];                                                                                      \
  __global CT* mine = part + poff + (long)grp * n;                                                                   \
  const int dense = RL.ndim == 1 && RL.stride[0][0] == 1 && RL.stride[1][0] == 1 && RL.stride[3][0] == 1 &&          \
                    (!has_w || RL.stride[2][0] == 1);                                                                \
  if (dense && n <= (long)XD_WG * 4 * items) {                                                                       \
    CT4 dw[items];                                                                                            \
_Pragma("unroll")                                                                                                    \
    for (int k = 0; k < items; ++k) dw[k] = (CT4)((CT)0);                           \
    for (ulong row = grp; row < (ulong)L.numel; row += groups) {                                                     \
      const long go = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row);                                       \
      const long dxo = xd_row_offset(L, 3, row);                                                                     \
      const CT r = (CT)rstd[xd_row_offset(L, 2, row)];                                                               \
      CT4 gc[items], xc[items], wc[items];                                                                           \
      CT sum = (CT)0;                                                                                                \
      const int vec = n % 4 == 0 && xd_vec_aligned(g + go, 4 * sizeof(T)) && xd_vec_aligned(x + xo, 4 * sizeof(T)) && \
                      (!want_dx || xd_vec_aligned(dx + dxo, 4 * sizeof(T))) &&                                       \
                      (!has_w || xd_vec_aligned(w + wo, 4 * sizeof(WT)));                                           \
      if (vec) {                                                                                                     \
_Pragma("unroll")                                                                                                    \
        for (int k = 0; k < items; ++k) {                                                                            \
          const long j = ((long)k * XD_WG + lid) * 4;                                                                \
          gc[k] = xd_rowv4(g + go, j, n);                                                                            \
          xc[k] = xd_rowv4(x + xo, j, n);                                                                            \
          wc[k] = xd_rowwv4(w + wo, j, n, has_w);                                                                    \
        }                                                                                                            \
      } else {                                                                                                       \
_Pragma("unroll")                                                                                                    \
        for (int k = 0; k < items; ++k) {                                                                            \
          const long j = ((long)k * XD_WG + lid) * 4;                                                                \
          gc[k] = xd_row4(g, go, j, n);                                                                              \
          xc[k] = xd_row4(x, xo, j, n);                                                                              \
          wc[k] = xd_roww4(w, wo, j, n, has_w);                                                                      \
        }                                                                                                            \
      }                                                                                                              \
      /* Loads first, then their uses (see the forward kernel). */                                                   \
_Pragma("unroll")                                                                                                    \
      for (int k = 0; k < items; ++k) {                                                                       \
        xc[k] *= r;  /* xh */                                                                                        \
        const CT4 gw = gc[k] * wc[k];                                                                                \
        const CT4 p = gw * xc[k];                                                                                    \
        sum += (p.s0 + p.s1) + (p.s2 + p.s3);                                                                        \
        if (want_dw) dw[k] += gc[k] * xc[k];                                                                         \
        gc[k] = gw;                                                                                                  \
      }                                                                                                              \
      if (want_dx) {                                                                                                 \
        const CT mean = xd_wg_sum(sum, scratch) / (CT)n;                                                             \
_Pragma("unroll")                                                                                                    \
        for (int k = 0; k < items; ++k) {                                                                     \
          const long j = ((long)k * XD_WG + lid) * 4;                                                                \
          if (vec && j < n)                                                                                          \
            xd_vec_store4(dx + dxo + j, r * (gc[k] - xc[k] * mean));                                                \
          else if (!vec)                                                                                             \
            xd_row_store4(dx, dxo, j, n, r * (gc[k] - xc[k] * mean));                                                \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
    if (want_dw) {                                                                                                   \
_Pragma("unroll")                                                                                                    \
      for (int k = 0; k < items; ++k) {                                                                       \
        const long j = ((long)k * XD_WG + lid) * 4;                                                                  \
        if (j + 4 <= n) {                                                                                            \
          XD_VSTORE4(CT4, dw[k], mine + j);                                                                          \
        } else if (j < n) {                                                                                          \
          mine[j] = dw[k].s0;                                                                                        \
          if (j + 1 < n) mine[j + 1] = dw[k].s1;                                                                     \
          if (j + 2 < n) mine[j + 2] = dw[k].s2;                                                                     \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
    return;                                                                                                          \
  }                                                                                                                  \
  /* Long or strided rows: dx reads g, x and w twice; dw partials accumulate in the buffer (each */                  \
  /* column always belongs to the same work-item, so no two work-items touch one element). */                        \
  if (want_dw)                                                                                                       \
    for (long j = lid; j < n; j += XD_WG) mine[j] = (CT)0;                                                           \
  for (ulong row = grp; row < (ulong)L.numel; row += groups) {                                                       \
    const long go = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row);                                         \
    const long dxo = xd_row_offset(L, 3, row);                                                                       \
    const CT r = (CT)rstd[xd_row_offset(L, 2, row)];                                                                 \
    CT sum = (CT)0;                                                                                                  \
    for (long j = lid; j < n; j += XD_WG) {                                                                          \
      const CT gv = XD_LD(g, go + xd_offset_of(RL, 0, (ulong)j));                                                    \
      const CT xh = XD_LD(x, xo + xd_offset_of(RL, 1, (ulong)j)) * r;                                                \
      const CT gw = has_w ? gv * XD_WDEC(w[xd_offset_of(RL, 2, (ulong)j)]) : gv;                                     \
      sum += gw * xh;                                                                                                \
      if (want_dw) mine[j] += gv * xh;                                                                               \
    }                                                                                                                \
    if (want_dx) {                                                                                                   \
      const CT mean = xd_wg_sum(sum, scratch) / (CT)n;                                                               \
      for (long j = lid; j < n; j += XD_WG) {                                                                        \
        const CT gv = XD_LD(g, go + xd_offset_of(RL, 0, (ulong)j));                                                  \
        const CT xh = XD_LD(x, xo + xd_offset_of(RL, 1, (ulong)j)) * r;                                              \
        const CT gw = has_w ? gv * XD_WDEC(w[xd_offset_of(RL, 2, (ulong)j)]) : gv;                                   \
        XD_ST(dx, dxo + xd_offset_of(RL, 3, (ulong)j), r * (gw - xh * mean));                                        \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
}
XD_RMS_NORM_BACKWARD_KERNEL(xd_rms_norm_backward, XD_ROW_ITEMS)
XD_RMS_NORM_BACKWARD_KERNEL(xd_rms_norm_backward_short, XD_SHORT_ITEMS)

// dw[j] = sum of the G partials of column j; rounded to W. DL walks dw (operand 0). A work-group
// takes XD_DW_COLS neighbouring columns and splits the G partials into XD_WG / XD_DW_COLS slices
// (so a warp's loads are one coalesced row piece, and many loads are in flight: a work-item per
// column walking all G partials is latency-bound; measured: docs/performance.md, "row kernels
// reworked"); each slice keeps four running sums, and the slices meet in local memory in a fixed
// order, so the result does not depend on timing. The host launches xpu::rms_dw_groups(n, XD_WG) work-groups.
#if XD_WG >= 32
#define XD_DW_COLS 32
#else
#define XD_DW_COLS XD_WG
#endif
#define XD_DW_SLICES (XD_WG / XD_DW_COLS)
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_rms_norm_dw(
    __global WT* dw, __global const CT* part, long poff, long groups, const xd_layout DL, long n) {
  __local CT red[XD_WG];
  const int lid = (int)get_local_id(0);
  const int c = lid % XD_DW_COLS, sl = lid / XD_DW_COLS;
  const long j = (long)get_group_id(0) * XD_DW_COLS + c;
  CT t0 = (CT)0, t1 = (CT)0, t2 = (CT)0, t3 = (CT)0;
  if (j < n) {
    long p = sl;
    for (; p + 3 * XD_DW_SLICES < groups; p += 4 * XD_DW_SLICES) {
      t0 += part[poff + p * n + j];
      t1 += part[poff + (p + XD_DW_SLICES) * n + j];
      t2 += part[poff + (p + 2 * XD_DW_SLICES) * n + j];
      t3 += part[poff + (p + 3 * XD_DW_SLICES) * n + j];
    }
    for (; p < groups; p += XD_DW_SLICES) t0 += part[poff + p * n + j];
  }
  red[lid] = (t0 + t1) + (t2 + t3);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (sl == 0 && j < n) {
    CT total = red[c];
    for (int q = 1; q < XD_DW_SLICES; ++q) total += red[q * XD_DW_COLS + c];
    dw[xd_offset_of(DL, 0, (ulong)j)] = XD_CAT3(xd_from_, XD_KIND, XD_CAT(_, XD_WT))(total);
  }
}

#endif
