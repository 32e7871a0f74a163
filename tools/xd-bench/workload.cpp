#include "workload.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace xd::bench {

namespace {

const std::vector<int64_t> k_tensor = {4096, 4096};  // 64 MiB of f32
const std::vector<int64_t> k_gemm = {2048, 2048, 2048};
const std::vector<int64_t> k_bgemm = {16, 512, 512, 512};
// The decode case: one token through a 16384 x 16384 layer, 128 MiB of packed weights.
const std::vector<int64_t> k_int4 = {1, 16384, 16384};
// LLaMA-7B's MLP (hidden 4096, intermediate 11008) over 512 tokens: TxHxI.
const std::vector<int64_t> k_mlp = {512, 4096, 11008};
constexpr int64_t kInt4Group = 128;

}  // namespace

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> all = [] {
    std::vector<WorkloadInfo> w;
    w.push_back({"copy", "copy", Kind::copy, k_tensor});
    for (const char* op : {"fill", "arange", "rand", "randn"}) w.push_back({op, op, Kind::creation, k_tensor});
    for (const char* op :
         {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "relu", "gelu", "silu", "sigmoid", "tanh", "pow"})
      w.push_back({op, op, Kind::unary, k_tensor});
    for (const char* op : {"add", "sub", "mul", "div", "eq", "lt", "gt"}) w.push_back({op, op, Kind::binary, k_tensor});
    w.push_back({"add_broadcast", "add", Kind::broadcast, k_tensor});
    w.push_back({"where", "where", Kind::where, k_tensor});
    for (const char* op : {"sum", "mean", "amax", "amin", "argmax"}) w.push_back({op, op, Kind::reduction, k_tensor});
    for (const char* op : {"softmax", "log_softmax"}) w.push_back({op, op, Kind::softmax, k_tensor});
    w.push_back({"rms_norm", "rms_norm", Kind::norm, k_tensor});
    w.push_back({"rms_norm_backward", "rms_norm_backward", Kind::norm_backward, k_tensor});
    w.push_back({"layer_norm", "layer_norm", Kind::layer_norm, k_tensor});
    for (const char* op : {"mm", "addmm"}) w.push_back({op, op, Kind::matmul, k_gemm});
    // Keyed on i8 and on a's fp8 format: run with --dtype i8 / --dtype f8e4m3fn (or f8e5m2).
    for (const char* op : {"int_mm", "scaled_mm"}) w.push_back({op, op, Kind::matmul, k_gemm});
    // scaled_mm with use_fast_accum (PyTorch's flag): Hopper's wgmma where the device has it.
    w.push_back({"scaled_mm_fast_accum", "scaled_mm", Kind::matmul, k_gemm});
    for (const char* op : {"bmm", "baddbmm"}) w.push_back({op, op, Kind::batched, k_bgemm});
    w.push_back({"weight_int4_mm", "weight_int4_mm", Kind::int4_mm, k_int4});
    // The issue-6 target: 8192x8192 CSR at 1% and 5% times a dense 8192x256 (MxNxK).
    w.push_back({"sparse_mm_1pct", "csr_addmm", Kind::sparse, {8192, 256, 8192}, 0.01});
    w.push_back({"sparse_mm_5pct", "csr_addmm", Kind::sparse, {8192, 256, 8192}, 0.05});
    // xd::compile's fused chains (issue 16), each eager and compiled; `op` names the op whose
    // kernels decide which dtypes run.
    w.push_back({"chain6", "gelu", Kind::fused, k_tensor});
    w.push_back({"silu_mul_add", "silu", Kind::fused, k_tensor});
    w.push_back({"silu_rms_norm", "rms_norm", Kind::fused, k_tensor});
    w.push_back({"llama_mlp", "mm", Kind::fused_mlp, k_mlp});
    // The model ops (issue 21): LLaMA-7B's causal attention at 2048 tokens, ResNet-50's 3x3 conv
    // of its third stage.
    w.push_back({"attention", "scaled_dot_product_attention", Kind::attention, {4, 32, 2048, 128}});
    w.push_back({"conv2d", "conv2d", Kind::conv, {32, 256, 14, 14, 256, 3, 1}});
    return w;
  }();
  return all;
}

