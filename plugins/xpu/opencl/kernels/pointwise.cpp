// FILL, ARANGE, COPY, the unary and binary ops, EQ/LT/GT and WHERE: one kernel each in
// pointwise.cl, all walking an xd_layout of the output (kernels/layout.hpp), so contiguous,
// strided and broadcast operands take the same compiled kernel.
#include "kernels/register.hpp"

namespace xd::ocl {
namespace {

// What a registered pointwise kernel runs: the kernel name, how many inputs it reads, and which
// of them decides the program's dtype.
struct pointwise_desc {
  const char* kernel;
  int inputs;
  int key_input;  // -1: the output
  bool scalars;   // takes an xd_scalars argument
};

cl_scalars scalars_for(const xd_kernel_call* c) {
  switch (c->op) {
    case XD_OP_ADD:
    case XD_OP_SUB: {
      const auto* a = find_attrs<xd_attrs_scalar>(c);  // none: alpha = 1
      return a == nullptr ? make_scalars(1.0, 0, 1) : make_scalars(a->real, 0, a->integer);
    }
    case XD_OP_POW: return make_scalars(need_attrs<xd_attrs_scalar>(c).real);
    case XD_OP_FILL: {
      const auto& a = need_attrs<xd_attrs_scalar>(c);
      return make_scalars(a.real, 0, a.integer);
    }
    case XD_OP_ARANGE: {
      const auto& a = need_attrs<xd_attrs_arange>(c);
      return make_scalars(a.start, a.step, a.int_start, a.int_step);
    }
    case XD_OP_GELU: {
      const auto* a = find_attrs<xd_attrs_gelu>(c);
      return make_scalars(0, 0, a != nullptr && a->approximate != 0 ? 1 : 0);
    }
    default: return make_scalars();
  }
}

xd_status run_pointwise(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto& desc = *static_cast<const pointwise_desc*>(c->user_data);
    const xd_view& out = output(c, 0);
    const xd_view* in[3] = {};
    for (int i = 0; i < desc.inputs; ++i) {
      in[i] = &input(c, i);
      if (!same_sizes(*in[i], out.ndim, out.sizes)) invalid("pointwise inputs must arrive broadcast to the output's shape");
    }
    if ((c->op == XD_OP_EQ || c->op == XD_OP_LT || c->op == XD_OP_GT)) check_dtype(out, XD_DTYPE_BOOL, "comparison output");
    if (c->op == XD_OP_WHERE) check_dtype(*in[0], XD_DTYPE_BOOL, "where condition");
    const int32_t key = desc.key_input < 0 ? out.dtype : in[desc.key_input]->dtype;
    cl_layout L;
    switch (desc.inputs) {
      case 0: L = make_layout(out.ndim, out.sizes, {operand_of(out)}); break;
      case 1: L = make_layout(out.ndim, out.sizes, {operand_of(out), operand_of(*in[0])}); break;
      case 2: L = make_layout(out.ndim, out.sizes, {operand_of(out), operand_of(*in[0]), operand_of(*in[1])}); break;
      default:
        L = make_layout(out.ndim, out.sizes,
                        {operand_of(out), operand_of(*in[0]), operand_of(*in[1]), operand_of(*in[2])});
    }
    if (L.numel == 0) return;
    launch k(c, {family::elementwise, key}, desc.kernel);
    k.mem(out);
    for (int i = 0; i < desc.inputs; ++i) k.mem(*in[i]);
    k.arg(L);
    if (desc.scalars) k.arg(scalars_for(c));
    // arange is one element per work-item (it needs each element's linear index).
    k.run(static_cast<size_t>(c->op == XD_OP_ARANGE ? L.numel : L.work), k.dev().work_group);
  });
}

// COPY, keyed on the source dtype: a bit copy within a dtype, else the cast kernel of the
// destination's dtype.
xd_status run_copy(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    static const char* const cast_kernels[] = {"xd_copy_to_f64", "xd_copy_to_f32",  "xd_copy_to_f16",
                                               "xd_copy_to_bf16", "xd_copy_to_i8",  "xd_copy_to_u8",
                                               "xd_copy_to_i32",  "xd_copy_to_i64", "xd_copy_to_b8",
                                               "xd_copy_to_e4m3", "xd_copy_to_e5m2"};
    const xd_view& src = input(c, 0);
    const xd_view& dst = output(c, 0);
    if (!same_sizes(src, dst.ndim, dst.sizes)) invalid("copy source must arrive broadcast to the destination's shape");
    (void)itemsize(dst.dtype);  // validates the dtype before it indexes the table
    const cl_layout L = make_layout(dst.ndim, dst.sizes, {operand_of(dst), operand_of(src)});
    if (L.numel == 0) return;
    const char* name = src.dtype == dst.dtype ? "xd_copy_same" : cast_kernels[dst.dtype];
    launch k(c, {family::elementwise, src.dtype}, name);
    k.mem(dst).mem(src).arg(L);
    k.run(static_cast<size_t>(L.work), k.dev().work_group);
  });
}

