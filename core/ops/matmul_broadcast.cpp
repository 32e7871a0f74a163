// matmul: torch.matmul's rules (include/xd/ops.hpp states them) as one mm or bmm over views. It
// checks its operands itself, so that an error names matmul and the shapes the caller passed
// rather than the views it makes.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "ops/meta.hpp"
#include "ops/op_meta.hpp"

#include <string>

namespace xd {

using namespace detail;

namespace {

constexpr const char* kOp = "matmul";

std::string operands_str(const TensorImpl& a, const TensorImpl& b) {
  return "'self' " + shape_str(a.sizes, a.ndim) + " and 'other' " + shape_str(b.sizes, b.ndim);
}

// A fixed-capacity size list: a result has at most kMaxDims dims.
struct Sizes {
  int64_t v[kMaxDims] = {};
  int n = 0;
  void push(int64_t x) { v[n++] = x; }
  IntList list() const { return IntList(v, static_cast<size_t>(n)); }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const int da = a.dim(), db = b.dim();  // ValueError for an undefined tensor
  const TensorImpl& ia = checked(a);
  const TensorImpl& ib = checked(b);
  check_same_device(kOp, "self", ia, "other", ib);
  check_same_dtype(kOp, "self", ia, "other", ib);
  check_dtype(kOp, "self", ia.dtype, kFloat);
  if (da == 0 || db == 0)
    throw ShapeError(std::string(kOp) + ": both arguments need at least one dim, got " + operands_str(ia, ib));
  const int64_t k = ia.sizes[da - 1], k_other = ib.sizes[db == 1 ? 0 : db - 2];
  if (k != k_other)
    throw ShapeError(std::string(kOp) + ": " + operands_str(ia, ib) + " cannot be multiplied (" + std::to_string(k) +
                     " columns vs " + std::to_string(k_other) + " rows)");

  // A vector on the left is one row, on the right one column; those dims leave the result.
  const Tensor a2 = da == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
  const int64_t n = b2.size(-1);
  if (da <= 2 && db <= 2) {
    Tensor out = mm(a2, b2);
    if (db == 1) out = out.squeeze(1);
    if (da == 1) out = out.squeeze(0);
    return out;
  }

  Sizes result;
  if (db <= 2) {
    // A batch against one matrix or vector: the batch dims fold into mm's rows (a view when a's
    // rows are evenly strided, else reshape's copy), and the result is viewed back.
    int64_t rows = 1;
    for (int i = 0; i < da - 1; ++i) {
      rows *= ia.sizes[i];
      result.push(ia.sizes[i]);
    }
    if (db == 2) result.push(n);
    return mm(a.reshape({rows, k}), b2).view(result.list());
  }

  // Both sides batched, or a matrix or vector against a batch: the batch dims broadcast (NumPy's
  // rules, sizes equal or 1), each side is expanded to them (stride 0 where it broadcasts) and
  // viewed as one batch dim for bmm; reshape copies only where the expanded dims cannot be one.
  const int nba = a2.dim() - 2, nbb = b2.dim() - 2;
  const int nb = nba > nbb ? nba : nbb;
  Sizes ea, eb;
  int64_t batch = 1;
  for (int i = 0; i < nb; ++i) {
    const int i_a = i - (nb - nba), i_b = i - (nb - nbb);
    const int64_t sa = i_a >= 0 ? a2.size(i_a) : 1, sb = i_b >= 0 ? b2.size(i_b) : 1;
    if (sa != sb && sa != 1 && sb != 1)
      throw ShapeError(std::string(kOp) + ": the batch dims of " + operands_str(ia, ib) +
                       " do not broadcast (batch dim " + std::to_string(i) + ": " + std::to_string(sa) + " vs " +
                       std::to_string(sb) + "; sizes must match or be 1)");
    const int64_t s = sa == 1 ? sb : sa;
    batch *= s;
    ea.push(s);
    eb.push(s);
    result.push(s);
  }
  const int64_t m = a2.size(-2);
  ea.push(m);
  ea.push(k);
  eb.push(k);
  eb.push(n);
  if (da > 1) result.push(m);
  if (db > 1) result.push(n);
  const Tensor out = bmm(a2.expand(ea.list()).reshape({batch, m, k}), b2.expand(eb.list()).reshape({batch, k, n}));
  return out.view(result.list());
}

}  // namespace xd
