#include "layout.hpp"

#include <xd/dtype_set.hpp>
#include <xd/plugin.hpp>

#include <cstring>
#include <string>

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

layout layout_of(int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip) {
  layout L{};
  if (!make_layout(L, ndim, sizes, ops, skip))
    plugin::invalid("a view has " + std::to_string(ndim) + " dims (at most " + std::to_string(kMaxDims) + ")");
  return L;
}

int64_t element_offset(const xd_view& v, const char* what) {
  const int64_t size = dtype_size(v.dtype);
  if (size == 0) plugin::invalid("unknown dtype " + std::to_string(v.dtype));
  if (v.offset % static_cast<uint64_t>(size) != 0)
    plugin::invalid(std::string(what != nullptr ? what : "a view") + "'s byte offset " + std::to_string(v.offset) +
                    " is not a multiple of its element size");
  if (v.ndim > kMaxDims) plugin::invalid("a view has " + std::to_string(v.ndim) + " dims (at most 8)");
  return static_cast<int64_t>(v.offset / static_cast<uint64_t>(size));
}

const int64_t* zero_strides() {
  static const int64_t zeros[kMaxDims] = {};
  return zeros;
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
