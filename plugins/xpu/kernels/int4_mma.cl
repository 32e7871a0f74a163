// WEIGHT_INT4_MM on NVIDIA tensor cores (inline PTX), for f16 and bf16 inputs. Appended by the
// OpenCL plugin to int4.cl's program (whose struct, constants and load helpers it uses); the
// Level Zero plugin never compiles it (plugins/xpu/levelzero/CMakeLists.txt leaves it out of the
// SPIR-V modules), and without XD_NV_MMA it is empty.
//
//   xd_int4_mma_m8/16        the tensor-core product, any alignment.
//   xd_int4_mma_m8/16_dense  the same for aligned operands and whole 32-column tiles
//                            (xpu::plan_int4_mm checks): plain vector loads with no tests.

#if XD_CLASS == 1

// ---------------------------------------------------------------- NVIDIA tensor cores (f16, bf16)
// Built only where the OpenCL host defines XD_NV_MMA (an NVIDIA device of compute capability 8.0
// or later, whose OpenCL compiler takes inline PTX); other devices and the Level Zero SPIR-V never
// see it. It multiplies 16 input rows (row0 .. row0 + 15, zero past M) with tiles of 8 columns by
// mma.m16n8k16 (f32 accumulators), for group sizes that are multiples of 128:
//   - The dot product's k order is free, so within each 128-k piece lane (g, t) of a warp takes
//     the 32 weights k = 32t .. 32t + 31 of column g: one 16-byte load. A piece lies in one
//     quantization group, so the tile's sum over it is scaled once, in float, per output column.
//   - The weight enters the tensor core as q - zero, exact in f16/bf16 (a nibble pair OR-ed into
//     the magic constant is base + q exactly, and one packed fma subtracts base + zero), so the
//     result is the reference's up to summation order: no weight is rounded.
//   - The offset route (XD_I4M_OFFSET: the 16-row kernel for bf16): the weight enters as base + q
//     (the nibble OR-ed into the magic constant, no subtraction), and the tile's sum is corrected
//     once per piece by (base + zero) times the rows' input sums, which one more product with a B
//     of ones gives: 8 mma instead of 64 packed subtractions per piece, the subtraction then in
//     float after the sum. A sum that comes out not finite (a non-finite input, or base + q times
//     an input near the top of the float range) stays so to the end of the pieces, and the warp
//     then runs its pieces again by the exact route, so such inputs give the reference's Inf/NaN.
//   - Each lane reads its rows of the input straight from global memory (small and cached), in
//     the same k order, repacked into the pairs the tensor core takes.
//   - The work-group's warps (as many as the host chose: get_local_size(0) / 32) split K, pieces
//     interleaved, for the same XD_I4M_NT tiles, so that many warps stream weights; their sums
//     meet in local memory (`part`: warps * XD_I4M_NT * 32 float4) at the end. No barrier stands
//     in the loop.
//   - xd_int4_mma_m8 serves up to 8 rows: the tensor core's rows 8..15 are zero and never loaded,
//     which saves the registers that hold them; xd_int4_mma_m16 up to 16.
#if defined(XD_NV_MMA) && (XD_I4_QUANT == 2 || XD_I4_FP16)
#ifndef XD_I4M_NT
#define XD_I4M_NT 4
#endif
#ifndef XD_I4M_U
#define XD_I4M_U 1
#endif
// The offset route only where it measured faster than the exact route: bf16, 16 rows, DENSE; f16
// and the 8-row kernel keep the exact route (docs/performance.md, "weight_int4_mm bf16 16 rows by
// the offset route").
#ifndef XD_I4M_OFFSET
#if XD_I4_QUANT == 2
#define XD_I4M_OFFSET 1
#else
#define XD_I4M_OFFSET 0
#endif
#endif
#if XD_I4_QUANT == 2
#define XD_I4M_TY "bf16"
#define XD_I4M_MAGIC 0x43004300u  // bf16 128.0 in both halves: 128 + q is exact
#define XD_I4M_BASE 128.0f
#define XD_I4M_BASEBITS 0x4300u  // bf16 128.0
#define XD_I4M_ONE 0x3F803F80u
inline uint xd_i4m_bits(float v) { return as_uint(v) >> 16; }  // exact for the small integers here
#else
#define XD_I4M_TY "f16"
#define XD_I4M_MAGIC 0x64006400u  // f16 1024.0
#define XD_I4M_BASE 1024.0f
#define XD_I4M_BASEBITS 0x6400u  // f16 1024.0
#define XD_I4M_ONE 0x3C003C00u
// v = 1024 + zero for an i8 zero point, so 896 <= v <= 1151: in [1024, 2048) the f16 step is 1, in
// [512, 1024) it is 1/2 (exact; no float-to-half conversion routine).
inline uint xd_i4m_bits(float v) {
  const int d = (int)v - 1024;
  return 0x6400u + (uint)(d >= 0 ? d : 2 * d);
}
#endif
inline uint xd_i4m_fma2(uint a, uint b, uint c) {
  uint d;
  XD_ASM("fma.rn." XD_I4M_TY "x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

inline float4 xd_i4m_mma(float4 c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  XD_ASM("mma.sync.aligned.m16n8k16.row.col.f32." XD_I4M_TY "." XD_I4M_TY
         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
         : "+f"(c.s0), "+f"(c.s1), "+f"(c.s2), "+f"(c.s3)
         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  return c;
}

// Whether p is nonzero in any lane of the warp (every lane gets the answer).
inline int xd_i4m_warp_any(int p) {
  uint r;
  XD_ASM volatile("{ .reg .pred a, b; setp.ne.u32 a, %1, 0; vote.sync.any.pred b, a, 0xffffffff; selp.u32 %0, 1, 0, b; }"
                  : "=r"(r)
                  : "r"((uint)p));
  return (int)r;
}

// Pair i (0..3) of a weight word, codes i and i + 4, as base + q (the offset route; magic:
// XD_I4M_MAGIC in a register, so that mask-and-OR is one LOP3, as in xd_i4_magic); xd_i4m_pair gives
// the same pair as q - zero (neg_zero: -(base + zero)).
inline uint xd_i4m_offset_pair(uint v, int i, uint magic) {
  uint t;
  XD_ASM("lop3.b32 %0, %1, 0x000F000F, %2, 0xEA;" : "=r"(t) : "r"(v >> (4 * i)), "r"(magic));
  return t;
}
inline uint xd_i4m_pair(uint v, int i, uint neg_zero, uint magic) {
  return xd_i4m_fma2(xd_i4m_offset_pair(v, i, magic), XD_I4M_ONE, neg_zero);
}
// Zero point c of the bytes in zw, as a float.
inline float xd_i4m_zero_at(const uint* zw, int c) { return (float)(char)(zw[c / 4] >> (8 * (c % 4))); }

// One tile's product over a piece: the input pairs a (rows g) and c (rows g + 8) of its four
// k-blocks by the weight word w's pairs, as q - zero (neg_zero: xd_i4m_neg_zero's) or, with
// OFFSET, as base + q (the offset route).
inline float4 xd_i4m_tile(const uint4* a, const uint4* c, uint4 w, uint neg_zero, uint magic, const int OFFSET) {
  float4 t = (float4)(0.0f);
  const uint words[4] = {w.s0, w.s1, w.s2, w.s3};
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    uint b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      b[i] = OFFSET ? xd_i4m_offset_pair(words[r], i, magic) : xd_i4m_pair(words[r], i, neg_zero, magic);
    t = xd_i4m_mma(t, a[r].s0, c[r].s0, a[r].s1, c[r].s1, b[0], b[1]);
    t = xd_i4m_mma(t, a[r].s2, c[r].s2, a[r].s3, c[r].s3, b[2], b[3]);
  }
  return t;
}

// Eight consecutive inputs x0..x7 (two per word) as the pairs (x_i, x_i+4), matching the weight
// pairs above.
inline uint4 xd_i4m_xpairs(uint4 v) {
  return (uint4)((v.s0 & 0xFFFFu) | (v.s2 << 16), (v.s0 >> 16) | (v.s2 & 0xFFFF0000u), (v.s1 & 0xFFFFu) | (v.s3 << 16),
                 (v.s1 >> 16) | (v.s3 & 0xFFFF0000u));
}

// 16 bytes of packed weights, at an aligned address. Weights are read once: the load neither
// allocates in L1 (which then keeps the input rows, re-read by every warp on the multiprocessor)
// nor leaves the L2 to fetch the row 64 bytes at a time (a column's four lanes read 64 bytes of it
// per piece and the work-group's other warps the pieces beside it: L2::256B). Read-only for the
// kernel, so the non-coherent path.
inline uint4 xd_i4m_ldw(__global const uchar* p) {
  uint4 v;
  XD_ASM("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
         : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
         : "l"(p));
  return v;
}

// The _dense kernels' scales and zero points: each lane reads 2 NT scales and NT zero points of a
// group row, a few bytes beside those of the neighbouring work-groups, so the loads ask the L2 for
// 256 bytes at a time as the weights' do (and skip L1). `count` is a multiple of 8 (scales) or 4
// (zero points); the host checks the 16- and 4-byte alignment.
inline void xd_i4m_scales(__global const T* p, float* out, const int count) {
#pragma unroll
  for (int i = 0; i < count; i += 8) {
    uint4 v;
    XD_ASM("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
           : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
           : "l"(p + i));
    const uint w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
#if XD_I4_FP16 && defined(XD_NV_SHFL)
      const float2 f = xd_i4_half2(w[k]);
#elif XD_I4_FP16
      const float2 f = (float2)(xd_f16_to_float((ushort)(w[k] & 0xFFFFu)), xd_f16_to_float((ushort)(w[k] >> 16)));
#else
      const float2 f = (float2)(as_float(w[k] << 16), as_float(w[k] & 0xFFFF0000u));
#endif
      out[i + 2 * k] = f.x, out[i + 2 * k + 1] = f.y;
    }
  }
}
inline void xd_i4m_zeros(__global const char* p, uint* out, const int count) {
#pragma unroll
  for (int i = 0; i < count; i += 4)
    XD_ASM("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];" : "=r"(out[i / 4]) : "l"(p + i));
}
// The packed fma's addend: -(base + zero) in both halves, from the bits of base + zero.
inline uint xd_i4m_neg_pair(uint bits) { return bits * 0x10001u | 0x80008000u; }
inline uint xd_i4m_neg_zero(float zero) { return xd_i4m_neg_pair(xd_i4m_bits(XD_I4M_BASE + zero)); }
// The same for four zero points (bytes of `zv`): integer arithmetic where all are >= 0 (base + zero
// then shares the base's exponent, so its bits are the base's plus zero), the float route otherwise.
inline void xd_i4m_neg_zero4(uint zv, uint* nz) {
  if ((zv & 0x80808080u) == 0) {
#pragma unroll
    for (int j = 0; j < 4; ++j) nz[j] = xd_i4m_neg_pair(XD_I4M_BASEBITS + ((zv >> (8 * j)) & 0xFFu));
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) nz[j] = xd_i4m_neg_zero((float)(char)(zv >> (8 * j)));
  }
}

