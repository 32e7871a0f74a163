// The sparse_mm workloads: a CSR left operand built on the host (fast and reproducible: a fixed
// seed, nnz_row = round(density * K) columns per row, one in each of nnz_row equal stripes of the
// row at a random place, so the columns are sorted and distinct), i32 indices as cuSPARSE's
// default, values and the dense operand in [0, 1).
#include "workload.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace xd::bench {

Prepared prepare_sparse(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device) {
  const int64_t m = size[0], n = size[1], k = size[2];
  const int64_t per_row = std::min<int64_t>(k, std::llround(w.density * static_cast<double>(k)));
  const int64_t nnz = m * per_row;
  if (nnz > INT32_MAX) throw ValueError(w.name + ": " + std::to_string(nnz) + " nonzeros do not fit i32 indices");
  std::mt19937_64 rng(0x5ba45e);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int32_t> crow(static_cast<size_t>(m + 1)), col;
  std::vector<float> vals;
  col.reserve(static_cast<size_t>(nnz));
  vals.reserve(static_cast<size_t>(nnz));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t t = 0; t < per_row; ++t) {
      const int64_t lo = t * k / per_row, hi = (t + 1) * k / per_row;  // stripe [lo, hi), never empty
      col.push_back(static_cast<int32_t>(lo + static_cast<int64_t>(u(rng) * static_cast<double>(hi - lo))));
      vals.push_back(static_cast<float>(u(rng)));
    }
    crow[static_cast<size_t>(i + 1)] = static_cast<int32_t>((i + 1) * per_row);
  }
  const SparseCsr a(from_host(crow.data(), Dtype::i32, {m + 1}, device),
                    from_host(col.data(), Dtype::i32, {nnz}, device),
                    from_host(vals.data(), Dtype::f32, {nnz}, device).to(dtype), {m, k});
  const Tensor b = rand({k, n}, Dtype::f32, device).to(dtype);
  Prepared p;
  p.run = [a, b] { (void)mm(a, b); };
  p.flops = 2.0 * static_cast<double>(nnz) * static_cast<double>(n);
  const double s = static_cast<double>(itemsize(dtype));
  p.bytes =
      static_cast<double>(m + 1 + nnz) * 4.0 + static_cast<double>(nnz) * s + static_cast<double>(k * n + m * n) * s;
  return p;
}

}  // namespace xd::bench
