// WEIGHT_INT4_MM and QUANTIZE_INT4, the reference (docs/ops/int4.md).
//
// weight_int4_mm: every output element sums x[m][k] * w[n][k] over k in order, in float, where
// w[n][k] = float(q - zero) * scale (one rounding), then rounds once to T. Threads split the
// columns n; each dequantizes its weight row once and reuses it for every row of x.
//
// quantize_int4: the arithmetic is spelled out (int4_math below) with the rounding of every step
// fixed, because the GPU kernels (int4.cl) must produce the same bits: a code that differs by one
// would fail an exact comparison, and GPU division is not correctly rounded, so the quotients
// are rounded by exact fma sign tests instead of trusting w / scale.
#include "kernels/common.hpp"

#include <cfloat>
#include <cmath>
#include <vector>

namespace xd::cpu {

namespace {

// ---------------------------------------------------------------- quantization arithmetic
// Round half to even of the exact quotient w / s (s > 0, |w / s| small): the approximate quotient
// lands within one of the answer, and the signs of w - (n +- 0.5) * s, exact through fma, decide.
float round_quotient(float w, float s) {
  float n = std::nearbyint(w / s);
  if (std::isnan(n)) return 0.0f;  // a non-finite weight: unspecified, but not undefined behaviour
  n = std::fmin(std::fmax(n, -64.0f), 64.0f);
  const bool odd = (static_cast<int>(n) & 1) != 0;
  const float up = std::fma(-(n + 0.5f), s, w);
  const float down = std::fma(-(n - 0.5f), s, w);
  if (up > 0.0f || (up == 0.0f && odd)) return n + 1.0f;
  if (down < 0.0f || (down == 0.0f && odd)) return n - 1.0f;
  return n;
}

// The group's scale as stored in S (float or bfloat16), from lo <= 0 <= hi.
template <class S>
S group_scale(float lo, float hi) {
  const float range = hi - lo;
  float s = range * 0x1.111112p-4f;  // 1/15 rounded to float: a multiplication rounds the same everywhere
  if (std::fma(-15.0f, s, range) > 0.0f) s = std::nextafter(s, INFINITY);  // 15 * s covers the range
  if (!(s >= FLT_EPSILON)) s = FLT_EPSILON;  // torchao's guard against a zero range (and NaN)
  if constexpr (std::is_same_v<S, float>) {
    return s;
  } else {
    S r(s);
    if (static_cast<float>(r) < s) r = S::from_bits(static_cast<uint16_t>(r.bits + 1));  // round up, not down
    return r;
  }
}

float clamp15(float v) { return std::fmin(std::fmax(v, 0.0f), 15.0f); }

template <class T>
void quantize_rows(const T* w, uint8_t* packed, T* scales, int8_t* zeros, int64_t n_rows, int64_t k, int64_t g) {
  const int64_t groups = k / g;
  parallel_for(n_rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(k, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        const T* src = w + n * k + gi * g;
        float lo = 0.0f, hi = 0.0f;  // zero is always representable
        for (int64_t j = 0; j < g; ++j) {
          const float v = static_cast<float>(src[j]);
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
        }
        const T stored = group_scale<T>(lo, hi);
        const float s = static_cast<float>(stored);
        const float zero = clamp15(round_quotient(-lo, s));
        scales[gi * n_rows + n] = stored;
        zeros[gi * n_rows + n] = static_cast<int8_t>(zero);
        uint8_t* dst = packed + n * (k / 2) + gi * (g / 2);
        for (int64_t j = 0; j < g; j += 2) {
          const auto q0 = static_cast<unsigned>(clamp15(round_quotient(static_cast<float>(src[j]), s) + zero));
          const auto q1 = static_cast<unsigned>(clamp15(round_quotient(static_cast<float>(src[j + 1]), s) + zero));
          dst[j / 2] = static_cast<uint8_t>(q0 | (q1 << 4));
        }
      }
    }
  });
}

// ---------------------------------------------------------------- views
void check_dense(const xd_view& v, const char* what) {
  if (v.ndim != 2) invalid(std::string(what) + " must be 2-d");
  if (v.sizes[1] > 1 && v.strides[1] != 1) invalid(std::string(what) + " must be contiguous");
  if (v.sizes[0] > 1 && v.strides[0] != v.sizes[1]) invalid(std::string(what) + " must be contiguous");
}

int64_t group_size_of(const xd_kernel_call* c, int64_t k) {
  const int64_t g = need_attrs<xd_attrs_int4>(c).group_size;
  if (g <= 0 || g % 32 != 0 || k % g != 0)
    invalid("int4: group_size " + std::to_string(g) +
            " must be a positive multiple of 32 dividing K = " + std::to_string(k));
  return g;
}

