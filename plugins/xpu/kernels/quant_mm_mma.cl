// INT_MM and SCALED_MM on NVIDIA tensor cores (inline PTX): xd_int_mm_mma_nt (i8 program) and
// xd_scaled_mm_mma_nt_b_e4m3 / _b_e5m2 (fp8 programs, keyed on a's format; mat2's format picks the
// entry), for a dense along k and mat2 stored n x k (w.t(): the layout of torch._int_mm's and
// torch._scaled_mm's usual second operand). Appended by the OpenCL plugin to quant_mm.cl's program
// after mma_common.cl; the Level Zero plugin never compiles it, and without XD_NV_MMA it is empty.
//
// The tiles of matmul_mma.cl's xd_gemm_mma in bytes: 128 x 128 outputs per work-group of four warps
// (64 x 64 each, 4 x 8 mma.m16n8k32 with s32 or f32 accumulators), K in steps of 64 (A's and B's
// tiles 8 KiB each), three steps in flight through cp.async (48 KiB), ldmatrix (an 8 x 8 matrix of
// 16-bit elements is 8 rows of 16 bytes: exactly the 8-bit fragments of m16n8k32), rows
// XOR-swizzled by 16-byte chunk.
// - int_mm: products exact, summed in s32 (wrapping modulo 2^32 as the reference does: no
//   .satfinite); the order of integer additions does not change the result.
// - scaled_mm: products of fp8 values exact, summed in f32 by the tensor core in steps of 32 along k
//   (the hardware's order within a step), then (acc * scale_a[i]) * scale_b[j] (+ bias[j]) and one
//   rounding to out's dtype, as xd_scaled_mm.
// The host (xpu::plan_int_mm, plan_scaled_mm) takes them only for offsets, strides and K that are
// multiples of 16 elements, so every 16-byte copy is aligned and wholly inside or outside the
// matrix; copies outside are zero-filled, outputs outside never stored.

#if defined(XD_NV_MMA) && (XD_CLASS == 3 || XD_CLASS == 5)

