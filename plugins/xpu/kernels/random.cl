// RAND and RANDN: Philox4x32-10 with the element mapping of include/xd/philox.hpp, so a seed
// gives the CPU reference's numbers. Work-item j computes counter block (offset + j) and the
// P elements j*P .. j*P+P-1 of the output (in row-major order of its layout).
//
// rand in f32/f16/bf16 uses the reference's float arithmetic and is bit-identical; rand f64 is
// exact double arithmetic, also bit-identical. randn goes through log, sqrt and cos in double
// (in float on a device without fp64), so it agrees within the device math library's error.

inline uint4 xd_philox4x32_10(ulong index, ulong seed) {
  uint c0 = (uint)index, c1 = (uint)(index >> 32), c2 = 0u, c3 = 0u;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint hi0 = mul_hi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint hi1 = mul_hi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    const uint n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return (uint4)(c0, c1, c2, c3);
}

#if XD_FLOATING
// S.u = {seed, offset}; rand: S.f = {low, high - low} (rounded to float on the host), S.d = {low,
// high}; randn: S.d = {mean, std}, S.f = the same in float.
__kernel void xd_rand(__global T* out, const xd_layout L, const xd_scalars S) {
  const ulong j = get_global_id(0);
#if XD_CLASS == 2
  const ulong per = 2;
#else
  const ulong per = 4;
#endif
  if (j * per >= (ulong)L.numel) return;
  const uint4 w = xd_philox4x32_10(S.u[1] + j, S.u[0]);
#if XD_CLASS == 2
  const double low = as_double(S.d[0]), high = as_double(S.d[1]);
  const uint ws[4] = {w.s0, w.s1, w.s2, w.s3};
  for (uint lane = 0; lane < 2; ++lane) {
    const ulong i = j * 2 + lane;
    if (i >= (ulong)L.numel) break;
    const double u = ((double)(ws[2 * lane] >> 5) * 67108864.0 + (double)(ws[2 * lane + 1] >> 6)) *
                     (1.0 / 9007199254740992.0);
    out[xd_row_offset(L, 0, i)] = low + (high - low) * u;
  }
#else
  const uint ws[4] = {w.s0, w.s1, w.s2, w.s3};
  for (uint lane = 0; lane < 4; ++lane) {
    const ulong i = j * 4 + lane;
    if (i >= (ulong)L.numel) break;
    const float u = (float)(ws[lane] >> 8) * (1.0f / 16777216.0f);
    out[xd_row_offset(L, 0, i)] = XD_ENC(S.f[0] + S.f[1] * u);
  }
#endif
}

__kernel void xd_randn(__global T* out, const xd_layout L, const xd_scalars S) {
  const ulong j = get_global_id(0);
  if (j * 2 >= (ulong)L.numel) return;
  const uint4 w = xd_philox4x32_10(S.u[1] + j, S.u[0]);
  const uint ws[4] = {w.s0, w.s1, w.s2, w.s3};
  for (uint lane = 0; lane < 2; ++lane) {
    const ulong i = j * 2 + lane;
    if (i >= (ulong)L.numel) break;
    const uint a = ws[2 * lane], b = ws[2 * lane + 1];
#ifdef XD_HAS_FP64
    const double u1 = ((double)(a >> 8) + 1.0) * (1.0 / 16777216.0);
    const double u2 = (double)(b >> 8) * (1.0 / 16777216.0);
    const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    out[xd_row_offset(L, 0, i)] = XD_CAT(xd_from_d_, XD_DT)(as_double(S.d[0]) + as_double(S.d[1]) * z);
#else
    const float u1 = ((float)(a >> 8) + 1.0f) * (1.0f / 16777216.0f);
    const float u2 = (float)(b >> 8) * (1.0f / 16777216.0f);
    const float z = sqrt(-2.0f * log(u1)) * cos(6.2831853f * u2);
    out[xd_row_offset(L, 0, i)] = XD_ENC(S.f[0] + S.f[1] * z);
#endif
  }
}
#endif
