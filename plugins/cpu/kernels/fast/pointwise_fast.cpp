// ADD, SUB, MUL, DIV and casts among f32, f16 and bf16 (COPY) over large tensors: the fast kernels in
// front of kernels/binary.cpp and kernels/copy.cpp. The operands' innermost merged dim must be unit-stride (an operand
// of a binary op may also be broadcast along it, stride 0): runs of it go through vector loops, f16/bf16 converted to
// f32 in them and rounded once as the reference rounds; outputs larger than the caches use non-temporal stores. These
// kernels have no check(): they take every call, and hand what their vector loops do not take (small tensors, other
// layouts, other casts) straight to the reference kernel's function. The small-op call must not pay for them: measured
// with bench_dispatch_overhead on a 1-element add, a check() costs the dispatch ~18 ns (a decline, and a second
// candidate, more), the hand-off ~7 ns. The reasons, which a check() would give, are in each *_decline() below and
// XD_LOG=debug logs them when a call is handed over.
#include "kernels/fast/rows.hpp"

#include <cstring>

namespace xd::cpu {
// The reference kernels (binary.cpp, copy.cpp) small calls are handed to.
extern const plugin::kernel_def def_add, def_sub, def_mul, def_div, def_copy;
}  // namespace xd::cpu

namespace xd::cpu::fast {
namespace {

constexpr int64_t kSmall = int64_t{1} << 14;      // fewer elements: the reference loop
constexpr int64_t kSmallCopy = int64_t{1} << 15;  // fewer elements: one memcpy or cast loop

enum class Op { add, sub, mul, div };

// A call small enough for the reference loop's inline path (see the top of the file). Never
// throws: a malformed call is not small, and the checked path below reports it.
bool small(const xd_kernel_call* c, int64_t limit) noexcept {
  if (c->num_outputs < 1 || c->outputs[0].ndim < 0 || c->outputs[0].ndim > kMaxDims) return false;
  int64_t n = 1;
  for (int d = 0; d < c->outputs[0].ndim; ++d) {
    if (c->outputs[0].sizes[d] < 0) return false;
    if (c->outputs[0].sizes[d] == 0) return true;
    // Capped at `limit`: no overflow, and the answer is the same.
    n = c->outputs[0].sizes[d] >= limit ? limit : std::min(limit, n * c->outputs[0].sizes[d]);
  }
  return n < limit;
}

// Runs the reference kernel `def` for the call's dtype.
xd_status run_reference(const plugin::kernel_def& def, xd_dtype d, const xd_kernel_call* c) { return def.fn_for(d)(c); }

// The reason `decline` gives for the call, or nullptr; a malformed call is handed over too (the
// reference reports it).
const char* declined(const char* (*decline)(const xd_kernel_call*), const xd_kernel_call* c) noexcept {
  try {
    return decline(c);
  } catch (...) {
    return "a malformed call (the reference reports it)";
  }
}

// Hands a call the vector loops do not take to the reference kernel, saying why at XD_LOG=debug.
xd_status hand_over(const plugin::kernel_def& def, xd_dtype d, const xd_kernel_call* c, const char* why) noexcept {
  try {
    plugin::log(XD_LOG_DEBUG, std::string("cpu.") + def.name + ".fast hands a call to cpu." + def.name + ": " + why);
  } catch (...) {  // a message that cannot be built is no reason not to compute
  }
  return run_reference(def, d, c);
}

const char* binary_decline(const xd_kernel_call* c) {
  const xd_view& out = output(c, 0);
  if (numel(out) < kSmall) return "small tensors run the reference loop";
  const xd_view& a = input(c, 0);
  const xd_view& b = input(c, 1);
  if (out.ndim > kMaxDims || !same_shape(a, out) || !same_shape(b, out))
    return "a malformed call (the reference reports it)";
  const int64_t sz = dtype_bytes(out.dtype);
  const auto s = inner_steps(strided_layout<3>(out.ndim, out.sizes, {out.strides, a.strides, b.strides}, {sz, sz, sz}),
                             {sz, sz, sz});
  if (s[0] != sz || s[1] != sz || (s[2] != sz && s[2] != 0))
    return "takes operands unit-stride along their innermost dim (b may be broadcast); others run the reference loop";
  return nullptr;
}

float alpha_of(const xd_kernel_call* c) {
  const auto* a = find_attrs<xd_attrs_scalar>(c);
  return a == nullptr ? 1.0f : static_cast<float>(a->real);
}

template <Op K>
const plugin::kernel_def& reference_of() {
  return K == Op::add ? def_add : K == Op::sub ? def_sub : K == Op::mul ? def_mul : def_div;
}

template <Op K>
struct binary_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    if (small(c, kSmall)) return run_reference(reference_of<K>(), type_info<T>::id, c);
    if (const char* why = declined(binary_decline, c)) return hand_over(reference_of<K>(), type_info<T>::id, c, why);
    return kernel_guard(c, [&] {
      const xd_view& out = output(c, 0);
      const xd_view& a = input(c, 0);
      const xd_view& b = input(c, 1);
      check_dtype(a, static_cast<xd_dtype>(out.dtype), "binary input");
      check_dtype(b, static_cast<xd_dtype>(out.dtype), "binary input");
      // The reference computes alpha in the compute type (f32 for every dtype here).
      const float alpha = K == Op::add ? alpha_of(c) : K == Op::sub ? -alpha_of(c) : 1.0f;
      constexpr int64_t sz = sizeof(T);
      const strided_layout<3> l(out.ndim, out.sizes, {out.strides, a.strides, b.strides}, {sz, sz, sz});
      const bool stream = l.numel() * sz >= stream_threshold_bytes();
      parallel_for(l.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
        stream_scope fence;
        l.for_each_run({data(out), data(a), data(b)}, begin, end,
                       [&](const std::array<char*, 3>& p, int64_t len, const std::array<int64_t, 3>& st) {
                         const int64_t b_step = st[2] == 0 ? 0 : 1;
                         if constexpr (K == Op::mul) {
                           simd::mul(p[1], p[2], elem_of<T>(), b_step, p[0], len, stream);
                         } else if constexpr (K == Op::div) {
                           simd::div(p[1], p[2], elem_of<T>(), b_step, p[0], len, stream);
                         } else {
                           simd::add(p[1], p[2], elem_of<T>(), b_step, alpha, p[0], len, stream);
                         }
                       });
      });
    });
  }
};