// One mma.m16n8k32 on accumulators held as 32-bit patterns: kind 0 s8 x s8 -> s32, 1..4 fp8
// (a e4m3 or e5m2) x (b e4m3 or e5m2) -> f32, as 1 + 2 * a_e5m2 + b_e5m2.
inline uint4 xd_qmma(uint4 c, const uint* a, uint b0, uint b1, const int kind) {
  if (kind == 0) {
    XD_ASM("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
           : "+r"(c.s0), "+r"(c.s1), "+r"(c.s2), "+r"(c.s3)
           : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    return c;
  }
  float4 f = as_float4(c);
#define XD_QMMA_F8(TA, TB)                                                                                        \
  XD_ASM("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
         : "+f"(f.s0), "+f"(f.s1), "+f"(f.s2), "+f"(f.s3)                                                          \
         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
  if (kind == 1)
    XD_QMMA_F8("e4m3", "e4m3");
  else if (kind == 2)
    XD_QMMA_F8("e4m3", "e5m2");
  else if (kind == 3)
    XD_QMMA_F8("e5m2", "e4m3");
  else
    XD_QMMA_F8("e5m2", "e5m2");
#undef XD_QMMA_F8
  return as_uint4(f);
}

// Four copies of one operand per work-item per step: from rows r + 32 i (i = 0..3; `base` is row
// r's start) the 16 bytes at k0; row i lands 2048 bytes further in the stage.
inline void xd_imma_issue(__global const uchar* base, long row_stride, int rows_in, long k, long k0, uint dst,
                          __global const uchar* fallback) {
  const int in_k = k0 < k;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int in = in_k && ((rows_in >> i) & 1);
    xd_mmk_copy16(dst + (uint)i * 2048u, in ? base + i * 32 * row_stride + k0 : fallback, in ? 16u : 0u);
  }
}

// The work-group's 128 x 128 tile (m0, n0 from xd_mmk_tile_origin):
// every product of A's rows and B's columns over K, into the work-item's acc (tile (i, j) of its
// warp's 4 x 8, as mma's accumulator fragments).
inline void xd_qmma_tile(__global const uchar* a, __global const uchar* b, const xd_qmm G, long m0, long n0,
                         __local uint4* sa, __local uint4* sb, uint4 acc[4][8], const int kind) {
  const int tid = (int)get_local_id(0), lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 1, wn = warp & 1;
  const int steps = (int)((G.k + 63) / 64);
  const int r = tid >> 2, ch = tid & 3;
  __global const uchar* pa = a + G.a_off + (m0 + r) * G.a_m;  // row r's start; + k0 per copy
  __global const uchar* pb = b + G.b_off + (n0 + r) * G.b_n;
  int rows_a = 0, rows_b = 0;
  for (int i = 0; i < 4; ++i) {
    rows_a |= (m0 + r + 32 * i < G.m) << i;
    rows_b |= (n0 + r + 32 * i < G.n) << i;
  }
  const uint dst = (uint)xd_mmk_at4(r, ch) * 16u;
  const uint sa0 = xd_mmk_shared(sa), sb0 = xd_mmk_shared(sb), stage_bytes = 512u * 16u;

  uint la[2], lb[2][4];
#pragma unroll
  for (int kk = 0; kk < 2; ++kk) {
    la[kk] = xd_mmk_lda(wm * 64, lane, kk);
#pragma unroll
    for (int p = 0; p < 4; ++p) lb[kk][p] = xd_mmk_ldb_nt(wn * 64 + p * 16, lane, kk);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = (uint4)(0u);  // 0 and +0.0f alike

#pragma unroll
  for (int s = 0; s < 2; ++s) {
    if (s < steps) {
      xd_imma_issue(pa, G.a_m, rows_a, G.k, ch * 16 + 64L * s, sa0 + s * stage_bytes + dst, a);
      xd_imma_issue(pb, G.b_n, rows_b, G.k, ch * 16 + 64L * s, sb0 + s * stage_bytes + dst, b);
    }
    xd_mmk_commit();
  }
  int use = 0, fill = 2;
  for (int kt = 0; kt < steps; ++kt) {
    XD_ASM volatile("cp.async.wait_group 1;" : : : "memory");
    barrier(CLK_LOCAL_MEM_FENCE);  // step kt is in every work-item's view; stage `fill` is free
    const int next = kt + 2;
    if (next < steps) {
      xd_imma_issue(pa, G.a_m, rows_a, G.k, ch * 16 + 64L * next, sa0 + fill * stage_bytes + dst, a);
      xd_imma_issue(pb, G.b_n, rows_b, G.k, ch * 16 + 64L * next, sb0 + fill * stage_bytes + dst, b);
    }
    xd_mmk_commit();
    const uint ta = sa0 + use * stage_bytes, tb = sb0 + use * stage_bytes;
#pragma unroll
    for (int kk = 0; kk < 2; ++kk) {  // two k32 steps of the 64
      uint af[4][4];
#pragma unroll
      for (int i = 0; i < 4; ++i) xd_mmk_ldsm(af[i], ta + la[kk] + i * 1024u);
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        uint q[4];
        xd_mmk_ldsm(q, tb + lb[kk][p]);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          acc[i][2 * p] = xd_qmma(acc[i][2 * p], af[i], q[0], q[1], kind);
          acc[i][2 * p + 1] = xd_qmma(acc[i][2 * p + 1], af[i], q[2], q[3], kind);
        }
      }
    }
    use = use == 2 ? 0 : use + 1;
    fill = fill == 2 ? 0 : fill + 1;
  }
}

#if XD_CLASS == 3
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void xd_int_mm_mma_nt(__global int* c,
                                                                                 __global const char* a,
                                                                                 __global const char* b,
                                                                                 const xd_qmm G, long row0) {
  __local uint4 sa[3 * 512];
  __local uint4 sb[3 * 512];
  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  uint4 acc[4][8];
  xd_qmma_tile((__global const uchar*)a, (__global const uchar*)b, G, m0, n0, sa, sb, acc, 0);
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5;
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const long row = m0 + (warp >> 1) * 64 + i * 16 + g, col = n0 + (warp & 1) * 64 + j * 8 + 2 * t;
      const int4 v = as_int4(acc[i][j]);
      if (row < G.m && col < G.n) c[G.c_off + row * G.c_m + col * G.c_n] = v.s0;
      if (row < G.m && col + 1 < G.n) c[G.c_off + row * G.c_m + (col + 1) * G.c_n] = v.s1;
      if (row + 8 < G.m && col < G.n) c[G.c_off + (row + 8) * G.c_m + col * G.c_n] = v.s2;
      if (row + 8 < G.m && col + 1 < G.n) c[G.c_off + (row + 8) * G.c_m + (col + 1) * G.c_n] = v.s3;
    }
  }
}
#endif  // i8

#if XD_CLASS == 5
#define xd_QA_e4m3 0
#define xd_QA_e5m2 1
#define XD_QA XD_CAT(xd_QA_, XD_DT)  // a's format (the program's dtype)

