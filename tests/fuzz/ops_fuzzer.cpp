// The op API: the bytes choose an op family and op (pointwise with broadcasting, unary, reductions,
// softmax, rms_norm, the matmul family, casts, creation, views), shapes (at most 4096 elements),
// layouts (transposed, strided, expanded views), dtypes, dims and scalars (NaN, Inf, huge, out
// of an integer's range). The op runs on the target device — the CPU backend with all its
// kernels, or XD_FUZZ_DEVICE=opencl — and, when it raises no error, again on the CPU with only the
// reference kernel of every slot (the last one, the conformance oracle); both results must have
// the same shape and dtype and agree within the dtype's tolerance. An xd::Error is the API's
// answer to a bad call and fine; a crash, a sanitizer report, any other exception or a
// disagreement is a finding.
#include "fuzz_util.hpp"

#include <xd/xd.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using xd::Dtype;
using xd::Tensor;
using Shape = std::vector<int64_t>;

constexpr int64_t kMaxElements = 4096;

xd::Device g_target;
std::vector<std::string> g_fast_cpu_kernels;  // every CPU kernel that is not the last of a slot

constexpr Dtype kDtypes[] = {Dtype::f32, Dtype::f64, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::u8,
                             Dtype::i32, Dtype::i64, Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2};

// The CPU's reference kernels only, for the guard's lifetime.
class ReferenceOnly {
 public:
  ReferenceOnly() {
    for (const auto& n : g_fast_cpu_kernels) xd::set_kernel_enabled(n, false);
  }
  ~ReferenceOnly() {
    for (const auto& n : g_fast_cpu_kernels) xd::set_kernel_enabled(n, true);
  }
};

double pick_scalar(FuzzedDataProvider& p) {
  static constexpr double kSpecial[] = {0.0, 1.0, -1.0, 0.5, 2.0, -0.0, 1e-3, 3.0, 1e30, -1e30,
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN(), 1e300, 255.0, 256.0, -129.0,
                                        2147483648.0, 9.3e18, 65504.0, 448.0, 1e-45};
  const uint8_t c = p.ConsumeIntegral<uint8_t>();
  if (c < 128) return static_cast<double>(static_cast<int8_t>(c * 2 - 128)) / 4.0;  // k/4, exact everywhere
  return kSpecial[c % (sizeof kSpecial / sizeof kSpecial[0])];
}

Dtype pick_dtype(FuzzedDataProvider& p) { return kDtypes[p.ConsumeIntegralInRange<size_t>(0, std::size(kDtypes) - 1)]; }
Dtype pick_float_dtype(FuzzedDataProvider& p) { return kDtypes[p.ConsumeIntegralInRange<size_t>(0, 3)]; }

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

Shape pick_shape(FuzzedDataProvider& p, int max_dims = 4) {
  const int nd = p.ConsumeIntegralInRange(0, max_dims);
  Shape s;
  for (int i = 0; i < nd; ++i) {
    const uint8_t c = p.ConsumeIntegral<uint8_t>();
    int64_t v = c < 200 ? c % 9 : c % 70;  // mostly small, sometimes up to 69
    while (v > 0 && numel(s) * v > kMaxElements) v /= 2;
    s.push_back(v);
  }
  return s;
}

// A dim argument: usually valid, sometimes out of range or negative.
int64_t pick_dim(FuzzedDataProvider& p, int64_t ndim) {
  const uint8_t c = p.ConsumeIntegral<uint8_t>();
  if (c < 200 && ndim > 0) return static_cast<int64_t>(c % ndim) - (c & 1 ? ndim : 0);
  return static_cast<int64_t>(static_cast<int8_t>(c)) % 10;
}

// How an input is laid out: a view of a contiguous base made on the CPU, applied again on each
// device after the base is copied there, so both runs see the same strides.
struct Input {
  Tensor base;  // CPU, contiguous
  int layout = 0;  // 0 contiguous, 1 transposed, 2 every other element, 3 expanded from size-1 dims
  Shape shape;
};

Tensor realize(const Input& in, xd::Device dev) {
  const Tensor b = in.base.to(dev);
  const int64_t nd = static_cast<int64_t>(in.shape.size());
  switch (in.layout) {
    case 1: return nd >= 2 ? b.transpose(0, nd - 1) : b;
    case 2: return nd >= 1 ? b.slice(nd - 1, 0, 2 * in.shape.back(), 2) : b;
    case 3: return b.expand(in.shape);
    default: return b;
  }
}