template <class T>
void int4_mm(const xd_kernel_call* c) {
  const xd_view& x = input(c, 0);
  const xd_view& wq = input(c, 1);
  const xd_view& sc = input(c, 2);
  const xd_view& zp = input(c, 3);
  const xd_view& out = output(c, 0);
  for (const auto& [v, name] :
       {std::pair{&x, "input"}, {&wq, "weight"}, {&sc, "scales"}, {&zp, "zeros"}, {&out, "out"}})
    check_dense(*v, name);
  const int64_t m = x.sizes[0], k = x.sizes[1], n = wq.sizes[0];
  const int64_t g = group_size_of(c, k);
  if (k % 2 != 0 || wq.sizes[1] != k / 2 || sc.sizes[0] != k / g || sc.sizes[1] != n || zp.sizes[0] != k / g ||
      zp.sizes[1] != n || out.sizes[0] != m || out.sizes[1] != n)
    invalid("weight_int4_mm: operand shapes do not agree");
  check_dtype(wq, XD_DTYPE_U8, "weight_int4_mm weight");
  check_dtype(zp, XD_DTYPE_I8, "weight_int4_mm zeros");
  check_dtype(sc, static_cast<xd_dtype>(x.dtype), "weight_int4_mm scales");
  check_dtype(out, static_cast<xd_dtype>(x.dtype), "weight_int4_mm output");
  if (m == 0 || n == 0) return;

  const T* xp = reinterpret_cast<const T*>(data(x));
  const uint8_t* wp = reinterpret_cast<const uint8_t*>(data(wq));
  const T* sp = reinterpret_cast<const T*>(data(sc));
  const int8_t* zpp = reinterpret_cast<const int8_t*>(data(zp));
  T* op = reinterpret_cast<T*>(data(out));
  std::vector<float> xf(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m * k; ++i) xf[static_cast<size_t>(i)] = static_cast<float>(xp[i]);

  parallel_for(n, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(k * (m + 1), 1)), [&](int64_t n0, int64_t n1) {
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t j = n0; j < n1; ++j) {
      for (int64_t kk = 0; kk < k; ++kk) {
        const uint8_t byte = wp[j * (k / 2) + kk / 2];
        const int q = (kk % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
        const int64_t gi = kk / g;
        row[static_cast<size_t>(kk)] =
            static_cast<float>(q - static_cast<int>(zpp[gi * n + j])) * static_cast<float>(sp[gi * n + j]);
      }
      for (int64_t i = 0; i < m; ++i) {
        const float* xr = xf.data() + i * k;
        float acc = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) acc += xr[kk] * row[static_cast<size_t>(kk)];
        op[i * n + j] = cast<T>(acc);
      }
    }
  });
}

template <class T>
void quantize(const xd_kernel_call* c) {
  const xd_view& w = input(c, 0);
  const xd_view& packed = output(c, 0);
  const xd_view& sc = output(c, 1);
  const xd_view& zp = output(c, 2);
  for (const auto& [v, name] : {std::pair{&w, "weight"}, {&packed, "packed"}, {&sc, "scales"}, {&zp, "zeros"}})
    check_dense(*v, name);
  const int64_t n = w.sizes[0], k = w.sizes[1];
  const int64_t g = group_size_of(c, k);
  if (k % 2 != 0 || packed.sizes[0] != n || packed.sizes[1] != k / 2 || sc.sizes[0] != k / g || sc.sizes[1] != n ||
      zp.sizes[0] != k / g || zp.sizes[1] != n)
    invalid("quantize_int4: operand shapes do not agree");
  check_dtype(packed, XD_DTYPE_U8, "quantize_int4 packed");
  check_dtype(zp, XD_DTYPE_I8, "quantize_int4 zeros");
  check_dtype(sc, static_cast<xd_dtype>(w.dtype), "quantize_int4 scales");
  quantize_rows(reinterpret_cast<const T*>(data(w)), reinterpret_cast<uint8_t*>(data(packed)),
                reinterpret_cast<T*>(data(sc)), reinterpret_cast<int8_t*>(data(zp)), n, k, g);
}

struct int4_mm_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] { int4_mm<T>(c); });
  }
};

struct quantize_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] { quantize<T>(c); });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_weight_int4_mm = typed_kernel<int4_mm_kernel, (DtypeSet{XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16})>(XD_OP_WEIGHT_INT4_MM, "weight_int4_mm");
extern const plugin::kernel_def def_quantize_int4 = typed_kernel<quantize_kernel, (DtypeSet{XD_DTYPE_F32, XD_DTYPE_BF16})>(XD_OP_QUANTIZE_INT4, "quantize_int4");

}  // namespace xd::cpu
