// RAND and RANDN through the Philox mapping in xd/philox.hpp, which every backend follows so that
// a seed gives the same numbers everywhere: element i (in row-major order of the output) uses
// counter block offset + i / P.
#include "kernels/common.hpp"

#include <xd/philox.hpp>

namespace xd::cpu {
namespace {

// Value of element i. `blk` caches the last counter block so each block is computed once per run.
template <class T, bool Normal>
struct philox_values {
  static constexpr bool f64 = std::is_same_v<T, double>;
  static constexpr uint64_t per_block = philox::elements_per_block(Normal, f64);

  const xd_attrs_random& a;
  bool have = false;
  uint64_t cached = 0;
  philox::block blk{};

  T operator()(uint64_t i) {
    const uint64_t b = a.offset + i / per_block;  // wraps like the 64-bit counter it is
    if (!have || b != cached) {
      blk = philox::counter_block(a.seed, b);
      cached = b;
      have = true;
    }
    const uint64_t lane = i % per_block;
    if constexpr (Normal) {
      // randn: mean = low, std = high; computed in double, rounded once to T.
      const double z = philox::normal_from(blk[2 * lane], blk[2 * lane + 1]);
      return cast<T>(a.low + a.high * z);
    } else if constexpr (f64) {
      const double u = philox::uniform_f64(blk[2 * lane], blk[2 * lane + 1]);
      return a.low + (a.high - a.low) * u;
    } else {
      // f32 and narrower draw 24-bit uniforms and scale in float, which every device can do
      // exactly the same way; f16/bf16 then round once.
      const float u = philox::uniform_f32(blk[lane]);
      const float lo = static_cast<float>(a.low);
      const float range = static_cast<float>(a.high - a.low);
      return cast<T>(lo + range * u);
    }
  }
};

template <bool Normal>
struct random_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const auto& a = need_attrs<xd_attrs_random>(c);
      const xd_view& out = output(c, 0);
      const std::array<const int64_t*, 1> strides{out.strides};
      const strided_layout<1> layout(out.ndim, out.sizes, strides, {static_cast<int64_t>(sizeof(T))});
      const std::array<char*, 1> base{data(out)};
      // Philox runs ten rounds of 32-bit multiplies per block: worth threads earlier than plain copies.
      parallel_for(layout.numel(), kElementGrain / 8, [&](int64_t begin, int64_t end) {
        philox_values<T, Normal> value{a};
        uint64_t i = static_cast<uint64_t>(begin);
        layout.for_each_run(base, begin, end, [&](const std::array<char*, 1>& p, int64_t len,
                                                   const std::array<int64_t, 1>& s) {
          for (int64_t j = 0; j < len; ++j, ++i) at<T>(p[0], j * s[0]) = value(i);
        });
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_rand = typed_kernel<random_kernel<false>, dtypes::compute_floating>(XD_OP_RAND, "rand");
extern const plugin::kernel_def def_randn = typed_kernel<random_kernel<true>, dtypes::compute_floating>(XD_OP_RANDN, "randn");

}  // namespace xd::cpu
