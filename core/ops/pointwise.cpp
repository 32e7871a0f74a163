// Pointwise ops: binary with broadcasting, comparisons, where, unary. Each public op runs its
// schema's meta function (meta_binary, meta_where, meta_unary below), allocates the output it
// describes and launches.
#include <xd/error.hpp>
#include <xd/numeric.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/scalar_range.hpp"
#include "ops/schema.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace xd {

using namespace detail;

namespace detail {

namespace {

DtypeSet binary_dtypes(xd_op op) {
  switch (op) {
    case XD_OP_DIV:
      return kFloat;
    case XD_OP_EQ:
    case XD_OP_NE:
      return kNumericBool;
    default:
      return kNumeric;  // add, sub, mul, lt, gt, ge, le, maximum, minimum
  }
}

// Integer inputs where PyTorch takes them: neg, abs, relu; floor and round (decimals 0) copy them.
DtypeSet unary_dtypes(xd_op op) {
  switch (op) {
    case XD_OP_NEG:
    case XD_OP_ABS:
    case XD_OP_RELU:
    case XD_OP_FLOOR:
    case XD_OP_ROUND:
      return kNumeric;
    default:
      return kFloat;
  }
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
    check_scalar_fits(op, "alpha", alpha, a.dtype());
    s.integer = static_cast<int64_t>(alpha);
  } else if (a.defined() && a.dtype() != Dtype::f64) {
    // f32, f16 and bf16 kernels compute in f32 (PyTorch's opmath type), so alpha must fit f32.
    check_scalar_fits(op, "alpha", alpha, Dtype::f32);
  }
  return s;
}

// One clamp bound in the input's dtype, as torch.clamp converts it (c10's checked conversion to the
// tensor's scalar type): integers take whole values in the dtype's range (u8 also -255..-1, which
// wrap); floating dtypes take any value up to the dtype's largest, rounded to it (f32, f16, bf16).
double clamp_bound_real(const char* what, double v, Dtype d) {
  check_scalar_fits("clamp", what, v, d);
  switch (d) {
    case Dtype::f32:
      return static_cast<float>(v);
    case Dtype::f16:
      return static_cast<float>(half(static_cast<float>(v)));
    case Dtype::bf16:
      return static_cast<float>(bfloat16(static_cast<float>(v)));
    default:
      return v;
  }
}

int64_t clamp_bound_integer(const char* what, double v, Dtype d) {
  if (v != std::floor(v) || !std::isfinite(v))
    throw ValueError(std::string("clamp: ") + what + " " + scalar_text(v) + " must be an integer for " + dtype_name(d) +
                     " tensors (xdispatch does not promote the result to a floating dtype as torch.clamp does; "
                     "convert the tensor with .to())");
  check_scalar_fits("clamp", what, v, d);
  const int64_t i = scalar_to_integer(v, d);
  return d == Dtype::u8 ? static_cast<int64_t>(static_cast<uint8_t>(i)) : i;  // -1 wraps to 255, as PyTorch
}

// The lowest and highest value of an integer dtype: an absent bound.
std::pair<int64_t, int64_t> integer_extremes(Dtype d) {
  switch (d) {
    case Dtype::i8:
      return {INT8_MIN, INT8_MAX};
    case Dtype::u8:
      return {0, UINT8_MAX};
    case Dtype::i32:
      return {INT32_MIN, INT32_MAX};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}

}  // namespace

MetaResult meta_binary(const MetaArgs& m) {
  const char* name = m.name;
  MetaResult r;
  const TensorImpl& ia = checked_impl(*m.inputs[0], name, "self");
  const TensorImpl& ib = checked_impl(*m.inputs[1], name, "other");
  check_same_device(name, "self", ia, "other", ib);
  check_same_dtype(name, "self", ia, "other", ib);
  check_dtype(name, "self", ia.dtype, binary_dtypes(m.op));
  // After the dtype checks: alpha is converted to the operands' dtype, which must be one add takes.
  if (m.op == XD_OP_ADD || m.op == XD_OP_SUB) {
    r.kernel_attrs.scalar = alpha_attr(name, *m.inputs[0], attrs_of<AlphaAttrs>(m).alpha);
    r.has_kernel_attrs = true;
  }
  const bool compare = op_schema(m.op).kind == OpKind::compare;  // the schema table says which ops compare
  r.device = &ia.device_record();
  r.key = ia.dtype;
  // Broadcast in place in the output's sizes: this is every small op's path, kept free of copies.
  TensorMeta& o = add_output(r, ia.sizes, ia.ndim, compare ? Dtype::boolean : ia.dtype);
  broadcast_into(o.sizes, o.ndim, ib.sizes, ib.ndim, name);
  return r;
}

MetaResult meta_where(const MetaArgs& m) {
  const TensorImpl& ic = checked_impl(*m.inputs[0], "where", "condition");
  const TensorImpl& ia = checked_impl(*m.inputs[1], "where", "self");
  const TensorImpl& ib = checked_impl(*m.inputs[2], "where", "other");
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
  MetaResult r;
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, shape, nd, ia.dtype);
  return r;
}

