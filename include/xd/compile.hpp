// The compiler half: a C++ function of tensors, captured by running it once through the public ops
// and compiled into fused kernels for the backend its inputs live on (docs/compiler.md).
//
//   auto f = xd::compile([](xd::Tensor x, xd::Tensor y) { return xd::exp(xd::tanh(xd::mul(x, y))); });
//   xd::Tensor z = f(x, y);  // first call: traced (and run eagerly); later calls: the fused kernel
//
// Capture records the launches the public ops make (their schemas' meta functions computed the
// shapes, dtypes and devices), so there is no second API: the function is written once, with the
// ops of ops.hpp. A compiled graph is specialised on what the trace saw of each input — device,
// dtype, rank, sizes, strides, storage offset modulo 16 bytes — and kept in a cache per compiled
// function; a call whose inputs differ from every cached one traces again (up to
// CompileOptions::max_graphs, then a ValueError naming the input and the guard that differs).
//
// What fuses: chains of pointwise and broadcasting ops, with at most one row reduction over their
// output (sum, mean, amax, amin over trailing dims, softmax and log_softmax over the last dim,
// rms_norm) and the pointwise ops that follow it. Everything else (the matmul family, sparse and
// quantised ops, reductions over other dims) runs through the dispatch table between fused
// kernels. A function that cannot be captured — it reads a tensor's values on the host, takes a
// tensor it did not receive as an argument (capture it by passing it), writes into an existing
// tensor, draws random numbers, or uses several devices — runs eagerly on every call (the reason
// is logged once at XD_LOG=info and in stats()). A backend that cannot build generated code (no
// XD_CODEGEN language, no compiler on the machine) runs eagerly too: compiling never fails a call
// that eager execution would not.
//
// Thread safety: one Compiled object may be called from several threads; graphs are traced and
// built under its lock, run without it. Errors: whatever the eager ops raise (typed xd::Error);
// a generated source that does not build is logged with the compiler's log and the source's path,
// and that graph runs eagerly.
#pragma once

#include <xd/tensor.hpp>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace xd {

struct CompileOptions {
  // Distinct input signatures a function is traced for before a call with yet another one is an
  // error (ValueError naming the guard that failed) instead of a new trace.
  int max_graphs = 8;
  // When set, every generated source is also written into this folder (besides XD_LOG=debug).
  std::string dump_dir;
};

struct CompileStats {
  int traces = 0;         // calls that traced the function
  int graph_calls = 0;    // calls that ran a compiled graph
  int eager_calls = 0;    // calls that ran the function eagerly (not capturable, or no codegen)
  int kernels = 0;        // fused kernels in the graphs built so far
  int eager_nodes = 0;    // ops the graphs run through the dispatch table
  std::string eager_reason;  // why the last eager call was eager; empty otherwise
};

namespace detail {
// The type-erased core of a compiled function: the graph cache, guards, tracing and execution.
class CompiledCore {
 public:
  using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  CompiledCore(Fn fn, CompileOptions options);
  ~CompiledCore();
  CompiledCore(const CompiledCore&) = delete;
  CompiledCore& operator=(const CompiledCore&) = delete;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs);
  CompileStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

template <class R>
struct result_traits;
template <>
struct result_traits<Tensor> {
  static std::vector<Tensor> flatten(Tensor t) { return {std::move(t)}; }
  static Tensor rebuild(std::vector<Tensor>& v) { return std::move(v.at(0)); }
};
template <>
struct result_traits<std::vector<Tensor>> {
  static std::vector<Tensor> flatten(std::vector<Tensor> v) { return v; }
  static std::vector<Tensor> rebuild(std::vector<Tensor>& v) { return std::move(v); }
};
template <class... Ts>
struct result_traits<std::tuple<Ts...>> {
  static std::vector<Tensor> flatten(std::tuple<Ts...> t) {
    return std::apply([](auto&&... x) { return std::vector<Tensor>{std::move(x)...}; }, std::move(t));
  }
  static std::tuple<Ts...> rebuild(std::vector<Tensor>& v) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::tuple<Ts...>{std::move(v.at(I))...};
    }(std::index_sequence_for<Ts...>{});
  }
};
template <class A, class B>
struct result_traits<std::pair<A, B>> {
  static std::vector<Tensor> flatten(std::pair<A, B> p) { return {std::move(p.first), std::move(p.second)}; }
  static std::pair<A, B> rebuild(std::vector<Tensor>& v) { return {std::move(v.at(0)), std::move(v.at(1))}; }
};
}  // namespace detail

// A compiled function of tensors; F takes tensors (by value or const reference) and returns a
// Tensor, a std::vector<Tensor>, a std::pair or a std::tuple of Tensors.
template <class F>
class Compiled {
 public:
  Compiled(F f, CompileOptions options)
      : core_(std::make_shared<detail::CompiledCore>(
            [f = std::move(f)](const std::vector<Tensor>& in) mutable { return call_with(f, in); },
            std::move(options))) {}

  template <class... Args>
  auto operator()(Args&&... args) {
    using R = std::invoke_result_t<F&, Args...>;
    std::vector<Tensor> out = core_->call(std::vector<Tensor>{Tensor(std::forward<Args>(args))...});
    return detail::result_traits<std::decay_t<R>>::rebuild(out);
  }
  CompileStats stats() const { return core_->stats(); }

 private:
  static std::vector<Tensor> call_with(F& f, const std::vector<Tensor>& in) {
    return invoke_n(f, in, std::make_index_sequence<arity(static_cast<F*>(nullptr))>{});
  }
  template <size_t... I>
  static std::vector<Tensor> invoke_n(F& f, const std::vector<Tensor>& in, std::index_sequence<I...>) {
    using R = decltype(f(in.at(I)...));
    return detail::result_traits<std::decay_t<R>>::flatten(f(in.at(I)...));
  }
  // The number of tensors F takes: the arity of its call operator (or of the function).
  template <class G>
  static constexpr size_t arity(G*) {
    return arity_of(&G::operator());
  }
  template <class R, class... A>
  static constexpr size_t arity(R (**)(A...)) {
    return sizeof...(A);
  }
  template <class C, class R, class... A>
  static constexpr size_t arity_of(R (C::*)(A...) const) {
    return sizeof...(A);
  }
  template <class C, class R, class... A>
  static constexpr size_t arity_of(R (C::*)(A...)) {
    return sizeof...(A);
  }

  std::shared_ptr<detail::CompiledCore> core_;
};

template <class F>
Compiled<F> compile(F f, CompileOptions options = {}) {
  return Compiled<F>(std::move(f), std::move(options));
}

}  // namespace xd
