// empty, zeros, ones, full, arange, rand, randn, tensor. The ops with a kernel (fill, arange,
// rand, randn) run their schema's meta function (below) first: it checks the attributes and
// gives the output's shape, dtype and device, which have no input tensor to come from.
#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/philox.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/scalar_range.hpp"
#include "ops/schema.hpp"

#include <cmath>
#include <limits>

namespace xd {

using namespace detail;

namespace detail {

namespace {

DeviceRecord& record(Device d) { return Registry::get().device(d); }

xd_attrs_scalar scalar_for(const char* op, double value, Dtype dtype) {
  xd_attrs_scalar s{};
  s.struct_size = sizeof s;
  s.real = value;
  check_scalar_fits(op, "value", value, dtype);
  s.integer = is_floating(dtype) ? 0 : scalar_to_integer(value, dtype);
  return s;
}

// A result on `device` with one output of `sizes`, validated as allocate_tensor will (rank,
// negative sizes, element count).
MetaResult created(Device device, IntList sizes, Dtype dtype) {
  MetaResult r;
  r.device = &record(device);
  r.key = dtype;
  check_rank(static_cast<int>(sizes.size()));
  int64_t strides[kMaxDims];
  (void)contiguous_strides(sizes.data(), static_cast<int>(sizes.size()), strides, "empty");
  add_output(r, sizes.data(), static_cast<int>(sizes.size()), dtype);
  return r;
}

}  // namespace

MetaResult meta_fill(const MetaArgs& m) {
  const FillAttrs& at = attrs_of<FillAttrs>(m);
  check_dtype_value(at.dtype, m.name);
  MetaResult r = created(at.device, at.sizes, at.dtype);
  r.kernel_attrs.scalar = scalar_for(m.name, at.value, at.dtype);
  r.has_kernel_attrs = true;
  return r;
}

MetaResult meta_arange(const MetaArgs& m) {
  const ArangeAttrs& at = attrs_of<ArangeAttrs>(m);
  const double start = at.start, end = at.end, step = at.step;
  check_dtype("arange", "dtype", at.dtype, kNumeric);
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step))
    throw ValueError("arange: start, end and step must be finite");
  if (step == 0) throw ValueError("arange: step must be nonzero");
  if ((end - start) / step < 0)
    throw ValueError("arange: the sign of step (" + std::to_string(step) + ") does not lead from start (" +
                     std::to_string(start) + ") to end (" + std::to_string(end) + ")");
  xd_attrs_arange a{};
  a.struct_size = sizeof a;
  a.start = start;
  a.step = step;
  if (is_integral(at.dtype)) {
    if (start != std::floor(start) || step != std::floor(step))
      throw ValueError(std::string("arange: start and step must be integers for dtype ") + dtype_name(at.dtype));
  }
  const double n = std::ceil((end - start) / step);
  if (n > 9.0e15) throw ValueError("arange: " + std::to_string(n) + " elements is too many");
  if (is_integral(at.dtype)) {
    // Every value the kernel forms (start + i * step in int64) must fit the dtype: a bound beyond
    // int64 would be undefined behaviour, one beyond i8/u8/i32 a silent wrap.
    check_scalar_fits("arange", "start", start, at.dtype);
    check_scalar_fits("arange", "step", step, Dtype::i64);
    check_scalar_fits("arange", "end", end, Dtype::i64);  // PyTorch converts end to int64 too
    if (n > 0) check_scalar_fits("arange", "last value", start + (n - 1) * step, at.dtype);
    a.int_start = static_cast<int64_t>(start);
    a.int_step = static_cast<int64_t>(step);
  }
  MetaResult r = created(at.device, {static_cast<int64_t>(n)}, at.dtype);
  r.kernel_attrs.arange = a;
  r.has_kernel_attrs = true;
  return r;
}

MetaResult meta_random(const MetaArgs& m) {
  const RandomAttrs& at = attrs_of<RandomAttrs>(m);
  check_dtype(m.name, "dtype", at.dtype, kFloat);
  MetaResult r = created(at.device, at.sizes, at.dtype);
  xd_attrs_random& k = r.kernel_attrs.random;
  k = xd_attrs_random{};
  k.struct_size = sizeof k;
  k.low = 0.0;
  k.high = 1.0;
  r.has_kernel_attrs = true;
  return r;  // seed and offset: taken from the generator at launch (the meta function is pure)
}

}  // namespace detail

Tensor empty(IntList sizes, Dtype dtype, Device device) {
  return Tensor(allocate_tensor(record(device), sizes, dtype));
}

Tensor full(IntList sizes, double value, Dtype dtype, Device device) {
  const MetaResult m = run_meta(XD_OP_FILL, "full", {}, FillAttrs{sizes, value, dtype, device});
  auto t = allocate_output(m, 0);
  if (t->numel > 0) launch(XD_OP_FILL, m.key, *m.device, {}, {arg(*t)}, m.kernel_attrs_ptr());
  return Tensor(std::move(t));
}

Tensor zeros(IntList sizes, Dtype dtype, Device device) { return full(sizes, 0.0, dtype, device); }
Tensor ones(IntList sizes, Dtype dtype, Device device) { return full(sizes, 1.0, dtype, device); }

Tensor arange(double start, double end, double step, Dtype dtype, Device device) {
  const MetaResult m = run_meta(XD_OP_ARANGE, "arange", {}, ArangeAttrs{start, end, step, dtype, device});
  auto t = allocate_output(m, 0);
  if (t->numel > 0) launch(XD_OP_ARANGE, m.key, *m.device, {}, {arg(*t)}, m.kernel_attrs_ptr());
  return Tensor(std::move(t));
}

Tensor arange(int64_t end, Dtype dtype, Device device) {
  return arange(0.0, static_cast<double>(end), 1.0, dtype, device);
}

namespace {
Tensor random(xd_op op, const char* name, IntList sizes, Dtype dtype, Device device, Generator* generator) {
  const MetaResult m = run_meta(op, name, {}, RandomAttrs{sizes, dtype, device});
  auto t = allocate_output(m, 0);
  Generator& g = generator != nullptr ? *generator : default_generator();
  const uint64_t per = philox::elements_per_block(op == XD_OP_RANDN, dtype == Dtype::f64);
  xd_attrs_random r = m.kernel_attrs.random;
  r.seed = g.seed();
  r.offset = g.reserve(philox::blocks_for(static_cast<uint64_t>(t->numel), per));
  if (t->numel > 0) launch(op, m.key, *m.device, {}, {arg(*t)}, &r);
  return Tensor(std::move(t));
}
}  // namespace

Tensor rand(IntList sizes, Dtype dtype, Device device, Generator* generator) {
  return random(XD_OP_RAND, "rand", sizes, dtype, device, generator);
}
Tensor randn(IntList sizes, Dtype dtype, Device device, Generator* generator) {
  return random(XD_OP_RANDN, "randn", sizes, dtype, device, generator);
}

}  // namespace xd
