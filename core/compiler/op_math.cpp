#include "compiler/op_math.hpp"

#include <xd/dtype.hpp>
#include <xd/dtype_set.hpp>
#include <xd/error.hpp>
#include <xd/numeric.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace xd::detail::compiler {

char compute_kind(Dtype d) {
  switch (d) {
    case Dtype::f64: return 'd';
    case Dtype::f32: case Dtype::f16: case Dtype::bf16: case Dtype::f8e4m3fn: case Dtype::f8e5m2: return 'f';
    default: return 'l';
  }
}

const char* compute_type(Dtype d) {
  const char k = compute_kind(d);
  return k == 'f' ? "float" : k == 'd' ? "double" : "long";
}

const char* tag(Dtype d) { return dtype_tag(d); }

std::string literal_kind(char kind, double value) {
  char buf[64];
  if (kind == 'f') {
    const float f = static_cast<float>(value);
    uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    std::snprintf(buf, sizeof buf, "xd_bits_f(0x%08" PRIx32 "u)", u);
  } else if (kind == 'd') {
    uint64_t u = 0;
    std::memcpy(&u, &value, sizeof u);
    std::snprintf(buf, sizeof buf, "xd_bits_d(0x%016" PRIx64 "UL)", u);
  } else {
    const auto i = static_cast<int64_t>(value);
    if (i == INT64_MIN) return "(-9223372036854775807L - 1L)";
    std::snprintf(buf, sizeof buf, "%" PRId64 "L", i);
  }
  return buf;
}

std::string literal(Dtype d, double value) {
  // What the FILL kernel stores (plugins/cpu/kernels/creation.cpp: cast<T>(value)), decoded.
  switch (d) {
    case Dtype::f64: return literal_kind('d', value);
    case Dtype::f32: return literal_kind('f', static_cast<float>(value));
    case Dtype::f16: return literal_kind('f', numeric_detail::f16_to_float(numeric_detail::float_to_f16(static_cast<float>(value))));
    case Dtype::bf16: return literal_kind('f', numeric_detail::bf16_to_float(numeric_detail::float_to_bf16(static_cast<float>(value))));
    case Dtype::f8e4m3fn: return literal_kind('f', static_cast<float>(float8_e4m3fn(static_cast<float>(value))));
    case Dtype::f8e5m2: return literal_kind('f', static_cast<float>(float8_e5m2(static_cast<float>(value))));
    case Dtype::i8: return literal_kind('l', static_cast<int8_t>(static_cast<int64_t>(value)));
    case Dtype::u8: return literal_kind('l', static_cast<uint8_t>(static_cast<int64_t>(value)));
    case Dtype::i32: return literal_kind('l', static_cast<int32_t>(static_cast<int64_t>(value)));
    case Dtype::boolean: return value != 0 ? "1L" : "0L";
    default: return literal_kind('l', value);
  }
}

std::string decode(Dtype d, const std::string& s) { return std::string("xd_dec_") + tag(d) + "(" + s + ")"; }

std::string encode(Dtype d, char from, const std::string& e) {
  return std::string("xd_from_") + from + "_" + tag(d) + "(" + e + ")";
}

std::string round_to(Dtype d, const std::string& e) {
  if (d == Dtype::f32 || d == Dtype::f64 || d == Dtype::i64) return e;
  return decode(d, encode(d, compute_kind(d), e));
}

namespace {

// The math names of the contract for a kind: xd_exp_f / xd_exp_d.
std::string fn(const char* name, char kind) { return std::string("xd_") + name + "_" + kind; }

struct Writer {
  std::ostream& out;
  int& tmp;
  const std::string& indent;
  std::string let(const char* type, const std::string& e) {
    const std::string v = "t" + std::to_string(tmp++);
    out << indent << "const " << type << " " << v << " = " << e << ";\n";
    return v;
  }
};

}  // namespace

