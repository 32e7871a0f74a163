#include "op_invoker.hpp"

#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/runtime.hpp>
#include <xd/sparse.hpp>

namespace xd::conform {

namespace {

const Tensor& in(const std::vector<std::optional<Tensor>>& v, size_t i, const OpSchema& s) {
  if (i >= v.size() || !v[i]) throw ValueError(s.name + ": input " + std::to_string(i) + " is missing");
  return *v[i];
}

std::optional<Tensor> opt(const std::vector<std::optional<Tensor>>& v, size_t i) {
  return i < v.size() ? v[i] : std::nullopt;
}

[[noreturn]] void unknown(const OpSchema& s) {
  throw NotImplementedError("xd-conform does not know how to call op '" + s.name + "' (kind " +
                            op_kind_name(s.kind) + "); teach tools/xd-conform/op_invoker.cpp");
}

}  // namespace

std::vector<Tensor> invoke(const OpSchema& s, Dtype dtype, const std::vector<std::optional<Tensor>>& v,
                           const Attrs& a, Device device, uint64_t seed) {
  const std::string& n = s.name;
  auto x = [&](size_t i) -> const Tensor& { return in(v, i, s); };
  switch (s.kind) {
    case OpKind::fill: return {full(a.sizes, a.value, dtype, device)};
    case OpKind::arange: {
      const int64_t len = a.sizes.empty() ? 0 : a.sizes[0];
      return {arange(a.start, a.start + a.step * static_cast<double>(len) - a.step / 2, a.step, dtype, device)};
    }
    case OpKind::random: {
      Generator g(seed ^ 0x5eedULL);
      if (n == "rand") return {rand(a.sizes, dtype, device, &g)};
      if (n == "randn") return {randn(a.sizes, dtype, device, &g)};
      unknown(s);
    }
    case OpKind::copy: {
      Tensor out = empty(x(0).sizes(), a.to_dtype, x(0).device());
      out.copy_(x(0));
      return {out};
    }
    case OpKind::binary:
      if (n == "add") return {add(x(0), x(1), a.alpha)};
      if (n == "sub") return {sub(x(0), x(1), a.alpha)};
      if (n == "mul") return {mul(x(0), x(1))};
      if (n == "div") return {div(x(0), x(1))};
      unknown(s);
    case OpKind::compare:
      if (n == "eq") return {eq(x(0), x(1))};
      if (n == "lt") return {lt(x(0), x(1))};
      if (n == "gt") return {gt(x(0), x(1))};
      unknown(s);
    case OpKind::where: return {where(x(0), x(1), x(2))};
    case OpKind::unary:
      if (n == "pow") return {pow(x(0), a.exponent)};
      if (n == "neg") return {neg(x(0))};
      if (n == "abs") return {abs(x(0))};
      if (n == "exp") return {exp(x(0))};
      if (n == "log") return {log(x(0))};
      if (n == "sqrt") return {sqrt(x(0))};
      if (n == "rsqrt") return {rsqrt(x(0))};
      if (n == "relu") return {relu(x(0))};
      if (n == "gelu") return {gelu(x(0), a.approximate)};
      if (n == "silu") return {silu(x(0))};
      if (n == "sigmoid") return {sigmoid(x(0))};
      if (n == "tanh") return {tanh(x(0))};
      unknown(s);
    case OpKind::reduce:
      if (n == "sum") return {sum(x(0), a.dims, a.keepdim)};
      if (n == "mean") return {mean(x(0), a.dims, a.keepdim)};
      if (n == "amax") return {amax(x(0), a.dims, a.keepdim)};
      if (n == "amin") return {amin(x(0), a.dims, a.keepdim)};
      unknown(s);
    case OpKind::argreduce:
      if (n == "argmax") return {argmax(x(0), a.dim, a.keepdim)};
      unknown(s);
    case OpKind::softmax:
      if (n == "softmax") return {softmax(x(0), a.dim)};
      if (n == "log_softmax") return {log_softmax(x(0), a.dim)};
      unknown(s);
    case OpKind::mm: return {mm(x(0), x(1))};
    case OpKind::addmm: return {addmm(x(0), x(1), x(2), a.beta, a.alpha)};
    case OpKind::bmm: return {bmm(x(0), x(1))};
    case OpKind::baddbmm: return {baddbmm(x(0), x(1), x(2), a.beta, a.alpha)};
    case OpKind::rms_norm: {
      auto [y, r] = rms_norm(x(0), a.normalized_shape, opt(v, 1), a.eps);
      return {y, r};
    }
    case OpKind::rms_norm_backward: {
      auto [gi, gw] = rms_norm_backward(x(0), x(1), a.normalized_shape, x(2), opt(v, 3), a.output_mask);
      return {gi, gw};
    }
    case OpKind::weight_int4_mm: return {weight_int4_mm(x(0), x(1), x(2), x(3), a.group_size)};
    case OpKind::quantize_int4: {
      auto [packed, scales, zeros] = quantize_int4(x(0), a.group_size);
      return {packed, scales, zeros};
    }
    // The CSR operand arrives dense (Values::sparse) and is converted here, on the side that runs.
    case OpKind::csr_addmm: {
      const SparseCsr s = to_sparse_csr(x(1), a.index_dtype);
      const bool batched = s.is_batched();
      if (!opt(v, 0)) return {batched ? bmm(s, x(2)) : mm(s, x(2))};
      return {batched ? baddbmm(x(0), s, x(2), a.beta, a.alpha) : addmm(x(0), s, x(2), a.beta, a.alpha)};
    }
    case OpKind::csr_to_dense: return {to_sparse_csr(x(0), a.index_dtype).to_dense()};
    case OpKind::int_mm: return {int_mm(x(0), x(1))};
    case OpKind::scaled_mm: return {scaled_mm(x(0), x(1), x(2), x(3), opt(v, 4), a.out_dtype)};
  }
  unknown(s);
}

}  // namespace xd::conform