Input make_input(FuzzedDataProvider& p, const Shape& shape, Dtype dtype) {
  Input in;
  in.shape = shape;
  in.layout = p.ConsumeIntegralInRange(0, 3);
  const int64_t nd = static_cast<int64_t>(shape.size());
  Shape base_shape = shape;
  if (in.layout == 1 && nd >= 2) std::swap(base_shape[0], base_shape[static_cast<size_t>(nd - 1)]);
  if (in.layout == 2 && nd >= 1) base_shape.back() *= 2;
  if (in.layout == 3)
    for (auto& v : base_shape)
      if (p.ConsumeBool()) v = 1;
  if (numel(base_shape) > 2 * kMaxElements) {
    in.layout = 0;
    base_shape = shape;
  }
  const bool specials = p.ConsumeIntegral<uint8_t>() > 220;
  std::vector<float> values(static_cast<size_t>(numel(base_shape)));
  for (auto& v : values) {
    if (specials && p.ConsumeIntegral<uint8_t>() > 200) {
      v = static_cast<float>(pick_scalar(p));
    } else {
      v = static_cast<float>(static_cast<int8_t>(p.ConsumeIntegral<uint8_t>())) / 4.0f;
    }
    if (dtype == Dtype::u8 || dtype == Dtype::boolean) v = std::fabs(v);
  }
  // Integers get whole numbers; the cast of the f32 values is itself checked elsewhere.
  if (xd::is_integral(dtype))
    for (auto& v : values) v = std::isfinite(v) ? std::clamp(std::trunc(v), -100.0f, 100.0f) : 0.0f;
  in.base = xd::tensor(values, base_shape, xd::cpu()).to(dtype);
  return in;
}

// A shape b broadcasts to a's: some leading dims dropped, some dims 1; sometimes not compatible.
Shape broadcast_partner(FuzzedDataProvider& p, const Shape& a) {
  if (p.ConsumeIntegral<uint8_t>() > 240) return pick_shape(p);
  Shape b(a.begin() + p.ConsumeIntegralInRange<int64_t>(0, static_cast<int64_t>(a.size())), a.end());
  for (auto& v : b)
    if (p.ConsumeBool()) v = 1;
  return b;
}

// ------------------------------------------------------------------ the op
// Builds the call from the bytes once; run(dev) makes the inputs on `dev` and calls the op.
struct Call {
  std::string text;  // what was called, for the report
  std::vector<Input> inputs;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&, xd::Device)> op;
};