MetaResult meta_unary(const MetaArgs& m) {
  const TensorImpl& ia = checked_impl(*m.inputs[0], m.name, "self");
  check_dtype(m.name, "self", ia.dtype, unary_dtypes(m.op));
  MetaResult r;
  if (m.op == XD_OP_POW) {
    xd_attrs_scalar& s = r.kernel_attrs.scalar;
    s = xd_attrs_scalar{};
    s.struct_size = sizeof s;
    s.real = attrs_of<PowAttrs>(m).exponent;
    r.has_kernel_attrs = true;
  } else if (m.op == XD_OP_ROUND) {
    const int64_t decimals = attrs_of<RoundAttrs>(m).decimals;
    if (decimals != 0 && !is_floating(ia.dtype))
      throw DtypeError("round: argument 'self' has dtype " + std::string(dtype_name(ia.dtype)) +
                       ", but round with decimals " + std::to_string(decimals) + " takes " + dtype_set_str(kFloat) +
                       " (as torch.round; with decimals 0 an integer tensor is copied)");
    xd_attrs_round& a = r.kernel_attrs.round;
    a = xd_attrs_round{};
    a.struct_size = sizeof a;
    a.decimals = decimals;
    r.has_kernel_attrs = true;
  } else if (m.op == XD_OP_GELU) {
    xd_attrs_gelu& g = r.kernel_attrs.gelu;
    g = xd_attrs_gelu{};
    g.struct_size = sizeof g;
    g.approximate = attrs_of<GeluAttrs>(m).approximate == GeluApproximate::tanh ? 1 : 0;
    r.has_kernel_attrs = true;
  }
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, ia.sizes, ia.ndim, ia.dtype);
  return r;
}

// torch.clamp with scalar bounds: both bounds reach the kernel in the input's dtype. An absent bound
// is the dtype's extreme (-Inf/+Inf for floating dtypes). NaN bounds follow torch.clamp: with both
// bounds given, a NaN in either makes every element NaN; a lone NaN bound changes nothing (PyTorch
// clamps with it through max/min, which keep the other operand), so it is passed as absent.
MetaResult meta_clamp(const MetaArgs& m) {
  const TensorImpl& ia = checked_impl(*m.inputs[0], m.name, "self");
  const ClampAttrs& c = attrs_of<ClampAttrs>(m);
  if (!c.min && !c.max)
    throw ValueError("clamp: at least one of 'min' or 'max' must not be None (std::nullopt), as in torch.clamp");
  check_dtype(m.name, "self", ia.dtype, kNumeric);
  MetaResult r;
  xd_attrs_clamp& a = r.kernel_attrs.clamp;
  a = xd_attrs_clamp{};
  a.struct_size = sizeof a;
  if (is_floating(ia.dtype)) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    a.real_min = c.min ? clamp_bound_real("min", *c.min, ia.dtype) : -inf;
    a.real_max = c.max ? clamp_bound_real("max", *c.max, ia.dtype) : inf;
    const bool both = c.min && c.max;
    if (both && (std::isnan(a.real_min) || std::isnan(a.real_max))) {
      a.real_min = a.real_max = std::numeric_limits<double>::quiet_NaN();
    } else {
      if (std::isnan(a.real_min)) a.real_min = -inf;
      if (std::isnan(a.real_max)) a.real_max = inf;
    }
  } else {
    const auto [lowest, highest] = integer_extremes(ia.dtype);
    a.int_min = c.min ? clamp_bound_integer("min", *c.min, ia.dtype) : lowest;
    a.int_max = c.max ? clamp_bound_integer("max", *c.max, ia.dtype) : highest;
  }
  r.has_kernel_attrs = true;
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, ia.sizes, ia.ndim, ia.dtype);
  return r;
}

}  // namespace detail

