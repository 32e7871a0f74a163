// xd::compile's runtime: the graph cache and its guards, tracing, building and running graphs.
#include <xd/compile.hpp>
#include <xd/error.hpp>

#include <xd/runtime.hpp>

#include "compiler/codegen_target.hpp"
#include "compiler/emitter.hpp"
#include "compiler/schedule.hpp"
#include "compiler/trace.hpp"
#include "dispatch/launch.hpp"
#include "plugin/host_api.hpp"
#include "runtime/current.hpp"
#include "util/log.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>

namespace xd::detail {

using namespace compiler;

namespace {

ArgSignature signature_of(const std::vector<Tensor>& args, size_t i) {
  ArgSignature s;
  const Tensor& a = args[i];
  if (!a.defined()) return s;
  const TensorImpl& t = a.impl();
  s.defined = true;
  s.device = t.device();
  s.dtype = t.dtype;
  s.ndim = t.ndim;
  for (int d = 0; d < t.ndim; ++d) {
    s.sizes[d] = t.sizes[d];
    s.strides[d] = t.strides[d];
  }
  s.align = t.byte_offset() % 64;
  for (size_t j = 0; j < i; ++j) {
    if (args[j].defined() && args[j].impl().storage == t.storage) {
      s.alias_of = static_cast<int>(j);
      s.alias_delta = t.storage_offset - args[j].impl().storage_offset;
      break;
    }
  }
  return s;
}

std::string shape_text(int nd, const int64_t* v) {
  std::string s = "[";
  for (int d = 0; d < nd; ++d) s += (d ? ", " : "") + std::to_string(v[d]);
  return s + "]";
}

// The first guard of `want` that `got` fails, in words; empty when it passes.
std::string guard_failure(const ArgSignature& want, const ArgSignature& got, size_t i) {
  const std::string arg = "argument " + std::to_string(i);
  if (want.defined != got.defined) return arg + (got.defined ? " is defined" : " is undefined") + " where the trace had " + (want.defined ? "a tensor" : "none");
  if (!got.defined) return "";
  if (!(want.device == got.device)) return arg + " is on " + got.device.str() + ", the trace's on " + want.device.str();
  if (want.dtype != got.dtype) return arg + " has dtype " + dtype_name(got.dtype) + ", the trace's " + dtype_name(want.dtype);
  if (want.ndim != got.ndim) return arg + " has rank " + std::to_string(got.ndim) + ", the trace's " + std::to_string(want.ndim);
  for (int d = 0; d < want.ndim; ++d)
    if (want.sizes[d] != got.sizes[d])
      return arg + " has sizes " + shape_text(got.ndim, got.sizes) + ", the trace's " + shape_text(want.ndim, want.sizes);
  for (int d = 0; d < want.ndim; ++d)
    if (want.strides[d] != got.strides[d])
      return arg + " has strides " + shape_text(got.ndim, got.strides) + ", the trace's " + shape_text(want.ndim, want.strides);
  if (want.align != got.align)
    return arg + " starts " + std::to_string(got.align) + " bytes past a 64-byte boundary, the trace's " + std::to_string(want.align);
  if (want.alias_of != got.alias_of || want.alias_delta != got.alias_delta)
    return arg + " shares memory with other arguments differently from the trace";
  return "";
}

// The guards, checked on the arguments themselves (no signature built): every call's path.
bool matches_args(const std::vector<ArgSignature>& want, const std::vector<Tensor>& args) {
  if (want.size() != args.size()) return false;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSignature& w = want[i];
    if (w.defined != args[i].defined()) return false;
    if (!w.defined) continue;
    const TensorImpl& t = args[i].impl();
    if (t.dtype != w.dtype || t.ndim != w.ndim || !(t.device() == w.device) || t.byte_offset() % 64 != w.align) return false;
    for (int d = 0; d < t.ndim; ++d)
      if (t.sizes[d] != w.sizes[d] || t.strides[d] != w.strides[d]) return false;
    int alias = -1;
    int64_t delta = 0;
    for (size_t j = 0; j < i; ++j)
      if (args[j].defined() && args[j].impl().storage == t.storage) {
        alias = static_cast<int>(j);
        delta = t.storage_offset - args[j].impl().storage_offset;
        break;
      }
    if (alias != w.alias_of || delta != w.alias_delta) return false;
  }
  return true;
}

int64_t pow2_dividing(uint64_t bytes_mod64, size_t itemsize) {
  // Element alignment known of a base at `bytes_mod64` past a 64-byte boundary.
  const uint64_t b = bytes_mod64 == 0 ? 64 : (bytes_mod64 & (~bytes_mod64 + 1));
  return std::max<int64_t>(1, static_cast<int64_t>(b / itemsize));
}

struct FusedRun {
  EmittedKernel emitted;
  xd_codegen_kernel kernel = nullptr;
};

struct Entry {
  std::vector<ArgSignature> sig;
  bool eager = false;
  std::string reason;
  Graph graph;
  Schedule sched;
  const CodegenTarget* target = nullptr;
  std::vector<FusedRun> fused;       // per fused step, in step order
  std::vector<int> fused_of_step;    // step -> index into fused, or -1
  std::vector<int> last_use;         // value -> last step reading or writing it
  std::vector<bool> is_output;       // value -> returned
  std::vector<int> whole_output;     // value -> the output returning the whole buffer (allocated in its shape), or -1
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace

struct CompiledCore::State {
  Fn fn;
  CompileOptions options;
  mutable std::mutex mutex;
  std::vector<std::shared_ptr<Entry>> entries;
  CompileStats stats;