std::string emit_pointwise(const Graph& g, const Node& n, const std::vector<std::string>& a, std::ostream& out, int& tmp,
                           const std::string& indent) {
  Writer w{out, tmp, indent};
  const Dtype key = n.key;
  const Dtype od = g.values[static_cast<size_t>(n.outputs.at(0).value)].dtype;
  const char k = compute_kind(key);
  const char* T = compute_type(key);
  auto lit = [&](double v) { return literal_kind(k, v); };
  auto scalar_real = [&]() { const auto* s = n.attrs_as<xd_attrs_scalar>(); return s != nullptr ? s->real : 1.0; };
  auto scalar_int = [&]() { const auto* s = n.attrs_as<xd_attrs_scalar>(); return s != nullptr ? s->integer : 1; };
  auto isnan = [&](const std::string& x) { return fn("isnan", k) + "(" + x + ")"; };
  // The saturation of tanh and erf the reference relies on (plugins/xpu/kernels/pointwise.cl):
  // exactly +-1 beyond these arguments in every math library.
  auto tanh_sat = [&](const std::string& x) {
    const std::string v = w.let(T, x);
    return w.let(T, fn("fabs", k) + "(" + v + ") >= " + lit(k == 'd' ? 20.0 : 9.0) + " ? " + fn("copysign", k) + "(" +
                        lit(1) + ", " + v + ") : " + fn("tanh", k) + "(" + v + ")");
  };
  auto erf_sat = [&](const std::string& x) {
    const std::string v = w.let(T, x);
    return w.let(T, fn("fabs", k) + "(" + v + ") >= " + lit(k == 'd' ? 6.0 : 4.0) + " ? " + fn("copysign", k) + "(" +
                        lit(1) + ", " + v + ") : " + fn("erf", k) + "(" + v + ")");
  };
  auto wrap = [](const std::string& e) { return "(long)(" + e + ")"; };
  auto u = [](const std::string& x) { return "(ulong)(" + x + ")"; };
  std::string e;
  const bool ints = k == 'l';
  switch (n.op) {
    case XD_OP_ADD:
    case XD_OP_SUB: {
      const char* op = n.op == XD_OP_ADD ? " + " : " - ";
      if (ints) {
        const int64_t alpha = scalar_int();
        e = alpha == 1 ? wrap(u(a[0]) + op + u(a[1])) : wrap(u(a[0]) + op + u(lit(static_cast<double>(alpha))) + " * " + u(a[1]));
      } else {
        const double alpha = scalar_real();
        e = alpha == 1.0 ? a[0] + op + a[1] : a[0] + op + lit(alpha) + " * " + a[1];
      }
      break;
    }
    case XD_OP_MUL: e = ints ? wrap(u(a[0]) + " * " + u(a[1])) : a[0] + " * " + a[1]; break;
    case XD_OP_DIV: e = a[0] + " / " + a[1]; break;
    case XD_OP_MAXIMUM:
    case XD_OP_MINIMUM: {
      const std::string pick = n.op == XD_OP_MAXIMUM ? "(" + a[0] + " < " + a[1] + " ? " + a[1] + " : " + a[0] + ")"
                                                     : "(" + a[1] + " < " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
      e = ints ? pick : isnan(a[0]) + " ? " + a[0] + " : " + isnan(a[1]) + " ? " + a[1] + " : " + pick;
      break;
    }
    case XD_OP_NEG: e = ints ? wrap("0UL - " + u(a[0])) : "-" + a[0]; break;
    case XD_OP_ABS: e = ints ? a[0] + " < 0L ? " + wrap("0UL - " + u(a[0])) + " : " + a[0] : fn("fabs", k) + "(" + a[0] + ")"; break;
    case XD_OP_RELU:
      e = ints ? a[0] + " > 0L ? " + a[0] + " : 0L"
               : "(" + a[0] + " > " + lit(0) + " || " + isnan(a[0]) + ") ? " + a[0] + " : " + lit(0);
      break;
    case XD_OP_EXP: e = fn("exp", k) + "(" + a[0] + ")"; break;
    case XD_OP_LOG: e = fn("log", k) + "(" + a[0] + ")"; break;
    case XD_OP_SQRT: e = fn("sqrt", k) + "(" + a[0] + ")"; break;
    case XD_OP_RSQRT: e = lit(1) + " / " + fn("sqrt", k) + "(" + a[0] + ")"; break;
    case XD_OP_TANH: e = tanh_sat(a[0]); break;
    case XD_OP_SILU: e = a[0] + " / (" + lit(1) + " + " + fn("exp", k) + "(-" + a[0] + "))"; break;
    case XD_OP_SIGMOID: e = lit(1) + " / (" + lit(1) + " + " + fn("exp", k) + "(-" + a[0] + "))"; break;
    case XD_OP_POW: e = fn("pow", k) + "(" + a[0] + ", " + lit(scalar_real()) + ")"; break;
    case XD_OP_GELU: {
      const auto* at = n.attrs_as<xd_attrs_gelu>();
      if (at != nullptr && at->approximate != 0) {
        const std::string x = a[0];
        const std::string inner = lit(0.79788456080286535588) + " * (" + x + " + " + lit(0.044715) + " * " + x + " * " +
                                  x + " * " + x + ")";
        e = lit(0.5) + " * " + x + " * (" + lit(1) + " + " + tanh_sat(inner) + ")";
      } else {
        e = a[0] + " * " + lit(0.5) + " * (" + lit(1) + " + " + erf_sat(a[0] + " * " + lit(0.70710678118654752440)) + ")";
      }
      break;
    }
    case XD_OP_EQ: e = "(" + a[0] + " == " + a[1] + ") ? 1L : 0L"; break;
    case XD_OP_LT: e = "(" + a[0] + " < " + a[1] + ") ? 1L : 0L"; break;
    case XD_OP_GT: e = "(" + a[0] + " > " + a[1] + ") ? 1L : 0L"; break;
    case XD_OP_NE:
      e = "(" + a[0] + " != " + a[1] + ") ? 1L : 0L";
      break;
    case XD_OP_GE:
      e = "(" + a[0] + " >= " + a[1] + ") ? 1L : 0L";
      break;
    case XD_OP_LE:
      e = "(" + a[0] + " <= " + a[1] + ") ? 1L : 0L";
      break;
    case XD_OP_WHERE: e = a[0] + " != 0L ? " + a[1] + " : " + a[2]; break;
    case XD_OP_COPY: return w.let(compute_type(od), decode(od, encode(od, k, a[0])));
    default: throw Error("internal error: the compiler has no expression for " + op_name(n.op));
  }
  return w.let(compute_type(od), round_to(od, "(" + std::string(compute_type(od)) + ")(" + e + ")"));
}

}  // namespace xd::detail::compiler
