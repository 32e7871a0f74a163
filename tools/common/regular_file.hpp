// The tools' input files (golden manifests and .npy files), read through the shared defensive
// reader (xd/regular_file.hpp: regular files only, size known before reading, every read bounded),
// with failures as exceptions that name the path.
#pragma once

#include <xd/regular_file.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace xd::cli {

// A file that could not be used; `error` is the errno of a failed open (0 otherwise), so a caller
// can tell "missing" from the rest.
struct FileError : std::runtime_error {
  FileError(const std::string& what, int error) : std::runtime_error(what), error(error) {}
  int error;
};

// An open regular file of at most `max_bytes`. Every error is a FileError naming the path.
class RegularFile {
 public:
  RegularFile(const std::string& path, uint64_t max_bytes) : path_(path), file_(open(path, max_bytes)) {}

  uint64_t size() const { return file_.size(); }
  const std::string& path() const { return path_; }

  // Exactly `n` bytes at `offset`, which must lie within the size fstat reported.
  std::string read(uint64_t offset, uint64_t n) const {
    std::string why;
    std::optional<std::string> data = file_.read(offset, n, why);
    if (!data) throw FileError(path_ + ": " + why, 0);
    return std::move(*data);
  }
  std::string read_all() const { return read(0, size()); }

 private:
  static files::RegularFile open(const std::string& path, uint64_t max_bytes) {
    std::string why;
    int e = 0;
    std::optional<files::RegularFile> f = files::RegularFile::open(path, max_bytes, why, &e);
    if (!f) throw FileError(path + ": " + why, e);
    return std::move(*f);
  }

  std::string path_;
  files::RegularFile file_;
};

// The whole of a regular file of at most `max_bytes`; FileError naming the path otherwise.
inline std::string read_regular_file(const std::string& path, uint64_t max_bytes) {
  return RegularFile(path, max_bytes).read_all();
}

}  // namespace xd::cli
