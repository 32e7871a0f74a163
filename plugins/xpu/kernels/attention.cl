// SCALED_DOT_PRODUCT_ATTENTION, fused (plugins/cpu/kernels/attention.cpp gives the semantics):
// scores, softmax and the weighted sum of v in one kernel, without writing the [L, S] scores.
//
// One work-group per (batch, block of XD_ATT_BM queries), one work-item per query row, which
// holds its q row and its output accumulator in registers (E, Ev <= XD_ATT_DMAX; the host declines
// larger head dims). The work-group walks the keys in tiles of XD_ATT_BN rows: it stages the
// tile's K and V rows in local memory (converted to CT once, read by every query of the block),
// then each work-item scores its row against the tile and folds it in by the online softmax:
// running maximum m and sum l, the accumulator and l rescaled by exp(m_old - m_new) when the
// maximum grows. Causal: the block's last query is i0 + XD_ATT_BM - 1, so tiles from there on
// hold no key any query of the block may see and are not loaded at all; inside the diagonal tile
// keys j > i score -inf (weight 0).
//
// Local memory: 2 * XD_ATT_BN * XD_ATT_DMAX * sizeof(CT) = 32 KiB (BN 32 in float, 16 in double),
// under NVIDIA OpenCL's 48 KiB.
//
// Non-finite rows follow the reference by IEEE arithmetic: a NaN or +inf score makes the row NaN
// (exp(NaN), exp(inf - inf)); a tile whose every score is -inf while m is -inf adds nothing, so a
// row with every key masked ends with l = 0 and comes out 0 / 0 = NaN. S = 0 gives zeros.

#if XD_FLOATING

#define XD_ATT_BM 32
#define XD_ATT_DMAX 128
#if XD_CLASS == 2
#define XD_ATT_BN 16
#else
#define XD_ATT_BN 32
#endif

// The launcher's struct (common/attention.cpp, attention_args): element offsets and strides of
// each view, [B, rows, cols].
typedef struct {
  long L, S, E, Ev, q_blocks, has_mask, causal;
  long q_off, q_sb, q_sl, q_se;
  long k_off, k_sb, k_sl, k_se;
  long v_off, v_sb, v_sl, v_se;
  long m_off, m_sb, m_sl, m_ss;
  long o_off, o_sb, o_sl, o_se;
} xd_att_args;

inline CT xd_att_max(CT a, CT x) { return isnan(a) ? a : (isnan(x) ? x : (x > a ? x : a)); }

__kernel __attribute__((reqd_work_group_size(XD_ATT_BM, 1, 1))) void xd_attention(
    __global T* out, __global const T* q, __global const T* k, __global const T* v, __global const T* mask,
    const xd_att_args A, const CT scale) {
  __local CT ks[XD_ATT_BN * XD_ATT_DMAX];
  __local CT vs[XD_ATT_BN * XD_ATT_DMAX];
  const long g = (long)get_group_id(0);
  const long b = g / A.q_blocks;
  const long i0 = (g - b * A.q_blocks) * XD_ATT_BM;
  const int lid = (int)get_local_id(0);
  const long i = i0 + lid;
  const int active = i < A.L;
  const int E = (int)A.E, Ev = (int)A.Ev;
  CT qr[XD_ATT_DMAX];
  CT acc[XD_ATT_DMAX];
  if (active)
    for (int e = 0; e < E; ++e) qr[e] = XD_LD(q, A.q_off + b * A.q_sb + i * A.q_sl + e * A.q_se);
  for (int e = 0; e < Ev; ++e) acc[e] = (CT)0;
  CT m = -INFINITY, l = (CT)0;
  const long kv_end = A.causal ? min(A.S, i0 + XD_ATT_BM) : A.S;
  const long k_base = A.k_off + b * A.k_sb, v_base = A.v_off + b * A.v_sb;
  const long m_row = A.m_off + b * A.m_sb + i * A.m_sl;
  for (long j0 = 0; j0 < kv_end; j0 += XD_ATT_BN) {
    const int n = (int)min((long)XD_ATT_BN, kv_end - j0);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous tile is no longer read
    for (int t = lid; t < n * E; t += XD_ATT_BM) {
      const int jj = t / E, e = t - jj * E;
      ks[jj * E + e] = XD_LD(k, k_base + (j0 + jj) * A.k_sl + e * A.k_se);
    }
    for (int t = lid; t < n * Ev; t += XD_ATT_BM) {
      const int jj = t / Ev, e = t - jj * Ev;
      vs[jj * Ev + e] = XD_LD(v, v_base + (j0 + jj) * A.v_sl + e * A.v_se);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!active) continue;
    CT s[XD_ATT_BN];
    CT mt = m;
    for (int jj = 0; jj < n; ++jj) {
      const long j = j0 + jj;
      CT x = -INFINITY;
      if (!A.causal || j <= i) {
        CT dot = (CT)0;
        for (int e = 0; e < E; ++e) dot += qr[e] * ks[jj * E + e];
        x = dot * scale;
        if (A.has_mask) x += XD_LD(mask, m_row + j * A.m_ss);
      }
      s[jj] = x;
      mt = xd_att_max(mt, x);
    }
    if (mt == -INFINITY) continue;  // every key so far masked: nothing to add yet
    const CT c = m == mt ? (CT)1 : exp(m - mt);
    l *= c;
    for (int e = 0; e < Ev; ++e) acc[e] *= c;
    for (int jj = 0; jj < n; ++jj) {
      const CT p = exp(s[jj] - mt);
      l += p;
      for (int e = 0; e < Ev; ++e) acc[e] += p * vs[jj * Ev + e];
    }
    m = mt;
  }
  if (!active) return;
  const long o_row = A.o_off + b * A.o_sb + i * A.o_sl;
  for (int e = 0; e < Ev; ++e) XD_ST(out, o_row + e * A.o_se, A.S == 0 ? (CT)0 : acc[e] / l);
}

#endif
