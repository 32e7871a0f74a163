// MM, ADDMM, BMM, BADDBMM for f16 and bf16 on Intel's matrix engines (XMX) through the OpenCL
// extension cl_intel_subgroup_matrix_multiply_accumulate: one kernel, xd_gemm_dpas, with the
// arguments of matmul.cl's kernels (the same launcher arguments, xpu::run_matmul_dpas), built after
// common.cl and matmul.cl's argument struct and epilogue (-DXD_GEMM_EPILOGUE_ONLY leaves out
// matmul.cl's kernels), for one sub-group size:
//
//   -DXD_DPAS_SG=8   devices whose smallest sub-group size is 8 (Xe-HPG: Arc A-series, Xe-LPG: Meteor
//                    Lake): float8 intel_sub_group_f16_f16_matrix_mad_k16(int8 a, int8 b, float8 acc)
//   -DXD_DPAS_SG=16  smallest sub-group size 16 (Xe-HPC: Ponte Vecchio; Xe2: Lunar Lake, Battlemage):
//                    float8 intel_sub_group_f16_f16_matrix_mad_k16(short8 a, int8 b, float8 acc)
//   (and the same for bf16 with intel_sub_group_bf16_bf16_matrix_mad_k16)
//   -DXD_DPAS_EMULATE  the builtins written in OpenCL C from this project's reading of the
//                    extension's text (below), for a device without them (PoCL in CI). A test mode:
//                    XD_OPENCL_MATMUL_DPAS=emulate8 / emulate16 only.
//
// None of this has run on Intel hardware: the real builtins are compiled here (SPIR-V for Level
// Zero, checked by spirv-val) and the emulated ones run on PoCL against the CPU reference.
//
// The operands, as the extension's text describes them (M = 8 rows, K = 16, N = SG columns; a
// sub-group's work-items each hold a part):
//   a   (8 x 16 of A): component r of work-item l holds row r's elements at k = 2l and 2l + 1 (SG 8:
//       32 bits, the lower 16 bits the lower k) or at k = l (SG 16: 16 bits).
//   b   (16 x SG of B): work-item l holds column l; component i holds k = 2i (lower 16 bits) and
//       k = 2i + 1 (upper 16 bits).
//   acc, result (8 x SG, f32): work-item l holds column l, component r row r.
// 16-bit values travel as their bits: no conversion before the builtin.
//
// Tiles: a work-group of four sub-groups (4 * SG work-items, 2 x 2) computes 32 x (4 * SG) outputs;
// each sub-group 16 x (2 * SG), i.e. four 8 x SG accumulators (float8 per work-item). K advances in
// steps of 32 through local memory: A's 32 x 32 tile stored row-major, B's 32 x (4 * SG) tile
// stored as pairs of k packed per column (the b operand's layout), each loaded along the operand's
// dense axis (A along k or along m, B along n or along k; xpu::plan_gemm_dpas declines operands
// with no unit stride) in chunks of 8 elements, zero past m, n and k, so any m, n and k is exact at
// the edges (the zeros of a step past k add +0 products).
//
// Accumulation, per output: an f32 accumulator starting at +0; the k16 blocks in k order, each
// block's 16 products (exact in f32) added by the builtin (on hardware in an order and with
// intermediate rounding the extension does not specify; emulated, one fma per product in k order,
// so the emulation's sums equal the CPU reference's k-ordered f32 loop), then alpha * acc +
// beta * input and one rounding to the dtype (matmul.cl's xd_gemm_store).

#if defined(XD_DPAS_SG) && XD_CLASS == 1
#define xd_DPK_f16 1
#define xd_DPK_bf16 2
#define XD_DPK XD_CAT(xd_DPK_, XD_DT)
#if XD_DPK == 1 || XD_DPK == 2

#if XD_DPAS_SG != 8 && XD_DPAS_SG != 16
#error "XD_DPAS_SG must be 8 or 16"
#endif

#define XD_DPAS_WG (4 * XD_DPAS_SG)  // work-items: four sub-groups (xpu::kDpasSubGroups)
#define XD_DPAS_BM 32                // rows of a work-group's tile (xpu::kDpasTileM)
#define XD_DPAS_BN (4 * XD_DPAS_SG)  // its columns
#define XD_DPAS_KS 32                // k per step through local memory