const WorkloadInfo* find_workload(const std::string& name) {
  for (const auto& w : workloads())
    if (w.name == name) return &w;
  return nullptr;
}

bool has_kernel(const std::string& op, const std::string& backend, Dtype dtype) {
  for (const auto& k : kernels())
    if (k.op == op && k.backend == backend && k.dtype == dtype) return true;
  return false;
}

std::vector<int64_t> parse_size(const std::string& text, Kind kind) {
  std::vector<int64_t> dims;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int64_t v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || v < 0) throw ValueError("--size '" + text + "': expected dims like 4096x4096");
    dims.push_back(v);
    p = next;
    if (p < end) {
      if (*p != 'x') throw ValueError("--size '" + text + "': expected dims like 4096x4096");
      ++p;
      if (p == end) throw ValueError("--size '" + text + "': ends with 'x'");
    }
  }
  if (dims.empty()) throw ValueError("--size is empty");
  // The element count (and for matmuls the flop count) is the product: one that overflows int64 is
  // no measurement, and would wrap into a small or negative size further on.
  int64_t product = 1;
  for (const int64_t d : dims)
    if (__builtin_mul_overflow(product, d, &product))
      throw ValueError("--size '" + text + "': the sizes' product overflows 64 bits");
  if (kind == Kind::matmul || kind == Kind::sparse) {
    if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
    if (dims.size() != 3) throw ValueError("--size '" + text + "': matmul takes MxNxK (or one number for a cube)");
  } else if (kind == Kind::int4_mm) {
    if (dims.size() != 3 || dims[1] % kInt4Group != 0)
      throw ValueError("--size '" + text + "': weight_int4_mm takes MxKxN with K a multiple of " +
                       std::to_string(kInt4Group));
  } else if (kind == Kind::batched) {
    if (dims.size() != 4) throw ValueError("--size '" + text + "': batched matmul takes BxMxNxK");
  } else if (kind == Kind::attention) {
    if (dims.size() != 4)
      throw ValueError("--size '" + text + "': attention takes BxHxSxD (batch, heads, seq, head dim)");
  } else if (kind == Kind::conv) {
    if (dims.size() != 7 || dims[5] < 1 || dims[6] < 1)
      throw ValueError("--size '" + text +
                       "': conv2d takes NxCxHxWxOxKxS (batch, channels, height, width, out channels, kernel, stride)");
  } else if (kind == Kind::fused_mlp) {
    if (dims.size() != 3)
      throw ValueError("--size '" + text + "': llama_mlp takes TxHxI (tokens x hidden x intermediate)");
  }
  return dims;
}

std::string format_size(const std::vector<int64_t>& size) {
  std::string s;
  for (size_t i = 0; i < size.size(); ++i) s += (i ? "x" : "") + std::to_string(size[i]);
  return s;
}

