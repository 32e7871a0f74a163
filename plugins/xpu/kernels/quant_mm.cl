// INT_MM (built for XD_DT=i8) and SCALED_MM (built for XD_DT=e4m3 and e5m2: the format of `a`),
// with the semantics of the CPU reference (plugins/cpu/kernels/int_mm.cpp, scaled_mm.cpp).
//
// One register-tiled scheme for both: a work-group of XD_QL x XD_QL work-items (16 x 16; 8 x 8 or
// 4 x 4 where XD_WG is smaller, as xpu::plan_qmm mirrors) computes an
// XD_QB x XD_QB block of out, each work-item XD_QR x XD_QR outputs (rows ty + r*XD_QL, columns
// tx + c*XD_QL, so neighbouring work-items read neighbouring local words); K advances in steps of
// XD_QK staged in local memory. Any strides: the tile loaders index each operand through its own
// strides (consecutive work-items walk a's k and b's n, which coalesces for row-major operands).
//
// int_mm: a's tile is kept as rows of chars and b's transposed, so four consecutive k are one
// char4 on each side: with cl_khr_integer_dot_product (the host defines XD_HAS_INT_DOT for a
// device that reports it) a 4x8-bit dot builtin, otherwise four int multiply-adds. Sums wrap
// modulo 2^32 (uint), exactly as the reference.
//
// scaled_mm: fp8 tiles are decoded to float on the way into local memory through two 256-entry
// tables built per work-group (both formats are runtime arguments: the module is keyed on a's
// dtype as the op is, and a mixed pair shares it). fp8 products are exact in float, so fma and multiply-then-add agree; sums
// run in k order like the reference, then (acc * scale_a[i]) * scale_b[j] + bias[j], rounded
// once to out's dtype (f32, f16 or bf16, a runtime argument like bias's dtype).

#pragma OPENCL FP_CONTRACT OFF

#if XD_WG >= 256
#define XD_QL 16
#elif XD_WG >= 64
#define XD_QL 8
#else
#define XD_QL 4
#endif
#define XD_QR 4
#define XD_QB (XD_QL * XD_QR)
#define XD_QK 16
#define XD_QN (XD_QL * XD_QL)

// Field for field as xpu::qmm_args (plugins/xpu/common/quant_mm.hpp): 8-byte fields only.
typedef struct {
  long m, n, k;
  long a_off, a_m, a_k;
  long b_off, b_k, b_n;
  long c_off, c_m, c_n;
  long sa_off, sa_m;      // scale_a [M,1] (sa_m == 0: tensor-wise)
  long sb_off, sb_n;      // scale_b [1,N]
  long bias_off, bias_n;  // bias [N]
  long has_bias;
  long a_fmt, b_fmt;  // formats: 0 e4m3fn, 1 e5m2
  long out_kind;   // 0 f32, 1 f16, 2 bf16
  long bias_kind;  // as out_kind
} xd_qmm;

#if XD_CLASS == 3

#if defined(XD_HAS_INT_DOT) && defined(__opencl_c_integer_dot_product_input_4x8bit)
#define XD_DOT4(x, y) dot((x), (y))
#else
#define XD_DOT4(x, y) \
  ((int)(x).s0 * (int)(y).s0 + (int)(x).s1 * (int)(y).s1 + (int)(x).s2 * (int)(y).s2 + (int)(x).s3 * (int)(y).s3)
#endif