// scaled_mm's output as xd_scaled_mm writes it: (acc * scale_a[i]) * scale_b[j] (+ bias[j]),
// rounded once to out's dtype. The tensor-core kernels read a work-item's scales and bias into
// registers before its stores: loaded between stores (which may alias them, for all the compiler
// knows) each element waited on a round trip to memory, a quarter of a millisecond at 4096^2.
inline float xd_qmma_scale_a(__global const float* sa, const xd_qmm G, long i) {
  return i < G.m ? sa[G.sa_off + i * G.sa_m] : 0.0f;
}
inline float2 xd_qmma_scale_b(__global const float* sb, const xd_qmm G, long j) {
  return (float2)(j < G.n ? sb[G.sb_off + j * G.sb_n] : 0.0f, j + 1 < G.n ? sb[G.sb_off + (j + 1) * G.sb_n] : 0.0f);
}
inline float2 xd_qmma_bias(__global const uchar* bias, const xd_qmm G, long j) {
  if (!G.has_bias) return (float2)(0.0f);
  return (float2)(j < G.n ? xd_load_kind(bias, G.bias_off + j * G.bias_n, G.bias_kind) : 0.0f,
                  j + 1 < G.n ? xd_load_kind(bias, G.bias_off + (j + 1) * G.bias_n, G.bias_kind) : 0.0f);
}
inline void xd_qmma_scaled_put(__global uchar* c, const xd_qmm G, long i, long j, float acc, float sa, float sb,
                               float bias) {
  float v = acc * sa;
  v = v * sb;
  if (G.has_bias) v = v + bias;
  xd_store_kind(c, G.c_off + i * G.c_m + j * G.c_n, G.out_kind, v);
}
// Rows r and r + 8, columns col and col + 1 of one accumulator fragment (mma.m16n8's layout).
inline void xd_qmma_scaled_store4(__global uchar* c, const xd_qmm G, long r, long col, float4 v, float sa0, float sa8,
                                  float2 sb, float2 bias) {
  if (r < G.m && col < G.n) xd_qmma_scaled_put(c, G, r, col, v.s0, sa0, sb.s0, bias.s0);
  if (r < G.m && col + 1 < G.n) xd_qmma_scaled_put(c, G, r, col + 1, v.s1, sa0, sb.s1, bias.s1);
  if (r + 8 < G.m && col < G.n) xd_qmma_scaled_put(c, G, r + 8, col, v.s2, sa8, sb.s0, bias.s0);
  if (r + 8 < G.m && col + 1 < G.n) xd_qmma_scaled_put(c, G, r + 8, col + 1, v.s3, sa8, sb.s1, bias.s1);
}

inline void xd_scaled_mm_mma(__global uchar* c, __global const uchar* a, __global const uchar* b,
                             __global const float* sa, __global const float* sb, __global const uchar* bias,
                             const xd_qmm G, long row0, __local uint4* ta, __local uint4* tb, const int b_e5m2) {
  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  uint4 acc[4][8];
  xd_qmma_tile(a, b, G, m0, n0, ta, tb, acc, 1 + 2 * XD_QA + b_e5m2);
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5;
  const int g = lane >> 2, t = lane & 3;
  float sa_r[4][2];
  float2 sb_r[8], bias_r[8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const long row = m0 + (warp >> 1) * 64 + i * 16 + g;
    sa_r[i][0] = xd_qmma_scale_a(sa, G, row);
    sa_r[i][1] = xd_qmma_scale_a(sa, G, row + 8);
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const long col = n0 + (warp & 1) * 64 + j * 8 + 2 * t;
    sb_r[j] = xd_qmma_scale_b(sb, G, col);
    bias_r[j] = xd_qmma_bias(bias, G, col);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const long row = m0 + (warp >> 1) * 64 + i * 16 + g, col = n0 + (warp & 1) * 64 + j * 8 + 2 * t;
      xd_qmma_scaled_store4(c, G, row, col, as_float4(acc[i][j]), sa_r[i][0], sa_r[i][1], sb_r[j], bias_r[j]);
    }
  }
}

// mat2's format is a runtime property of the call (the program is keyed on a's): one entry each.
#define XD_SCALED_MM_MMA(NAME, B_E5M2)                                                                \
  __kernel __attribute__((reqd_work_group_size(128, 1, 1))) void NAME(                               \
      __global uchar* c, __global const uchar* a, __global const uchar* b, __global const float* sa, \
      __global const float* sb, __global const uchar* bias, const xd_qmm G, long row0) {             \
    __local uint4 ta[3 * 512];                                                                        \
    __local uint4 tb[3 * 512];                                                                        \
    xd_scaled_mm_mma(c, a, b, sa, sb, bias, G, row0, ta, tb, B_E5M2);                                 \
  }
XD_SCALED_MM_MMA(xd_scaled_mm_mma_nt_b_e4m3, 0)
XD_SCALED_MM_MMA(xd_scaled_mm_mma_nt_b_e5m2, 1)
#endif  // fp8

#endif  // XD_NV_MMA, i8 or fp8
