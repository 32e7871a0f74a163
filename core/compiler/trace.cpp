#include "compiler/trace.hpp"

#include <xd/dtype.hpp>

#include "ops/schema.hpp"

namespace xd::detail::compiler {

std::atomic<int> g_tracing_threads{0};

namespace {
thread_local Tracer* t_tracer = nullptr;
}  // namespace

Tracer* active_tracer_slow() { return t_tracer; }

TraceScope::TraceScope(Tracer* t) : previous_(t_tracer) {
  t_tracer = t;
  g_tracing_threads.fetch_add(1, std::memory_order_relaxed);
}
TraceScope::~TraceScope() {
  t_tracer = previous_;
  g_tracing_threads.fetch_sub(1, std::memory_order_relaxed);
}
NoTraceScope::NoTraceScope() : previous_(t_tracer) { t_tracer = nullptr; }
NoTraceScope::~NoTraceScope() { t_tracer = previous_; }

bool View::is_dense(int64_t value_numel) const {
  if (offset != 0 || numel() != value_numel) return false;
  int64_t expect = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expect) return false;
    expect *= sizes[d];
  }
  return true;
}

std::string op_name(xd_op op) { return op_schema(op).name; }

Tracer::Tracer(const std::vector<Tensor>& args) {
  g_.input_value.assign(args.size(), -1);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined()) continue;
    const TensorImpl& t = args[i].impl();
    if (g_.device == nullptr) g_.device = &t.device_record();
    const Storage* s = t.storage;
    auto it = known_.find(s);
    if (it != known_.end()) {
      // Another argument on the same storage: views of this one are taken relative to the first.
      g_.input_value[i] = it->second.value;
      continue;
    }
    Value v;
    v.kind = ValueKind::input;
    v.dtype = t.dtype;
    v.input = static_cast<int>(i);
    v.numel = static_cast<int64_t>(s->nbytes / itemsize(t.dtype)) - t.storage_offset;
    g_.values.push_back(v);
    const int id = static_cast<int>(g_.values.size()) - 1;
    known_[s] = Known{id, t.storage_offset};
    g_.input_value[i] = id;
  }
}

void Tracer::on_allocate(const std::shared_ptr<TensorImpl>& t) {
  if (failed()) return;
  fresh_[t->storage] = t;
}

void Tracer::on_host_read() { fail("it reads a tensor's values on the host"); }
void Tracer::on_host_write() { fail("it copies host data into a tensor"); }

bool Tracer::view_of(const TensorImpl& t, int ndim, const int64_t* sizes, const int64_t* strides, View& out) {
  auto it = known_.find(t.storage);
  if (it == known_.end()) {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    if (fresh_.count(t.storage) != 0 && n == 0) {
      // Ops skip their launch on empty tensors, so an empty result is never written.
      fail("it computes on tensors with no elements (nothing to fuse)");
    } else if (fresh_.count(t.storage) != 0) {
      fail("it reads a tensor before writing it (xd::empty)");
    } else {
      fail("it uses a tensor it was not given as an argument (pass it as one)");
    }
    return false;
  }
  out.value = it->second.value;
  out.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    out.sizes[d] = sizes[d];
    out.strides[d] = strides[d];
  }
  out.offset = t.storage_offset - it->second.base;
  return true;
}

void Tracer::on_launch(xd_op op, Dtype key, DeviceRecord& dev, std::span<const Arg> inputs,
                       std::span<const Arg> outputs, const void* attrs) {
  if (failed()) return;
  if (g_.device == nullptr) g_.device = &dev;
  if (&dev != g_.device) return fail("it uses more than one device");
  if (op == XD_OP_RAND || op == XD_OP_RANDN) return fail("it draws random numbers");
  Node n;
  n.op = op;
  n.key = key;
  for (const Arg& a : inputs) {
    View v;
    if (a.t != nullptr && !view_of(*a.t, a.ndim, a.sizes, a.strides, v)) return;
    n.inputs.push_back(v);
  }
  const int node_id = static_cast<int>(g_.nodes.size());
  for (const Arg& a : outputs) {
    View v;
    if (a.t != nullptr) {
      auto f = fresh_.find(a.t->storage);
      if (f == fresh_.end()) {
        return fail(known_.count(a.t->storage) != 0 ? "it writes into a tensor that already has a value (in place)"
                                                    : "it writes into a tensor it did not create");
      }
      Value val;
      val.kind = ValueKind::produced;
      val.dtype = a.t->dtype;
      val.numel = static_cast<int64_t>(a.t->storage->nbytes / itemsize(a.t->dtype));
      val.producer = node_id;
      g_.values.push_back(val);
      known_[a.t->storage] = Known{static_cast<int>(g_.values.size()) - 1, 0};
      keep_.push_back(std::move(f->second));
      fresh_.erase(f);
      if (!view_of(*a.t, a.ndim, a.sizes, a.strides, v)) return;
    }
    n.outputs.push_back(v);
  }
  if (attrs != nullptr) {
    size_t size = 0;
    std::memcpy(&size, attrs, sizeof size);  // every xd_attrs_* starts with its struct_size
    const auto* p = static_cast<const unsigned char*>(attrs);
    n.attrs.assign(p, p + size);
  }
  if (op == XD_OP_FILL && n.outputs.size() == 1 && n.outputs[0].value >= 0) {
    Value& v = g_.values[static_cast<size_t>(n.outputs[0].value)];
    const auto* s = n.attrs_as<xd_attrs_scalar>();
    if (s != nullptr && n.outputs[0].is_dense(v.numel)) {
      v.kind = ValueKind::constant;
      v.constant = s->real;
    }
  }
  g_.nodes.push_back(std::move(n));
}

Graph Tracer::finish(const std::vector<Tensor>& results) {
  for (const Tensor& r : results) {
    if (failed()) break;
    if (!r.defined()) {
      fail("it returns an undefined tensor");
      break;
    }
    const TensorImpl& t = r.impl();
    View v;
    if (!view_of(t, t.ndim, t.sizes, t.strides, v)) break;
    g_.outputs.push_back(v);
  }
  if (failed()) return Graph{};
  return std::move(g_);
}

}  // namespace xd::detail::compiler
