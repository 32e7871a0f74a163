// SCALED_MM reference loop: out[i,j] = round_out((sum_k a[i,k] * b[k,j]) * sa[i] * sb[j] + bias[j]).
// a and b are fp8 (either format each), decoded exactly to float through a 256-entry table; the
// products are exact in float (at most 8 significant bits) and summed in float in k order; the
// scales multiply the sum (sa first, then sb), the bias is added in float, and the result is
// rounded once to out's dtype (f32, f16, bf16). The host passes scale_a as [M,1] and scale_b as
// [1,N] views (stride 0 for a tensor-wise scale), bias as [N] or absent. Any strides.
#include "kernels/quant_mm.hpp"

#include <array>
#include <vector>

namespace xd::cpu {

namespace {

// Every fp8 bit pattern of a format as float, from numeric.hpp's exact decoder.
template <class F>
const std::array<float, 256>& fp8_table() {
  static const std::array<float, 256> t = [] {
    std::array<float, 256> v{};
    for (int i = 0; i < 256; ++i) v[static_cast<size_t>(i)] = static_cast<float>(F::from_bits(static_cast<uint8_t>(i)));
    return v;
  }();
  return t;
}

const std::array<float, 256>& table_of(const xd_view& v, const char* what) {
  if (v.dtype == XD_DTYPE_F8E4M3FN) return fp8_table<::xd::float8_e4m3fn>();
  if (v.dtype == XD_DTYPE_F8E5M2) return fp8_table<::xd::float8_e5m2>();
  invalid(std::string("scaled_mm ") + what + " must be f8e4m3fn or f8e5m2, got dtype " + std::to_string(v.dtype));
}

// A float-valued element of a f32/f16/bf16 view at element index `e`.
float load_float(const xd_view& v, int64_t e) {
  return visit_floating(v.dtype, [&](auto tag) -> float {
    using T = typename decltype(tag)::type;
    return static_cast<float>(load(at<const T>(data(v), e * static_cast<int64_t>(sizeof(T)))));
  });
}

struct scaled_mm_kernel {
  template <class T>
  static void run(const xd_kernel_call* c) {
    const xd_view& a = input(c, 0);
    const xd_view& b = input(c, 1);
    const xd_view& sa = input(c, 2);
    const xd_view& sb = input(c, 3);
    const xd_view* bias = optional_input(c, 4);
    const xd_view& out = output(c, 0);
    if (a.ndim != 2 || b.ndim != 2 || out.ndim != 2 || sa.ndim != 2 || sb.ndim != 2)
      invalid("scaled_mm operands, scales (broadcast to [M,1] and [1,N]) and output must have rank 2");
    const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
    if (b.sizes[0] != k || out.sizes[0] != m || out.sizes[1] != n || sa.sizes[0] != m || sb.sizes[1] != n)
      invalid("scaled_mm shapes do not agree");
    check_dtype(sa, XD_DTYPE_F32, "scaled_mm scale_a");
    check_dtype(sb, XD_DTYPE_F32, "scaled_mm scale_b");
    if (bias != nullptr && (bias->ndim != 1 || bias->sizes[0] != n)) invalid("scaled_mm bias must be 1-d of size N");
    if (bias != nullptr && bias->dtype != out.dtype && bias->dtype != XD_DTYPE_BF16)
      invalid("scaled_mm bias must have out's dtype or bf16");
    const std::array<float, 256>& ta = table_of(a, "operand a");
    const std::array<float, 256>& tb = table_of(b, "operand b");
    if (m == 0 || n == 0) return;
    const auto* pa = reinterpret_cast<const uint8_t*>(data(a));
    const auto* pb = reinterpret_cast<const uint8_t*>(data(b));
    const auto* psa = reinterpret_cast<const float*>(data(sa));
    const auto* psb = reinterpret_cast<const float*>(data(sb));
    // b decoded once into a dense [K, N] float buffer: the inner loop is then contiguous.
    std::vector<float> bd(static_cast<size_t>(k * n));
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        bd[static_cast<size_t>(kk * n + j)] = tb[pb[kk * b.strides[0] + j * b.strides[1]]];
    std::vector<float> bias_f;
    if (bias != nullptr) {
      bias_f.resize(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) bias_f[static_cast<size_t>(j)] = load_float(*bias, j * bias->strides[0]);
    }
    const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, k * n));
    parallel_for(m, grain, [&](int64_t begin, int64_t end) {
      std::vector<float> acc(static_cast<size_t>(n));
      for (int64_t i = begin; i < end; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t kk = 0; kk < k; ++kk) {
          const float av = ta[pa[i * a.strides[0] + kk * a.strides[1]]];
          const float* brow = bd.data() + kk * n;
          for (int64_t j = 0; j < n; ++j) acc[static_cast<size_t>(j)] += av * brow[j];
        }
        const float si = psa[i * sa.strides[0]];
        for (int64_t j = 0; j < n; ++j) {
          float v = acc[static_cast<size_t>(j)] * si * psb[j * sb.strides[1]];
          if (bias != nullptr) v += bias_f[static_cast<size_t>(j)];
          at<T>(data(out), (i * out.strides[0] + j * out.strides[1]) * static_cast<int64_t>(sizeof(T))) = cast<T>(v);
        }
      }
    });
  }
};

xd_status run_scaled_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    visit_floating(output(c, 0).dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, double>) {
        invalid("scaled_mm output must be f32, f16 or bf16");
      } else {
        scaled_mm_kernel::run<T>(c);
      }
    });
  });
}

}  // namespace

// The entry of the registration list (kernel_list.cpp), keyed on a's fp8 format.
extern const plugin::kernel_def def_scaled_mm_loop{XD_OP_SCALED_MM, "scaled_mm.loop", dtypes::fp8, run_scaled_mm};

}  // namespace xd::cpu
