#include "golden.hpp"

#include <xd/backend.hpp>
#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/sparse.hpp>

#include "comparison.hpp"
#include "compiled/compiled_runner.hpp"
#include "npy.hpp"
#include "op_case.hpp"
#include "ops/helpers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace xd::conform {

namespace {

using nlohmann::json;

// The manifest's attributes, each read by the op's family; one it does not read makes the case
// unsupported. Without a family (the op is unknown here) nothing is read: the case cannot run.
Attrs parse_attrs(const OpFamily* family, const std::string& op, const json& a, std::string& unsupported) {
  Attrs at;
  if (family == nullptr) return at;
  for (const auto& [k, v] : a.items())
    if (!family->read_golden_attr(op, k, v, at, unsupported) && unsupported.empty())
      unsupported = "attribute '" + k + "'";
  return at;
}

GoldenTensor load_tensor(const std::string& dir, const json& j, const std::string& case_id, std::string& unsupported) {
  GoldenTensor t;
  t.name = j.at("name").get<std::string>();
  if (j.contains("layout") && j["layout"].get<std::string>() == "sparse_csr") {
    for (const char* part : {"crow_indices", "col_indices", "values"})
      t.csr.push_back(load_tensor(dir, j.at(part), case_id, unsupported));
    t.shape = j.at("size").get<std::vector<int64_t>>();
    t.dtype = t.csr[2].dtype;
    return t;
  }
  if (j.contains("layout") && j["layout"].get<std::string>() != "strided") {
    if (unsupported.empty()) unsupported = "input '" + t.name + "' has layout " + j["layout"].get<std::string>();
    return t;
  }
  const std::string dt = j.at("dtype").get<std::string>();
  const auto d = dtype_or_none(dt);
  if (!d) {
    if (unsupported.empty()) unsupported = "dtype " + dt;
    return t;
  }
  t.dtype = *d;
  t.shape = j.at("shape").get<std::vector<int64_t>>();
  const NpyArray a = read_npy(dir + "/" + j.at("file").get<std::string>());
  if (a.shape != t.shape)
    throw std::runtime_error(case_id + ": " + t.name + ": .npy shape differs from the manifest's");
  if (a.itemsize() != itemsize(t.dtype))
    throw std::runtime_error(case_id + ": " + t.name + ": .npy dtype " + a.descr + " cannot hold " + dt);
  t.bytes = a.data;
  return t;
}

}  // namespace

std::vector<GoldenCase> load_golden(const std::string& dir) {
  std::ifstream f(dir + "/manifest.json");
  if (!f) throw std::runtime_error(dir + "/manifest.json: cannot open (is this a golden case folder?)");
  json m;
  try {
    m = json::parse(f);
  } catch (const std::exception& e) {
    throw std::runtime_error(dir + "/manifest.json: " + e.what());
  }
  if (m.value("format", "") != "xd-golden/1")
    throw std::runtime_error(dir + "/manifest.json: format is '" + m.value("format", "") + "', expected 'xd-golden/1'");
  std::set<std::string> known;
  for (const OpSchema& s : op_schemas()) known.insert(s.name);
  std::vector<GoldenCase> out;
  for (const json& c : m.at("cases")) {
    GoldenCase g;
    g.id = c.at("id").get<std::string>();
    g.op = c.at("op").get<std::string>();
    g.dtype_text = c.at("dtype").get<std::string>();
    g.tolerance = {c.value("rtol", 0.0), c.value("atol", 0.0)};
    if (c.contains("graph")) {
      g.graph = c["graph"].get<std::string>();
      if (find_named_graph(g.graph) == nullptr) g.unsupported = "graph " + g.graph + " is not one xd-conform knows";
      if (!c.value("attrs", json::object()).empty()) g.unsupported = "a graph case takes no attributes";
    } else {
      if (!known.count(g.op)) g.unsupported = "op " + g.op + " does not exist in xdispatch yet";
      g.family = find_op_family(g.op);
      g.attrs = parse_attrs(g.family, g.op, c.value("attrs", json::object()), g.unsupported);
    }
    if (!dtype_or_none(g.dtype_text)) g.unsupported = "dtype " + g.dtype_text;
    for (const json& t : c.at("inputs")) g.inputs.push_back(load_tensor(dir, t, g.id, g.unsupported));
    for (const json& t : c.at("outputs")) g.outputs.push_back(load_tensor(dir, t, g.id, g.unsupported));
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

Outcome run_one(const GoldenCase& g, const OpSchema& schema, Dtype key, const std::string& backend) {
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
        rec.outcome = run_one(g, *schema, *key, backend);
      }
      rec.outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!g.outputs.empty()) rec.outcome.shape = g.outputs.front().shape;  // known from the manifest
      out.push_back(std::move(rec));
    }
  }
  return out;
}

}  // namespace xd::conform
