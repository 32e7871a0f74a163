#include "xpu_layout.hpp"

#include <cstring>

namespace xd::xpu {

bool make_layout(layout& L, int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip) {
  if (ndim > kMaxDims || static_cast<int>(ops.size()) > kMaxOps) return false;
  L = layout{};
  const int nops = static_cast<int>(ops.size());
  const operand* op = ops.begin();
  for (int k = 0; k < nops; ++k) L.offset[k] = op[k].offset;
  int nd = 0;
  int64_t numel = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if ((skip >> d) & 1u) continue;
    const int64_t size = sizes[d];
    if (size == 0) {
      numel = 0;
      nd = 0;
      break;
    }
    if (size == 1) continue;
    numel *= size;
    bool merge = nd > 0;
    for (int k = 0; k < nops && merge; ++k) merge = op[k].strides[d] == L.stride[k][nd - 1] * L.size[nd - 1];
    if (merge) {
      L.size[nd - 1] *= size;
      continue;
    }
    L.size[nd] = size;
    for (int k = 0; k < nops; ++k) L.stride[k][nd] = op[k].strides[d];
    ++nd;
  }
  if (nd == 0) {  // one element, or none
    nd = 1;
    L.size[0] = numel;
    for (int k = 0; k < nops; ++k) L.stride[k][0] = 1;
  }
  L.ndim = nd;
  L.numel = numel;
  L.col_blocks = (L.size[0] + kVec - 1) / kVec;
  L.work = L.size[0] == 0 ? 0 : L.col_blocks * (numel / L.size[0]);
  return true;
}

scalars make_scalars(double a, double b, int64_t ia, int64_t ib) {
  scalars s{};
  std::memcpy(&s.d[0], &a, 8);
  std::memcpy(&s.d[1], &b, 8);
  s.f[0] = static_cast<float>(a);
  s.f[1] = static_cast<float>(b);
  s.i[0] = ia;
  s.i[1] = ib;
  return s;
}

}  // namespace xd::xpu