// The a operand: a row's two elements per work-item (SG 8) or one (SG 16), eight rows.
#if XD_DPAS_SG == 8
typedef int8 xd_dpas_a;
#else
typedef short8 xd_dpas_a;
#endif

#ifdef XD_DPAS_EMULATE
// ---------------------------------------------------------------- the builtins, emulated
// A "sub-group" is XD_DPAS_SG consecutive work-items of the (one-dimensional) work-group; a
// work-item sees the rest of its sub-group's a operand through `scratch` (8 words per work-item of
// the work-group), between two work-group barriers, so every work-item of the work-group must call
// it at the same point (the kernel below calls it in uniform control flow only).
#define XD_DPAS_SCRATCH , scratch

inline float xd_dpas_value(uint bits) { return XD_DEC((ushort)(bits & 0xffffu)); }

inline float8 xd_dpas_mad(const xd_dpas_a a, const int8 b, const float8 acc, __local uint* scratch) {
  const int lid = (int)get_local_id(0);
  const int lane = lid % XD_DPAS_SG, first = lid - lane;
#if XD_DPAS_SG == 8
  uint mine[8];
  vstore8(as_uint8(a), 0, mine);
#else
  ushort mine[8];
  vstore8(as_ushort8(a), 0, mine);
#endif
  for (int r = 0; r < 8; ++r) scratch[lid * 8 + r] = (uint)mine[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint bw[8];
  vstore8(as_uint8(b), 0, bw);
  float c[8];
  vstore8(acc, 0, c);
  for (int r = 0; r < 8; ++r) {
    float s = c[r];
    for (int k = 0; k < 16; ++k) {
#if XD_DPAS_SG == 8
      const uint aw = scratch[(first + k / 2) * 8 + r] >> (16 * (k & 1));
#else
      const uint aw = scratch[(first + k) * 8 + r];
#endif
      s = fma(xd_dpas_value(aw), xd_dpas_value(bw[k / 2] >> (16 * (k & 1))), s);
    }
    c[r] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // before the next call overwrites scratch
  return vload8(0, c);
}

#define XD_DPAS_SG_ATTR
inline int xd_dpas_sub_group(void) { return (int)get_local_id(0) / XD_DPAS_SG; }
inline int xd_dpas_lane(void) { return (int)get_local_id(0) % XD_DPAS_SG; }

#else
// ---------------------------------------------------------------- the builtins
// Declared here because clang-15's opencl-c.h does not declare them; the prototypes are the
// extension's, so the mangled names are those Intel's compiler (IGC) defines
// (_Z38intel_sub_group_f16_f16_matrix_mad_k16Dv8_iS_Dv8_f for SG 8 and f16, ...Dv8_sDv8_iDv8_f for
// SG 16; the Level Zero SPIR-V imports them, tests/plugins/levelzero checks the names). A compiler
// that defines the extension's macro declares them itself.
#define XD_DPAS_SCRATCH
#ifndef cl_intel_subgroup_matrix_multiply_accumulate
#if XD_DPK == 1
float8 __attribute__((overloadable)) intel_sub_group_f16_f16_matrix_mad_k16(xd_dpas_a a, int8 b, float8 acc);
#else
float8 __attribute__((overloadable)) intel_sub_group_bf16_bf16_matrix_mad_k16(xd_dpas_a a, int8 b, float8 acc);
#endif
#endif

inline float8 xd_dpas_mad(const xd_dpas_a a, const int8 b, const float8 acc) {
#if XD_DPK == 1
  return intel_sub_group_f16_f16_matrix_mad_k16(a, b, acc);
#else
  return intel_sub_group_bf16_bf16_matrix_mad_k16(a, b, acc);
#endif
}

// The extension requires the smallest sub-group size, so the kernel asks for it.
#define XD_DPAS_SG_ATTR __attribute__((intel_reqd_sub_group_size(XD_DPAS_SG)))
inline int xd_dpas_sub_group(void) { return (int)get_sub_group_id(); }
inline int xd_dpas_lane(void) { return (int)get_sub_group_local_id(); }
#endif

// ---------------------------------------------------------------- tiles
// Eight elements p[i0 .. i0 + 7] of a dense run (unit stride), zero from `limit` on.
inline ushort8 xd_dpas_ld8(__global const ushort* p, long i0, long limit) {
  if (i0 + 8 <= limit) return vload8(0, p + i0);
  ushort v[8];
  for (int i = 0; i < 8; ++i) v[i] = i0 + i < limit ? p[i0 + i] : (ushort)0;
  return vload8(0, v);
}

// A[m0 .., k0 ..] -> as[r * KS + kk] (bits), along A's dense axis: k (a_k == 1) or m (a_m == 1).
inline void xd_dpas_stage_a(__local ushort* as, __global const ushort* a, const xd_gemm G, long abase, long m0,
                            long k0, int lid) {
  if (G.a_k == 1) {
    for (int e = lid; e < XD_DPAS_BM * (XD_DPAS_KS / 8); e += XD_DPAS_WG) {
      const int r = e / (XD_DPAS_KS / 8), kc = (e % (XD_DPAS_KS / 8)) * 8;
      const ushort8 v = m0 + r < G.m ? xd_dpas_ld8(a + abase + (m0 + r) * G.a_m, k0 + kc, G.k) : (ushort8)0;
      vstore8(v, 0, as + r * XD_DPAS_KS + kc);
    }
  } else {
    for (int e = lid; e < XD_DPAS_KS * (XD_DPAS_BM / 8); e += XD_DPAS_WG) {
      const int kk = e / (XD_DPAS_BM / 8), rc = (e % (XD_DPAS_BM / 8)) * 8;
      ushort v[8];
      vstore8(k0 + kk < G.k ? xd_dpas_ld8(a + abase + (k0 + kk) * G.a_k, m0 + rc, G.m) : (ushort8)0, 0, v);
      for (int i = 0; i < 8; ++i) as[(rc + i) * XD_DPAS_KS + kk] = v[i];
    }
  }
}

// B[k0 .., n0 ..] -> bp[(kk / 2) * BN + col]: k pairs (kk, kk + 1) packed low, high; along B's dense
// axis: n (b_n == 1) or k (b_k == 1).
inline void xd_dpas_stage_b(__local uint* bp, __global const ushort* b, const xd_gemm G, long bbase, long n0, long k0,
                            int lid) {
  if (G.b_n == 1) {
    for (int e = lid; e < (XD_DPAS_KS / 2) * (XD_DPAS_BN / 8); e += XD_DPAS_WG) {
      const int kp = e / (XD_DPAS_BN / 8), nc = (e % (XD_DPAS_BN / 8)) * 8;
      const long k = k0 + 2 * kp;
      const ushort8 lo = k < G.k ? xd_dpas_ld8(b + bbase + k * G.b_k, n0 + nc, G.n) : (ushort8)0;
      const ushort8 hi = k + 1 < G.k ? xd_dpas_ld8(b + bbase + (k + 1) * G.b_k, n0 + nc, G.n) : (ushort8)0;
      vstore8(convert_uint8(lo) | (convert_uint8(hi) << 16), 0, bp + kp * XD_DPAS_BN + nc);
    }
  } else {
    for (int e = lid; e < XD_DPAS_BN * (XD_DPAS_KS / 8); e += XD_DPAS_WG) {
      const int col = e / (XD_DPAS_KS / 8), kc = (e % (XD_DPAS_KS / 8)) * 8;
      ushort v[8];
      vstore8(n0 + col < G.n ? xd_dpas_ld8(b + bbase + (n0 + col) * G.b_n, k0 + kc, G.k) : (ushort8)0, 0, v);
      for (int i = 0; i < 4; ++i)
        bp[(kc / 2 + i) * XD_DPAS_BN + col] = (uint)v[2 * i] | ((uint)v[2 * i + 1] << 16);
    }
  }
}

// This work-item's part of the a operand: rows r0 .. r0 + 7 of the staged tile, k from kk.
inline xd_dpas_a xd_dpas_operand_a(__local const ushort* as, int r0, int kk, int lane) {
#if XD_DPAS_SG == 8
  __local const uint* aw = (__local const uint*)as;  // pairs of elements; kk and 2 * lane are even
  uint v[8];
  for (int r = 0; r < 8; ++r) v[r] = aw[((r0 + r) * XD_DPAS_KS + kk) / 2 + lane];
  return as_int8(vload8(0, v));
#else
  ushort v[8];
  for (int r = 0; r < 8; ++r) v[r] = as[(r0 + r) * XD_DPAS_KS + kk + lane];
  return as_short8(vload8(0, v));
#endif
}

// This work-item's b operand: column `col` of the staged tile, k from kk.
inline int8 xd_dpas_operand_b(__local const uint* bp, int kk, int col) {
  uint v[8];
  for (int i = 0; i < 8; ++i) v[i] = bp[(kk / 2 + i) * XD_DPAS_BN + col];
  return as_int8(vload8(0, v));
}

// Rows row .. row + 7 of column col (this work-item's part of an accumulator), clipped to m x n.
inline void xd_dpas_store(__global T* c, __global const T* in, const xd_gemm G, long bt, long row, long col,
                          float8 acc) {
  if (col >= G.n) return;
  float v[8];
  vstore8(acc, 0, v);
  for (int r = 0; r < 8 && row + r < G.m; ++r) xd_gemm_store(c, in, G, bt, row + r, col, v[r]);
}

__kernel __attribute__((reqd_work_group_size(XD_DPAS_WG, 1, 1))) XD_DPAS_SG_ATTR void xd_gemm_dpas(
    __global T* c, __global const T* a, __global const T* b, __global const T* in, const xd_gemm G, long row0,
    long batch0) {
  __local uint as_words[XD_DPAS_BM * XD_DPAS_KS / 2];  // A's tile (uint: the SG 8 operand reads pairs)
  __local uint bp[(XD_DPAS_KS / 2) * XD_DPAS_BN];
#ifdef XD_DPAS_EMULATE
  __local uint scratch[XD_DPAS_WG * 8];
#endif
  __local ushort* as = (__local ushort*)as_words;
  const int lid = (int)get_local_id(0);
  const int sg = xd_dpas_sub_group(), lane = xd_dpas_lane();
  const int r0 = (sg / 2) * 16, c0 = (sg % 2) * (2 * XD_DPAS_SG);  // the sub-group's 16 x 2SG outputs
  const long bt = batch0 + (long)get_group_id(2);
  const long m0 = row0 + (long)get_group_id(1) * XD_DPAS_BM, n0 = (long)get_group_id(0) * XD_DPAS_BN;
  const long abase = G.a_off + bt * G.a_b, bbase = G.b_off + bt * G.b_b;
  float8 acc00 = (float8)(0.0f), acc01 = (float8)(0.0f), acc10 = (float8)(0.0f), acc11 = (float8)(0.0f);
  for (long k0 = 0; k0 < G.k; k0 += XD_DPAS_KS) {
    xd_dpas_stage_a(as, a, G, abase, m0, k0, lid);
    xd_dpas_stage_b(bp, b, G, bbase, n0, k0, lid);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < XD_DPAS_KS; kk += 16) {
      const xd_dpas_a a0 = xd_dpas_operand_a(as, r0, kk, lane), a1 = xd_dpas_operand_a(as, r0 + 8, kk, lane);
      const int8 b0 = xd_dpas_operand_b(bp, kk, c0 + lane), b1 = xd_dpas_operand_b(bp, kk, c0 + XD_DPAS_SG + lane);
      acc00 = xd_dpas_mad(a0, b0, acc00 XD_DPAS_SCRATCH);
      acc01 = xd_dpas_mad(a0, b1, acc01 XD_DPAS_SCRATCH);
      acc10 = xd_dpas_mad(a1, b0, acc10 XD_DPAS_SCRATCH);
      acc11 = xd_dpas_mad(a1, b1, acc11 XD_DPAS_SCRATCH);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  xd_dpas_store(c, in, G, bt, m0 + r0, n0 + c0 + lane, acc00);
  xd_dpas_store(c, in, G, bt, m0 + r0, n0 + c0 + XD_DPAS_SG + lane, acc01);
  xd_dpas_store(c, in, G, bt, m0 + r0 + 8, n0 + c0 + lane, acc10);
  xd_dpas_store(c, in, G, bt, m0 + r0 + 8, n0 + c0 + XD_DPAS_SG + lane, acc11);
}

#endif  // f16, bf16
#endif  // XD_DPAS_SG
