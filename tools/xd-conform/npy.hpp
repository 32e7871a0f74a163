// NumPy .npy files (format 1.0-3.0, little-endian, C order): the golden data format and
// --replay --dump output. Raw bits only: bf16 travels as uint16 and fp8 as uint8, so the
// caller names the real dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xd::conform {

struct NpyArray {
  std::string descr;  // e.g. "<f4", "|u1"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  size_t itemsize() const;  // the digits of `descr` (0 when it has none)
};

// The largest .npy file read_npy reads (1 GiB): golden tensors are far smaller, and the bound
// keeps a huge or sparse file from exhausting memory.
constexpr uint64_t kMaxNpyBytes = uint64_t{1} << 30;

// Throws std::runtime_error naming the file and what is wrong (not a regular file, bad magic,
// malformed header, bad 'descr' or 'shape', Fortran order, big-endian data, a payload whose size
// is not the shape's element count times the itemsize). Only a regular file is opened (a FIFO
// does not block), and the payload is read only once its size matches the header's.
NpyArray read_npy(const std::string& path);
// The same checks on a whole file already in memory; `name` is the file name errors carry.
NpyArray parse_npy(const std::string& name, const std::string& bytes);
void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const std::vector<uint8_t>& data);

}  // namespace xd::conform
