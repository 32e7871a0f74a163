#include "golden.hpp"

#include <xd/backend.hpp>
#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/sparse.hpp>

#include "common/json_file.hpp"
#include "common/regular_file.hpp"
#include "comparison.hpp"
#include "compiled/compiled_runner.hpp"
#include "npy.hpp"
#include "runner.hpp"
#include "op_case.hpp"
#include "ops/helpers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>

namespace xd::conform {

namespace {

using nlohmann::json;

// A manifest lists cases and file names; the 88-case sample is 60 KB. 64 MiB is far beyond any
// real one and keeps a huge or endless file from exhausting memory.
constexpr uint64_t kMaxManifestBytes = cli::kMaxJsonBytes;

// Every problem in the manifest is reported as "<manifest>: cases[2] (id 'x'): inputs[0]: 'shape'
// must be ...": the file, the place in it, the field and what is wrong.
[[noreturn]] void bad_field(const std::string& where, const std::string& field, const std::string& why) {
  throw std::runtime_error(where + ": '" + field + "' " + why);
}

const json& need(const json& obj, const std::string& where, const std::string& key) {
  if (!obj.contains(key)) throw std::runtime_error(where + ": '" + key + "' is missing");
  return obj[key];
}

std::string need_string(const json& obj, const std::string& where, const std::string& key) {
  const json& v = need(obj, where, key);
  if (!v.is_string()) bad_field(where, key, "must be a string, got " + json_value_text(v));
  return v.get<std::string>();
}

// An array of objects (cases, inputs, outputs).
const json& need_objects(const json& obj, const std::string& where, const std::string& key) {
  const json& v = need(obj, where, key);
  if (!v.is_array()) bad_field(where, key, "must be a list of objects, got " + json_value_text(v));
  for (size_t i = 0; i < v.size(); ++i)
    if (!v[i].is_object())
      bad_field(where, key + "[" + std::to_string(i) + "]", "must be an object, got " + json_value_text(v[i]));
  return v;
}

// A shape: JSON integers only, none negative ("shape": [3.5] is an error, not 3).
std::vector<int64_t> need_shape(const json& obj, const std::string& where, const std::string& key) {
  const json& v = need(obj, where, key);
  bool ok = v.is_array();
  for (size_t i = 0; ok && i < v.size(); ++i)
    ok = v[i].is_number_unsigned() || (v[i].is_number_integer() && v[i].get<int64_t>() >= 0);
  if (!ok) bad_field(where, key, "must be a list of non-negative integers, got " + json_value_text(v));
  std::vector<int64_t> shape;
  for (const json& d : v) {
    if (d.is_number_unsigned() && d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      bad_field(where, key, "has a size larger than 2^63 - 1: " + d.dump());
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

// rtol / atol: absent means 0; otherwise a non-negative number.
double tolerance_field(const json& c, const std::string& where, const std::string& key) {
  if (!c.contains(key)) return 0.0;
  const json& v = c[key];
  if (!v.is_number() || v.get<double>() < 0)
    bad_field(where, key, "must be a non-negative number, got " + json_value_text(v));
  return v.get<double>();
}

// The manifest's attributes, each read by the op's family; one it does not read makes the case
// unsupported. Without a family (the op is unknown here) nothing is read: the case cannot run.
// A value the family cannot read (3.5 for a dim) is an error naming the attribute.
Attrs parse_attrs(const OpFamily* family, const std::string& op, const json& a, const std::string& where,
                  std::string& unsupported) {
  Attrs at;
  if (family == nullptr) return at;
  for (const auto& [k, v] : a.items()) {
    bool read = false;
    try {
      read = family->read_golden_attr(op, k, v, at, unsupported);
    } catch (const std::exception& e) {
      bad_field(where, "attrs." + k, std::string("cannot be read: ") + e.what());
    }
    if (!read && unsupported.empty()) unsupported = "attribute '" + k + "'";
  }
  return at;
}

GoldenTensor load_tensor(const std::string& dir, const json& j, const std::string& where, std::string& unsupported) {
  GoldenTensor t;
  t.name = need_string(j, where, "name");
  const std::string layout = j.contains("layout") ? need_string(j, where, "layout") : "strided";
  if (layout == "sparse_csr") {
    for (const char* part : {"crow_indices", "col_indices", "values"}) {
      const json& pj = need(j, where, part);
      if (!pj.is_object()) bad_field(where, part, "must be an object, got " + json_value_text(pj));
      t.csr.push_back(load_tensor(dir, pj, where + ": " + part, unsupported));
    }
    t.shape = need_shape(j, where, "size");
    t.dtype = t.csr[2].dtype;
    return t;
  }
  if (layout != "strided") {
    if (unsupported.empty()) unsupported = "input '" + t.name + "' has layout " + layout;
    return t;
  }
  const std::string dt = need_string(j, where, "dtype");
  t.shape = need_shape(j, where, "shape");
  const std::string file = dir + "/" + need_string(j, where, "file");
  const auto d = dtype_or_none(dt);
  if (!d) {
    if (unsupported.empty()) unsupported = "dtype " + dt;
    return t;
  }
  t.dtype = *d;
  NpyArray a;
  try {
    a = read_npy(file);
  } catch (const std::exception& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
  if (a.shape != t.shape)
    throw std::runtime_error(where + ": " + file + ": .npy shape " + index_text(a.shape) +
                             " differs from the manifest's 'shape' " + index_text(t.shape));
  if (a.itemsize() != itemsize(t.dtype))
    throw std::runtime_error(where + ": " + file + ": .npy dtype " + a.descr + " cannot hold the manifest's 'dtype' " +
                             dt);
  t.bytes = std::move(a.data);
  return t;
}

}  // namespace

std::vector<GoldenCase> load_golden(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  json m;
  try {
    m = cli::read_json_file(path, kMaxManifestBytes);
  } catch (const cli::FileError& e) {
    if (e.error == ENOENT) throw std::runtime_error(path + ": cannot open (is this a golden case folder?)");
    throw;
  }
  if (!m.is_object()) throw std::runtime_error(path + ": must be a JSON object, got " + json_value_text(m));
  const std::string format = m.contains("format") ? need_string(m, path, "format") : "";
  if (format != "xd-golden/1")
    throw std::runtime_error(path + ": format is '" + format + "', expected 'xd-golden/1'");
  std::set<std::string> known;
  for (const OpSchema& s : op_schemas()) known.insert(s.name);
  std::vector<GoldenCase> out;
  const json& cases = need_objects(m, path, "cases");
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const json& c = cases[ci];
    std::string where = path + ": cases[" + std::to_string(ci) + "]";
    GoldenCase g;
    g.id = need_string(c, where, "id");
    where += " (id '" + g.id + "')";
    g.op = need_string(c, where, "op");
    g.dtype_text = need_string(c, where, "dtype");
    g.tolerance = {tolerance_field(c, where, "rtol"), tolerance_field(c, where, "atol")};
    const json attrs = c.contains("attrs") ? c["attrs"] : json::object();
    if (!attrs.is_object()) bad_field(where, "attrs", "must be an object, got " + json_value_text(attrs));
    if (c.contains("graph")) {
      g.graph = need_string(c, where, "graph");
      if (find_named_graph(g.graph) == nullptr) g.unsupported = "graph " + g.graph + " is not one xd-conform knows";
      if (!attrs.empty()) g.unsupported = "a graph case takes no attributes";
    } else {
      if (!known.count(g.op)) g.unsupported = "op " + g.op + " does not exist in xdispatch yet";
      g.family = find_op_family(g.op);
      g.attrs = parse_attrs(g.family, g.op, attrs, where, g.unsupported);
    }
    if (!dtype_or_none(g.dtype_text)) g.unsupported = "dtype " + g.dtype_text;
    for (const char* list : {"inputs", "outputs"}) {
      const json& ts = need_objects(c, where, list);
      for (size_t i = 0; i < ts.size(); ++i)
        (list[0] == 'i' ? g.inputs : g.outputs)
            .push_back(load_tensor(dir, ts[i], where + ": " + list + "[" + std::to_string(i) + "]", g.unsupported));
    }
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

bool has_sparse_input(const GoldenCase& g) {
  return std::any_of(g.inputs.begin(), g.inputs.end(), [](const GoldenTensor& t) { return t.sparse(); });
}

// The golden case's call through the public SparseCsr overloads (the family says which).
std::vector<Tensor> invoke_sparse(const GoldenCase& g, Device dev) {
  const GoldenTensor* s = nullptr;
  std::map<std::string, Tensor> dense;
  for (const GoldenTensor& t : g.inputs) {
    if (t.sparse())
      s = &t;
    else
      dense[t.name] = from_host(t.bytes.data(), t.dtype, t.shape, dev);
  }
  auto part = [&](size_t i) { return from_host(s->csr[i].bytes.data(), s->csr[i].dtype, s->csr[i].shape, dev); };
  const SparseCsr a(part(0), part(1), part(2), s->shape);
  return g.family->invoke_csr({g.op, a, dense, g.attrs});
}

// `isolated`: one kernel of a slot that holds several runs alone (the others are disabled), so a
// NotImplementedError is that kernel declining the call, not a failure.
Outcome run_one(const GoldenCase& g, const OpSchema& schema, Dtype key, const std::string& backend, bool isolated) {
  Outcome o;
  try {
    const Device dev = Device::parse(backend);
    std::vector<std::optional<Tensor>> inputs;
    for (size_t i = 0; i < schema.inputs.size() && !has_sparse_input(g); ++i) {
      const GoldenTensor* t = nullptr;
      for (const GoldenTensor& x : g.inputs)
        if (x.name == schema.inputs[i]) t = &x;
      if (t == nullptr) {
        if (!(schema.optional_inputs & (1u << i))) {
          o.status = Status::fail;
          o.message = "the manifest lacks required input '" + schema.inputs[i] + "'";
          o.case_errors.push_back(o.message);
          return o;
        }
        inputs.emplace_back();
        continue;
      }
      inputs.emplace_back(from_host(t->bytes.data(), t->dtype, t->shape, dev));
    }
    const std::vector<Tensor> got =
        has_sparse_input(g) ? invoke_sparse(g, dev) : g.family->invoke({schema, key, inputs, g.attrs, dev, 0});
    for (const GoldenTensor& e : g.outputs) {
      size_t idx = schema.outputs.size();
      for (size_t i = 0; i < schema.outputs.size(); ++i)
        if (schema.outputs[i] == e.name) idx = i;
      OutputResult r;
      r.name = e.name;
      r.dtype = e.dtype;
      r.shape = e.shape;
      r.tolerance = g.tolerance;
      if (idx >= got.size() || !got[idx].defined()) {
        r.comparison.ok = false;
        r.comparison.message = "not produced";
      } else if (got[idx].dtype() != e.dtype) {
        r.comparison.ok = false;
        r.comparison.message =
            std::string("dtype ") + dtype_name(got[idx].dtype()) + ", expected " + dtype_name(e.dtype);
      } else if (std::vector<int64_t>(got[idx].sizes().begin(), got[idx].sizes().end()) != e.shape) {
        r.comparison.ok = false;
        r.comparison.message = "shape " + index_text({got[idx].sizes().begin(), got[idx].sizes().end()}) +
                               ", expected " + index_text(e.shape);
      } else {
        r.comparison = compare_bytes(e.dtype, e.shape, e.bytes, got[idx].to_bytes(), g.tolerance);
      }
      if (!r.comparison.ok) {
        o.status = Status::fail;
        o.message += (o.message.empty() ? "" : "; ") + e.name + ": " + r.comparison.message;
      }
      o.outputs.push_back(std::move(r));
    }
  } catch (const NotImplementedError& e) {
    if (isolated) {  // the isolated kernel declines this call (its check()): nothing of it to compare
      o.status = Status::unsupported;
      o.message = e.what();
    } else {
      o.status = Status::fail;
      o.message = std::string("raises: ") + e.what();
      o.case_errors.push_back(o.message);
    }
  } catch (const std::exception& e) {
    o.status = Status::fail;
    o.message = std::string("raises: ") + e.what();
    o.case_errors.push_back(o.message);
  }
  return o;
}

// A graph case: the named graph through xd::compile, called twice (trace, then the compiled
// graph), both results compared with the stored outputs; the stats must show the second call
// ran the graph or ran eagerly with a reason.
Outcome run_graph(const GoldenCase& g, const std::string& backend) {
  Outcome o;
  auto fail = [&](const std::string& why, bool whole_case) {
    o.status = Status::fail;
    o.message += (o.message.empty() ? "" : "; ") + why;
    if (whole_case) o.case_errors.push_back(why);
  };
  try {
    const NamedGraph& ng = *find_named_graph(g.graph);
    const Device dev = Device::parse(backend);
    std::vector<Tensor> inputs;
    for (const std::string& name : ng.input_names) {
      const auto it =
          std::find_if(g.inputs.begin(), g.inputs.end(), [&](const GoldenTensor& t) { return t.name == name; });
      if (it == g.inputs.end()) {
        fail("the manifest lacks input '" + name + "' of graph " + g.graph, true);
        return o;
      }
      inputs.push_back(from_host(it->bytes.data(), it->dtype, it->shape, dev));
    }
    const auto f = compile_recipe(retype_constants(ng.recipe, *dtype_or_none(g.dtype_text)));
    const std::vector<Tensor> traced = f->call(inputs);
    const std::vector<Tensor> compiled = f->call(inputs);
    CompiledRun run;
    const std::string problem = stats_problem(f->stats(), 2, run);
    if (!problem.empty()) fail(problem, true);
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const GoldenTensor& e = g.outputs[i];
      for (const auto& [suffix, got] :
           {std::pair<std::string, const std::vector<Tensor>*>{"", &compiled}, {" traced", &traced}}) {
        OutputResult r;
        r.name = e.name + suffix;
        r.dtype = e.dtype;
        r.shape = e.shape;
        r.tolerance = g.tolerance;
        if (i >= got->size()) {
          r.comparison.ok = false;
          r.comparison.message = "not produced";
        } else if ((*got)[i].dtype() != e.dtype ||
                   std::vector<int64_t>((*got)[i].sizes().begin(), (*got)[i].sizes().end()) != e.shape) {
          r.comparison.ok = false;
          r.comparison.message = std::string("dtype ") + dtype_name((*got)[i].dtype()) + " shape " +
                                 index_text({(*got)[i].sizes().begin(), (*got)[i].sizes().end()}) + ", expected " +
                                 dtype_name(e.dtype) + " " + index_text(e.shape);
        } else {
          r.comparison = compare_bytes(e.dtype, e.shape, e.bytes, (*got)[i].to_bytes(), g.tolerance);
        }
        if (!r.comparison.ok) fail(r.name + ": " + r.comparison.message, false);
        o.outputs.push_back(std::move(r));
      }
    }
    if (o.status != Status::fail)
      o.message = run.graph ? "compiled graph: " + std::to_string(run.kernels) + " fused kernel(s)"
                            : "eager: " + run.eager_reason;
  } catch (const std::exception& e) {
    fail(std::string("raises: ") + e.what(), true);
  }
  return o;
}

}  // namespace

bool golden_selected(const GoldenCase& g, const std::vector<std::string>& ops, const std::vector<Dtype>& dtypes) {
  const auto key = dtype_or_none(g.dtype_text);
  if (!ops.empty() && std::find(ops.begin(), ops.end(), g.op) == ops.end()) return false;
  return dtypes.empty() || (key && std::find(dtypes.begin(), dtypes.end(), *key) != dtypes.end());
}

std::vector<Record> run_golden(const std::vector<GoldenCase>& cases, const std::vector<std::string>& backends,
                               const std::vector<std::string>& ops, const std::vector<Dtype>& dtypes,
                               const std::function<void(size_t, size_t, const std::string&)>& progress) {
  std::set<std::tuple<std::string, std::string, Dtype>> slots;
  for (const KernelInfo& k : kernels()) slots.insert({k.backend, k.op, k.dtype});
  const std::vector<OpSchema> schemas = op_schemas();
  std::vector<Record> out;
  size_t done = 0;
  const size_t total =
      backends.size() * static_cast<size_t>(std::count_if(cases.begin(), cases.end(), [&](const GoldenCase& g) {
        return golden_selected(g, ops, dtypes);
      }));
  for (const GoldenCase& g : cases) {
    if (!golden_selected(g, ops, dtypes)) continue;
    const auto key = dtype_or_none(g.dtype_text);
    for (const std::string& backend : backends) {
      Record rec;
      rec.id = "golden/" + g.id + "/" + backend;
      rec.op = g.graph.empty() ? g.op : "graph " + g.graph;
      rec.backend = backend;
      rec.dtype = g.dtype_text;
      rec.variant = g.id;
      for (const GoldenTensor& t : g.inputs) {
        rec.input_names.push_back(t.name);
        rec.input_shapes.push_back(t.shape);
      }
      if (progress) progress(++done, total, rec.id);
      const auto t0 = std::chrono::steady_clock::now();
      // A slot with several kernels (fast kernels in front of a reference loop): each kernel is
      // checked against the golden outputs alone, as a record of its own.
      const std::string kernel_op = g.family != nullptr && has_sparse_input(g) ? g.family->csr_kernel_op(g.op) : g.op;
      const std::vector<std::string> names =
          g.unsupported.empty() && g.graph.empty() && g.family != nullptr && key ? slot_kernels(backend, kernel_op, *key)
                                                                               : std::vector<std::string>{};
      if (names.size() > 1) {
        const OpSchema* schema = nullptr;
        for (const OpSchema& s : schemas)
          if (s.name == g.op) schema = &s;
        for (const std::string& kernel : names) {
          Record one = rec;
          one.id = rec.id + "/" + kernel;
          one.kernel = kernel;
          const auto k0 = std::chrono::steady_clock::now();
          {
            const KernelIsolation only(backend, kernel_op, *key, kernel);
            one.outcome = run_one(g, *schema, *key, backend, true);
          }
          one.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - k0).count();
          if (!g.outputs.empty()) one.outcome.shape = g.outputs.front().shape;
          out.push_back(std::move(one));
        }
        continue;
      }
      if (!g.unsupported.empty()) {
        rec.outcome.status = Status::unsupported;
        rec.outcome.message = g.unsupported;
      } else if (!g.graph.empty()) {
        rec.outcome = run_graph(g, backend);
      } else if (g.family == nullptr) {
        rec.outcome.status = Status::fail;
        rec.outcome.message = no_case_description(g.op);
        rec.outcome.case_errors.push_back(rec.outcome.message);
      } else if (const std::string op = has_sparse_input(g) ? g.family->csr_kernel_op(g.op) : g.op;
                 !slots.count({backend, op, *key})) {
        rec.outcome.status = Status::unsupported;
        rec.outcome.message = "backend '" + backend + "' has no " + op + " kernel for " + g.dtype_text;
      } else {
        const OpSchema* schema = nullptr;
        for (const OpSchema& s : schemas)
          if (s.name == g.op) schema = &s;
        rec.outcome = run_one(g, *schema, *key, backend, false);
      }
      rec.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!g.outputs.empty()) rec.outcome.shape = g.outputs.front().shape;  // known from the manifest
      out.push_back(std::move(rec));
    }
  }
  return out;
}

}  // namespace xd::conform
