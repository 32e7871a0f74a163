// Reading a file that anyone may have replaced, defensively: the core's plugin check, the
// plugins' on-disk caches and the tools' input files all use this one helper. A FIFO in a file's
// place would block open() forever; a symlink to /dev/zero or a sparse 20 GB file would exhaust
// memory; a directory would fail half-way. Only a regular file no larger than a caller's bound is
// read, with the size fstat reported known before anything is read and every read bounded by it.
// Header-only, no xdispatch dependency. Thread safety: a RegularFile is used by one thread at a
// time; distinct ones are independent. Errors: nothing throws; a failure is std::nullopt with a
// reason (`why`) meant to follow the path in a message ("PATH: is a FIFO, not a regular file").
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace xd::files {

// "a directory", "a FIFO", ...: what stands where a regular file was expected.
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// An open regular file of at most a given size. Owns its descriptor.
class RegularFile {
 public:
  // The file at `path`, or nullopt with `why`: "cannot open: <strerror>" (and `*open_errno` set,
  // so a caller can tell a missing file), "is a FIFO, not a regular file", "is N bytes, more than
  // the limit of M bytes".
  static std::optional<RegularFile> open(const std::string& path, uint64_t max_bytes, std::string& why,
                                         int* open_errno = nullptr) {
    if (open_errno != nullptr) *open_errno = 0;
    // O_NONBLOCK: opening a FIFO without a writer returns at once instead of blocking; it has no
    // effect on a regular file's reads.
    RegularFile f(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (f.fd_ < 0) {
      const int e = errno;
      if (open_errno != nullptr) *open_errno = e;
      why = std::string("cannot open: ") + std::strerror(e);
      return std::nullopt;
    }
    struct stat st {};
    if (::fstat(f.fd_, &st) != 0) {
      why = std::string("cannot stat: ") + std::strerror(errno);
      return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
      why = std::string("is ") + file_kind(st.st_mode) + ", not a regular file";
      return std::nullopt;
    }
    f.size_ = static_cast<uint64_t>(st.st_size);
    if (f.size_ > max_bytes) {
      why = "is " + std::to_string(f.size_) + " bytes, more than the limit of " + std::to_string(max_bytes) + " bytes";
      return std::nullopt;
    }
    return f;
  }

  RegularFile(RegularFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)), size_(o.size_) {}
  RegularFile& operator=(RegularFile&& o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(size_, o.size_);
    return *this;
  }
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  uint64_t size() const { return size_; }
  int fd() const { return fd_; }

  // Exactly `n` bytes at `offset`, which must lie within the size fstat reported; nullopt with
  // `why` ("is N bytes, too short to hold ...", "shrank while it was read", "cannot read: ...").
  std::optional<std::string> read(uint64_t offset, uint64_t n, std::string& why) const {
    if (offset > size_ || n > size_ - offset) {
      why = "is " + std::to_string(size_) + " bytes, too short to hold " + std::to_string(n) + " bytes at offset " +
            std::to_string(offset);
      return std::nullopt;
    }
    std::string out(static_cast<size_t>(n), '\0');
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t r = ::pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        why = std::string("cannot read: ") + std::strerror(errno);
        return std::nullopt;
      }
      if (r == 0) {
        why = "shrank while it was read";
        return std::nullopt;
      }
      got += static_cast<size_t>(r);
    }
    return out;
  }
  std::optional<std::string> read_all(std::string& why) const { return read(0, size_, why); }

 private:
  explicit RegularFile(int fd) : fd_(fd) {}
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The whole of a regular file of at most `max_bytes`, or nullopt with `why` (as above).
inline std::optional<std::string> read_regular_file(const std::string& path, uint64_t max_bytes, std::string& why,
                                                    int* open_errno = nullptr) {
  const std::optional<RegularFile> f = RegularFile::open(path, max_bytes, why, open_errno);
  return f ? f->read_all(why) : std::nullopt;
}

}  // namespace xd::files
