// FILL, ARANGE, the unary and binary ops, the comparisons, WHERE and COPY (kernels/pointwise.cl),
// for both XPU variants. Every kernel walks an xd_layout of the output, so contiguous, strided and
// broadcast operands take the same compiled kernel. The kernel's entry point is the registration
// list's (kernel_list.cpp: xd_kernel_call.user_data), so an op is added there, not here.
#include "launchers.hpp"
#include "layout.hpp"

#include <cmath>
#include <string>

namespace xd::xpu {

namespace {

using plugin::check_dtype;
using plugin::input;
using plugin::output;

const char* entry_of(const xd_kernel_call* c) {
  if (c->user_data == nullptr) plugin::fail(XD_ERR_INTERNAL, "a pointwise kernel registered without its entry point");
  return static_cast<const char*>(c->user_data);
}

// The op's attributes as the xd_scalars argument of the map kernels (common.cl).
scalars scalars_for(const xd_kernel_call* c) {
  switch (c->op) {
    case XD_OP_ADD:
    case XD_OP_SUB: {
      const auto* a = plugin::find_attrs<xd_attrs_scalar>(c);  // none: alpha = 1
      return a == nullptr ? make_scalars(1.0, 0, 1) : make_scalars(a->real, 0, a->integer);
    }
    case XD_OP_POW:
      return make_scalars(plugin::need_attrs<xd_attrs_scalar>(c).real);
    case XD_OP_FILL: {
      const auto& a = plugin::need_attrs<xd_attrs_scalar>(c);
      return make_scalars(a.real, 0, a.integer);
    }
    case XD_OP_ARANGE: {
      const auto& a = plugin::need_attrs<xd_attrs_arange>(c);
      return make_scalars(a.start, a.step, a.int_start, a.int_step);
    }
    case XD_OP_GELU: {
      const auto* a = plugin::find_attrs<xd_attrs_gelu>(c);
      return make_scalars(0, 0, a != nullptr && a->approximate != 0 ? 1 : 0);
    }
    case XD_OP_CLAMP: {
      const auto& a = plugin::need_attrs<xd_attrs_clamp>(c);
      return make_scalars(a.real_min, a.real_max, a.int_min, a.int_max);
    }
    case XD_OP_ROUND: {
      // The scale 10^|d| as the CPU reference computes it (pow in double; the kernel reads it as
      // double for f64, rounded to float otherwise); -(double)d: -INT64_MIN would overflow.
      const auto* a = plugin::find_attrs<xd_attrs_round>(c);
      const int64_t d = a == nullptr ? 0 : a->decimals;
      const double scale = std::pow(10.0, d < 0 ? -static_cast<double>(d) : static_cast<double>(d));
      return make_scalars(scale, 0, d > 0 ? 1 : d < 0 ? -1 : 0);
    }
    default:
      return make_scalars();
  }
}

// The inputs of a broadcasting op, each of the output's shape, and the layout they walk.
struct operands {
  const xd_view* in[3] = {};
  int count = 0;
  layout L{};
};
operands broadcast_operands(const xd_kernel_call* c, const xd_view& out, int count) {
  operands o;
  o.count = count;
  for (int i = 0; i < count; ++i) {
    o.in[i] = &input(c, i);
    if (!plugin::same_sizes(*o.in[i], out.ndim, out.sizes))
      plugin::invalid("pointwise inputs must arrive broadcast to the output's shape");
  }
  switch (count) {
    case 0:
      o.L = layout_of(out.ndim, out.sizes, {operand_of(out)});
      break;
    case 1:
      o.L = layout_of(out.ndim, out.sizes, {operand_of(out), operand_of(*o.in[0])});
      break;
    case 2:
      o.L = layout_of(out.ndim, out.sizes, {operand_of(out), operand_of(*o.in[0]), operand_of(*o.in[1])});
      break;
    default:
      o.L = layout_of(out.ndim, out.sizes,
                      {operand_of(out), operand_of(*o.in[0]), operand_of(*o.in[1]), operand_of(*o.in[2])});
  }
  return o;
}

}  // namespace

// fill and arange (no input: the output's dtype keys the program), the unary and the binary ops
// (keyed on input 0): the XD_MAP kernels, which take the op's scalars.
xd_status run_pointwise(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& out = output(c, 0);
    const int inputs = c->num_inputs < 2 ? c->num_inputs : 2;
    const operands o = broadcast_operands(c, out, inputs);
    if (o.L.numel == 0) return;
    launch k(c, {"pointwise", inputs == 0 ? out.dtype : o.in[0]->dtype}, entry_of(c));
    k.buffer(out);
    for (int i = 0; i < o.count; ++i) k.buffer(*o.in[i]);
    k.value(o.L).value(scalars_for(c));
    // arange is one element per work-item (it needs each element's linear index); the others a
    // run of XD_VEC elements.
    k.run_items(static_cast<uint64_t>(c->op == XD_OP_ARANGE ? o.L.numel : o.L.work));
  });
}

// EQ, LT, GT: a bool output, no scalars.
xd_status run_compare(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& out = output(c, 0);
    check_dtype(out, XD_DTYPE_BOOL, "comparison output");
    const operands o = broadcast_operands(c, out, 2);
    if (o.L.numel == 0) return;
    launch k(c, {"pointwise", o.in[0]->dtype}, entry_of(c));
    k.buffer(out).buffer(*o.in[0]).buffer(*o.in[1]).value(o.L);
    k.run_items(static_cast<uint64_t>(o.L.work));
  });
}

// WHERE(cond, a, b), keyed on a's dtype.
xd_status run_where(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& out = output(c, 0);
    const operands o = broadcast_operands(c, out, 3);
    check_dtype(*o.in[0], XD_DTYPE_BOOL, "where condition");
    if (o.L.numel == 0) return;
    launch k(c, {"pointwise", o.in[1]->dtype}, entry_of(c));
    k.buffer(out).buffer(*o.in[0]).buffer(*o.in[1]).buffer(*o.in[2]).value(o.L);
    k.run_items(static_cast<uint64_t>(o.L.work));
  });
}

// COPY, keyed on the source dtype: a bit copy within a dtype, else the cast kernel of the
// destination's dtype.
xd_status run_copy(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& src = input(c, 0);
    const xd_view& dst = output(c, 0);
    if (!plugin::same_sizes(src, dst.ndim, dst.sizes))
      plugin::invalid("copy source must arrive broadcast to the destination's shape");
    const layout L = layout_of(dst.ndim, dst.sizes, {operand_of(dst), operand_of(src)});
    if (L.numel == 0) return;
    const std::string entry = copy_entry(src.dtype, dst.dtype);
    launch k(c, {"pointwise", src.dtype}, entry.c_str());
    k.buffer(dst).buffer(src).value(L);
    k.run_items(static_cast<uint64_t>(L.work));
  });
}

std::string copy_entry(int32_t from, int32_t to) {
  const char* tag = dtype_tag(to);
  if (tag == nullptr) plugin::invalid("unknown dtype " + std::to_string(to));
  return from == to ? std::string("xd_copy_same") : std::string("xd_copy_to_") + tag;
}

}  // namespace xd::xpu