std::string shape_text(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

Call decode(FuzzedDataProvider& p) {
  Call c;
  std::ostringstream text;
  const int family = p.ConsumeIntegralInRange(0, 8);
  auto add_input = [&](const Shape& s, Dtype d) {
    c.inputs.push_back(make_input(p, s, d));
    text << " in" << c.inputs.size() - 1 << "=" << xd::dtype_name(d) << shape_text(s) << "/layout"
         << c.inputs.back().layout;
  };
  switch (family) {
    case 0: {  // binary, broadcasting
      const int op = p.ConsumeIntegralInRange(0, 10);
      const Shape sa = pick_shape(p), sb = broadcast_partner(p, sa);
      const Dtype da = pick_dtype(p), db = p.ConsumeIntegral<uint8_t>() > 230 ? pick_dtype(p) : da;
      const bool swap = p.ConsumeBool();
      double alpha = pick_scalar(p);
      add_input(swap ? sb : sa, da);
      add_input(swap ? sa : sb, db);
      if (op == 10) add_input(sa, Dtype::boolean);
      text << " binary op " << op << " alpha " << alpha;
      c.op = [op, alpha](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        switch (op) {
          case 0: return {xd::add(t[0], t[1], alpha)};
          case 1: return {xd::sub(t[0], t[1], alpha)};
          case 2: return {xd::mul(t[0], t[1])};
          case 3: return {xd::div(t[0], t[1])};
          case 4: return {xd::maximum(t[0], t[1])};
          case 5: return {xd::minimum(t[0], t[1])};
          case 6: return {xd::eq(t[0], t[1])};
          case 7: return {xd::lt(t[0], t[1])};
          case 8: return {xd::gt(t[0], t[1])};
          case 9: return {xd::pow(t[0], alpha)};
          default: return {xd::where(t[2], t[0], t[1])};
        }
      };
      break;
    }
    case 1: {  // unary
      const int op = p.ConsumeIntegralInRange(0, 11);
      add_input(pick_shape(p), pick_dtype(p));
      text << " unary op " << op;
      c.op = [op](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        switch (op) {
          case 0: return {xd::neg(t[0])};
          case 1: return {xd::abs(t[0])};
          case 2: return {xd::exp(t[0])};
          case 3: return {xd::log(t[0])};
          case 4: return {xd::sqrt(t[0])};
          case 5: return {xd::rsqrt(t[0])};
          case 6: return {xd::relu(t[0])};
          case 7: return {xd::gelu(t[0], xd::GeluApproximate::none)};
          case 8: return {xd::gelu(t[0], xd::GeluApproximate::tanh)};
          case 9: return {xd::silu(t[0])};
          case 10: return {xd::sigmoid(t[0])};
          default: return {xd::tanh(t[0])};
        }
      };
      break;
    }
    case 2: {  // reductions
      const int op = p.ConsumeIntegralInRange(0, 4);
      const Shape s = pick_shape(p);
      add_input(s, pick_dtype(p));
      Shape dims;
      const int nd = p.ConsumeIntegralInRange(0, 3);
      for (int i = 0; i < nd; ++i) dims.push_back(pick_dim(p, static_cast<int64_t>(s.size())));
      const bool keep = p.ConsumeBool();
      text << " reduction op " << op << " dims " << shape_text(dims) << " keepdim " << keep;
      c.op = [op, dims, keep](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        switch (op) {
          case 0: return {xd::sum(t[0], dims, keep)};
          case 1: return {xd::mean(t[0], dims, keep)};
          case 2: return {xd::amax(t[0], dims, keep)};
          case 3: return {xd::amin(t[0], dims, keep)};
          default: return {xd::argmax(t[0], dims.empty() ? 0 : dims[0], keep)};
        }
      };
      break;
    }
    case 3: {  // softmax, log_softmax
      const bool log = p.ConsumeBool();
      const Shape s = pick_shape(p);
      add_input(s, p.ConsumeIntegral<uint8_t>() > 240 ? pick_dtype(p) : pick_float_dtype(p));
      const int64_t dim = pick_dim(p, static_cast<int64_t>(s.size()));
      text << (log ? " log_softmax" : " softmax") << " dim " << dim;
      c.op = [log, dim](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        return {log ? xd::log_softmax(t[0], dim) : xd::softmax(t[0], dim)};
      };
      break;
    }
    case 4: {  // rms_norm
      const Shape s = pick_shape(p);
      const Dtype d = p.ConsumeIntegral<uint8_t>() > 240 ? pick_dtype(p) : pick_float_dtype(p);
      add_input(s, d);
      Shape norm;
      if (p.ConsumeIntegral<uint8_t>() > 240) {
        norm = pick_shape(p, 2);
      } else {
        const size_t k = p.ConsumeIntegralInRange<size_t>(0, s.size());
        norm.assign(s.end() - static_cast<std::ptrdiff_t>(k), s.end());
      }
      const bool weight = p.ConsumeBool();
      if (weight) add_input(p.ConsumeIntegral<uint8_t>() > 240 ? pick_shape(p, 2) : norm, p.ConsumeIntegral<uint8_t>() > 240 ? pick_dtype(p) : d);
      std::optional<double> eps;
      if (p.ConsumeBool()) eps = pick_scalar(p);
      text << " rms_norm normalized_shape " << shape_text(norm) << " eps " << (eps ? std::to_string(*eps) : "default");
      c.op = [norm, weight, eps](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        auto [y, rstd] = xd::rms_norm(t[0], norm, weight ? std::optional<Tensor>(t[1]) : std::nullopt, eps);
        return {y, rstd};
      };
      break;
    }
    case 5: {  // matmul family
      const int op = p.ConsumeIntegralInRange(0, 3);
      auto dimv = [&] { return static_cast<int64_t>(p.ConsumeIntegralInRange(0, 17)); };
      const int64_t B = p.ConsumeIntegralInRange(0, 4), M = dimv(), K = dimv(), N = dimv();
      const bool bad = p.ConsumeIntegral<uint8_t>() > 240;
      const int64_t K2 = bad ? dimv() : K;
      const Dtype d = p.ConsumeIntegral<uint8_t>() > 240 ? pick_dtype(p) : pick_float_dtype(p);
      const double beta = pick_scalar(p), alpha = pick_scalar(p);
      const bool batched = op >= 2;
      add_input(batched ? Shape{B, M, K} : Shape{M, K}, d);
      add_input(batched ? Shape{B, K2, N} : Shape{K2, N}, d);
      if (op == 1 || op == 3) {
        Shape in = batched ? Shape{B, M, N} : Shape{M, N};
        in = broadcast_partner(p, in);
        add_input(in, d);
      }
      text << " matmul op " << op << " B " << B << " M " << M << " K " << K << " K2 " << K2 << " N " << N << " beta "
           << beta << " alpha " << alpha;
      c.op = [op, beta, alpha](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        switch (op) {
          case 0: return {xd::mm(t[0], t[1])};
          case 1: return {xd::addmm(t[2], t[0], t[1], beta, alpha)};
          case 2: return {xd::bmm(t[0], t[1])};
          default: return {xd::baddbmm(t[2], t[0], t[1], beta, alpha)};
        }
      };
      break;
    }
    case 6: {  // casts
      const Dtype from = pick_dtype(p), to = pick_dtype(p);
      add_input(pick_shape(p), from);
      const int how = p.ConsumeIntegralInRange(0, 2);
      text << " cast to " << xd::dtype_name(to) << " how " << how;
      c.op = [to, how](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        if (how == 0) return {t[0].to(to)};
        return {xd::cast(t[0], to, how == 1 ? xd::CastMode::standard : xd::CastMode::saturate)};
      };
      break;
    }
    case 7: {  // creation with scalars
      const int op = p.ConsumeIntegralInRange(0, 2);
      const Shape s = pick_shape(p);
      const Dtype d = pick_dtype(p);
      const double v = pick_scalar(p);
      const double start = static_cast<double>(p.ConsumeIntegralInRange(-100, 100)) / 4.0;
      const double end = static_cast<double>(p.ConsumeIntegralInRange(-100, 100)) / 4.0;
      static constexpr double kSteps[] = {1.0, -1.0, 0.5, 0.0, -0.25, 3.0, 0.01, -0.01};
      const double step = kSteps[p.ConsumeIntegralInRange<size_t>(0, std::size(kSteps) - 1)];
      text << " creation op " << op << " " << xd::dtype_name(d) << shape_text(s) << " value " << v << " arange "
           << start << ".." << end << " step " << step;
      c.op = [=](const std::vector<Tensor>&, xd::Device dev) -> std::vector<Tensor> {
        switch (op) {
          case 0: return {xd::full(s, v, d, dev)};
          case 1: return {xd::arange(start, end, step, d, dev)};
          default: return {xd::zeros(s, d, dev)};
        }
      };
      break;
    }
    default: {  // views, then a copy or an op that reads through them
      const Shape s = pick_shape(p);
      const int64_t nd = static_cast<int64_t>(s.size());
      add_input(s, pick_dtype(p));
      const int op = p.ConsumeIntegralInRange(0, 9);
      const int64_t d0 = pick_dim(p, nd), d1 = pick_dim(p, nd);
      const int64_t a = static_cast<int8_t>(p.ConsumeIntegral<uint8_t>()) / 8;
      const int64_t b = static_cast<int8_t>(p.ConsumeIntegral<uint8_t>()) / 8;
      const int64_t step = static_cast<int8_t>(p.ConsumeIntegral<uint8_t>()) % 4;
      Shape sizes = p.ConsumeBool() ? pick_shape(p) : s;
      if (!sizes.empty() && p.ConsumeBool()) sizes[p.ConsumeIntegralInRange<size_t>(0, sizes.size() - 1)] = -1;
      const int then = p.ConsumeIntegralInRange(0, 2);
      text << " view op " << op << " d0 " << d0 << " d1 " << d1 << " a " << a << " b " << b << " step " << step
           << " sizes " << shape_text(sizes) << " then " << then;
      c.op = [=](const std::vector<Tensor>& t, xd::Device) -> std::vector<Tensor> {
        Tensor v;
        switch (op) {
          case 0: v = t[0].slice(d0, a, b, step); break;
          case 1: v = t[0].select(d0, a); break;
          case 2: v = t[0].transpose(d0, d1); break;
          case 3: {
            Shape perm;
            for (int64_t i = 0; i < nd; ++i) perm.push_back((i + a) % std::max<int64_t>(nd, 1));
            v = t[0].permute(perm);
            break;
          }
          case 4: v = t[0].reshape(sizes); break;
          case 5: v = t[0].view(sizes); break;
          case 6: v = t[0].expand(sizes); break;
          case 7: v = t[0].unsqueeze(d0); break;
          case 8: v = t[0].squeeze(d0); break;
          default: v = nd == 2 ? t[0].t() : t[0].transpose(d0, d1); break;
        }
        if (then == 0) return {v.contiguous()};
        if (then == 1) return {v.clone()};
        return {xd::add(v, v)};
      };
      break;
    }
  }
  c.text = text.str();
  return c;
}

std::vector<Tensor> run(const Call& c, xd::Device dev) {
  std::vector<Tensor> in;
  for (const auto& i : c.inputs) in.push_back(realize(i, dev));
  auto out = c.op(in, dev);
  for (auto& t : out)
    if (t.defined()) t = t.to(xd::cpu());
  return out;
}

double tolerance(Dtype d) {
  switch (d) {
    case Dtype::f64: return 1e-9;
    case Dtype::f32: return 1e-4;
    case Dtype::f16: return 2e-3;
    case Dtype::bf16: return 1.6e-2;
    case Dtype::f8e4m3fn: return 0.13;
    case Dtype::f8e5m2: return 0.26;
    default: return 0.0;
  }
}

void compare(const Call& c, const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  auto fail = [&](const std::string& why) {
    xd::fuzz::finding(std::string("target ") + g_target.backend() + " disagrees with the CPU reference: " + why +
                      "\n  call:" + c.text);
  };
  if (got.size() != want.size()) fail("number of outputs");
  for (size_t k = 0; k < got.size(); ++k) {
    if (got[k].defined() != want[k].defined()) fail("output " + std::to_string(k) + " defined on one side only");
    if (!got[k].defined()) continue;
    const Shape gs(got[k].sizes().begin(), got[k].sizes().end()), ws(want[k].sizes().begin(), want[k].sizes().end());
    if (gs != ws) fail("output " + std::to_string(k) + " shape " + shape_text(gs) + " vs " + shape_text(ws));
    if (got[k].dtype() != want[k].dtype())
      fail("output " + std::to_string(k) + " dtype " + xd::dtype_name(got[k].dtype()) + " vs " +
           xd::dtype_name(want[k].dtype()));
    const std::vector<double> g = got[k].to_vector<double>(), w = want[k].to_vector<double>();
    const double rtol = tolerance(want[k].dtype());
    double scale = 1.0;
    for (double v : w)
      if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(g[i]) && std::isnan(w[i])) continue;
      if (g[i] == w[i]) continue;
      const bool finite = std::isfinite(g[i]) && std::isfinite(w[i]);
      if (finite && std::fabs(g[i] - w[i]) <= rtol * std::fabs(w[i]) + rtol * 1e-2 * scale) continue;
      std::ostringstream os;
      os << "output " << k << " element " << i << ": " << g[i] << " vs reference " << w[i];
      fail(os.str());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xd::fuzz::init(argc, argv);
  const char* want = std::getenv("XD_FUZZ_DEVICE");
  g_target = xd::cpu();
  if (want && *want && std::string(want) != "cpu") {
    try {
      g_target = xd::Device::parse(want);
    } catch (const xd::Error& e) {
      std::fprintf(stderr, "XD_FUZZ_DEVICE=%s: %s\n", want, e.what());
      std::exit(1);
    }
  }
  // The reference is the last kernel of each CPU slot; a name that is last anywhere stays on.
  std::map<std::pair<std::string, int>, std::string> last;
  std::set<std::string> names;
  for (const auto& k : xd::kernels()) {
    if (k.backend != "cpu") continue;
    last[{k.op, static_cast<int>(k.dtype)}] = k.name;
    names.insert(k.name);
  }
  std::set<std::string> reference;
  for (const auto& [slot, name] : last) reference.insert(name);
  for (const auto& n : names)
    if (!reference.count(n)) g_fast_cpu_kernels.push_back(n);
  xd::set_poison_outputs(true);
  std::fprintf(stderr, "ops fuzzer: target %s:%d, %zu fast CPU kernels switched off for the reference\n",
               g_target.backend().c_str(), g_target.index(), g_fast_cpu_kernels.size());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xd::fuzz::set_input(data, size);
  FuzzedDataProvider p(data, size);
  try {
    Call c;
    try {
      c = decode(p);
    } catch (const xd::Error&) {
      return 0;  // making an input failed the way the API says (e.g. a cast it rejects)
    }
    // XD_FUZZ_VERBOSE=1: the call, before it runs (a sanitizer report ends the process at once).
    static const bool verbose = std::getenv("XD_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "call:%s\n", c.text.c_str());
    std::vector<Tensor> got, want;
    try {
      got = run(c, g_target);
    } catch (const xd::Error&) {
      return 0;
    }
    try {
      ReferenceOnly ref;
      want = run(c, xd::cpu());
    } catch (const xd::Error& e) {
      // The reference refuses what the target accepted: only fast kernels may decline (they say
      // why), so this is a disagreement too.
      xd::fuzz::finding(std::string("the target accepts a call the CPU reference rejects: ") + e.what() +
                        "\n  call:" + c.text);
    }
    compare(c, got, want);
  } catch (const xd::Error&) {
  } catch (const std::exception& e) {
    xd::fuzz::finding(std::string("a non-xd exception escaped the op API: ") + e.what());
  }
  return 0;
}