// ---------------------------------------------------------------- copy

bool dense(const xd_view& v) { return plugin::view(v).is_contiguous(); }
bool narrow_or_f32(int32_t d) { return d == XD_DTYPE_F32 || d == XD_DTYPE_F16 || d == XD_DTYPE_BF16; }

const char* copy_decline(const xd_kernel_call* c) {
  const xd_view& src = input(c, 0);
  const xd_view& dst = output(c, 0);
  if (numel(dst) < kSmallCopy) return "copies of fewer than 32768 elements run the reference";
  if (!same_shape(src, dst)) return "a malformed call (the reference reports it)";
  if (!dense(src) || !dense(dst)) return "takes dense tensors; strided copies run the reference loop";
  // A same-dtype copy in the caches stays the reference's one memcpy. One larger than the stream
  // threshold is split over the threads with non-temporal stores: glibc's memcpy of 64 MiB ran
  // 15-26 GB/s on a Zen 4 where this loop ran 46-58, and on Zen 1 the ops that stream their
  // output already beat memcpy by 1.3-1.45x (docs/performance.md).
  if (src.dtype == dst.dtype) {
    if (numel(dst) * dtype_bytes(dst.dtype) < stream_threshold_bytes())
      return "a same-dtype copy smaller than the stream threshold is one memcpy (the reference's)";
    return nullptr;
  }
  if (!narrow_or_f32(src.dtype) || !narrow_or_f32(dst.dtype))
    return "casts other than between f32, f16 and bf16 run the reference loop";
  return nullptr;
}

struct copy_fast {
  template <class S>
  static xd_status run(const xd_kernel_call* c) {
    if (small(c, kSmallCopy)) return run_reference(def_copy, type_info<S>::id, c);
    if (const char* why = declined(copy_decline, c)) return hand_over(def_copy, type_info<S>::id, c, why);
    return kernel_guard(c, [&] {
      const xd_view& src = input(c, 0);
      const xd_view& dst = output(c, 0);
      const int64_t n = numel(dst);
      const char* in = data(src);
      char* out = data(dst);
      const int64_t dsz = dtype_bytes(dst.dtype);
      const bool stream = n * dsz >= stream_threshold_bytes();
      if (src.dtype == dst.dtype) {  // bits preserved, NaN payloads too
        parallel_for(n, kElementGrain, [&](int64_t b, int64_t e) {
          stream_scope fence;
          simd::stream_copy(out + b * dsz, in + b * dsz, static_cast<size_t>((e - b) * dsz));
        });
        return;
      }
      if constexpr (std::is_same_v<S, float> || std::is_same_v<S, ::xd::half> || std::is_same_v<S, ::xd::bfloat16>) {
        visit_floating(dst.dtype, [&]<class D>(std::type_identity<D>) {
          if constexpr (std::is_same_v<D, float> || std::is_same_v<D, ::xd::half> ||
                        std::is_same_v<D, ::xd::bfloat16>) {
            parallel_for(n, kElementGrain, [&](int64_t b, int64_t e) {
              stream_scope fence;
              simd::convert(reinterpret_cast<const S*>(in) + b, elem_of<S>(), reinterpret_cast<D*>(out) + b,
                            elem_of<D>(), e - b, stream);
            });
          } else {
            plugin::fail(XD_ERR_INTERNAL, "copy.fast: a cast it hands over reached its vector loop");
          }
        });
      } else {
        plugin::fail(XD_ERR_INTERNAL, "copy.fast: a cast it hands over reached its vector loop");
      }
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_add_fast =
    fast::fast_kernel<fast::binary_fast<fast::Op::add>>(XD_OP_ADD, "add.fast", nullptr);
extern const plugin::kernel_def def_sub_fast =
    fast::fast_kernel<fast::binary_fast<fast::Op::sub>>(XD_OP_SUB, "sub.fast", nullptr);
extern const plugin::kernel_def def_mul_fast =
    fast::fast_kernel<fast::binary_fast<fast::Op::mul>>(XD_OP_MUL, "mul.fast", nullptr);
extern const plugin::kernel_def def_div_fast =
    fast::fast_kernel<fast::binary_fast<fast::Op::div>>(XD_OP_DIV, "div.fast", nullptr);
extern const plugin::kernel_def def_copy_fast =
    fast::fast_kernel<fast::copy_fast, dtypes::all>(XD_OP_COPY, "copy.fast", nullptr);
}  // namespace xd::cpu
