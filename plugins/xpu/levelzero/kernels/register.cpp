// Launchers for the ops of pointwise.cl and random.cl, and the registration of every launcher.
// Semantics and argument order are those of the .cl kernels (the OpenCL plugin passes the same
// arguments).
#include "kernels/register.hpp"

#include "kernel_table.hpp"
#include "kernels/launch.hpp"

#include <cstring>

namespace xd::l0 {

namespace {

struct pointwise_desc {
  const char* entry;
  int inputs;
  int key_input;  // -1: the output's dtype keys the module
  bool scalars;   // the kernel takes an xd_scalars argument
};

const pointwise_desc* desc_of(int32_t op) {
  static const pointwise_desc fill{"xd_fill", 0, -1, true}, arange{"xd_arange", 0, -1, true};
  static const pointwise_desc neg{"xd_neg", 1, 0, true}, abs_{"xd_abs", 1, 0, true}, relu{"xd_relu", 1, 0, true};
  static const pointwise_desc exp_{"xd_exp", 1, 0, true}, log_{"xd_log", 1, 0, true}, sqrt_{"xd_sqrt", 1, 0, true};
  static const pointwise_desc rsqrt{"xd_rsqrt", 1, 0, true}, gelu{"xd_gelu", 1, 0, true}, silu{"xd_silu", 1, 0, true};
  static const pointwise_desc sigmoid{"xd_sigmoid", 1, 0, true}, tanh_{"xd_tanh", 1, 0, true}, pow_{"xd_pow", 1, 0, true};
  static const pointwise_desc add{"xd_add", 2, 0, true}, sub{"xd_sub", 2, 0, true}, mul{"xd_mul", 2, 0, true};
  static const pointwise_desc div{"xd_div", 2, 0, true};
  static const pointwise_desc eq{"xd_eq", 2, 0, false}, lt{"xd_lt", 2, 0, false}, gt{"xd_gt", 2, 0, false};
  static const pointwise_desc where{"xd_where", 3, 1, false};
  switch (op) {
    case XD_OP_FILL: return &fill;
    case XD_OP_ARANGE: return &arange;
    case XD_OP_NEG: return &neg;
    case XD_OP_ABS: return &abs_;
    case XD_OP_RELU: return &relu;
    case XD_OP_EXP: return &exp_;
    case XD_OP_LOG: return &log_;
    case XD_OP_SQRT: return &sqrt_;
    case XD_OP_RSQRT: return &rsqrt;
    case XD_OP_GELU: return &gelu;
    case XD_OP_SILU: return &silu;
    case XD_OP_SIGMOID: return &sigmoid;
    case XD_OP_TANH: return &tanh_;
    case XD_OP_POW: return &pow_;
    case XD_OP_ADD: return &add;
    case XD_OP_SUB: return &sub;
    case XD_OP_MUL: return &mul;
    case XD_OP_DIV: return &div;
    case XD_OP_EQ: return &eq;
    case XD_OP_LT: return &lt;
    case XD_OP_GT: return &gt;
    case XD_OP_WHERE: return &where;
    default: return nullptr;
  }
}

// The op's attribute struct when the host passed one big enough to hold `T`.
template <class T>
const T* attrs(const xd_kernel_call* c) {
  const auto* a = static_cast<const T*>(c->attrs);
  return (a != nullptr && a->struct_size >= sizeof(T)) ? a : nullptr;
}

template <class T>
const T& need(const xd_kernel_call* c) {
  if (const T* a = attrs<T>(c)) return *a;
  throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: op " + std::to_string(c->op) + " needs its attributes");
}

xpu::scalars scalars_for(const xd_kernel_call* c) {
  switch (c->op) {
    case XD_OP_ADD:
    case XD_OP_SUB: {
      const auto* a = attrs<xd_attrs_scalar>(c);  // none: alpha = 1
      return a == nullptr ? xpu::make_scalars(1.0, 0, 1) : xpu::make_scalars(a->real, 0, a->integer);
    }
    case XD_OP_POW: return xpu::make_scalars(need<xd_attrs_scalar>(c).real);
    case XD_OP_FILL: {
      const auto& a = need<xd_attrs_scalar>(c);
      return xpu::make_scalars(a.real, 0, a.integer);
    }
    case XD_OP_ARANGE: {
      const auto& a = need<xd_attrs_arange>(c);
      return xpu::make_scalars(a.start, a.step, a.int_start, a.int_step);
    }
    case XD_OP_GELU: {
      const auto* a = attrs<xd_attrs_gelu>(c);
      return xpu::make_scalars(0, 0, a != nullptr && a->approximate != 0 ? 1 : 0);
    }
    default: return xpu::make_scalars();
  }
}

// The index space of the output, walked by `ops`.
xpu::layout layout_of(const xd_view& out, std::initializer_list<xpu::operand> ops) {
  return l0::layout_of(out.ndim, out.sizes, ops);
}

xd_status run_pointwise(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const pointwise_desc& d = *desc_of(c->op);
    const xd_view& out = c->outputs[0];
    const int32_t key = d.key_input < 0 ? out.dtype : c->inputs[d.key_input].dtype;
    xpu::layout L{};
    switch (d.inputs) {
      case 0: L = layout_of(out, {operand_of(out)}); break;
      case 1: L = layout_of(out, {operand_of(out), operand_of(c->inputs[0])}); break;
      case 2: L = layout_of(out, {operand_of(out), operand_of(c->inputs[0]), operand_of(c->inputs[1])}); break;
      default:
        L = layout_of(out, {operand_of(out), operand_of(c->inputs[0]), operand_of(c->inputs[1]),
                            operand_of(c->inputs[2])});
    }
    launch k(c, "pointwise", key, d.entry);
    k.ptr(out);
    for (int i = 0; i < d.inputs; ++i) k.ptr(c->inputs[i]);
    k.value(L);
    if (d.scalars) k.value(scalars_for(c));
    // arange walks elements, the others runs of XD_VEC elements.
    k.run(static_cast<uint64_t>(c->op == XD_OP_ARANGE ? L.numel : L.work));
  });
}

