// CONV2D as an implicit GEMM (plugins/cpu/kernels/conv.cpp gives the semantics). Per group g,
// out[n, g*og + o, y, x] = bias + sum over k of W[o, k] * X[k, p], where k = (ci, i, j) runs over
// the group's cg input channels and the kernel taps (K = cg*kH*kW) and p = (n, y, x) over the
// output pixels (P = N*oH*oW); X[k, p] = input[n, g*cg + ci, y*sy - py + i*dy, x*sx - px + j*dx],
// 0 outside the input. No im2col buffer is written: the tile loaders compute each address.
//
// A work-group of XD_CV_T x XD_CV_T work-items computes a tile of XD_CV_TILE (= 4 * XD_CV_T)
// output channels x XD_CV_TILE pixels, each work-item 4 x 4 of them (rows ty + XD_CV_T*a, columns
// tx + XD_CV_T*b, so neighbouring work-items read neighbouring local words). K advances in steps
// of XD_CV_BK, both operand tiles staged in local memory in CT (f32: 8 KiB at XD_CV_T 16). Each
// work-item decodes its own loader positions once (its pixel column, its k row of W), so the
// steps cost a division per loaded k only. Products accumulate by fma in CT (float for f32, f16,
// bf16; double for f64) in order of k; the bias is added to the finished sum, rounded once.
// Work-groups: (pixel tiles, channel tiles of a group, groups from g0).

#if XD_FLOATING

#if XD_WG >= 256
#define XD_CV_T 16
#elif XD_WG >= 64
#define XD_CV_T 8
#else
#define XD_CV_T 4
#endif
#define XD_CV_TILE (4 * XD_CV_T)
#define XD_CV_BK 16
#define XD_CV_ITEMS (XD_CV_T * XD_CV_T)
#define XD_CV_LOADS (XD_CV_TILE * XD_CV_BK / XD_CV_ITEMS)  // elements of each tile one work-item loads

// The launcher's struct (common/conv.cpp, conv2d_args), field for field, all 64-bit.
typedef struct {
  long N, C, H, W, O, KH, KW, OH, OW;
  long cg, og, K, P;
  long sy, sx, py, px, dy, dx;
  long has_bias;
  long in_off, in_s0, in_s1, in_s2, in_s3;
  long w_off, w_s0, w_s1, w_s2, w_s3;
  long b_off, b_s0;
  long o_off, o_s0, o_s1, o_s2, o_s3;
} xd_conv_args;

__kernel __attribute__((reqd_work_group_size(XD_CV_T, XD_CV_T, 1))) void xd_conv2d(
    __global T* out, __global const T* in, __global const T* wt, __global const T* bias, const xd_conv_args A, const long g0) {
  __local CT Ws[XD_CV_BK][XD_CV_TILE];  // [k][output channel]
  __local CT Xs[XD_CV_BK][XD_CV_TILE];  // [k][pixel]
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const int lid = ty * XD_CV_T + tx;
  const long p0 = (long)get_group_id(0) * XD_CV_TILE;
  const long o0 = (long)get_group_id(1) * XD_CV_TILE;
  const long g = g0 + (long)get_group_id(2);
  const long khw = A.KH * A.KW;

  // W loader: one k row (wk) of the tile, XD_CV_LOADS output channels XD_CV_ITEMS / XD_CV_BK apart.
  const int wk = lid % XD_CV_BK;
  const int wrow = lid / XD_CV_BK;
  // X loader: one pixel column (xc) of the tile, XD_CV_LOADS k rows XD_CV_ITEMS / XD_CV_TILE apart.
  const int xc = lid % XD_CV_TILE;
  const int xrow = lid / XD_CV_TILE;
  const long xp = p0 + xc;
  const int x_valid = xp < A.P;
  long xn = 0, xy0 = 0, xx0 = 0;
  if (x_valid) {
    const long plane = A.OH * A.OW;
    xn = xp / plane;
    const long r = xp - xn * plane;
    const long oy = r / A.OW;
    xy0 = oy * A.sy - A.py;
    xx0 = (r - oy * A.OW) * A.sx - A.px;
  }
  const long in_base = A.in_off + xn * A.in_s0 + g * A.cg * A.in_s1;
  const long w_base = A.w_off + (g * A.og + o0) * A.w_s0;

  CT acc[4][4];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) acc[a][b] = (CT)0;

  for (long k0 = 0; k0 < A.K; k0 += XD_CV_BK) {
    {
      const long k = k0 + wk;
      long woff = 0;
      const int k_valid = k < A.K;
      if (k_valid) {
        const long ci = k / khw;
        const long r = k - ci * khw;
        const long i = r / A.KW;
        woff = ci * A.w_s1 + i * A.w_s2 + (r - i * A.KW) * A.w_s3;
      }
      for (int l = 0; l < XD_CV_LOADS; ++l) {
        const int row = wrow + l * (XD_CV_ITEMS / XD_CV_BK);
        const int ok = k_valid && o0 + row < A.og;
        Ws[wk][row] = ok ? XD_LD(wt, w_base + row * A.w_s0 + woff) : (CT)0;
      }
    }
    for (int l = 0; l < XD_CV_LOADS; ++l) {
      const int kr = xrow + l * (XD_CV_ITEMS / XD_CV_TILE);
      const long k = k0 + kr;
      CT v = (CT)0;
      if (x_valid && k < A.K) {
        const long ci = k / khw;
        const long r = k - ci * khw;
        const long i = r / A.KW;
        const long iy = xy0 + i * A.dy;
        const long ix = xx0 + (r - i * A.KW) * A.dx;
        if (iy >= 0 && iy < A.H && ix >= 0 && ix < A.W) v = XD_LD(in, in_base + ci * A.in_s1 + iy * A.in_s2 + ix * A.in_s3);
      }
      Xs[kr][xc] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < XD_CV_BK; ++kk) {
      CT wv[4], xv[4];
      for (int a = 0; a < 4; ++a) wv[a] = Ws[kk][ty + XD_CV_T * a];
      for (int b = 0; b < 4; ++b) xv[b] = Xs[kk][tx + XD_CV_T * b];
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) acc[a][b] = fma(wv[a], xv[b], acc[a][b]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  const long plane = A.OH * A.OW;
  for (int b = 0; b < 4; ++b) {
    const long p = p0 + tx + XD_CV_T * b;
    if (p >= A.P) continue;
    const long n = p / plane;
    const long r = p - n * plane;
    const long y = r / A.OW;
    const long x = r - y * A.OW;
    const long obase = A.o_off + n * A.o_s0 + y * A.o_s2 + x * A.o_s3;
    for (int a = 0; a < 4; ++a) {
      const long o = o0 + ty + XD_CV_T * a;
      if (o >= A.og) continue;
      const long oc = g * A.og + o;
      CT v = acc[a][b];
      if (A.has_bias) v += XD_LD(bias, A.b_off + oc * A.b_s0);
      XD_ST(out, obase + oc * A.o_s1, v);
    }
  }
}

#endif  // XD_FLOATING
