// CUMSUM and TOPK along one dim (plugins/cpu/kernels/scan.cpp gives the semantics; the contracts
// are in include/xd/plugin_abi.h). The host passes the layout of the rows (every dim but `dim`),
// the row length and each operand's element step along `dim`. Built for the numeric dtypes.

// ---------------------------------------------------------------- cumsum
// Integers wrap (two's complement, as the reference): add as unsigned, reinterpret.
#if XD_CLASS == 3
inline CT xd_cs_add(CT a, CT b) { return as_long(as_ulong(a) + as_ulong(b)); }
#else
inline CT xd_cs_add(CT a, CT b) { return a + b; }
#endif

// _lane: one work-item per row, a running sum in index order (exactly the reference's order):
// short rows, and rows along a dim that is not innermost when there are many of them
// (neighbouring rows are neighbouring addresses).
__kernel void xd_cumsum_lane(__global T* out, __global const T* in, const xd_layout L, long len, long step_out,
                             long step_in) {
  const ulong row = get_global_id(0);
  if (row >= (ulong)L.numel) return;
  const long yo = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row);
  CT acc = (CT)0;
  for (long j = 0; j < len; ++j) {
    acc = xd_cs_add(acc, XD_LD(in, xo + j * step_in));
    XD_ST(out, yo + j * step_out, acc);
  }
}

// Scan of one value per work-item over the work-group (Hillis-Steele in local memory, log2(XD_WG)
// steps): returns the sum of the values of the work-items before this one (0 for the first) and
// sets *total to the sum of all. `s` holds XD_WG values.
inline CT xd_cs_wg_scan(CT v, __local CT* s, CT* total) {
  const int lid = (int)get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < XD_WG; off <<= 1) {
    const CT t = lid >= off ? s[lid - off] : (CT)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= off) {
      v = xd_cs_add(t, v);
      s[lid] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *total = s[XD_WG - 1];
  const CT before = lid > 0 ? s[lid - 1] : (CT)0;  // not v - own value: that would round
  barrier(CLK_LOCAL_MEM_FENCE);                     // the next call writes s
  return before;
}

// _row: one work-group per row, in chunks of 4 * XD_WG elements carrying the running total.
// Work-item l sums its 4 consecutive elements in order (p0..p3), the work-group scans those sums,
// and element t gets (carry + sums of the work-items before l) + p_t. So the order of the
// additions is a parallel scan's, not the reference's: floating results differ by rounding
// (f16/bf16 sum in f32, so each output is rounded once all the same); integers are exact.
#define XD_CS_ITEMS 4
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_cumsum_row(
    __global T* out, __global const T* in, const xd_layout L, long len, long step_out, long step_in) {
  __local CT scratch[XD_WG];
  const ulong row = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const long yo = xd_row_offset(L, 0, row), xo = xd_row_offset(L, 1, row);
  CT carry = (CT)0;
  for (long base = 0; base < len; base += (long)XD_CS_ITEMS * XD_WG) {
    const long j0 = base + (long)XD_CS_ITEMS * lid;
    CT p[XD_CS_ITEMS];
    CT acc = (CT)0;
    for (int t = 0; t < XD_CS_ITEMS; ++t) {
      if (j0 + t < len) acc = xd_cs_add(acc, XD_LD(in, xo + (j0 + t) * step_in));
      p[t] = acc;
    }
    CT total;
    const CT before = xd_cs_wg_scan(acc, scratch, &total);
    const CT start = xd_cs_add(carry, before);
    for (int t = 0; t < XD_CS_ITEMS; ++t)
      if (j0 + t < len) XD_ST(out, yo + (j0 + t) * step_out, xd_cs_add(start, p[t]));
    carry = xd_cs_add(carry, total);
  }
}

// ---------------------------------------------------------------- topk
// Every element gets an unsigned key whose ascending order is the output order (plugin_abi.h):
// the value's order with NaN above +Inf and -0 equal to +0, complemented for largest. Ties of
// equal keys go to the smaller index, so the order is total and the result one: the reference's.
#define xd_tk_key_f64 ulong
#define xd_tk_key_i64 ulong
#define xd_tk_key_f32 uint
#define xd_tk_key_f16 uint
#define xd_tk_key_bf16 uint
#define xd_tk_key_i8 uint
#define xd_tk_key_u8 uint
#define xd_tk_key_i32 uint
#define KT XD_CAT(xd_tk_key_, XD_DT)
#define xd_tk_bits_f64 64
#define xd_tk_bits_i64 64
#define xd_tk_bits_f32 32
#define xd_tk_bits_f16 32
#define xd_tk_bits_bf16 32
#define xd_tk_bits_i8 32
#define xd_tk_bits_u8 32
#define xd_tk_bits_i32 32
#define XD_TK_BITS XD_CAT(xd_tk_bits_, XD_DT)

