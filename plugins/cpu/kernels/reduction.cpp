// SUM, MEAN, AMAX, AMIN, ARGMAX over the dims set in xd_attrs_reduce.dim_mask. The output view
// has the input's rank with size 1 on the reduced dims.
//
// Order and determinism: each output's reduced range is cut into fixed chunks of kChunk
// elements in row-major order; a chunk is reduced left to right and the chunk results are
// combined in chunk order. Threads only decide which chunks run where, never the arithmetic, so
// the reference gives bit-identical results on any machine and thread count.
// Accumulators: double for every floating dtype (the oracle should be the most accurate party),
// wrapping int64 for integer sums (the output is I64), the compute type for min/max.
#include "kernels/common.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace xd::cpu {
namespace {

constexpr int64_t kChunk = int64_t{1} << 14;

// The output is the input's shape with size 1 on the reduced dims (a keepdim view).
void check_keepdim(const xd_view& in, const xd_view& out, uint64_t mask) {
  if (in.ndim > kMaxDims) invalid("reductions support at most 64 dims");
  bool ok = out.ndim == in.ndim;
  for (int d = 0; ok && d < in.ndim; ++d) ok = out.sizes[d] == (((mask >> d) & 1u) ? 1 : in.sizes[d]);
  if (!ok) invalid("reduction output must have the input's shape with size 1 on the reduced dims");
}

template <class T>
struct sum_reducer {
  using acc = std::conditional_t<is_floating_v<T>, double, int64_t>;
  using out_t = std::conditional_t<is_floating_v<T>, T, int64_t>;
  static acc init() { return 0; }
  static void run(acc& a, char* p, int64_t n, int64_t s) {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (is_floating_v<T>) {
        a += static_cast<double>(load(at<const T>(p, i * s)));
      } else {
        a = wrap_add(a, load(at<const T>(p, i * s)));
      }
    }
  }
  static acc combine(acc a, acc b) {
    if constexpr (is_floating_v<T>) {
      return a + b;
    } else {
      return wrap_add(a, b);
    }
  }
  static out_t finish(acc a, int64_t) { return cast<out_t>(a); }
};

template <class T>
struct mean_reducer : sum_reducer<T> {
  using out_t = T;
  // An empty range gives NaN (0/0), as PyTorch's mean does.
  static T finish(double a, int64_t n) {
    return cast<T>(n == 0 ? std::numeric_limits<double>::quiet_NaN() : a / static_cast<double>(n));
  }
};

// NaN propagates: once the accumulator is NaN no comparison replaces it.
template <class T, bool Max>
struct extreme_reducer {
  using C = compute_t<T>;
  using acc = C;
  using out_t = T;
  static acc init() {
    if constexpr (std::is_floating_point_v<C>) {
      return Max ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
    } else {
      return Max ? std::numeric_limits<C>::min() : std::numeric_limits<C>::max();
    }
  }
  static acc combine(acc a, acc x) {
    if (is_nan(a)) return a;
    if (is_nan(x)) return x;
    return (Max ? x > a : x < a) ? x : a;
  }
  static void run(acc& a, char* p, int64_t n, int64_t s) {
    for (int64_t i = 0; i < n; ++i) a = combine(a, load(at<const T>(p, i * s)));
  }
  static out_t finish(acc a, int64_t) { return cast<T>(a); }
};

