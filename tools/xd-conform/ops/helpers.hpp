// What the op families share: shape and layout text for variants, input builders with value
// ranges that keep every dtype exact where it must be, and the collector a family's cases go into.
#pragma once

#include "../comparison.hpp"
#include "../op_case.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace xd::conform {

using Shape = std::vector<int64_t>;

// "scalar" for 0-d, else the sizes joined by 'x' ("13x17").
std::string shape_text(const Shape& s);
int64_t numel(const Shape& s);
// The size of dim `d` of `s`, counting a negative d from the end.
int64_t dim_size(const Shape& s, int64_t d);

// Value ranges that keep every dtype exact where it must be (no integer overflow that would
// differ by accumulation order, no float-to-integer conversion out of range). `small`: for
// products, which must stay in range too.
struct Range {
  double lo, hi;
};
Range int_range(Dtype d, bool small);

// An input of shape `sizes` the op sees: bool inputs are 0 or 1, integer inputs span
// int_range(d, false), floating ones the InputSpec default [-2, 2).
InputSpec input(const std::string& name, Dtype d, Shape sizes, Layout layout = Layout::contiguous);
// The same with values uniform in [lo, hi) (integers: lo..hi).
InputSpec ranged_input(const std::string& name, Dtype d, Shape sizes, double lo, double hi,
                       Layout layout = Layout::contiguous);
// An input stored with size-1 dims and expanded (stride 0) to `to`, the shape the op sees.
InputSpec expanded_input(const std::string& name, Dtype d, Shape stored, Shape to);

// A layout the shape can have: transposing needs two dims, slicing one.
Layout usable(Layout l, const Shape& s);
// ".T", ".sl", ".ex" or "" (contiguous), appended to a shape in variants.
const char* layout_suffix(Layout l);
// "1x9.ex6x9": the stored shape, then the shape it is expanded to.
std::string expanded_text(const Shape& stored, const Shape& to);
// The layouts of a matmul's two operands in a variant: ".T" for a transposed left operand,
// "+b.sl" for a sliced right one, nothing for contiguous ones.
std::string operand_layouts_text(Layout a, Layout b);

// Drops the entries whose name `name_of` gives is in `names`. By name, never by position, so
// editing one list cannot silently drop another case from the quick set.
template <class T, class F>
void erase_named(std::vector<T>& v, const std::set<std::string>& names, F name_of) {
  std::erase_if(v, [&](const T& x) { return names.count(name_of(x)) != 0; });
}

// Collects the cases of one (op, dtype): add() starts a case with the op, dtype and variant set.
struct CaseList {
  const OpSchema& schema;
  Dtype dtype;
  bool quick;
  std::vector<Case> cases;

  Case& add(std::string variant);
  bool floating() const { return is_floating(dtype); }
};

// A family whose ops are the entries of a table, one per op, each with its `name`: ops() lists
// the names, cases() collects `add_cases` of the op's entry, and entry() finds an op's entry.
template <class Entry>
class TableFamily : public OpFamily {
 public:
  using AddCases = void (*)(const Entry& op, CaseList& l);

  template <size_t N>
  TableFamily(const Entry (&table)[N], AddCases add_cases) : table_(table, N), add_cases_(add_cases) {}

  std::vector<std::string> ops() const override {
    std::vector<std::string> out;
    for (const Entry& e : table_) out.emplace_back(e.name);
    return out;
  }

  std::vector<Case> cases(const OpSchema& schema, Dtype dtype, bool quick) const override {
    CaseList l{schema, dtype, quick, {}};
    add_cases_(entry(schema.name), l);
    return l.cases;
  }

 protected:
  // The list asks a family only about the ops it lists, so a miss is a bug here.
  const Entry& entry(std::string_view op) const {
    for (const Entry& e : table_)
      if (op == e.name) return e;
    throw std::logic_error("xd-conform: op '" + std::string(op) + "' has no entry in its family's table");
  }

 private:
  std::span<const Entry> table_;
  AddCases add_cases_;
};

// The tolerances families choose from (comparison.hpp has the per-dtype table).
Tolerance exact_tolerance();
// The dtype's tolerance widened by sqrt(reduction_length): for ops whose outputs sum terms.
Tolerance summed_tolerance(const Case& c, Dtype out);

// Golden attribute values: an int or a list of ints; a dtype name, or nullopt for one xdispatch lacks.
// A value of another JSON type (3.5 where an int belongs, true where a number belongs) throws
// std::invalid_argument saying what was expected and what was given; golden.cpp adds the file
// and the attribute's name.
std::vector<int64_t> int_list(const nlohmann::json& j);
std::optional<Dtype> dtype_or_none(const std::string& name);
// "3.5 (a float)": a golden value for messages, cut short when long.
std::string json_value_text(const nlohmann::json& j);
// `j` as T, with no conversion nlohmann would make silently: integers only from JSON integers in
// T's range, floating values only from numbers, bool only from true/false, strings only from strings.
template <class T>
T strict_get(const nlohmann::json& j) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) throw std::invalid_argument("expected true or false, got " + json_value_text(j));
    return j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    const bool in_range =
        (j.is_number_unsigned() && j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())) ||
        (j.is_number_integer() && !j.is_number_unsigned() &&
         j.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
         (std::is_unsigned_v<T> || j.get<int64_t>() <= static_cast<int64_t>(std::numeric_limits<T>::max())));
    if (!in_range) throw std::invalid_argument("expected an integer, got " + json_value_text(j));
    return j.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) throw std::invalid_argument("expected a number, got " + json_value_text(j));
    return j.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) throw std::invalid_argument("expected a string, got " + json_value_text(j));
    return j.get<std::string>();
  } else {
    return j.get<T>();
  }
}
// Reads manifest attribute `key` into `field` when it is the attribute `name`; false otherwise.
template <class T>
bool read_attr(const std::string& key, const char* name, const nlohmann::json& value, T& field) {
  if (key != name) return false;
  field = strict_get<T>(value);
  return true;
}
// `alpha` or `beta` (the scales of addmm-like ops).
bool read_alpha_beta(const std::string& key, const nlohmann::json& value, Attrs& attrs);
// `dim`, an int or a list: `dims` gets all of it, `dim` the first (0 when empty).
bool read_dim(const std::string& key, const nlohmann::json& value, Attrs& attrs);

}  // namespace xd::conform