xd_status run_copy(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xd_view& src = c->inputs[0];
    const xd_view& dst = c->outputs[0];
    const xpu::layout L = layout_of(dst, {operand_of(dst), operand_of(src)});
    const std::string entry =
        src.dtype == dst.dtype ? std::string("xd_copy_same") : std::string("xd_copy_to_") + xpu::dtype_tag(dst.dtype);
    launch k(c, "pointwise", src.dtype, entry);
    k.ptr(dst).ptr(src).value(L);
    k.run(static_cast<uint64_t>(L.work));
  });
}

// Philox counter blocks cover 4 elements (2 for randn and for f64 rand): include/xd/philox.hpp.
xd_status run_random(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xd_view& out = c->outputs[0];
    const auto& a = need<xd_attrs_random>(c);
    const bool normal = c->op == XD_OP_RANDN;
    const xpu::layout L = layout_of(out, {operand_of(out)});
    xpu::scalars s = normal ? xpu::make_scalars(a.low, a.high) : xpu::make_scalars(a.low, a.high);
    if (!normal) s.f[1] = static_cast<float>(a.high - a.low);  // rand: S.f = {low, high - low}
    s.u[0] = a.seed;
    s.u[1] = a.offset;
    const uint64_t per = (normal || out.dtype == XD_DTYPE_F64) ? 2 : 4;
    launch k(c, "random", out.dtype, normal ? "xd_randn" : "xd_rand");
    k.ptr(out).value(L).value(s);
    k.run((static_cast<uint64_t>(L.numel) + per - 1) / per);
  });
}

const char* kernel_name(int32_t op) {
  switch (op) {
    case XD_OP_COPY: return "levelzero.copy";
    case XD_OP_RAND: return "levelzero.rand";
    case XD_OP_RANDN: return "levelzero.randn";
    case XD_OP_SUM: return "levelzero.sum";
    case XD_OP_MEAN: return "levelzero.mean";
    case XD_OP_AMAX: return "levelzero.amax";
    case XD_OP_AMIN: return "levelzero.amin";
    case XD_OP_ARGMAX: return "levelzero.argmax";
    case XD_OP_SOFTMAX: return "levelzero.softmax";
    case XD_OP_LOG_SOFTMAX: return "levelzero.log_softmax";
    case XD_OP_RMS_NORM: return "levelzero.rms_norm";
    case XD_OP_RMS_NORM_BACKWARD: return "levelzero.rms_norm_backward";
    case XD_OP_MM: return "levelzero.mm";
    case XD_OP_ADDMM: return "levelzero.addmm";
    case XD_OP_BMM: return "levelzero.bmm";
    case XD_OP_BADDBMM: return "levelzero.baddbmm";
    case XD_OP_WEIGHT_INT4_MM: return "levelzero.weight_int4_mm";
    case XD_OP_QUANTIZE_INT4: return "levelzero.quantize_int4";
    case XD_OP_CSR_ADDMM: return "levelzero.csr_addmm";
    case XD_OP_CSR_TO_DENSE: return "levelzero.csr_to_dense";
    case XD_OP_INT_MM: return "levelzero.int_mm";
    case XD_OP_SCALED_MM: return "levelzero.scaled_mm";
    default: return "levelzero.pointwise";
  }
}

xd_kernel_fn launcher_of(xd_op op) {
  switch (op) {
    case XD_OP_COPY: return run_copy;
    case XD_OP_RAND:
    case XD_OP_RANDN: return run_random;
    case XD_OP_SUM:
    case XD_OP_MEAN:
    case XD_OP_AMAX:
    case XD_OP_AMIN:
    case XD_OP_ARGMAX: return run_reduction;
    case XD_OP_SOFTMAX: return run_softmax;
    case XD_OP_LOG_SOFTMAX: return run_log_softmax;
    case XD_OP_RMS_NORM: return run_rms_norm;
    case XD_OP_RMS_NORM_BACKWARD: return run_rms_norm_backward;
    case XD_OP_MM:
    case XD_OP_ADDMM:
    case XD_OP_BMM:
    case XD_OP_BADDBMM: return run_matmul;
    case XD_OP_WEIGHT_INT4_MM: return run_int4_mm;
    case XD_OP_QUANTIZE_INT4: return run_quantize_int4;
    case XD_OP_CSR_ADDMM:
    case XD_OP_CSR_TO_DENSE: return run_csr;
    case XD_OP_INT_MM: return run_int_mm;
    case XD_OP_SCALED_MM: return run_scaled_mm;
    default: return desc_of(op) != nullptr ? run_pointwise : nullptr;
  }
}

}  // namespace

void register_kernels(plugin::registrar& r) {
  for (int32_t dtype = 0; dtype < XD_DTYPE_COUNT_V1; ++dtype) {
    for (xd_op op : xpu::registered_ops(dtype)) {
      const xd_kernel_fn fn = launcher_of(op);
      // The table lists what the SPIR-V modules contain and the entry-point test holds it to them;
      // an op there without a launcher here is a bug of this plugin, not a gap to skip quietly.
      if (fn == nullptr)
        throw plugin::error(XD_ERR_INTERNAL, "levelzero: no launcher for op " + std::to_string(op) +
                                                 " (in plugins/xpu/common/kernel_table.cpp)");
      r.add(op, static_cast<xd_dtype>(dtype), fn, kernel_name(op), supports_device);
    }
  }
}

}  // namespace xd::l0