namespace {

double bytes_per(Dtype d) { return static_cast<double>(xd::itemsize(d)); }

int64_t count(const std::vector<int64_t>& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

// Values in [lo, lo + span) (floats) or small non-negative integers, made on the device.
Tensor values(const std::vector<int64_t>& size, Dtype dtype, Device device, double lo = 0.0, double span = 1.0) {
  Tensor u = rand(size, Dtype::f32, device);
  if (dtype == Dtype::boolean) return lt(u, full({1}, 0.5, Dtype::f32, device));
  if (!is_floating(dtype)) span = 100.0;
  u = add(mul(u, full({1}, span, Dtype::f32, device)), full({1}, lo, Dtype::f32, device));
  return u.to(dtype);
}

void need_rank(const WorkloadInfo& w, const std::vector<int64_t>& size) {
  if (size.empty()) throw ValueError(w.name + " needs a size of rank >= 1");
}

}  // namespace

Prepared prepare(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device) {
  Prepared p;
  const double s = bytes_per(dtype);
  switch (w.kind) {
    case Kind::copy: {
      need_rank(w, size);
      Tensor src = values(size, dtype, device);
      Tensor dst = empty(size, dtype, device);
      p.run = [src, dst]() mutable { dst.copy_(src); };
      p.bytes = 2.0 * static_cast<double>(count(size)) * s;
      return p;
    }
    case Kind::creation: {
      need_rank(w, size);
      const int64_t n = count(size);
      const std::string op = w.op;
      p.run = [op, size, dtype, device, n] {
        if (op == "fill")
          (void)full(size, 1.5, dtype, device);
        else if (op == "arange")
          (void)arange(0.0, static_cast<double>(n), 1.0, dtype, device);
        else if (op == "rand")
          (void)rand(size, dtype, device);
        else
          (void)randn(size, dtype, device);
      };
      p.bytes = static_cast<double>(n) * s;
      return p;
    }
    case Kind::unary: {
      need_rank(w, size);
      // log/sqrt/rsqrt see positive values, so the timing is of the ordinary path.
      Tensor a = values(size, dtype, device, 0.5, 1.0);
      const std::string op = w.op;
      using Fn = Tensor (*)(const Tensor&);
      Fn fn = op == "neg"       ? static_cast<Fn>(neg)
              : op == "abs"     ? static_cast<Fn>(abs)
              : op == "exp"     ? static_cast<Fn>(exp)
              : op == "log"     ? static_cast<Fn>(log)
              : op == "sqrt"    ? static_cast<Fn>(sqrt)
              : op == "rsqrt"   ? static_cast<Fn>(rsqrt)
              : op == "relu"    ? static_cast<Fn>(relu)
              : op == "silu"    ? static_cast<Fn>(silu)
              : op == "sigmoid" ? static_cast<Fn>(sigmoid)
              : op == "tanh"    ? static_cast<Fn>(tanh)
                                : nullptr;
      if (op == "gelu")
        p.run = [a] { (void)gelu(a); };
      else if (op == "pow")
        p.run = [a] { (void)pow(a, 2.5); };
      else
        p.run = [a, fn] { (void)fn(a); };
      p.bytes = 2.0 * static_cast<double>(count(size)) * s;
      return p;
    }
    case Kind::binary:
    case Kind::broadcast: {
      need_rank(w, size);
      Tensor a = values(size, dtype, device, 0.5, 1.0);
      const std::vector<int64_t> bsize = w.kind == Kind::broadcast ? std::vector<int64_t>{size.back()} : size;
      Tensor b = values(bsize, dtype, device, 0.5, 1.0);
      using Fn = Tensor (*)(const Tensor&, const Tensor&);
      const std::string op = w.op;
      Fn fn = op == "mul"   ? static_cast<Fn>(mul)
              : op == "div" ? static_cast<Fn>(div)
              : op == "eq"  ? static_cast<Fn>(eq)
              : op == "lt"  ? static_cast<Fn>(lt)
              : op == "gt"  ? static_cast<Fn>(gt)
                            : nullptr;
      if (op == "add")
        p.run = [a, b] { (void)add(a, b); };
      else if (op == "sub")
        p.run = [a, b] { (void)sub(a, b); };
      else
        p.run = [a, b, fn] { (void)fn(a, b); };
      const bool compare = op == "eq" || op == "lt" || op == "gt";
      const double n = static_cast<double>(count(size));
      p.bytes = n * s + static_cast<double>(count(bsize)) * s + n * (compare ? 1.0 : s);
      return p;
    }
    case Kind::where: {
      need_rank(w, size);
      Tensor c = values(size, Dtype::boolean, device);
      Tensor a = values(size, dtype, device), b = values(size, dtype, device);
      p.run = [c, a, b] { (void)where(c, a, b); };
      const double n = static_cast<double>(count(size));
      p.bytes = n * (1.0 + 3.0 * s);
      return p;
    }
    case Kind::reduction: {
      need_rank(w, size);
      Tensor a = values(size, dtype, device);
      const int64_t last = static_cast<int64_t>(size.size()) - 1;
      const std::string op = w.op;
      Dtype out_dtype = dtype;
      if (op == "argmax")
        out_dtype = Dtype::i64;
      else if (op == "sum" && !is_floating(dtype))
        out_dtype = Dtype::i64;
      if (op == "sum")
        p.run = [a, last] { (void)sum(a, {last}); };
      else if (op == "mean")
        p.run = [a, last] { (void)mean(a, {last}); };
      else if (op == "amax")
        p.run = [a, last] { (void)amax(a, {last}); };
      else if (op == "amin")
        p.run = [a, last] { (void)amin(a, {last}); };
      else
        p.run = [a, last] { (void)argmax(a, last); };
      const double n = static_cast<double>(count(size));
      p.bytes = n * s + n / static_cast<double>(std::max<int64_t>(size.back(), 1)) * bytes_per(out_dtype);
      return p;
    }
    case Kind::softmax: {
      need_rank(w, size);
      Tensor a = values(size, dtype, device);
      const int64_t last = static_cast<int64_t>(size.size()) - 1;
      if (w.op == "softmax")
        p.run = [a, last] { (void)softmax(a, last); };
      else
        p.run = [a, last] { (void)log_softmax(a, last); };
      p.bytes = 2.0 * static_cast<double>(count(size)) * s;
      return p;
    }
    case Kind::norm:
    case Kind::norm_backward: {
      need_rank(w, size);
      Tensor x = values(size, dtype, device);
      Tensor weight = values({size.back()}, dtype, device, 0.5, 1.0);
      const double n = static_cast<double>(count(size));
      const double rows = n / static_cast<double>(std::max<int64_t>(size.back(), 1));
      const double rstd_size = dtype == Dtype::f64 ? 8.0 : 4.0;
      const double wbytes = static_cast<double>(size.back()) * s;
      if (w.kind == Kind::norm) {
        p.run = [x, weight, last = size.back()] { (void)rms_norm(x, {last}, weight); };
        p.bytes = 2.0 * n * s + wbytes + rows * rstd_size;  // x, weight in; y, rstd out
      } else {
        auto [y, rstd] = rms_norm(x, {size.back()}, weight);
        Tensor g = values(size, dtype, device);
        p.run = [g, x, rstd = rstd, weight, last = size.back()] {
          (void)rms_norm_backward(g, x, {last}, rstd, weight);
        };
        p.bytes = 3.0 * n * s + 2.0 * wbytes + rows * rstd_size;  // g, x, rstd, weight in; dx, dw out
      }
      return p;
    }
    case Kind::layer_norm: {
      need_rank(w, size);
      Tensor x = values(size, dtype, device);
      Tensor weight = values({size.back()}, dtype, device, 0.5, 1.0);
      Tensor bias = values({size.back()}, dtype, device, -0.5, 1.0);
      const double n = static_cast<double>(count(size));
      const double rows = n / static_cast<double>(std::max<int64_t>(size.back(), 1));
      const double stat_size = dtype == Dtype::f64 ? 8.0 : 4.0;
      p.run = [x, weight, bias, last = size.back()] { (void)layer_norm(x, {last}, weight, bias); };
      // x, weight, bias in; y, mean, rstd out
      p.bytes = 2.0 * n * s + 2.0 * static_cast<double>(size.back()) * s + 2.0 * rows * stat_size;
      return p;
    }
    case Kind::matmul: {
      const int64_t m = size[0], n = size[1], k = size[2];
      Tensor a = values({m, k}, dtype, device), b = values({k, n}, dtype, device);
      const double mnk2 = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
      if (w.op == "int_mm") {  // i8 operands, i32 out; mat2 stored n x k (w.t()), as PyTorch's row has it
        Tensor bt = values({n, k}, dtype, device).t();
        p.run = [a, bt] { (void)int_mm(a, bt); };
        p.flops = mnk2;
        p.bytes = static_cast<double>(m * k + k * n) * s + static_cast<double>(m * n) * 4.0;
        return p;
      }
      if (w.op == "scaled_mm") {  // fp8 operands, tensor-wise f32 scales, bf16 out (torch's default);
        // mat2 stored n x k, as PyTorch's row has it
        Tensor sa = full({}, 0.5, Dtype::f32, device), sb = full({}, 2.0, Dtype::f32, device);
        Tensor bt = values({n, k}, dtype, device).t();
        const bool fast = w.name == "scaled_mm_fast_accum";
        p.run = [a, bt, sa, sb, fast] { (void)scaled_mm(a, bt, sa, sb, std::nullopt, Dtype::bf16, fast); };
        p.flops = mnk2;
        p.bytes = static_cast<double>(m * k + k * n) * s + static_cast<double>(m * n) * 2.0;
        return p;
      }
      if (w.op == "mm") {
        p.run = [a, b] { (void)mm(a, b); };
        p.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
      } else {
        Tensor c = values({m, n}, dtype, device);
        p.run = [c, a, b] { (void)addmm(c, a, b, 0.5, 2.0); };
        p.flops = (2.0 * static_cast<double>(k) + 1.0) * static_cast<double>(m) * static_cast<double>(n);
      }
      p.bytes = static_cast<double>(m * k + k * n + (w.op == "mm" ? 1 : 2) * m * n) * s;
      return p;
    }
    case Kind::batched: {
      const int64_t bt = size[0], m = size[1], n = size[2], k = size[3];
      Tensor a = values({bt, m, k}, dtype, device), b = values({bt, k, n}, dtype, device);
      const double mn = static_cast<double>(bt) * static_cast<double>(m) * static_cast<double>(n);
      if (w.op == "bmm") {
        p.run = [a, b] { (void)bmm(a, b); };
        p.flops = 2.0 * mn * static_cast<double>(k);
      } else {
        Tensor c = values({bt, m, n}, dtype, device);
        p.run = [c, a, b] { (void)baddbmm(c, a, b, 0.5, 2.0); };
        p.flops = (2.0 * static_cast<double>(k) + 1.0) * mn;
      }
      p.bytes = (static_cast<double>(bt * (m * k + k * n)) + (w.op == "bmm" ? 1.0 : 2.0) * mn) * s;
      return p;
    }
    case Kind::int4_mm: {
      // Bytes moved: packed weights, scales and zero points once, the input, the output.
      const int64_t m = size[0], k = size[1], n = size[2];
      const int64_t groups = k / kInt4Group;
      Tensor x = values({m, k}, dtype, device, -1.0, 2.0);
      Tensor wq = values({n, k / 2}, Dtype::u8, device);  // any bytes are valid codes
      Tensor sc = values({groups, n}, dtype, device, 0.01, 0.02);
      Tensor zp = values({groups, n}, Dtype::f32, device, 0.0, 15.0).to(Dtype::i8);
      p.run = [x, wq, sc, zp] { (void)weight_int4_mm(x, wq, sc, zp, kInt4Group); };
      p.bytes = static_cast<double>(n * (k / 2)) + static_cast<double>(groups * n) * (s + 1.0) +
                static_cast<double>(m * k + m * n) * s;
      p.flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
      return p;
    }
    case Kind::sparse:
      return prepare_sparse(w, dtype, size, device);
    case Kind::attention:
    case Kind::conv:
      return prepare_model_op(w, dtype, size, device);
    case Kind::fused:
    case Kind::fused_mlp:
      return prepare_fused(w, dtype, size, device, false);
  }
  throw ValueError("unknown workload " + w.name);
}

}  // namespace xd::bench