  std::shared_ptr<Entry> find(const std::vector<Tensor>& args) const {
    for (const auto& e : entries)
      if (matches_args(e->sig, args)) return e;
    return nullptr;
  }

  void build(Entry& e);
  std::vector<Tensor> run(const Entry& e, const std::vector<Tensor>& args) const;
};

void CompiledCore::State::build(Entry& e) {
  DeviceRecord& dev = *e.graph.device;
  const CodegenTarget& t = codegen_target(dev);
  FusionLimits lim;
  lim.f64 = t.available && t.emit.f64;
  e.sched = schedule(e.graph, lim);
  e.target = &t;
  const size_t nv = e.graph.values.size();
  e.last_use.assign(nv, -1);
  e.is_output.assign(nv, false);
  e.whole_output.assign(nv, -1);
  for (size_t i = 0; i < e.graph.outputs.size(); ++i) {
    const View& o = e.graph.outputs[i];
    e.is_output[static_cast<size_t>(o.value)] = true;
    const Value& val = e.graph.values[static_cast<size_t>(o.value)];
    bool contiguous = o.offset == 0 && o.numel() == val.numel;
    for (int d = o.ndim - 1, expect = 1; d >= 0 && contiguous; --d) {
      contiguous = o.strides[d] == expect;
      expect *= static_cast<int>(o.sizes[d]);
    }
    if (val.kind != ValueKind::input && contiguous && e.whole_output[static_cast<size_t>(o.value)] < 0)
      e.whole_output[static_cast<size_t>(o.value)] = static_cast<int>(i);
  }
  for (size_t i = 0; i < e.graph.nodes.size(); ++i) {
    const int st = e.sched.step_of[i];
    if (st < 0) continue;
    for (const View& v : e.graph.nodes[i].inputs)
      if (v.value >= 0) e.last_use[static_cast<size_t>(v.value)] = std::max(e.last_use[static_cast<size_t>(v.value)], st);
    for (const View& v : e.graph.nodes[i].outputs)
      if (v.value >= 0) e.last_use[static_cast<size_t>(v.value)] = std::max(e.last_use[static_cast<size_t>(v.value)], st);
  }
  e.fused_of_step.assign(e.sched.steps.size(), -1);
  if (e.sched.kernels == 0) return;  // nothing to generate: the dispatch table runs it all
  if (!t.available) {
    e.eager = true;
    e.reason = t.reason;
    return;
  }
  std::vector<int64_t> align(nv, 1);
  for (size_t v = 0; v < nv; ++v) {
    const Value& val = e.graph.values[v];
    const size_t isz = itemsize(val.dtype);
    align[v] = val.kind == ValueKind::input ? pow2_dividing(e.sig[static_cast<size_t>(val.input)].align, isz)
                                            : pow2_dividing(0, isz);
  }
  const EmittedProgram p = emit(e.graph, e.sched, t.emit, align);
  const std::string source = t.prelude + "\n// ---- generated by xdispatch (core/compiler) ----\n" + p.source;
  const bool cl = t.language == XD_CODEGEN_OPENCL_C;
  if (log_enabled(LogLevel::debug)) log(LogLevel::debug, "xd::compile: generated for " + dev.device.str() + ":\n" + p.source);
  if (!options.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.dump_dir, ec);
    char name[64];
    std::snprintf(name, sizeof name, "xd_graph_%016llx.%s", static_cast<unsigned long long>(fnv1a(source)), cl ? "cl" : "cpp");
    std::ofstream(std::filesystem::path(options.dump_dir) / name) << source;
  }
  const Backend& b = *dev.backend;
  xd_program program = nullptr;
  take_plugin_error();
  const xd_status s = t.api->program_build(b.api.ctx, dev.plugin_device, t.language, source.c_str(), &program);
  if (s != XD_OK) {
    const std::string msg = take_plugin_error();
    e.eager = true;
    e.reason = "generated code did not build";
    throw CompileError("xd::compile: the generated " + std::string(cl ? "OpenCL C" : "C++") + " for " + dev.device.str() +
                       " did not build (" + t.compiler + "): " + (msg.empty() ? "status " + std::to_string(s) : msg) +
                       "\nThe graph runs eagerly from now on; eager ops are unaffected.");
  }
  for (const EmittedKernel& k : p.kernels) {
    FusedRun r;
    r.emitted = k;
    const xd_status ks = t.api->kernel_get(b.api.ctx, dev.plugin_device, program, k.name.c_str(), &r.kernel);
    if (ks != XD_OK) throw PluginError("xd::compile: kernel_get(" + k.name + ") failed: " + take_plugin_error());
    e.fused_of_step[static_cast<size_t>(k.step)] = static_cast<int>(e.fused.size());
    e.fused.push_back(std::move(r));
  }
}

std::vector<Tensor> CompiledCore::State::run(const Entry& e, const std::vector<Tensor>& args) const {
  const Graph& g = e.graph;
  DeviceRecord& dev = *g.device;
  const size_t nv = g.values.size();
  std::vector<std::shared_ptr<const TensorImpl>> buf(nv);
  for (size_t v = 0; v < nv; ++v)
    if (g.values[v].kind == ValueKind::input) buf[v] = args[static_cast<size_t>(g.values[v].input)].impl_ptr();
  auto make = [&](int v) {
    if (!buf[static_cast<size_t>(v)]) {
      const Value& val = g.values[static_cast<size_t>(v)];
      const int whole = e.whole_output[static_cast<size_t>(v)];
      if (whole >= 0) {
        const View& o = g.outputs[static_cast<size_t>(whole)];
        buf[static_cast<size_t>(v)] = allocate_tensor(dev, IntList(o.sizes, static_cast<size_t>(o.ndim)), val.dtype);
      } else {
        buf[static_cast<size_t>(v)] = allocate_tensor(dev, {val.numel}, val.dtype);
      }
    }
  };
  auto view = [&](const View& w) {
    const auto& base = buf[static_cast<size_t>(w.value)];
    return make_view(base, w.ndim, w.sizes, w.strides, base->storage_offset + w.offset,
                     g.values[static_cast<size_t>(w.value)].dtype);
  };
  const bool poison = poisoning_outputs();
  for (size_t st = 0; st < e.sched.steps.size(); ++st) {
    const Step& step = e.sched.steps[st];
    if (!step.fused) {
      const Node& n = g.nodes[static_cast<size_t>(step.node)];
      std::vector<std::shared_ptr<TensorImpl>> keep;
      std::vector<Arg> in, out;
      for (const View& w : n.inputs) {
        if (w.value < 0) { in.push_back(arg_absent()); continue; }
        keep.push_back(view(w));
        Arg a = arg(*keep.back());
        in.push_back(a);
      }
      for (const View& w : n.outputs) {
        if (w.value < 0) { out.push_back(arg_absent()); continue; }
        make(w.value);
        keep.push_back(view(w));
        out.push_back(arg(*keep.back()));
      }
      launch(n.op, n.key, dev, std::span<const Arg>(in), std::span<const Arg>(out), n.attrs_ptr());
    } else {
      const FusedRun& fr = e.fused[static_cast<size_t>(e.fused_of_step[st])];
      // Arguments on the stack for the usual few buffers (this is every small call's path).
      constexpr size_t kSmall = 16;
      const size_t nb = fr.emitted.buffers.size();
      int64_t offsets_small[kSmall];
      xd_codegen_arg cargs_small[2 * kSmall];
      std::vector<int64_t> offsets_big;
      std::vector<xd_codegen_arg> cargs_big;
      if (nb > kSmall) {
        offsets_big.resize(nb);
        cargs_big.resize(2 * nb);
      }
      int64_t* offsets = nb > kSmall ? offsets_big.data() : offsets_small;
      xd_codegen_arg* cargs = nb > kSmall ? cargs_big.data() : cargs_small;
      StreamState& stream = current_stream_state(dev);
      for (size_t i = 0; i < fr.emitted.buffers.size(); ++i) {
        const int v = fr.emitted.buffers[i];
        if (!buf[static_cast<size_t>(v)]) {
          make(v);
          if (poison) {
            const Arg a = arg(*buf[static_cast<size_t>(v)]);
            poison_outputs(dev, stream, std::span<const Arg>(&a, 1));
          }
        }
        const TensorImpl& t = *buf[static_cast<size_t>(v)];
        offsets[i] = static_cast<int64_t>(t.byte_offset() / itemsize(t.dtype));
        cargs[2 * i] = xd_codegen_arg{XD_CODEGEN_ARG_BUFFER, 0, t.storage->handle};
        cargs[2 * i + 1] = xd_codegen_arg{XD_CODEGEN_ARG_VALUE, sizeof(int64_t), &offsets[i]};
      }
      xd_codegen_grid grid{};
      grid.dims = 1;
      grid.global[0] = fr.emitted.global;
      grid.local[0] = fr.emitted.local;
      grid.global[1] = grid.global[2] = grid.local[1] = grid.local[2] = 1;
      const Backend& b = *dev.backend;
      if (grid.global[0] > 0) {
        const xd_status s = e.target->api->kernel_launch(b.api.ctx, dev.plugin_device, stream.handle, fr.kernel,
                                                         cargs, static_cast<int32_t>(2 * nb), &grid);
        if (s != XD_OK) {
          const std::string msg = take_plugin_error();
          const std::string text = "xd::compile: launching " + fr.emitted.name + " on " + dev.device.str() +
                                   " failed: " + (msg.empty() ? "status " + std::to_string(s) : msg);
          if (s == XD_ERR_OUT_OF_MEMORY) throw OutOfMemoryError(text);
          throw PluginError(text);
        }
      }
    }
    // Buffers read for the last time go back to the allocator (and serve the next steps).
    for (size_t v = 0; v < nv; ++v)
      if (e.last_use[v] == static_cast<int>(st) && !e.is_output[v] && g.values[v].kind != ValueKind::input) buf[v].reset();
  }
  std::vector<Tensor> out;
  out.reserve(g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const View& w = g.outputs[i];
    make(w.value);  // a returned constant that no step stored: cannot happen (FILL steps), kept safe
    if (e.whole_output[static_cast<size_t>(w.value)] == static_cast<int>(i)) {
      out.emplace_back(std::const_pointer_cast<TensorImpl>(buf[static_cast<size_t>(w.value)]));
    } else {
      out.emplace_back(view(w));
    }
  }
  return out;
}

CompiledCore::CompiledCore(Fn fn, CompileOptions options) : state_(std::make_unique<State>()) {
  if (options.max_graphs < 1) throw ValueError("xd::compile: CompileOptions::max_graphs must be at least 1, got " + std::to_string(options.max_graphs));
  state_->fn = std::move(fn);
  state_->options = std::move(options);
}

CompiledCore::~CompiledCore() = default;

CompileStats CompiledCore::stats() const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

std::vector<Tensor> CompiledCore::call(const std::vector<Tensor>& inputs) {
  State& st = *state_;
  // Inside another function's trace: run the ops so that the outer trace records them.
  if (active_tracer() != nullptr) return st.fn(inputs);
  std::shared_ptr<Entry> e;
  {
    std::unique_lock<std::mutex> lock(st.mutex);
    e = st.find(inputs);
    if (!e) {
      std::vector<ArgSignature> sig(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) sig[i] = signature_of(inputs, i);
      if (static_cast<int>(st.entries.size()) >= st.options.max_graphs) {
        const Entry& last = *st.entries.back();
        std::string why;
        for (size_t i = 0; i < sig.size() && why.empty(); ++i) why = guard_failure(last.sig[i], sig[i], i);
        throw ValueError("xd::compile: no traced graph fits this call (" + why + ") and " +
                         std::to_string(st.options.max_graphs) +
                         " graphs are traced already; raise CompileOptions::max_graphs or keep the inputs' "
                         "shapes, dtypes, strides and devices fixed");
      }
      auto fresh = std::make_shared<Entry>();
      fresh->sig = sig;
      Tracer tracer(inputs);
      std::vector<Tensor> results;
      {
        TraceScope scope(&tracer);
        results = st.fn(inputs);  // an exception here is the eager one: nothing is cached
      }
      ++st.stats.traces;
      fresh->graph = tracer.finish(results);
      if (tracer.failed()) {
        fresh->eager = true;
        fresh->reason = "not capturable: " + tracer.reason();
      } else if (fresh->graph.device == nullptr) {
        fresh->eager = true;
        fresh->reason = "not capturable: it uses no device";
      }
      st.entries.push_back(fresh);
      if (!fresh->eager) {
        st.build(*fresh);  // CompileError propagates; the entry stays, marked eager
        st.stats.kernels += fresh->sched.kernels;
        st.stats.eager_nodes += fresh->sched.eager_nodes;
      }
      if (fresh->eager) {
        st.stats.eager_reason = fresh->reason;
        log_once(LogLevel::info, "xd::compile:" + fresh->reason, "xd::compile: a function runs eagerly: " + fresh->reason);
      }
      return results;
    }
    if (e->eager) {
      ++st.stats.eager_calls;
      st.stats.eager_reason = e->reason;
    } else {
      ++st.stats.graph_calls;
    }
  }
  if (e->eager) return st.fn(inputs);
  NoTraceScope quiet;
  return st.run(*e, inputs);
}

}  // namespace xd::detail
