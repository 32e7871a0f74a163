// Tensor: a strided view (sizes, strides, storage offset, dtype) of device memory held by a
// reference-counted storage. Copying a Tensor copies the reference, not the data (like PyTorch).
// View functions (view, reshape when possible, permute, transpose, slice, expand, select,
// unsqueeze, squeeze) share storage; contiguous(), to() and clone() copy when needed.
//
// Lifetime: the storage lives while any Tensor refers to it; its memory then returns to the
// device's caching allocator (pinned memory: to the pinned cache of the device it is pinned
// for), which reuses it only after the streams that used it pass.
// Thread safety: distinct Tensor objects may be used from different threads, also when they share
// storage; writing the same elements from two threads at once is a data race, as in C++.
// Errors: every function throws an xd::Error subclass (error.hpp) and never crashes on bad input.
// A Dtype value outside the enum (static_cast<Dtype>(42)) is a DtypeError wherever a dtype is
// taken; a view whose sizes multiply past int64 (expand, view, reshape) a ValueError / ShapeError.
#pragma once

#include <xd/device.hpp>
#include <xd/dtype.hpp>

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace xd {

inline constexpr int kMaxDims = 8;  // the most dims a tensor has; more is a LayoutError

// A non-owning list of int64, built from a braced list, a vector or a span. Valid only as a
// function argument (like std::span of a temporary).
class IntList {
 public:
  IntList() = default;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // by design: valid for the call, like std::span
#endif
  IntList(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntList(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  IntList(std::span<const int64_t> s) : data_(s.data()), size_(s.size()) {}      // NOLINT
  IntList(const int64_t* d, size_t n) : data_(d), size_(n) {}
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return data_[i]; }
  std::vector<int64_t> vec() const { return {data_, data_ + size_}; }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

namespace detail {
struct Storage;
struct TensorImpl;
[[noreturn]] void throw_item_numel(int64_t numel);
}  // namespace detail

class Stream;

class Tensor {
 public:
  Tensor() = default;  // undefined; every accessor but defined() throws ValueError
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  Dtype dtype() const;
  Device device() const;
  int dim() const;
  int64_t size(int64_t dim) const;  // negative dims count from the end
  int64_t stride(int64_t dim) const;
  std::span<const int64_t> sizes() const;
  std::span<const int64_t> strides() const;
  int64_t storage_offset() const;  // elements
  int64_t numel() const;
  size_t nbytes() const;  // numel * itemsize
  bool is_contiguous() const;

  // Views (share storage). Sizes may contain one -1 in view/reshape.
  Tensor view(IntList sizes) const;       // ShapeError if the strides cannot express it
  Tensor reshape(IntList sizes) const;    // a view when possible, else a contiguous copy
  Tensor permute(IntList dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;                       // 2-d transpose
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;  // clamps like Python
  Tensor select(int64_t dim, int64_t index) const;
  Tensor expand(IntList sizes) const;     // -1 keeps a size; new leading dims allowed
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze(int64_t dim) const;

  // Copies.
  Tensor contiguous() const;              // itself when already contiguous
  Tensor clone() const;
  // Itself when already there. `non_blocking` (a hint, as in PyTorch): a copy between pinned
  // host memory and the device it is pinned for is enqueued on that device's current stream and
  // this returns at once; every other copy completes before it returns. With non_blocking, a
  // device tensor copied to a host-memory device lands in pinned memory (when the source's backend
  // has it), so that the copy can be asynchronous. After an asynchronous copy, synchronize the
  // stream (or an event recorded after it) before reading the destination on the host or
  // writing the source there: the pinned memory stays allocated until the copy is done, but
  // nothing stops the host from touching it earlier.
  Tensor to(Device device, bool non_blocking = false) const;
  Tensor to(Dtype dtype) const;           // itself when already that dtype
  // src broadcast to this shape, any dtype/device; `non_blocking` as for to(Device, bool). Only
  // a copy of whole contiguous tensors of one dtype is asynchronous; one that needs a cast or a
  // scatter on the host side goes through ordinary memory and blocks.
  // Overlap, as PyTorch: copying a tensor onto itself (same memory, same layout) does nothing;
  // source and destination that are both dense and otherwise overlap (x[1:].copy_(x[:-1]),
  // y.copy_(y.t())) are a LayoutError; strided views whose memory interleaves are copied
  // through a temporary, so every element reads its value from before the copy.
  Tensor& copy_(const Tensor& src, bool non_blocking = false);

  // Pinned (page-locked) host memory, like torch.Tensor.pin_memory(). Returns a CPU tensor (same
  // device, shape and values; contiguous) whose memory is pinned for `device` — an XPU device
  // whose backend provides pinned memory (xd::pinned_memory_available) — or itself when it is
  // already pinned for that device. Without an argument: the current device when it has pinned
  // memory, else the first visible device (in backend load order) that has it.
  // A pinned tensor is an ordinary CPU tensor to every op; what differs is that copies between
  // it and `device` can be asynchronous (to(device, true), copy_(src, true)). Its memory comes
  // from a per-device cache (xd::pinned_memory_stats, xd::empty_pinned_cache) and, once the
  // last tensor using it is gone, is handed out again only after every stream that copied from
  // or to it has passed those copies. Views of a pinned tensor are pinned.
  // Errors: ValueError for an undefined tensor; DeviceError when the tensor is not in host memory
  // (e.g. on opencl:0) or `device` does not exist; NotImplementedError when `device` has no
  // pinned memory (the CPU itself, a backend whose plugin has no host_alloc), or, without an
  // argument, when no visible device has it — the message lists the devices that do;
  // OutOfMemoryError with the sizes when pinned memory runs out.
  Tensor pin_memory() const;
  Tensor pin_memory(Device device) const;
  bool is_pinned() const;  // true for tensors made by pin_memory (and their views)

  // Host access (synchronises the tensor's stream). T must be the C++ type of a Dtype
  // (dtype_of<T>); values are converted from the tensor's dtype.
  template <class T>
  std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> is bit-packed: go through bytes
      std::vector<uint8_t> bytes(static_cast<size_t>(numel()));
      copy_to_host(bytes.data(), Dtype::boolean);
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> out(static_cast<size_t>(numel()));
      copy_to_host(out.data(), dtype_of<T>());
      return out;
    }
  }
  // The elements row-major as raw bytes of the tensor's own dtype (no conversion): what a
  // kernel wrote, bit for bit, e.g. a bool byte other than 0 and 1.
  std::vector<uint8_t> to_bytes() const;
  template <class T>
  T item() const;  // the only element; ValueError unless numel() == 1
  template <class T>
  T at(IntList index) const {  // one element; IndexError when out of range
    return element(index).template item<T>();
  }

  std::string str() const;  // PyTorch-like printing with dtype and device

  // Marks the storage as in use by `stream`, so the allocator will not reuse it until the
  // stream passes the work enqueued so far (see runtime.hpp).
  void record_stream(const Stream& stream) const;

  // Internals, for the core and tools.
  const detail::TensorImpl& impl() const;
  const std::shared_ptr<detail::TensorImpl>& impl_ptr() const { return impl_; }

 private:
  void copy_to_host(void* dst, Dtype as) const;
  Tensor element(IntList index) const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

template <class T>
T Tensor::item() const {
  T out{};
  if (numel() != 1) detail::throw_item_numel(numel());
  copy_to_host(&out, dtype_of<T>());
  return out;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace xd