pointwise_desc d_fill{"xd_fill", 0, -1, true}, d_arange{"xd_arange", 0, -1, true};
pointwise_desc d_neg{"xd_neg", 1, 0, true}, d_abs{"xd_abs", 1, 0, true}, d_relu{"xd_relu", 1, 0, true};
pointwise_desc d_exp{"xd_exp", 1, 0, true}, d_log{"xd_log", 1, 0, true}, d_sqrt{"xd_sqrt", 1, 0, true};
pointwise_desc d_rsqrt{"xd_rsqrt", 1, 0, true}, d_gelu{"xd_gelu", 1, 0, true}, d_silu{"xd_silu", 1, 0, true};
pointwise_desc d_sigmoid{"xd_sigmoid", 1, 0, true}, d_tanh{"xd_tanh", 1, 0, true}, d_pow{"xd_pow", 1, 0, true};
pointwise_desc d_add{"xd_add", 2, 0, true}, d_sub{"xd_sub", 2, 0, true}, d_mul{"xd_mul", 2, 0, true};
pointwise_desc d_div{"xd_div", 2, 0, true};
pointwise_desc d_eq{"xd_eq", 2, 0, false}, d_lt{"xd_lt", 2, 0, false}, d_gt{"xd_gt", 2, 0, false};
pointwise_desc d_where{"xd_where", 3, 1, false};

}  // namespace

void register_pointwise(plugin::registrar& r) {
  add_kernels(r, XD_OP_FILL, "opencl.fill", run_pointwise, kAll, &d_fill);
  add_kernels(r, XD_OP_ARANGE, "opencl.arange", run_pointwise, kNumeric, &d_arange);
  add_kernels(r, XD_OP_COPY, "opencl.copy", run_copy, kAll);
  add_kernels(r, XD_OP_ADD, "opencl.add", run_pointwise, kNumeric, &d_add);
  add_kernels(r, XD_OP_SUB, "opencl.sub", run_pointwise, kNumeric, &d_sub);
  add_kernels(r, XD_OP_MUL, "opencl.mul", run_pointwise, kNumeric, &d_mul);
  add_kernels(r, XD_OP_DIV, "opencl.div", run_pointwise, kFloating, &d_div);
  add_kernels(r, XD_OP_POW, "opencl.pow", run_pointwise, kFloating, &d_pow);
  add_kernels(r, XD_OP_WHERE, "opencl.where", run_pointwise, kNumericBool, &d_where);
  add_kernels(r, XD_OP_EQ, "opencl.eq", run_pointwise, kNumericBool, &d_eq);
  add_kernels(r, XD_OP_LT, "opencl.lt", run_pointwise, kNumeric, &d_lt);
  add_kernels(r, XD_OP_GT, "opencl.gt", run_pointwise, kNumeric, &d_gt);
  add_kernels(r, XD_OP_NEG, "opencl.neg", run_pointwise, kNumeric, &d_neg);
  add_kernels(r, XD_OP_ABS, "opencl.abs", run_pointwise, kNumeric, &d_abs);
  add_kernels(r, XD_OP_RELU, "opencl.relu", run_pointwise, kNumeric, &d_relu);
  add_kernels(r, XD_OP_EXP, "opencl.exp", run_pointwise, kFloating, &d_exp);
  add_kernels(r, XD_OP_LOG, "opencl.log", run_pointwise, kFloating, &d_log);
  add_kernels(r, XD_OP_SQRT, "opencl.sqrt", run_pointwise, kFloating, &d_sqrt);
  add_kernels(r, XD_OP_RSQRT, "opencl.rsqrt", run_pointwise, kFloating, &d_rsqrt);
  add_kernels(r, XD_OP_GELU, "opencl.gelu", run_pointwise, kFloating, &d_gelu);
  add_kernels(r, XD_OP_SILU, "opencl.silu", run_pointwise, kFloating, &d_silu);
  add_kernels(r, XD_OP_SIGMOID, "opencl.sigmoid", run_pointwise, kFloating, &d_sigmoid);
  add_kernels(r, XD_OP_TANH, "opencl.tanh", run_pointwise, kFloating, &d_tanh);
}

}  // namespace xd::ocl
