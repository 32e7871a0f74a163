// Pointwise ops: binary with broadcasting, comparisons, where, unary.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"

#include <cmath>

namespace xd {

using namespace detail;

namespace {

Tensor binary(xd_op op, const char* name, const Tensor& a, const Tensor& b, uint32_t dtypes, bool bool_out,
              const void* attrs) {
  const TensorImpl& ia = checked_impl(a, name, "self");
  const TensorImpl& ib = checked_impl(b, name, "other");
  check_same_device(name, "self", ia, "other", ib);
  check_same_dtype(name, "self", ia, "other", ib);
  check_dtype(name, "self", ia.dtype, dtypes);
  int64_t shape[kMaxDims];
  int nd = ia.ndim;
  for (int i = 0; i < nd; ++i) shape[i] = ia.sizes[i];
  broadcast_into(shape, nd, ib.sizes, ib.ndim, name);
  DeviceRecord& dev = ia.device_record();
  auto out = allocate_tensor(dev, IntList(shape, static_cast<size_t>(nd)), bool_out ? Dtype::boolean : ia.dtype);
  if (out->numel > 0)
    launch(op, ia.dtype, dev, {arg_broadcast(ia, shape, nd), arg_broadcast(ib, shape, nd)}, {arg(*out)}, attrs);
  return Tensor(std::move(out));
}

xd_attrs_scalar alpha_attr(const char* op, const Tensor& a, double alpha) {
  xd_attrs_scalar s{};
  s.struct_size = sizeof s;
  s.real = alpha;
  s.integer = 0;
  if (a.defined() && !is_floating(a.dtype())) {
    if (alpha != std::floor(alpha) || !std::isfinite(alpha))
      throw ValueError(std::string(op) + ": alpha " + std::to_string(alpha) + " must be an integer for " +
                       dtype_name(a.dtype()) + " tensors");
    s.integer = static_cast<int64_t>(alpha);
  }
  return s;
}

Tensor unary(xd_op op, const char* name, const Tensor& a, uint32_t dtypes, const void* attrs = nullptr) {
  const TensorImpl& ia = checked_impl(a, name, "self");
  check_dtype(name, "self", ia.dtype, dtypes);
  DeviceRecord& dev = ia.device_record();
  auto out = allocate_tensor(dev, IntList(ia.sizes, static_cast<size_t>(ia.ndim)), ia.dtype);
  if (out->numel > 0) launch(op, ia.dtype, dev, {arg(ia)}, {arg(*out)}, attrs);
  return Tensor(std::move(out));
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, double alpha) {
  const xd_attrs_scalar s = alpha_attr("add", a, alpha);
  return binary(XD_OP_ADD, "add", a, b, kNumeric, false, &s);
}
Tensor sub(const Tensor& a, const Tensor& b, double alpha) {
  const xd_attrs_scalar s = alpha_attr("sub", a, alpha);
  return binary(XD_OP_SUB, "sub", a, b, kNumeric, false, &s);
}
Tensor mul(const Tensor& a, const Tensor& b) { return binary(XD_OP_MUL, "mul", a, b, kNumeric, false, nullptr); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(XD_OP_DIV, "div", a, b, kFloat, false, nullptr); }
Tensor eq(const Tensor& a, const Tensor& b) { return binary(XD_OP_EQ, "eq", a, b, kNumericBool, true, nullptr); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary(XD_OP_LT, "lt", a, b, kNumeric, true, nullptr); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary(XD_OP_GT, "gt", a, b, kNumeric, true, nullptr); }

Tensor pow(const Tensor& a, double exponent) {
  xd_attrs_scalar s{};
  s.struct_size = sizeof s;
  s.real = exponent;
  return unary(XD_OP_POW, "pow", a, kFloat, &s);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const TensorImpl& ic = checked_impl(cond, "where", "condition");
  const TensorImpl& ia = checked_impl(a, "where", "self");
  const TensorImpl& ib = checked_impl(b, "where", "other");
  if (ic.dtype != Dtype::boolean)
    throw DtypeError(std::string("where: 'condition' must be bool, got ") + dtype_name(ic.dtype) +
                     "; build it with a comparison such as xd::gt(x, y)");
  check_same_device("where", "condition", ic, "self", ia);
  check_same_device("where", "self", ia, "other", ib);
  check_same_dtype("where", "self", ia, "other", ib);
  check_dtype("where", "self", ia.dtype, kNumericBool);
  int64_t shape[kMaxDims];
  int nd = ic.ndim;
  for (int i = 0; i < nd; ++i) shape[i] = ic.sizes[i];
  broadcast_into(shape, nd, ia.sizes, ia.ndim, "where");
  broadcast_into(shape, nd, ib.sizes, ib.ndim, "where");
  DeviceRecord& dev = ia.device_record();
  auto out = allocate_tensor(dev, IntList(shape, static_cast<size_t>(nd)), ia.dtype);
  if (out->numel > 0)
    launch(XD_OP_WHERE, ia.dtype, dev,
           {arg_broadcast(ic, shape, nd), arg_broadcast(ia, shape, nd), arg_broadcast(ib, shape, nd)}, {arg(*out)},
           nullptr);
  return Tensor(std::move(out));
}

Tensor neg(const Tensor& a) { return unary(XD_OP_NEG, "neg", a, kNumeric); }
Tensor abs(const Tensor& a) { return unary(XD_OP_ABS, "abs", a, kNumeric); }
Tensor exp(const Tensor& a) { return unary(XD_OP_EXP, "exp", a, kFloat); }
Tensor log(const Tensor& a) { return unary(XD_OP_LOG, "log", a, kFloat); }
Tensor sqrt(const Tensor& a) { return unary(XD_OP_SQRT, "sqrt", a, kFloat); }
Tensor rsqrt(const Tensor& a) { return unary(XD_OP_RSQRT, "rsqrt", a, kFloat); }
Tensor relu(const Tensor& a) { return unary(XD_OP_RELU, "relu", a, kNumeric); }
Tensor gelu(const Tensor& a, GeluApproximate approximate) {
  xd_attrs_gelu g{};
  g.struct_size = sizeof g;
  g.approximate = approximate == GeluApproximate::tanh ? 1 : 0;
  return unary(XD_OP_GELU, "gelu", a, kFloat, &g);
}
Tensor silu(const Tensor& a) { return unary(XD_OP_SILU, "silu", a, kFloat); }
Tensor sigmoid(const Tensor& a) { return unary(XD_OP_SIGMOID, "sigmoid", a, kFloat); }
Tensor tanh(const Tensor& a) { return unary(XD_OP_TANH, "tanh", a, kFloat); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace xd