__kernel __attribute__((reqd_work_group_size(XD_QL, XD_QL, 1))) void xd_int_mm(
    __global int* c, __global const char* a, __global const char* b, const xd_qmm G, long row0) {
  __local char As[XD_QB][XD_QK];  // As[row][k]
  __local char Bt[XD_QB][XD_QK];  // Bt[col][k]: b's tile transposed
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const int t = ty * XD_QL + tx;
  const long m0 = row0 + (long)get_group_id(1) * XD_QB, n0 = (long)get_group_id(0) * XD_QB;
  uint acc[XD_QR][XD_QR];
  for (int r = 0; r < XD_QR; ++r)
    for (int q = 0; q < XD_QR; ++q) acc[r][q] = 0u;
  for (long k0 = 0; k0 < G.k; k0 += XD_QK) {
    for (int e = t; e < XD_QB * XD_QK; e += XD_QN) {
      const int ar = e / XD_QK, ak = e % XD_QK;  // consecutive work-items: consecutive k of a row
      const long gi = m0 + ar, gk = k0 + ak;
      As[ar][ak] = (gi < G.m && gk < G.k) ? a[G.a_off + gi * G.a_m + gk * G.a_k] : (char)0;
      const int bk = e / XD_QB, bc = e % XD_QB;  // consecutive work-items: consecutive n of a row
      const long hk = k0 + bk, gj = n0 + bc;
      Bt[bc][bk] = (hk < G.k && gj < G.n) ? b[G.b_off + hk * G.b_k + gj * G.b_n] : (char)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < XD_QK; kk += 4) {
      char4 av[XD_QR], bv[XD_QR];
      for (int r = 0; r < XD_QR; ++r) av[r] = vload4(0, &As[ty + r * XD_QL][kk]);
      for (int q = 0; q < XD_QR; ++q) bv[q] = vload4(0, &Bt[tx + q * XD_QL][kk]);
      for (int r = 0; r < XD_QR; ++r)
        for (int q = 0; q < XD_QR; ++q) acc[r][q] += (uint)XD_DOT4(av[r], bv[q]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int r = 0; r < XD_QR; ++r) {
    const long i = m0 + ty + r * XD_QL;
    if (i >= G.m) continue;
    for (int q = 0; q < XD_QR; ++q) {
      const long j = n0 + tx + q * XD_QL;
      if (j < G.n) c[G.c_off + i * G.c_m + j * G.c_n] = as_int(acc[r][q]);
    }
  }
}

#endif  // XD_CLASS == 3

#if XD_CLASS == 5

inline float xd_fp8_value(uint bits, long fmt) {
  return fmt == 0 ? xd_fp8_decode(bits, 4, 3, 0) : xd_fp8_decode(bits, 5, 2, 1);
}

inline float xd_load_kind(__global const uchar* p, long i, long kind) {
  if (kind == 0) return ((__global const float*)p)[i];
  if (kind == 1) return xd_f16_to_float(((__global const ushort*)p)[i]);
  return xd_bf16_to_float(((__global const ushort*)p)[i]);
}

inline void xd_store_kind(__global uchar* p, long i, long kind, float v) {
  if (kind == 0)
    ((__global float*)p)[i] = v;
  else if (kind == 1)
    ((__global ushort*)p)[i] = xd_float_to_f16(v);
  else
    ((__global ushort*)p)[i] = xd_float_to_bf16(v);
}

__kernel __attribute__((reqd_work_group_size(XD_QL, XD_QL, 1))) void xd_scaled_mm(
    __global uchar* c, __global const uchar* a, __global const uchar* b, __global const float* sa,
    __global const float* sb, __global const uchar* bias, const xd_qmm G, long row0) {
  __local float lut_a[256], lut_b[256];
  __local float As[XD_QK][XD_QB + 1];  // As[k][row]
  __local float Bs[XD_QK][XD_QB + 1];  // Bs[k][col]
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const int t = ty * XD_QL + tx;
  for (int v = t; v < 256; v += XD_QN) {
    lut_a[v] = xd_fp8_value((uint)v, G.a_fmt);
    lut_b[v] = xd_fp8_value((uint)v, G.b_fmt);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const long m0 = row0 + (long)get_group_id(1) * XD_QB, n0 = (long)get_group_id(0) * XD_QB;
  float acc[XD_QR][XD_QR];
  for (int r = 0; r < XD_QR; ++r)
    for (int q = 0; q < XD_QR; ++q) acc[r][q] = 0.0f;
  for (long k0 = 0; k0 < G.k; k0 += XD_QK) {
    for (int e = t; e < XD_QB * XD_QK; e += XD_QN) {
      const int ar = e / XD_QK, ak = e % XD_QK;
      const long gi = m0 + ar, gk = k0 + ak;
      As[ak][ar] = (gi < G.m && gk < G.k) ? lut_a[a[G.a_off + gi * G.a_m + gk * G.a_k]] : 0.0f;
      const int bk = e / XD_QB, bc = e % XD_QB;
      const long hk = k0 + bk, gj = n0 + bc;
      Bs[bk][bc] = (hk < G.k && gj < G.n) ? lut_b[b[G.b_off + hk * G.b_k + gj * G.b_n]] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Steps past K add 0 * 0 = +0, which leaves every partial sum unchanged (even -0: -0 + +0 is
    // +0 in both, since the reference's sum starts from +0 as well).
    for (int kk = 0; kk < XD_QK; ++kk) {
      float av[XD_QR], bv[XD_QR];
      for (int r = 0; r < XD_QR; ++r) av[r] = As[kk][ty + r * XD_QL];
      for (int q = 0; q < XD_QR; ++q) bv[q] = Bs[kk][tx + q * XD_QL];
      for (int r = 0; r < XD_QR; ++r)
        for (int q = 0; q < XD_QR; ++q) acc[r][q] = fma(av[r], bv[q], acc[r][q]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int r = 0; r < XD_QR; ++r) {
    const long i = m0 + ty + r * XD_QL;
    if (i >= G.m) continue;
    const float si = sa[G.sa_off + i * G.sa_m];
    for (int q = 0; q < XD_QR; ++q) {
      const long j = n0 + tx + q * XD_QL;
      if (j >= G.n) continue;
      float v = acc[r][q] * si;
      v = v * sb[G.sb_off + j * G.sb_n];
      if (G.has_bias) v = v + xd_load_kind(bias, G.bias_off + j * G.bias_n, G.bias_kind);
      xd_store_kind(c, G.c_off + i * G.c_m + j * G.c_n, G.out_kind, v);
    }
  }
}

#endif  // XD_CLASS == 5
