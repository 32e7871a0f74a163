// The pointwise unary ops: neg, abs, exp, log, sqrt, rsqrt, relu, gelu, silu, sigmoid, tanh, pow
// (a scalar exponent), clamp (scalar bounds), floor and round (decimals). Each draws its input
// from where the function is defined, and every floating op gets a case of special values (NaN,
// +-Inf, +-0, near overflow); floor and round also get one of halves (their ties).
#include <xd/ops.hpp>

#include "helpers.hpp"

#include <utility>

namespace xd::conform {

namespace {

// Where an op's floating inputs come from: its function's domain, and what the CPU reference
// computes there without overflow.
enum class Domain {
  moderate,  // [-5, 5)
  exp,       // [-8, 8)
  positive,  // [0.05, 8): log, sqrt, rsqrt, and pow (a negative base to a fractional power is NaN)
};

// One attribute setting an op's cases repeat over, with its tag in the variant ("e-1.5.", "tanh.").
struct Setting {
  std::string tag;
  double exponent = 2.0;
  GeluApproximate approximate = GeluApproximate::none;
  std::optional<double> clamp_min = std::nullopt, clamp_max = std::nullopt;
  int64_t decimals = 0;
  bool floating_only = false;  // a setting integer dtypes refuse (fractional or NaN bounds, decimals)
};

std::vector<Setting> single_setting(bool) { return {Setting{}}; }

std::vector<Setting> pow_exponents(bool quick) {
  const std::vector<double> exponents =
      quick ? std::vector<double>{2.0, -1.5} : std::vector<double>{2.0, 0.5, -1.5, 3.0, 0.0};
  std::vector<Setting> out;
  for (double e : exponents) {
    const std::string text = std::to_string(e);
    out.push_back({"e" + text.substr(0, text.find('.') + 2) + ".", e});
  }
  return out;
}

std::vector<Setting> gelu_approximations(bool) {
  return {{"erf.", 2.0, GeluApproximate::none}, {"tanh.", 2.0, GeluApproximate::tanh}};
}

// Whole bounds apply to every dtype (u8 wraps -2 to 254, as PyTorch); fractional and NaN ones to
// floating dtypes, where NaN follows torch.clamp: with both bounds, NaN everywhere, alone, ignored.
std::vector<Setting> clamp_bounds(bool quick) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto bounds = [](std::string tag, std::optional<double> lo, std::optional<double> hi, bool floating_only) {
    Setting s;
    s.tag = std::move(tag);
    s.clamp_min = lo;
    s.clamp_max = hi;
    s.floating_only = floating_only;
    return s;
  };
  std::vector<Setting> out = {bounds("lo-2.hi3.", -2.0, 3.0, false),      bounds("lo0.", 0.0, std::nullopt, false),
                              bounds("hi-1.", std::nullopt, -1.0, false), bounds("lo3.hi-2.", 3.0, -2.0, false),
                              bounds("lo-0.75.hi1.3.", -0.75, 1.3, true), bounds("loNaN.hi1.", nan, 1.0, true)};
  if (!quick) {
    out.push_back(bounds("hi-0.", std::nullopt, -0.0, true));
    out.push_back(bounds("loNaN.", nan, std::nullopt, true));
    out.push_back(bounds("lo-inf.hi2.5.", -std::numeric_limits<double>::infinity(), 2.5, true));
  }
  return out;
}

std::vector<Setting> round_decimals(bool quick) {
  const std::vector<int64_t> decimals =
      quick ? std::vector<int64_t>{0, 1, -1} : std::vector<int64_t>{0, 1, 2, 3, -1, -2};
  std::vector<Setting> out;
  for (int64_t d : decimals) {
    Setting s;
    s.tag = "d" + std::to_string(d) + ".";
    s.decimals = d;
    s.floating_only = d != 0;  // integers take decimals 0 only (DtypeError otherwise)
    out.push_back(s);
  }
  return out;
}

// "min" and "max": a number, or null for an absent bound (JSON has no NaN or Inf).
bool read_clamp_bound(const std::string& key, const nlohmann::json& v, Attrs& a, std::string&) {
  if (key != "min" && key != "max") return false;
  std::optional<double>& bound = key == "min" ? a.clamp_min : a.clamp_max;
  bound = v.is_null() ? std::nullopt : std::optional<double>(strict_get<double>(v));
  return true;
}

bool read_decimals(const std::string& key, const nlohmann::json& v, Attrs& a, std::string&) {
  return read_attr(key, "decimals", v, a.decimals);
}

bool read_exponent(const std::string& key, const nlohmann::json& v, Attrs& a, std::string&) {
  return read_attr(key, "exponent", v, a.exponent);
}

bool read_approximate(const std::string& key, const nlohmann::json& v, Attrs& a, std::string& unsupported) {
  if (key != "approximate") return false;
  const std::string s = strict_get<std::string>(v);
  if (s == "none")
    a.approximate = GeluApproximate::none;
  else if (s == "tanh")
    a.approximate = GeluApproximate::tanh;
  else
    unsupported = "gelu approximation '" + s + "'";
  return true;
}

struct UnaryOp {
  const char* name;
  Tensor (*call)(const Tensor& self, const Attrs& a);
  Domain domain = Domain::moderate;
  bool small_ints = false;  // integer inputs from -100 on (abs and neg of the minimum overflow)
  std::vector<Setting> (*settings)(bool quick) = single_setting;
  bool (*golden_attr)(const std::string& key, const nlohmann::json& v, Attrs& a, std::string& unsupported) = nullptr;
  bool exact = false;   // compared exactly (round: with decimals 0)
  bool halves = false;  // floating dtypes get a case of multiples of 0.5
};

const UnaryOp unary_ops[] = {
    {"pow", [](const Tensor& x, const Attrs& a) { return pow(x, a.exponent); }, Domain::positive, false, pow_exponents,
     read_exponent},
    {"neg", [](const Tensor& x, const Attrs&) { return neg(x); }, Domain::moderate, true},
    {"abs", [](const Tensor& x, const Attrs&) { return abs(x); }, Domain::moderate, true},
    {"exp", [](const Tensor& x, const Attrs&) { return exp(x); }, Domain::exp},
    {"log", [](const Tensor& x, const Attrs&) { return log(x); }, Domain::positive},
    {"sqrt", [](const Tensor& x, const Attrs&) { return sqrt(x); }, Domain::positive},
    {"rsqrt", [](const Tensor& x, const Attrs&) { return rsqrt(x); }, Domain::positive},
    {"relu", [](const Tensor& x, const Attrs&) { return relu(x); }},
    {"gelu", [](const Tensor& x, const Attrs& a) { return gelu(x, a.approximate); }, Domain::moderate, false,
     gelu_approximations, read_approximate},
    {"silu", [](const Tensor& x, const Attrs&) { return silu(x); }},
    {"sigmoid", [](const Tensor& x, const Attrs&) { return sigmoid(x); }},
    {"tanh", [](const Tensor& x, const Attrs&) { return tanh(x); }},
    {"clamp", [](const Tensor& x, const Attrs& a) { return clamp(x, a.clamp_min, a.clamp_max); }, Domain::moderate,
     false, clamp_bounds, read_clamp_bound, true},
    {"floor", [](const Tensor& x, const Attrs&) { return floor(x); }, Domain::moderate, false, single_setting, nullptr,
     true, true},
    {"round", [](const Tensor& x, const Attrs& a) { return round(x, a.decimals); }, Domain::moderate, false,
     round_decimals, read_decimals, true, true},
};

void set_domain(const UnaryOp& op, InputSpec& in) {
  if (!is_floating(in.dtype)) {
    const Range r = int_range(in.dtype, false);
    in.lo = op.small_ints ? std::max(r.lo, -100.0) : r.lo;
    in.hi = r.hi;
    return;
  }
  switch (op.domain) {
    case Domain::positive:
      in.values = Values::positive;
      in.lo = 0.05;
      in.hi = 8.0;
      break;
    case Domain::exp:
      in.lo = -8;
      in.hi = 8;
      break;
    case Domain::moderate:
      in.lo = -5;
      in.hi = 5;
      break;
  }
}

void unary_cases(const UnaryOp& op, CaseList& l) {
  std::vector<std::pair<Shape, Layout>> shapes = {
      {{}, Layout::contiguous},  {{0}, Layout::contiguous},       {{1}, Layout::contiguous},
      {{7}, Layout::contiguous}, {{13, 17}, Layout::contiguous},  {{13, 17}, Layout::transposed},
      {{31, 3}, Layout::sliced}, {{3, 1, 5}, Layout::contiguous}, {{4099}, Layout::contiguous}};
  if (!l.quick) {
    shapes.push_back({{2, 3, 5, 7}, Layout::transposed});
    shapes.push_back({{(1 << 20) + 7}, Layout::contiguous});
  } else {
    // 13x17 and 4099 keep odd and prime sizes in the quick set.
    erase_named(shapes, {"7", "3x1x5"}, [](const auto& p) { return shape_text(p.first); });
  }
  for (const Setting& setting : op.settings(l.quick)) {
    if (setting.floating_only && !l.floating()) continue;
    auto add = [&](const std::string& variant, InputSpec in) {
      Case& c = l.add(setting.tag + variant);
      c.inputs = {std::move(in)};
      c.attrs.exponent = setting.exponent;
      c.attrs.approximate = setting.approximate;
      c.attrs.clamp_min = setting.clamp_min;
      c.attrs.clamp_max = setting.clamp_max;
      c.attrs.decimals = setting.decimals;
    };
    for (const auto& [s, layout] : shapes) {
      InputSpec in = input("self", l.dtype, s, usable(layout, s));
      set_domain(op, in);
      add(shape_text(s) + layout_suffix(usable(layout, s)), in);
    }
    // An expanded (stride 0) input.
    InputSpec expanded = expanded_input("self", l.dtype, {1, 9}, {6, 9});
    set_domain(op, expanded);
    add("1x9.ex6x9", expanded);
    if (l.floating()) {
      InputSpec special = ranged_input("self", l.dtype, {257}, -5, 5);
      special.values = Values::special;
      add("special.257", special);
    }
    if (l.floating() && op.halves) {
      InputSpec halves = ranged_input("self", l.dtype, {64}, -8, 8);
      halves.values = Values::halves;
      add("halves.64", halves);
    }
  }
}

class UnaryFamily final : public TableFamily<UnaryOp> {
 public:
  UnaryFamily() : TableFamily(unary_ops, unary_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    return {entry(call.schema.name).call(call.input(0), call.attrs)};
  }

  // clamp, floor and round with decimals 0 are exact; round with decimals rounds twice in its
  // compute type, which a backend matches bit for bit only with a correctly rounded quotient.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    const UnaryOp& u = entry(c.schema.name);
    if (u.exact && c.attrs.decimals == 0) return exact_tolerance();
    return dtype_tolerance(out);
  }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string& unsupported) const override {
    const UnaryOp& u = entry(op);
    return u.golden_attr && u.golden_attr(key, value, attrs, unsupported);
  }
};

}  // namespace

const OpFamily& unary_family() {
  static const UnaryFamily family;
  return family;
}

}  // namespace xd::conform
