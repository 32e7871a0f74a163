// WEIGHT_INT4_MM, the fast kernel in front of kernels/int4.cpp's loop (docs/ops/int4.md): the
// weight stays packed, each code unpacked in vector registers as it is used (simd::int4_dot), so
// a decode step (M of 1 to a few rows) reads the weight once at memory speed, where the reference
// writes every dequantized row and multiplies it element by element. Threads split the weight's
// rows (the output's columns); each takes x in tiles of up to four rows, so one unpacked code
// serves four products, and its columns in blocks whose codes stay in L2 while every tile of x
// passes over them. Per group, sum of x * (q - z) in f32 and one multiplication by the scale, as
// the GPU kernels sum: the results differ from the reference's by summation rounding, within
// xd-conform's tolerance (which grows with sqrt(K)).
#include "kernels/fast/int4_mm.hpp"
#include "kernels/fast/rows.hpp"

#include <vector>

namespace xd::cpu::fast {
namespace {

constexpr int64_t kTileRows = 4;      // rows of x per pass over a weight row (simd::int4_dot's most)
constexpr int64_t kColumnBlock = 64;  // weight rows whose codes (K/2 bytes each) every tile passes over

bool dense_2d(const xd_view& v) {
  return v.ndim == 2 && (v.sizes[1] <= 1 || v.strides[1] == 1) && (v.sizes[0] <= 1 || v.strides[0] == v.sizes[1]);
}

}  // namespace

const char* int4_mm_decline(const xd_kernel_call* c) {
  if (c->num_inputs != 4 || c->num_outputs != 1) return "a malformed call (the reference reports it)";
  const xd_view& x = input(c, 0);
  const xd_view& wq = input(c, 1);
  const xd_view& sc = input(c, 2);
  const xd_view& zp = input(c, 3);
  const xd_view& out = output(c, 0);
  for (const xd_view* v : {&x, &wq, &sc, &zp, &out})
    if (!dense_2d(*v)) return "takes dense 2-d operands; others run the reference loop (which reports them)";
  const int64_t m = x.sizes[0], k = x.sizes[1], n = wq.sizes[0];
  const int64_t g = need_attrs<xd_attrs_int4>(c).group_size;
  if (g <= 0 || g % 32 != 0 || k % g != 0 || k % 2 != 0 || wq.sizes[1] != k / 2 || sc.sizes[0] != k / g ||
      sc.sizes[1] != n || zp.sizes[0] != k / g || zp.sizes[1] != n || out.sizes[0] != m || out.sizes[1] != n ||
      wq.dtype != XD_DTYPE_U8 || zp.dtype != XD_DTYPE_I8 || sc.dtype != x.dtype || out.dtype != x.dtype)
    return "a malformed call (the reference reports it)";
  if (k == 0) return "K = 0 (a result of zeros) runs the reference loop";
  return nullptr;
}

namespace {

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return int4_mm_decline(c); });
}

struct int4_mm_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = int4_mm_decline(c))
        plugin::fail(XD_ERR_INTERNAL, std::string("weight_int4_mm.fast ") + why);
      const xd_view& x = input(c, 0);
      const int64_t m = x.sizes[0], k = x.sizes[1], n = input(c, 1).sizes[0];
      const int64_t g = need_attrs<xd_attrs_int4>(c).group_size;
      const int64_t groups = k / g, half_k = k / 2;
      if (m == 0 || n == 0) return;
      const T* xp = reinterpret_cast<const T*>(data(x));
      const uint8_t* wp = reinterpret_cast<const uint8_t*>(data(input(c, 1)));
      const T* sp = reinterpret_cast<const T*>(data(input(c, 2)));
      const int8_t* zp = reinterpret_cast<const int8_t*>(data(input(c, 3)));
      T* op = reinterpret_cast<T*>(data(output(c, 0)));

      // x as f32, its even elements then its odd ones per row (the codes' nibble order).
      std::vector<float> split(static_cast<size_t>(m * k));
      parallel_for(m, std::max<int64_t>(1, kElementGrain / k), [&](int64_t r0, int64_t r1) {
        for (int64_t i = r0; i < r1; ++i) {
          const T* src = xp + i * k;
          float* even = split.data() + i * k;
          float* odd = even + half_k;
          for (int64_t j = 0; j < half_k; ++j) {
            even[j] = static_cast<float>(src[2 * j]);
            odd[j] = static_cast<float>(src[2 * j + 1]);
          }
        }
      });

      const int64_t grain = std::max<int64_t>(1, kElementGrain / (k * std::min(m, kTileRows)));
      parallel_for(n, grain, [&](int64_t n0, int64_t n1) {
        std::vector<float> s_block(static_cast<size_t>(kColumnBlock * groups));
        std::vector<float> z_block(s_block.size());
        for (int64_t jb = n0; jb < n1; jb += kColumnBlock) {
          const int64_t jn = std::min(kColumnBlock, n1 - jb);
          gather_group_params(sp, zp, n, groups, jb, jn, kColumnBlock, s_block.data(), z_block.data());
          for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
            const int rows = static_cast<int>(std::min(kTileRows, m - i0));
            const float* even[kTileRows];
            const float* odd[kTileRows];
            for (int r = 0; r < rows; ++r) {
              even[r] = split.data() + (i0 + r) * k;
              odd[r] = even[r] + half_k;
            }
            for (int64_t j = 0; j < jn; ++j) {
              float acc[kTileRows];
              simd::int4_dot(wp + (jb + j) * half_k, k, g, s_block.data() + j, z_block.data() + j, kColumnBlock, even,
                             odd, rows, acc);
              for (int r = 0; r < rows; ++r) op[(i0 + r) * n + jb + j] = cast<T>(acc[r]);
            }
          }
        }
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// An entry of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_weight_int4_mm_fast =
    fast::fast_kernel<fast::int4_mm_fast>(XD_OP_WEIGHT_INT4_MM, "weight_int4_mm.fast", fast::check);
}  // namespace xd::cpu