// Stores output (m, n); one the tensor cores left non-finite (Inf - Inf, or x * (q - zero)
// overflowing before the scale) is redone in the reference's order (xd_i4_exact, int4.cl).
inline void xd_i4m_put(__global T* out, __global const T* x, __global const uchar* w, __global const T* s,
                       __global const char* z, const xd_int4 A, long m, long n, float v) {
  if (!isfinite(v)) v = xd_i4_exact(x, w, s, z, A, m, n);
  XD_ST(out, A.o_off + m * A.n + n, v);
}

// DENSE: the host has checked that every load is aligned and every tile's columns exist
// (xpu::plan_int4_mm): plain vector loads, no alignment tests or column bounds.
inline void xd_int4_mma(__global T* out, __global const T* x, __global const uchar* w, __global const T* s,
                        __global const char* z, const xd_int4 A, long row0, __local float4* part, const int HI,
                        const int DENSE) {
  const int ks = (int)(get_local_size(0) / 32);
  const int lid = (int)get_local_id(0);
  const int warp = lid / 32, lane = lid % 32, g8 = lane >> 2, tig = lane & 3;
  const long half_k = A.k / 2, pieces = A.k / 128;
  const long blocks = (A.n + XD_I4M_NT * 8 - 1) / (XD_I4M_NT * 8);
  const long rows = min(A.m - row0, HI ? 16L : 8L);
  __global const uchar* xb = (__global const uchar*)x;
  const long xlo = 2 * (A.x_off + (row0 + g8) * A.k), xhi = xlo + 16 * A.k;
  // The _dense kernels read rows past M as row M - 1 instead of testing each load: the tensor
  // core keeps rows apart, so those rows reach only outputs that are never stored.
  const long xlo_c = 2 * (A.x_off + (row0 + min((long)g8, rows - 1)) * A.k);
  const long xhi_c = 2 * (A.x_off + (row0 + min((long)g8 + 8, rows - 1)) * A.k);
  const uint magic = XD_I4M_MAGIC | (uint)(A.k >> 62);  // k >> 62 == 0, opaque: see xd_i4_magic
  const uint ppg = (uint)(A.group >> 7);                  // pieces per quantization group
  const int gsh = 31 - (int)clz(ppg), gpow = (ppg & (ppg - 1)) == 0;
  for (long b = (long)get_group_id(0); b < blocks; b += (long)get_num_groups(0)) {
    const long col0 = b * XD_I4M_NT * 8;
    float4 acc[XD_I4M_NT];
    // off: this pass takes the offset route (XD_I4M_OFFSET, below); a warp whose sums come out of
    // it not finite runs its pieces again by the exact route.
    for (int off = XD_I4M_OFFSET > 0 && DENSE && HI;; off = 0) {
      (void)off;  // unused without XD_I4M_OFFSET
#pragma unroll
      for (int j = 0; j < XD_I4M_NT; ++j) acc[j] = (float4)(0.0f);
      for (long p0 = warp; p0 < pieces; p0 += (long)ks * XD_I4M_U) {
        // Every load of the step first: weights, zero points, scales and input rows.
        uint4 q[XD_I4M_U][XD_I4M_NT];
        float zf[XD_I4M_U][XD_I4M_NT], sc[XD_I4M_U][2 * XD_I4M_NT];
        uint zraw[XD_I4M_U][XD_I4M_NT / 4];  // DENSE: the zero points as bytes
#if XD_I4M_OFFSET > 0
        uint zdraw[XD_I4M_U][XD_I4M_NT / 2];  // the offset route: the D columns' zero points
#endif
        uint4 lo[XD_I4M_U][4], hi[XD_I4M_U][4];
#pragma unroll
        for (int u = 0; u < XD_I4M_U; ++u) {
          const long p = p0 + (long)u * ks;
          const int live = p < pieces;
          const long kw = p * 128 + 32 * tig;
          // A group holds whole pieces: p >> gsh for power-of-two groups, else a 32-bit division
          // (a 64-bit one is a long instruction sequence in the loop; p < 2^32 for K below 2^39).
          const long gi = gpow ? p >> gsh : (long)((uint)p / ppg);
          // Column c of tile j is col0 + c * NT + j: a lane's B columns (c = g) are NT neighbours and
          // its D columns (c = 2t, 2t + 1) 2 NT neighbours, so zero points and scales come in wide
          // loads.
          const long nb = col0 + g8 * XD_I4M_NT, nd = col0 + 2 * tig * XD_I4M_NT;
          if (DENSE) {
#pragma unroll
            for (int j = 0; j < XD_I4M_NT; ++j)
              q[u][j] = live ? xd_i4m_ldw(w + A.w_off + (nb + j) * half_k + kw / 2) : (uint4)(0u);
#pragma unroll
            for (int r = 0; r < 4; ++r) {
              lo[u][r] = live ? *(__global const uint4*)(xb + xlo_c + 2 * (kw + 8 * r)) : (uint4)(0u);
              hi[u][r] = HI && live ? *(__global const uint4*)(xb + xhi_c + 2 * (kw + 8 * r)) : (uint4)(0u);
            }
#if XD_I4M_OFFSET > 0
            if (HI) xd_i4m_zeros(z + A.z_off + gi * A.n + nd, zdraw[u], 2 * XD_I4M_NT);
#endif
            xd_i4m_zeros(z + A.z_off + gi * A.n + nb, zraw[u], XD_I4M_NT);
            xd_i4m_scales(s + A.s_off + gi * A.n + nd, sc[u], 2 * XD_I4M_NT);
          } else {
#pragma unroll
            for (int j = 0; j < XD_I4M_NT; ++j) {
              const int in = live && nb + j < A.n;
              q[u][j] = in ? xd_i4_load16(w, A.w_off + (nb + j) * half_k + kw / 2) : (uint4)(0u);
            }
#pragma unroll
            for (int r = 0; r < 4; ++r) {
              lo[u][r] = live && g8 < rows ? xd_i4_load16(xb, xlo + 2 * (kw + 8 * r)) : (uint4)(0u);
              hi[u][r] = HI && live && g8 + 8 < rows ? xd_i4_load16(xb, xhi + 2 * (kw + 8 * r)) : (uint4)(0u);
            }
            // Last: these convert what they load at once, which would hold back every later load.
            xd_i4_zeros(z, A.z_off + gi * A.n + nb, live ? A.n - nb : 0, zf[u], XD_I4M_NT);
            xd_i4_scales(s, A.s_off + gi * A.n + nd, live ? A.n - nd : 0, sc[u], 2 * XD_I4M_NT);
          }
        }
#pragma unroll
        for (int u = 0; u < XD_I4M_U; ++u) {
          uint4 a[4], c[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            a[r] = xd_i4m_xpairs(lo[u][r]);
            c[r] = HI ? xd_i4m_xpairs(hi[u][r]) : (uint4)(0u);
          }
          // Uses of the zero points only now: a use between two loads holds the later one back.
          uint nz[XD_I4M_NT];
#if XD_I4M_OFFSET > 0
          if (off) {
            // The tensor core takes base + q; the tile's sum is corrected by (base + zero) times the
            // rows' input sums, which a product with a B of ones gives.
            float4 rs = (float4)(0.0f);
#pragma unroll
            for (int r = 0; r < 4; ++r) {
              rs = xd_i4m_mma(rs, a[r].s0, c[r].s0, a[r].s1, c[r].s1, XD_I4M_ONE, XD_I4M_ONE);
              rs = xd_i4m_mma(rs, a[r].s2, c[r].s2, a[r].s3, c[r].s3, XD_I4M_ONE, XD_I4M_ONE);
            }
#pragma unroll
            for (int j = 0; j < XD_I4M_NT; ++j) {
              float4 t = xd_i4m_tile(a, c, q[u][j], 0u, magic, 1);
              // Lane (g, t)'s columns 2t and 2t + 1 of tile j, as the scales below.
              const float z0 = XD_I4M_BASE + xd_i4m_zero_at(zdraw[u], j);
              const float z1 = XD_I4M_BASE + xd_i4m_zero_at(zdraw[u], XD_I4M_NT + j);
              t = fma(-(float4)(z0, z1, z0, z1), (float4)(rs.s0, rs.s0, rs.s2, rs.s2), t);
              const float s0 = sc[u][j], s1 = sc[u][XD_I4M_NT + j];
              acc[j] = fma(t, (float4)(s0, s1, s0, s1), acc[j]);
            }
            continue;
          }
#endif
          if (DENSE) {
#pragma unroll
            for (int j = 0; j < XD_I4M_NT; j += 4) xd_i4m_neg_zero4(zraw[u][j / 4], nz + j);
          } else {
#pragma unroll
            for (int j = 0; j < XD_I4M_NT; ++j) nz[j] = xd_i4m_neg_zero(zf[u][j]);
          }
#pragma unroll
          for (int j = 0; j < XD_I4M_NT; ++j) {
            const float4 t = xd_i4m_tile(a, c, q[u][j], nz[j], magic, 0);
            // Lane (g, t) holds rows g and g + 8 of tile columns 2t and 2t + 1: scale them.
            const float s0 = sc[u][j], s1 = sc[u][XD_I4M_NT + j];
            acc[j] = fma(t, (float4)(s0, s1, s0, s1), acc[j]);
          }
        }
      }
#if XD_I4M_OFFSET > 0
      // A sum that is not finite (a non-finite input, or base + q times an input past the float
      // range) stays so to the end: the warp redoes its pieces by the exact route then.
      int bad = 0;
#pragma unroll
      for (int j = 0; j < XD_I4M_NT; ++j)
        bad |= !isfinite(acc[j].s0) | !isfinite(acc[j].s1) | !isfinite(acc[j].s2) | !isfinite(acc[j].s3);
      if (off && xd_i4m_warp_any(bad)) continue;
#endif
      break;
    }
    // The KS warps' sums, in warp order.
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous block's readers are done
#pragma unroll
    for (int j = 0; j < XD_I4M_NT; ++j) part[(warp * XD_I4M_NT + j) * 32 + lane] = acc[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp == 0) {
#pragma unroll
      for (int j = 0; j < XD_I4M_NT; ++j) {
        float4 v = acc[j];
        for (int k = 1; k < ks; ++k) v += part[(k * XD_I4M_NT + j) * 32 + lane];
        const long n0 = col0 + 2 * tig * XD_I4M_NT + j, n1 = n0 + XD_I4M_NT;
        const long m = row0 + g8;
        if (g8 < rows && n0 < A.n) xd_i4m_put(out, x, w, s, z, A, m, n0, v.s0);
        if (g8 < rows && n1 < A.n) xd_i4m_put(out, x, w, s, z, A, m, n1, v.s1);
        if (HI && g8 + 8 < rows && n0 < A.n) xd_i4m_put(out, x, w, s, z, A, m + 8, n0, v.s2);
        if (HI && g8 + 8 < rows && n1 < A.n) xd_i4m_put(out, x, w, s, z, A, m + 8, n1, v.s3);
      }
    }
  }
}

#define XD_I4M_KERNEL(NAME, HI, DENSE)                                                                     \
  __kernel void NAME(__global T* out, __global const T* x, __global const uchar* w, __global const T* s,   \
                     __global const char* z, const xd_int4 A, long row0, __local float4* part) {           \
    xd_int4_mma(out, x, w, s, z, A, row0, part, HI, DENSE);                                                \
  }
XD_I4M_KERNEL(xd_int4_mma_m8, 0, 0)
XD_I4M_KERNEL(xd_int4_mma_m16, 1, 0)
XD_I4M_KERNEL(xd_int4_mma_m8_dense, 0, 1)
XD_I4M_KERNEL(xd_int4_mma_m16_dense, 1, 1)
#endif  // XD_NV_MMA

#endif  // XD_CLASS == 1
