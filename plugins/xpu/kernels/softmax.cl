// SOFTMAX and LOG_SOFTMAX along one dim (plugins/cpu/kernels/softmax.cpp gives the semantics):
// the row maximum is subtracted before exp; a row whose maximum is not finite (a NaN, +inf, or
// all -inf) comes out NaN throughout, by plain IEEE arithmetic, as in the reference.
// Math in CT (double for f64, float otherwise), the sum of exponentials accumulated in CT.
//
// The host passes the layout of the rows (every dim but `dim`: operand 0 = output, operand 1 =
// input), the row length and the element step of each operand along `dim`.
//   _row  one work-group per row. A dense row short enough (XD_ROW_ITEMS float4 per work-item)
//         is read once into registers, so x crosses the memory bus once; longer or strided rows
//         are read twice (online max and sum, then the write).
//   _lane one work-item per row: rows along a dim that is not innermost, where neighbouring rows
//         are neighbouring addresses.

#if XD_FLOATING


inline CT xd_sm_max(CT a, CT x) { return isnan(a) ? a : (isnan(x) ? x : (x > a ? x : a)); }

// Work-group maximum (NaN wins); every work-item gets the result.
inline CT xd_wg_max(CT v, __local CT* scratch) {
  CT r;
  XD_WG_REDUCE(xd_sm_max, v, scratch, r);
  return r;
}

// Online softmax statistics: running maximum m and sum s of exp(x - m). Terms equal to the
// maximum count exactly 1 (no inf - inf); a +inf maximum makes the sum NaN, as exp(inf - inf)
// does in the reference's two passes.
inline CT xd_sm_rescale(CT from, CT to) { return from == to ? (CT)1 : exp(from - to); }

inline void xd_online_step(CT* m, CT* s, CT x) {
  if (isnan(x) || x > *m) {
    *s = *s * xd_sm_rescale(*m, x);
    *m = x;
  }
  *s += x == *m ? (CT)1 : exp(x - *m);
}

// Folds the statistics (m2, s2) into (*m, *s).
inline void xd_online_merge(CT* m, CT* s, CT m2, CT s2) {
  const CT mm = xd_sm_max(*m, m2);
  *s = *s * xd_sm_rescale(*m, mm) + s2 * xd_sm_rescale(m2, mm);
  *m = mm;
}

// The work-group's statistics from every work-item's, in two levels as XD_WG_REDUCE (common.cl).
inline void xd_wg_online(CT* m, CT* s, __local CT* sm, __local CT* ss) {
  const int lid = (int)get_local_id(0);
  sm[lid] = *m;
  ss[lid] = *s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < XD_WG_LANES) {
    CT m1 = sm[lid], s1 = ss[lid];
    for (int i = lid + XD_WG_LANES; i < XD_WG; i += XD_WG_LANES) xd_online_merge(&m1, &s1, sm[i], ss[i]);
    sm[lid] = m1;
    ss[lid] = s1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  CT m_all = sm[0], s_all = ss[0];
  for (int i = 1; i < XD_WG_LANES; ++i) xd_online_merge(&m_all, &s_all, sm[i], ss[i]);
  barrier(CLK_LOCAL_MEM_FENCE);
  *m = m_all;
  *s = isinf(m_all) && m_all > (CT)0 ? (CT)NAN : s_all;
}

