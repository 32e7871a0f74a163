#include "helpers.hpp"

#include "../comparison.hpp"

#include <nlohmann/json.hpp>

namespace xd::conform {

std::string shape_text(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

int64_t dim_size(const Shape& s, int64_t d) {
  return s[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(s.size()) : d)];
}

Range int_range(Dtype d, bool small) {
  switch (d) {
    case Dtype::i8:
      return small ? Range{-10, 10} : Range{-60, 60};
    case Dtype::u8:
      return small ? Range{0, 15} : Range{0, 120};
    default:
      return small ? Range{-300, 300} : Range{-1000, 1000};
  }
}

InputSpec input(const std::string& name, Dtype d, Shape sizes, Layout layout) {
  InputSpec s;
  s.name = name;
  s.dtype = d;
  s.sizes = std::move(sizes);
  s.layout = layout;
  if (d == Dtype::boolean) s.values = Values::boolean;
  if (is_integral(d)) {
    const Range r = int_range(d, false);
    s.lo = r.lo;
    s.hi = r.hi;
  }
  return s;
}

InputSpec ranged_input(const std::string& name, Dtype d, Shape sizes, double lo, double hi, Layout layout) {
  InputSpec s = input(name, d, std::move(sizes), layout);
  s.lo = lo;
  s.hi = hi;
  return s;
}

InputSpec expanded_input(const std::string& name, Dtype d, Shape stored, Shape to) {
  InputSpec s = input(name, d, std::move(stored), Layout::expanded);
  s.expand_to = std::move(to);
  return s;
}

Layout usable(Layout l, const Shape& s) {
  if (l == Layout::transposed && s.size() < 2) return s.empty() ? Layout::contiguous : Layout::sliced;
  if (l == Layout::sliced && s.empty()) return Layout::contiguous;
  return l;
}

const char* layout_suffix(Layout l) {
  switch (l) {
    case Layout::transposed:
      return ".T";
    case Layout::sliced:
      return ".sl";
    case Layout::expanded:
      return ".ex";
    default:
      return "";
  }
}

std::string expanded_text(const Shape& stored, const Shape& to) { return shape_text(stored) + ".ex" + shape_text(to); }

std::string operand_layouts_text(Layout a, Layout b) {
  return layout_suffix(a) + (b != Layout::contiguous ? std::string("+b") + layout_suffix(b) : std::string());
}

Case& CaseList::add(std::string variant) {
  Case c;
  c.schema = schema;
  c.dtype = dtype;
  c.variant = std::move(variant);
  cases.push_back(std::move(c));
  return cases.back();
}

Tolerance exact_tolerance() { return {0.0, 0.0}; }

Tolerance summed_tolerance(const Case& c, Dtype out) { return sum_tolerance(out, c.attrs.reduction_length); }

std::vector<int64_t> int_list(const nlohmann::json& j) {
  if (!j.is_array() && !j.is_number_integer())
    throw std::invalid_argument("expected an integer or a list of integers, got " + json_value_text(j));
  if (!j.is_array()) return {strict_get<int64_t>(j)};
  std::vector<int64_t> out;
  for (const nlohmann::json& v : j) {
    if (!v.is_number_integer())
      throw std::invalid_argument("expected an integer or a list of integers, got " + json_value_text(j));
    out.push_back(strict_get<int64_t>(v));
  }
  return out;
}

std::string json_value_text(const nlohmann::json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  const std::string type = j.type_name();
  const std::string kind = j.is_number_float() ? "a float"
                           : j.is_number()     ? "an integer"
                           : j.is_object() || j.is_array() ? "an " + type
                                                           : "a " + type;
  return text + " (" + kind + ")";
}

bool read_alpha_beta(const std::string& key, const nlohmann::json& value, Attrs& attrs) {
  return read_attr(key, "alpha", value, attrs.alpha) || read_attr(key, "beta", value, attrs.beta);
}

bool read_dim(const std::string& key, const nlohmann::json& value, Attrs& attrs) {
  if (key != "dim") return false;
  attrs.dims = int_list(value);
  attrs.dim = attrs.dims.empty() ? 0 : attrs.dims[0];
  return true;
}

std::optional<Dtype> dtype_or_none(const std::string& name) {
  try {
    return parse_dtype(name);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace xd::conform