namespace {

// The output is allocated in the result's shape; inputs are viewed broadcast to it.
template <class Attrs>
Tensor binary(xd_op op, const char* name, const Tensor& a, const Tensor& b, const Attrs& attrs) {
  const MetaResult m = run_meta(op, name, {&a, &b}, attrs);
  auto out = allocate_output(m, 0);
  if (out->numel > 0)
    launch(op, m.key, *m.device,
           {arg_broadcast(checked(a), out->sizes, out->ndim), arg_broadcast(checked(b), out->sizes, out->ndim)},
           {arg(*out)}, m.kernel_attrs_ptr());
  return Tensor(std::move(out));
}

template <class Attrs>
Tensor unary(xd_op op, const char* name, const Tensor& a, const Attrs& attrs) {
  const MetaResult m = run_meta(op, name, {&a}, attrs);
  auto out = allocate_output(m, 0);
  if (out->numel > 0) launch(op, m.key, *m.device, {arg(checked(a))}, {arg(*out)}, m.kernel_attrs_ptr());
  return Tensor(std::move(out));
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, double alpha) { return binary(XD_OP_ADD, "add", a, b, AlphaAttrs{alpha}); }
Tensor sub(const Tensor& a, const Tensor& b, double alpha) { return binary(XD_OP_SUB, "sub", a, b, AlphaAttrs{alpha}); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(XD_OP_MUL, "mul", a, b, NoAttrs{}); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(XD_OP_DIV, "div", a, b, NoAttrs{}); }
Tensor eq(const Tensor& a, const Tensor& b) { return binary(XD_OP_EQ, "eq", a, b, NoAttrs{}); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary(XD_OP_LT, "lt", a, b, NoAttrs{}); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary(XD_OP_GT, "gt", a, b, NoAttrs{}); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary(XD_OP_NE, "ne", a, b, NoAttrs{}); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary(XD_OP_GE, "ge", a, b, NoAttrs{}); }
Tensor le(const Tensor& a, const Tensor& b) { return binary(XD_OP_LE, "le", a, b, NoAttrs{}); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(XD_OP_MAXIMUM, "maximum", a, b, NoAttrs{}); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(XD_OP_MINIMUM, "minimum", a, b, NoAttrs{}); }

Tensor pow(const Tensor& a, double exponent) { return unary(XD_OP_POW, "pow", a, PowAttrs{exponent}); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const MetaResult m = run_meta(XD_OP_WHERE, "where", {&cond, &a, &b}, NoAttrs{});
  auto out = allocate_output(m, 0);
  if (out->numel > 0)
    launch(XD_OP_WHERE, m.key, *m.device,
           {arg_broadcast(checked(cond), out->sizes, out->ndim), arg_broadcast(checked(a), out->sizes, out->ndim),
            arg_broadcast(checked(b), out->sizes, out->ndim)},
           {arg(*out)}, nullptr);
  return Tensor(std::move(out));
}

Tensor neg(const Tensor& a) { return unary(XD_OP_NEG, "neg", a, NoAttrs{}); }
Tensor abs(const Tensor& a) { return unary(XD_OP_ABS, "abs", a, NoAttrs{}); }
Tensor exp(const Tensor& a) { return unary(XD_OP_EXP, "exp", a, NoAttrs{}); }
Tensor log(const Tensor& a) { return unary(XD_OP_LOG, "log", a, NoAttrs{}); }
Tensor sqrt(const Tensor& a) { return unary(XD_OP_SQRT, "sqrt", a, NoAttrs{}); }
Tensor rsqrt(const Tensor& a) { return unary(XD_OP_RSQRT, "rsqrt", a, NoAttrs{}); }
Tensor relu(const Tensor& a) { return unary(XD_OP_RELU, "relu", a, NoAttrs{}); }
Tensor gelu(const Tensor& a, GeluApproximate approximate) {
  return unary(XD_OP_GELU, "gelu", a, GeluAttrs{approximate});
}
Tensor silu(const Tensor& a) { return unary(XD_OP_SILU, "silu", a, NoAttrs{}); }
Tensor sigmoid(const Tensor& a) { return unary(XD_OP_SIGMOID, "sigmoid", a, NoAttrs{}); }
Tensor tanh(const Tensor& a) { return unary(XD_OP_TANH, "tanh", a, NoAttrs{}); }
Tensor clamp(const Tensor& a, std::optional<double> min, std::optional<double> max) {
  return unary(XD_OP_CLAMP, "clamp", a, ClampAttrs{min, max});
}
Tensor floor(const Tensor& a) { return unary(XD_OP_FLOOR, "floor", a, NoAttrs{}); }
Tensor round(const Tensor& a, int64_t decimals) { return unary(XD_OP_ROUND, "round", a, RoundAttrs{decimals}); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace xd
