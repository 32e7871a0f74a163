#include "recipe.hpp"

#include <xd/error.hpp>

#include <sstream>
#include <stdexcept>

namespace xd::conform {

const char* graph_op_name(GraphOp op) {
  switch (op) {
    case GraphOp::neg:
      return "neg";
    case GraphOp::abs:
      return "abs";
    case GraphOp::relu:
      return "relu";
    case GraphOp::exp:
      return "exp";
    case GraphOp::log:
      return "log";
    case GraphOp::sqrt:
      return "sqrt";
    case GraphOp::rsqrt:
      return "rsqrt";
    case GraphOp::gelu:
      return "gelu";
    case GraphOp::silu:
      return "silu";
    case GraphOp::sigmoid:
      return "sigmoid";
    case GraphOp::tanh:
      return "tanh";
    case GraphOp::pow:
      return "pow";
    case GraphOp::add:
      return "add";
    case GraphOp::sub:
      return "sub";
    case GraphOp::mul:
      return "mul";
    case GraphOp::div:
      return "div";
    case GraphOp::maximum:
      return "maximum";
    case GraphOp::minimum:
      return "minimum";
    case GraphOp::eq:
      return "eq";
    case GraphOp::lt:
      return "lt";
    case GraphOp::gt:
      return "gt";
    case GraphOp::where:
      return "where";
    case GraphOp::constant:
      return "constant";
    case GraphOp::cast:
      return "cast";
    case GraphOp::sum:
      return "sum";
    case GraphOp::mean:
      return "mean";
    case GraphOp::amax:
      return "amax";
    case GraphOp::amin:
      return "amin";
    case GraphOp::softmax:
      return "softmax";
    case GraphOp::log_softmax:
      return "log_softmax";
    case GraphOp::rms_norm:
      return "rms_norm";
    case GraphOp::mm:
      return "mm";
  }
  return "?";
}

const char* schema_op_name(GraphOp op) {
  if (op == GraphOp::cast) return "copy";
  if (op == GraphOp::constant) return "fill";
  return graph_op_name(op);
}

namespace {

// The last `k` dims of t, as the reductions and rms_norm take them.
std::vector<int64_t> trailing_dims(const Tensor& t, int k) {
  std::vector<int64_t> d;
  for (int i = t.dim() - k; i < t.dim(); ++i) d.push_back(i);
  return d;
}

std::vector<int64_t> trailing_sizes(const Tensor& t, int k) {
  std::vector<int64_t> s;
  for (int i = t.dim() - k; i < t.dim(); ++i) s.push_back(t.sizes()[static_cast<size_t>(i)]);
  return s;
}

Tensor run_step(const GraphStep& s, const std::vector<Tensor>& v, const Device& dev) {
  auto a = [&](size_t i) -> const Tensor& { return v.at(static_cast<size_t>(s.args.at(i))); };
  switch (s.op) {
    case GraphOp::neg:
      return neg(a(0));
    case GraphOp::abs:
      return abs(a(0));
    case GraphOp::relu:
      return relu(a(0));
    case GraphOp::exp:
      return exp(a(0));
    case GraphOp::log:
      return log(a(0));
    case GraphOp::sqrt:
      return sqrt(a(0));
    case GraphOp::rsqrt:
      return rsqrt(a(0));
    case GraphOp::gelu:
      return gelu(a(0), s.approximate);
    case GraphOp::silu:
      return silu(a(0));
    case GraphOp::sigmoid:
      return sigmoid(a(0));
    case GraphOp::tanh:
      return tanh(a(0));
    case GraphOp::pow:
      return pow(a(0), s.exponent);
    case GraphOp::add:
      return add(a(0), a(1), s.alpha);
    case GraphOp::sub:
      return sub(a(0), a(1), s.alpha);
    case GraphOp::mul:
      return mul(a(0), a(1));
    case GraphOp::div:
      return div(a(0), a(1));
    case GraphOp::maximum:
      return maximum(a(0), a(1));
    case GraphOp::minimum:
      return minimum(a(0), a(1));
    case GraphOp::eq:
      return eq(a(0), a(1));
    case GraphOp::lt:
      return lt(a(0), a(1));
    case GraphOp::gt:
      return gt(a(0), a(1));
    case GraphOp::where:
      return where(a(0), a(1), a(2));
    case GraphOp::constant:
      return full({}, s.value, s.dtype, dev);
    case GraphOp::cast:
      return cast(a(0), s.dtype);
    case GraphOp::sum:
      return sum(a(0), trailing_dims(a(0), s.dims), s.keepdim);
    case GraphOp::mean:
      return mean(a(0), trailing_dims(a(0), s.dims), s.keepdim);
    case GraphOp::amax:
      return amax(a(0), trailing_dims(a(0), s.dims), s.keepdim);
    case GraphOp::amin:
      return amin(a(0), trailing_dims(a(0), s.dims), s.keepdim);
    case GraphOp::softmax:
      return softmax(a(0), -1);
    case GraphOp::log_softmax:
      return log_softmax(a(0), -1);
    case GraphOp::rms_norm: {
      const std::optional<Tensor> w = s.args.size() > 1 ? std::optional<Tensor>(a(1)) : std::nullopt;
      return std::get<0>(rms_norm(a(0), trailing_sizes(a(0), s.dims), w, s.eps));
    }
    case GraphOp::mm:
      return mm(a(0), a(1));
  }
  throw std::logic_error("xd-conform: unknown graph op");
}

}  // namespace

std::vector<Tensor> run_recipe(const Recipe& r, const std::vector<Tensor>& inputs) {
  if (static_cast<int>(inputs.size()) != r.inputs)
    throw ValueError("xd-conform: the recipe takes " + std::to_string(r.inputs) + " inputs, got " +
                     std::to_string(inputs.size()));
  std::vector<Tensor> v(inputs.begin(), inputs.end());
  const Device dev = inputs.empty() ? default_device() : inputs.front().device();
  for (const GraphStep& s : r.steps) v.push_back(run_step(s, v, dev));
  std::vector<Tensor> out;
  for (int o : r.outputs) out.push_back(v.at(static_cast<size_t>(o)));
  return out;
}

std::string recipe_text(const Recipe& r) {
  std::ostringstream o;
  o.precision(9);
  int n = r.inputs;
  for (const GraphStep& s : r.steps) {
    o << "v" << n++ << " = " << graph_op_name(s.op) << "(";
    for (size_t i = 0; i < s.args.size(); ++i) o << (i ? ", " : "") << "v" << s.args[i];
    switch (s.op) {
      case GraphOp::add:
      case GraphOp::sub:
        if (s.alpha != 1.0) o << ", alpha=" << s.alpha;
        break;
      case GraphOp::pow:
        o << ", " << s.exponent;
        break;
      case GraphOp::gelu:
        o << (s.approximate == GeluApproximate::tanh ? ", tanh" : ", erf");
        break;
      case GraphOp::constant:
        o << s.value << ", " << dtype_name(s.dtype);
        break;
      case GraphOp::cast:
        o << ", " << dtype_name(s.dtype);
        break;
      case GraphOp::sum:
      case GraphOp::mean:
      case GraphOp::amax:
      case GraphOp::amin:
        o << ", last " << s.dims << (s.keepdim ? ", keepdim" : "");
        break;
      case GraphOp::rms_norm:
        o << ", last " << s.dims;
        if (s.eps) o << ", eps=" << *s.eps;
        break;
      default:
        break;
    }
    o << "); ";
  }
  o << "return";
  for (size_t i = 0; i < r.outputs.size(); ++i) o << (i ? ", v" : " v") << r.outputs[i];
  return o.str();
}

}  // namespace xd::conform
