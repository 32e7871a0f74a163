// Plain-loop matmul for every floating dtype and any strides: the reference result, and the
// fallback behind the oneDNN kernels (listed after them in kernel_list.cpp, so it stays reachable;
// the tests disable the oneDNN kernels by name and compare the two).
//
// Each output element sums a[i,k]*b[k,j] over k in order, in float (double for f64), then
// applies out = alpha*acc + beta*input once and rounds once to T. The order never depends on
// blocking or threads. Blocking is only for the cache: kRows rows of `a` share each row of `b`
// streamed through a kCols-wide accumulator, and `b` is read in place when dense and already
// in the compute type, otherwise converted once per batch into a dense buffer.
#include "kernels/matmul.hpp"

#include <vector>

namespace xd::cpu {

namespace {
constexpr int64_t kRows = 4;
constexpr int64_t kCols = 256;

void check_rank(const xd_view& v, int rank, const char* what) {
  if (v.ndim != rank)
    invalid(std::string(what) + " must have rank " + std::to_string(rank) + ", got " + std::to_string(v.ndim));
}
}  // namespace

gemm_problem describe_gemm(const xd_kernel_call* c) {
  const bool batched = c->op == XD_OP_BMM || c->op == XD_OP_BADDBMM;
  const bool with_input = c->op == XD_OP_ADDMM || c->op == XD_OP_BADDBMM;
  if (!batched && !with_input && c->op != XD_OP_MM) invalid("not a matmul op: " + std::to_string(c->op));
  const int first = with_input ? 1 : 0;
  const xd_view& a = input(c, first);
  const xd_view& b = input(c, first + 1);
  const xd_view& out = output(c, 0);
  const int rank = batched ? 3 : 2;
  check_rank(a, rank, "matmul operand a");
  check_rank(b, rank, "matmul operand b");
  check_rank(out, rank, "matmul output");
  const int o = batched ? 1 : 0;  // index of the row dim

  gemm_problem p;
  p.batch = batched ? a.sizes[0] : 1;
  p.m = a.sizes[o];
  p.k = a.sizes[o + 1];
  p.n = b.sizes[o + 1];
  if (b.sizes[o] != p.k || out.sizes[o] != p.m || out.sizes[o + 1] != p.n ||
      (batched && (b.sizes[0] != p.batch || out.sizes[0] != p.batch)))
    invalid("matmul shapes do not agree");
  if (a.dtype != out.dtype || b.dtype != out.dtype) invalid("matmul operands and output must share a dtype");
  p.a = data(a);
  p.b = data(b);
  p.out = data(out);
  p.a_m = a.strides[o], p.a_k = a.strides[o + 1];
  p.b_k = b.strides[o], p.b_n = b.strides[o + 1];
  p.out_m = out.strides[o], p.out_n = out.strides[o + 1];
  if (batched) p.a_b = a.strides[0], p.b_b = b.strides[0], p.out_b = out.strides[0];

  if (with_input) {
    const auto& blas = need_attrs<xd_attrs_blas>(c);
    p.alpha = blas.alpha;
    p.beta = blas.beta;
    if (p.beta != 0) {  // beta == 0: input is not read, so a NaN in it cannot propagate
      const xd_view& in = input(c, 0);
      check_rank(in, rank, "matmul input (broadcast to the output's shape)");
      if (in.sizes[o] != p.m || in.sizes[o + 1] != p.n || (batched && in.sizes[0] != p.batch))
        invalid("matmul input must arrive broadcast to the output's shape");
      if (in.dtype != out.dtype) invalid("matmul input and output must share a dtype");
      p.input = data(in);
      p.in_m = in.strides[o], p.in_n = in.strides[o + 1];
      if (batched) p.in_b = in.strides[0];
    }
  }
  return p;
}

template <class T>
void gemm_loop(const gemm_problem& p) {
  using C = compute_t<T>;
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  constexpr int64_t sz = sizeof(T);
  const int64_t row_blocks = (p.m + kRows - 1) / kRows;
  const int64_t items = p.batch * row_blocks;
  const bool b_in_place = std::is_same_v<T, C> && p.b_n == 1;
  const int64_t item_work = kRows * std::max<int64_t>(p.k, 1) * p.n;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / item_work);
  const C alpha = static_cast<C>(p.alpha);
  const C beta = static_cast<C>(p.beta);

  parallel_for(items, grain, [&](int64_t begin, int64_t end) {
    std::vector<C> packed;  // this thread's dense copy of one batch of b
    int64_t packed_batch = -1;
    C acc[kRows][kCols];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t bi = item / row_blocks;
      const int64_t m0 = (item % row_blocks) * kRows;
      const int64_t rows = std::min(kRows, p.m - m0);
      const C* bmat = nullptr;  // b[bi] as dense rows of the compute type, ldb apart
      int64_t ldb = 0;
      if (p.k > 0) {
        if (b_in_place) {
          bmat = reinterpret_cast<const C*>(p.b) + bi * p.b_b;
          ldb = p.b_k;
        } else {
          if (packed_batch != bi) {
            packed.resize(static_cast<size_t>(p.k * p.n));
            for (int64_t kk = 0; kk < p.k; ++kk)
              for (int64_t j = 0; j < p.n; ++j)
                packed[static_cast<size_t>(kk * p.n + j)] =
                    load(at<const T>(p.b, (bi * p.b_b + kk * p.b_k + j * p.b_n) * sz));
            packed_batch = bi;
          }
          bmat = packed.data();
          ldb = p.n;
        }
      }
      for (int64_t j0 = 0; j0 < p.n; j0 += kCols) {
        const int64_t cols = std::min(kCols, p.n - j0);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < cols; ++j) acc[r][j] = C{0};
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const C* brow = bmat + kk * ldb + j0;
          for (int64_t r = 0; r < rows; ++r) {
            const C av = load(at<const T>(p.a, (bi * p.a_b + (m0 + r) * p.a_m + kk * p.a_k) * sz));
            C* ar = acc[r];
            for (int64_t j = 0; j < cols; ++j) ar[j] += av * brow[j];
          }
        }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = m0 + r;
          for (int64_t j = 0; j < cols; ++j) {
            C v = alpha * acc[r][j];
            if (p.input != nullptr) v += beta * load(at<const T>(p.input, (bi * p.in_b + i * p.in_m + (j0 + j) * p.in_n) * sz));
            at<T>(p.out, (bi * p.out_b + i * p.out_m + (j0 + j) * p.out_n) * sz) = cast<T>(v);
          }
        }
      }
    }
  });
}

template void gemm_loop<double>(const gemm_problem&);
template void gemm_loop<float>(const gemm_problem&);
template void gemm_loop<::xd::half>(const gemm_problem&);
template void gemm_loop<::xd::bfloat16>(const gemm_problem&);

namespace {
struct gemm_loop_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] { gemm_loop<T>(describe_gemm(c)); });
  }
};
}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_mm_loop = typed_kernel<gemm_loop_kernel, dtypes::compute_floating>(XD_OP_MM, "mm.loop");
extern const plugin::kernel_def def_addmm_loop = typed_kernel<gemm_loop_kernel, dtypes::compute_floating>(XD_OP_ADDMM, "addmm.loop");
extern const plugin::kernel_def def_bmm_loop = typed_kernel<gemm_loop_kernel, dtypes::compute_floating>(XD_OP_BMM, "bmm.loop");
extern const plugin::kernel_def def_baddbmm_loop = typed_kernel<gemm_loop_kernel, dtypes::compute_floating>(XD_OP_BADDBMM, "baddbmm.loop");

}  // namespace xd::cpu