#define XD_SOFTMAX_ROW(KNAME, LOG, ITEMS)                                                                             \
  __kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void KNAME(                            \
      __global T* out, __global const T* in, const xd_layout L, long len, long step_out, long step_in) {          \
    __local CT scratch[XD_WG];                                                                                    \
    __local CT scratch2[XD_WG];                                                                                   \
    const ulong row = get_group_id(0);                                                                            \
    const int lid = (int)get_local_id(0);                                                                         \
    const long yo = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row);                                      \
    if (step_in == 1 && step_out == 1 && len <= (long)XD_WG * 4 * ITEMS) {                                        \
      CT4 cache[ITEMS];                                                                                           \
      CT m = -INFINITY;                                                                                           \
      /* Rows starting at a vector boundary, len a multiple of 4: whole vectors, no tests per access. */         \
      const int vec = len % 4 == 0 && xd_vec_aligned(in + xo, 4 * sizeof(T)) && xd_vec_aligned(out + yo, 4 * sizeof(T)); \
      if (vec) {                                                                                                  \
        _Pragma("unroll") for (int k = 0; k < ITEMS; ++k) {                                                       \
          const long j = ((long)k * XD_WG + lid) * 4;                                                             \
          cache[k] = j < len ? xd_vec4(in + xo + j) : (CT4)(-INFINITY);                                           \
        }                                                                                                         \
      } else {                                                                                                    \
        _Pragma("unroll") for (int k = 0; k < ITEMS; ++k) {                                                       \
          const long j = ((long)k * XD_WG + lid) * 4;                                                             \
          CT4 v = (CT4)(-INFINITY);                                                                               \
          if (j + 4 <= len) {                                                                                     \
            v = xd_load4(in, xo + j, 1);                                                                          \
          } else if (j < len) {                                                                                   \
            v.s0 = XD_LD(in, xo + j);                                                                             \
            if (j + 1 < len) v.s1 = XD_LD(in, xo + j + 1);                                                        \
            if (j + 2 < len) v.s2 = XD_LD(in, xo + j + 2);                                                        \
          }                                                                                                       \
          cache[k] = v;                                                                                           \
        }                                                                                                         \
      }                                                                                                           \
      /* Every load of the row is issued before the first use (the loads sit in branches, which */               \
      /* the compiler does not move a load across), so the row costs one memory latency. */                      \
      _Pragma("unroll") for (int k = 0; k < ITEMS; ++k) {                                                   \
        const CT4 v = cache[k];                                                                                   \
        m = xd_sm_max(xd_sm_max(xd_sm_max(xd_sm_max(m, v.s0), v.s1), v.s2), v.s3);                                \
      }                                                                                                           \
      /* The row maximum (cheap to combine), then exp once per element and the sum. Combining */                  \
      /* (maximum, sum) pairs instead chains an exp into every step of the work-group reduction */                \
      /* (measured: docs/performance.md, "NVIDIA H100 through NVIDIA's OpenCL", softmax). Softmax */              \
      /* scales by 1 / sum rather than dividing each element. */                                                  \
      m = xd_wg_max(m, scratch);                                                                                  \
      CT sum = (CT)0;                                                                                             \
      _Pragma("unroll") for (int k = 0; k < ITEMS; ++k) {                                                         \
        const long j = ((long)k * XD_WG + lid) * 4;                                                               \
        if (j < len) {                                                                                            \
          const CT4 e = exp(cache[k] - m);                                                                        \
          sum += e.s0;                                                                                            \
          if (j + 1 < len) sum += e.s1;                                                                           \
          if (j + 2 < len) sum += e.s2;                                                                           \
          if (j + 3 < len) sum += e.s3;                                                                           \
          if (!LOG) cache[k] = e;                                                                                 \
        }                                                                                                         \
      }                                                                                                           \
      const CT S = xd_wg_sum(sum, scratch), M = m;                                                                \
      const CT ls = log(S);                                                                                       \
      const CT scale = (CT)1 / S;                                                                                 \
      _Pragma("unroll") for (int k = 0; k < ITEMS; ++k) {                                                         \
        const long j = ((long)k * XD_WG + lid) * 4;                                                               \
        const CT4 r = LOG ? (cache[k] - M) - ls : cache[k] * scale;                                               \
        if (vec) {                                                                                                \
          if (j < len) xd_vec_store4(out + yo + j, r);                                                            \
        } else if (j + 4 <= len) {                                                                                \
          xd_store4(out, yo + j, 1, r);                                                                           \
        } else if (j < len) {                                                                                     \
          XD_ST(out, yo + j, r.s0);                                                                               \
          if (j + 1 < len) XD_ST(out, yo + j + 1, r.s1);                                                          \
          if (j + 2 < len) XD_ST(out, yo + j + 2, r.s2);                                                          \
        }                                                                                                         \
      }                                                                                                           \
      return;                                                                                                     \
    }                                                                                                             \
    /* Online: one pass for the maximum and the sum (rescaled whenever the maximum grows). */    \
    CT m = -INFINITY, sum = (CT)0;                                                                                \
    for (long j = lid; j < len; j += XD_WG) xd_online_step(&m, &sum, XD_LD(in, xo + j * step_in));              \
    xd_wg_online(&m, &sum, scratch, scratch2);                                                                    \
    const CT ls = log(sum);                                                                                       \
    for (long j = lid; j < len; j += XD_WG) {                                                                     \
      const CT x = XD_LD(in, xo + j * step_in);                                                                   \
      XD_ST(out, yo + j * step_out, LOG ? (x - m) - ls : exp(x - m) / sum);                                       \
    }                                                                                                             \
  }

#define XD_SOFTMAX_LANE(NAME, LOG)                                                                               \
  __kernel void XD_CAT(NAME, _lane)(__global T* out, __global const T* in, const xd_layout L, long len,           \
                                    long step_out, long step_in) {                                                \
    const ulong row = get_global_id(0);                                                                           \
    if (row >= (ulong)L.numel) return;                                                                            \
    const long yo = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row);                                      \
    CT m = -INFINITY;                                                                                             \
    for (long j = 0; j < len; ++j) m = xd_sm_max(m, XD_LD(in, xo + j * step_in));                                \
    CT sum = (CT)0;                                                                                               \
    for (long j = 0; j < len; ++j) sum += exp(XD_LD(in, xo + j * step_in) - m);                                  \
    const CT ls = log(sum);                                                                                       \
    for (long j = 0; j < len; ++j) {                                                                              \
      const CT x = XD_LD(in, xo + j * step_in);                                                                   \
      XD_ST(out, yo + j * step_out, LOG ? (x - m) - ls : exp(x - m) / sum);                                       \
    }                                                                                                             \
  }

// _row caches rows of up to XD_WG * 4 * XD_ROW_ITEMS elements in registers; _row_short half that,
// with half the registers, so more work-groups fit on a compute unit (the host picks it for the
// rows it fits).
#define XD_SOFTMAX_KERNELS(NAME, LOG)                                    \
  XD_SOFTMAX_ROW(XD_CAT(NAME, _row), LOG, XD_ROW_ITEMS)                   \
  XD_SOFTMAX_ROW(XD_CAT(NAME, _row_short), LOG, XD_SHORT_ITEMS)           \
  XD_SOFTMAX_LANE(NAME, LOG)

XD_SOFTMAX_KERNELS(xd_softmax, 0)
XD_SOFTMAX_KERNELS(xd_log_softmax, 1)

#endif