template <class R, class T>
void reduce(const xd_kernel_call* c) {
  using out_t = typename R::out_t;
  using acc = typename R::acc;
  const xd_view& in = input(c, 0);
  const xd_view& out = output(c, 0);
  check_dtype(out, type_info<out_t>::id, "reduction output");
  const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
  check_keepdim(in, out, mask);

  const strided_layout<2> outer(in.ndim, in.sizes, {out.strides, in.strides},
                                {static_cast<int64_t>(sizeof(out_t)), static_cast<int64_t>(sizeof(T))}, mask);
  const strided_layout<1> inner(in.ndim, in.sizes, {in.strides}, {static_cast<int64_t>(sizeof(T))}, ~mask);
  const int64_t n_out = outer.numel();
  const int64_t n_red = inner.numel();
  const int64_t chunks = std::max<int64_t>(1, (n_red + kChunk - 1) / kChunk);

  auto reduce_chunk = [&](char* in_base, int64_t ch) {
    acc a = R::init();
    inner.for_each_run({in_base}, ch * kChunk, std::min(n_red, (ch + 1) * kChunk),
                       [&](const std::array<char*, 1>& p, int64_t len, const std::array<int64_t, 1>& s) {
                         R::run(a, p[0], len, s[0]);
                       });
    return a;
  };
  char* const base_out = data(out);
  char* const base_in = data(in);

  if (n_out >= 2 * max_threads() || chunks == 1) {
    // Many outputs (or short ranges): threads split the outputs.
    const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(n_red, 1));
    parallel_for(n_out, grain, [&](int64_t begin, int64_t end) {
      outer.for_each_run({base_out, base_in}, begin, end,
                         [&](const std::array<char*, 2>& p, int64_t len, const std::array<int64_t, 2>& s) {
                           for (int64_t i = 0; i < len; ++i) {
                             acc total = R::init();
                             for (int64_t ch = 0; ch < chunks; ++ch)
                               total = R::combine(total, reduce_chunk(p[1] + i * s[1], ch));
                             at<out_t>(p[0], i * s[0]) = R::finish(total, n_red);
                           }
                         });
    });
    return;
  }
  // Few outputs with long ranges: threads split each output's chunks; combined in order after.
  std::vector<acc> partial(static_cast<size_t>(chunks));
  outer.for_each_run({base_out, base_in}, 0, n_out,
                     [&](const std::array<char*, 2>& p, int64_t len, const std::array<int64_t, 2>& s) {
                       for (int64_t i = 0; i < len; ++i) {
                         parallel_for(chunks, 1, [&](int64_t begin, int64_t end) {
                           for (int64_t ch = begin; ch < end; ++ch)
                             partial[static_cast<size_t>(ch)] = reduce_chunk(p[1] + i * s[1], ch);
                         });
                         acc total = R::init();
                         for (const acc& a : partial) total = R::combine(total, a);
                         at<out_t>(p[0], i * s[0]) = R::finish(total, n_red);
                       }
                     });
}

template <template <class> class R>
struct reduce_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] { reduce<R<T>, T>(c); });
  }
};
template <class T>
using amax_reducer = extreme_reducer<T, true>;
template <class T>
using amin_reducer = extreme_reducer<T, false>;

// ARGMAX over exactly one dim: the first index of the maximum; a NaN counts as the maximum and
// the first NaN wins.
struct argmax_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const xd_view& in = input(c, 0);
      const xd_view& out = output(c, 0);
      check_dtype(out, XD_DTYPE_I64, "argmax output");
      const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
      check_keepdim(in, out, mask);
      if (std::popcount(mask) != 1 || std::countr_zero(mask) >= in.ndim)
        invalid("argmax reduces exactly one dim of the input (dim_mask " + std::to_string(mask) + ")");
      const int dim = std::countr_zero(mask);
      const int64_t len = in.sizes[dim];
      const int64_t step = in.strides[dim] * static_cast<int64_t>(sizeof(T));
      const strided_layout<2> outer(in.ndim, in.sizes, {out.strides, in.strides},
                                    {int64_t{sizeof(int64_t)}, static_cast<int64_t>(sizeof(T))}, mask);
      if (outer.numel() > 0 && len == 0) invalid("argmax over an empty dim");
      const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(len, 1));
      parallel_for(outer.numel(), grain, [&](int64_t begin, int64_t end) {
        outer.for_each_run({data(out), data(in)}, begin, end,
                           [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& s) {
                             for (int64_t i = 0; i < n; ++i) {
                               char* row = p[1] + i * s[1];
                               C best = load(at<const T>(row, 0));
                               int64_t best_i = 0;
                               for (int64_t j = 1; j < len && !is_nan(best); ++j) {
                                 const C v = load(at<const T>(row, j * step));
                                 if (is_nan(v) || v > best) {
                                   best = v;
                                   best_i = j;
                                 }
                               }
                               at<int64_t>(p[0], i * s[0]) = best_i;
                             }
                           });
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_sum = typed_kernel<reduce_kernel<sum_reducer>, dtypes::numeric>(XD_OP_SUM, "sum");
extern const plugin::kernel_def def_mean = typed_kernel<reduce_kernel<mean_reducer>, dtypes::compute_floating>(XD_OP_MEAN, "mean");
extern const plugin::kernel_def def_amax = typed_kernel<reduce_kernel<amax_reducer>, dtypes::numeric>(XD_OP_AMAX, "amax");
extern const plugin::kernel_def def_amin = typed_kernel<reduce_kernel<amin_reducer>, dtypes::numeric>(XD_OP_AMIN, "amin");
extern const plugin::kernel_def def_argmax = typed_kernel<argmax_kernel, dtypes::numeric>(XD_OP_ARGMAX, "argmax");

}  // namespace xd::cpu
