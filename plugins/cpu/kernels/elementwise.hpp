// map_elements: the loop behind every pointwise kernel (fill, copy, unary, binary, compare,
// where). out[i] = f(in0[i], in1[i], ...) over the output's index space, where f maps storage
// values to a storage value. Inputs have the output's rank (binary inputs arrive broadcast,
// stride 0 where broadcast); the output may be strided too (copy into a slice).
#pragma once

#include "kernels/common.hpp"

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

namespace xd::cpu {

namespace elementwise_detail {

template <class TO, class... TI, class F, size_t... I>
inline void run(F& f, const std::array<char*, sizeof...(TI) + 1>& p, int64_t len,
                const std::array<int64_t, sizeof...(TI) + 1>& s, std::index_sequence<I...>) {
  const bool contiguous = s[0] == static_cast<int64_t>(sizeof(TO)) &&
                          ((s[I + 1] == static_cast<int64_t>(sizeof(TI))) && ...);
  if (contiguous) {
    // Plain indexed loops over typed pointers: the form the compiler vectorises.
    TO* out = reinterpret_cast<TO*>(p[0]);
    const std::tuple<const TI*...> in{reinterpret_cast<const TI*>(p[I + 1])...};
    for (int64_t i = 0; i < len; ++i) out[i] = f(std::get<I>(in)[i]...);
  } else {
    for (int64_t i = 0; i < len; ++i)
      at<TO>(p[0], i * s[0]) = f(at<const TI>(p[I + 1], i * s[I + 1])...);
  }
}

}  // namespace elementwise_detail

template <class TO, class... TI, class F>
void map_elements(F f, const xd_view& out, const std::array<const xd_view*, sizeof...(TI)>& in) {
  constexpr int N = static_cast<int>(sizeof...(TI)) + 1;
  for (const xd_view* v : in) {
    bool same = v->ndim == out.ndim;
    for (int d = 0; same && d < out.ndim; ++d) same = v->sizes[d] == out.sizes[d];
    if (!same) invalid("pointwise inputs must arrive broadcast to the output's shape");
  }
  std::array<char*, N> base;
  base[0] = data(out);
  for (int k = 1; k < N; ++k) base[k] = data(*in[k - 1]);
  const int64_t n = numel(out);
  if (n == 0) return;
  if (n == 1) {
    // The single-element path: no layout, no threads, no heap.
    [&]<size_t... I>(std::index_sequence<I...>) {
      *reinterpret_cast<TO*>(base[0]) = f(*reinterpret_cast<const TI*>(base[I + 1])...);
    }(std::index_sequence_for<TI...>{});
    return;
  }
  std::array<const int64_t*, N> strides;
  strides[0] = out.strides;
  for (int k = 1; k < N; ++k) strides[k] = in[k - 1]->strides;
  const std::array<int64_t, N> elem{static_cast<int64_t>(sizeof(TO)), static_cast<int64_t>(sizeof(TI))...};
  const strided_layout<N> layout(out.ndim, out.sizes, strides, elem);
  parallel_for(n, kElementGrain, [&](int64_t begin, int64_t end) {
    layout.for_each_run(base, begin, end, [&](const std::array<char*, N>& p, int64_t len,
                                              const std::array<int64_t, N>& s) {
      elementwise_detail::run<TO, TI...>(f, p, len, s, std::index_sequence_for<TI...>{});
    });
  });
}

}  // namespace xd::cpu