inline uint xd_tk_ord_float(float f) {
  if (isnan(f)) return 0xFFFFFFFFu;
  const uint b = f == 0.0f ? 0u : as_uint(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
#ifdef XD_HAS_FP64
inline ulong xd_tk_ord_double(double f) {
  if (isnan(f)) return 0xFFFFFFFFFFFFFFFFul;
  const ulong b = f == 0.0 ? 0ul : as_ulong(f);
  return (b & 0x8000000000000000ul) ? ~b : (b | 0x8000000000000000ul);
}
inline ulong xd_tk_ord_f64(double x) { return xd_tk_ord_double(x); }
#endif
inline uint xd_tk_ord_f32(float x) { return xd_tk_ord_float(x); }
inline uint xd_tk_ord_f16(ushort x) { return xd_tk_ord_float(xd_f16_to_float(x)); }
inline uint xd_tk_ord_bf16(ushort x) { return xd_tk_ord_float(xd_bf16_to_float(x)); }
inline uint xd_tk_ord_i8(char x) { return (uint)(int)x ^ 0x80000000u; }
inline uint xd_tk_ord_u8(uchar x) { return (uint)x; }
inline uint xd_tk_ord_i32(int x) { return (uint)x ^ 0x80000000u; }
inline ulong xd_tk_ord_i64(long x) { return as_ulong(x) ^ 0x8000000000000000ul; }
#define XD_TK_KEY(x, flip) (XD_CAT(xd_tk_ord_, XD_DT)(x) ^ (flip))

// Rows of up to XD_TK_CAP elements are sorted whole in local memory (keys and 32-bit indices:
// 24 KiB for 64-bit keys, 16 KiB otherwise).
#define XD_TK_CAP 2048

inline int xd_tk_less(KT ka, long ia, KT kb, long ib) { return ka < kb || (ka == kb && ia < ib); }

// The pair (i, p), i < p, that comparator t of a step compares in a bitonic sorting network whose
// comparators all sort ascending: the first step of each merge of `size` compares mirrored
// positions, the others positions `stride` apart. Padding the n elements to a power of two with
// keys above every real one, a comparator with p >= n never swaps, so it is skipped: the network
// sorts any n. O(n log^2 n) comparisons, XD_WG at a time.
inline void xd_tk_pair(long t, long size, long stride, long* i, long* p) {
  if (stride == size >> 1) {
    const long blk = t / stride, off = t - blk * stride;
    *i = blk * size + off;
    *p = blk * size + size - 1 - off;
  } else {
    const long blk = t / stride;
    *i = blk * 2 * stride + (t - blk * stride);
    *p = *i + stride;
  }
}

inline long xd_tk_pow2(long n) {
  long P = 1;
  while (P < n) P <<= 1;
  return P;
}

inline void xd_tk_sort_local(__local KT* key, __local uint* idx, long n) {
  const long P = xd_tk_pow2(n);
  const int lid = (int)get_local_id(0);
  for (long size = 2; size <= P; size <<= 1) {
    for (long stride = size >> 1; stride > 0; stride >>= 1) {
      for (long t = lid; t < P / 2; t += XD_WG) {
        long i, p;
        xd_tk_pair(t, size, stride, &i, &p);
        if (p < n && xd_tk_less(key[p], idx[p], key[i], idx[i])) {
          const KT k = key[i];
          key[i] = key[p];
          key[p] = k;
          const uint x = idx[i];
          idx[i] = idx[p];
          idx[p] = x;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

// The same network over the k outputs in global memory (values strided by step_v, indices by
// step_i), for k above XD_TK_CAP; the keys are recomputed from the values.
inline void xd_tk_sort_global(__global T* values, __global long* indices, long vo, long io, long step_v, long step_i,
                              long n, KT flip) {
  const long P = xd_tk_pow2(n);
  const int lid = (int)get_local_id(0);
  for (long size = 2; size <= P; size <<= 1) {
    for (long stride = size >> 1; stride > 0; stride >>= 1) {
      for (long t = lid; t < P / 2; t += XD_WG) {
        long i, p;
        xd_tk_pair(t, size, stride, &i, &p);
        if (p < n) {
          const T vi = values[vo + i * step_v], vp = values[vo + p * step_v];
          const long ii = indices[io + i * step_i], ip = indices[io + p * step_i];
          if (xd_tk_less(XD_TK_KEY(vp, flip), ip, XD_TK_KEY(vi, flip), ii)) {
            values[vo + i * step_v] = vp;
            values[vo + p * step_v] = vi;
            indices[io + i * step_i] = ip;
            indices[io + p * step_i] = ii;
          }
        }
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
    }
  }
}

// Exclusive scan of one uint per work-item over the work-group; *total gets the sum.
inline uint xd_tk_wg_scan(uint v, __local uint* s, uint* total) {
  const int lid = (int)get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint incl = v;
  for (int off = 1; off < XD_WG; off <<= 1) {
    const uint t = lid >= off ? s[lid - off] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    incl += t;
    s[lid] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *total = s[XD_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  return incl - v;
}

// One work-group per row. A row of n <= XD_TK_CAP elements is sorted whole in local memory
// (O(n log^2 n) work) and its first k written. A longer row:
//  1. radix select: XD_TK_BITS / 8 passes over the row, each a 256-bin histogram (local atomics)
//     of the keys that match the digits found so far, find the k-th smallest key `kth` and `rem`,
//     how many elements equal to it are among the k;
//  2. one pass in index order picks the keys below kth and the first `rem` equal to it (a scan of
//     packed counts per chunk of XD_WG gives each its place), into local memory when k <=
//     XD_TK_CAP, else straight into the outputs;
//  3. the k are sorted (local or global bitonic network) and written.
// Work O(n * XD_TK_BITS / 8 + k log^2 k) per row. sorted = 0 is sorted too (any order is allowed).
__kernel __attribute__((reqd_work_group_size(XD_WG, 1, 1))) void xd_topk(
    __global T* values, __global long* indices, __global const T* in, const xd_layout L, long len, long k,
    long step_v, long step_i, long step_in, int largest) {
  __local KT lkey[XD_TK_CAP];
  __local uint lidx[XD_TK_CAP];
  __local uint hist[256];
  __local uint scratch[XD_WG];
  const ulong row = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const long vo = xd_row_offset(L, 0, row), io = xd_row_offset(L, 1, row), xo = xd_row_offset(L, 2, row);
  const KT flip = largest ? ~(KT)0 : (KT)0;
  if (len <= XD_TK_CAP) {
    for (long j = lid; j < len; j += XD_WG) {
      lkey[j] = XD_TK_KEY(in[xo + j * step_in], flip);
      lidx[j] = (uint)j;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    xd_tk_sort_local(lkey, lidx, len);
    for (long r = lid; r < k; r += XD_WG) {
      const long j = lidx[r];
      values[vo + r * step_v] = in[xo + j * step_in];
      indices[io + r * step_i] = j;
    }
    return;
  }

  // 1. Radix select, most significant digit first.
  KT prefix = 0, known = 0;
  long rem = k;
  for (int shift = XD_TK_BITS - 8; shift >= 0; shift -= 8) {
    for (int b = lid; b < 256; b += XD_WG) hist[b] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long j = lid; j < len; j += XD_WG) {
      const KT key = XD_TK_KEY(in[xo + j * step_in], flip);
      if ((key & known) == prefix) atomic_inc(&hist[(uint)(key >> shift) & 255u]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long below = 0;
    uint b = 0;
    for (; b < 255u; ++b) {
      const long h = (long)hist[b];
      if (below + h >= rem) break;
      below += h;
    }
    rem -= below;
    prefix |= (KT)b << shift;
    known |= (KT)255 << shift;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const KT kth = prefix;

  // 2. The k, in index order: every key below kth, and the first `rem` equal to it.
  const int in_local = k <= XD_TK_CAP;
  long taken = 0, eq_taken = 0;
  for (long base = 0; base < len && taken < k; base += XD_WG) {
    const long j = base + lid;
    KT key = 0;
    uint lt = 0u, eq = 0u;
    if (j < len) {
      key = XD_TK_KEY(in[xo + j * step_in], flip);
      lt = key < kth;
      eq = key == kth;
    }
    // Both counts in one scan: below kth in the high half, equal to it in the low (<= XD_WG each).
    uint total;
    const uint before = xd_tk_wg_scan((lt << 16) | eq, scratch, &total);
    const long quota = rem - eq_taken;  // how many more equal keys are taken
    const long eq_before = (long)(before & 0xFFFFu), lt_before = (long)(before >> 16);
    const int sel = lt || (eq && eq_before < quota);
    if (sel) {
      const long pos = taken + lt_before + min(eq_before, quota);
      if (in_local) {
        lkey[pos] = key;
        lidx[pos] = (uint)j;
      } else {
        values[vo + pos * step_v] = in[xo + j * step_in];
        indices[io + pos * step_i] = j;
      }
    }
    const long eq_here = min((long)(total & 0xFFFFu), quota);
    taken += (long)(total >> 16) + eq_here;
    eq_taken += eq_here;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  // 3. Sort the k and write them.
  if (in_local) {
    xd_tk_sort_local(lkey, lidx, k);
    for (long r = lid; r < k; r += XD_WG) {
      const long j = lidx[r];
      values[vo + r * step_v] = in[xo + j * step_in];
      indices[io + r * step_i] = j;
    }
  } else {
    xd_tk_sort_global(values, indices, vo, io, step_v, step_i, k, flip);
  }
}
