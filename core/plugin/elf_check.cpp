#include "plugin/elf_check.hpp"

#include <xd/regular_file.hpp>

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>  // ElfW: the ELF types of this process's class
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace xd::detail {

namespace {

using Ehdr = ElfW(Ehdr);
using Phdr = ElfW(Phdr);
using Shdr = ElfW(Shdr);

constexpr unsigned char kHostClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kHostData = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;

// The e_machine a library must have to load into this process; 0 where this file does not know
// the host (then any machine passes here and dlopen judges it).
constexpr uint16_t host_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__i386__)
  return EM_386;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#elif defined(__riscv)
  return EM_RISCV;
#else
  return 0;
#endif
}

std::string machine_name(uint16_t m) {
  switch (m) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "AArch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "ARM";
    case EM_PPC64:
      return "PowerPC 64";
    case EM_S390:
      return "s390";
    case EM_RISCV:
      return "RISC-V";
    default:
      return "machine " + std::to_string(m);
  }
}

const char* segment_type(uint32_t t) {
  switch (t) {
    case PT_LOAD:
      return "PT_LOAD";
    case PT_DYNAMIC:
      return "PT_DYNAMIC";
    case PT_INTERP:
      return "PT_INTERP";
    case PT_NOTE:
      return "PT_NOTE";
    case PT_TLS:
      return "PT_TLS";
    case PT_GNU_EH_FRAME:
      return "PT_GNU_EH_FRAME";
    case PT_GNU_RELRO:
      return "PT_GNU_RELRO";
    default:
      return nullptr;
  }
}

std::string segment_name(size_t i, uint32_t type) {
  const char* t = segment_type(type);
  return "segment " + std::to_string(i) + " (" + (t != nullptr ? t : "type " + std::to_string(type)) + ")";
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `n` bytes at `offset`; false on an error or an early end of file.
bool read_at(int fd, void* dst, size_t n, uint64_t offset) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// Whether [offset, offset + count * entry_size) lies inside a file of `size` bytes, with every
// product and sum checked for overflow (a damaged header may hold any 64-bit value). `end`
// receives the end when it does not overflow.
bool inside(uint64_t offset, uint64_t count, uint64_t entry_size, uint64_t size, uint64_t& end) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, entry_size, &bytes) || __builtin_add_overflow(offset, bytes, &end)) {
    end = UINT64_MAX;
    return false;
  }
  return end <= size;
}

std::string past_end(const std::string& what, uint64_t end, uint64_t size) {
  return "truncated or damaged: " + what + " ends at byte " +
         (end == UINT64_MAX ? std::string("2^64 or beyond") : std::to_string(end)) + ", past the end of the file (" +
         std::to_string(size) + " bytes)";
}

// Beyond any real library (a real one has tens of sections); keeps a damaged count from sizing
// an allocation by the file's size.
constexpr uint64_t kMaxSections = 1u << 20;

std::string check_open_file(int fd, uint64_t size) {
  Ehdr eh{};
  if (size < sizeof eh) {
    // Too short for a header, but a few bytes tell a truncated ELF file from something else.
    unsigned char magic[SELFMAG] = {};
    if (size >= SELFMAG && read_at(fd, magic, SELFMAG, 0) && std::memcmp(magic, ELFMAG, SELFMAG) != 0)
      return "not an ELF file (bad magic bytes)";
    return "truncated: " + std::to_string(size) + " bytes, shorter than an ELF header (" + std::to_string(sizeof eh) +
           " bytes)";
  }
  if (!read_at(fd, &eh, sizeof eh, 0)) return std::string("cannot read the ELF header: ") + std::strerror(errno);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "not an ELF file (bad magic bytes)";
  const unsigned char cls = eh.e_ident[EI_CLASS];
  if (cls != kHostClass)
    return std::string("a ") +
           (cls == ELFCLASS32   ? "32-bit"
            : cls == ELFCLASS64 ? "64-bit"
                                : "damaged (unknown class)") +
           " ELF file; this process is " + (kHostClass == ELFCLASS64 ? "64-bit" : "32-bit");
  const unsigned char data = eh.e_ident[EI_DATA];
  if (data != kHostData)
    return std::string("a ") +
           (data == ELFDATA2MSB   ? "big-endian"
            : data == ELFDATA2LSB ? "little-endian"
                                  : "damaged (unknown byte order)") +
           " ELF file; this host is " + (kHostData == ELFDATA2LSB ? "little-endian" : "big-endian");
  if (eh.e_ident[EI_VERSION] != EV_CURRENT || eh.e_version != EV_CURRENT)
    return "damaged: ELF version " + std::to_string(eh.e_version) + ", expected " + std::to_string(EV_CURRENT);
  if (eh.e_type != ET_DYN)
    return std::string("an ELF ") +
           (eh.e_type == ET_EXEC   ? "executable"
            : eh.e_type == ET_REL  ? "object file (.o)"
            : eh.e_type == ET_CORE ? "core dump"
                                   : "file of type " + std::to_string(eh.e_type)) +
           ", not a shared library";
  if (constexpr uint16_t host = host_machine(); host != 0 && eh.e_machine != host)
    return "built for " + machine_name(eh.e_machine) + "; this host is " + machine_name(host);

  // Program headers: what dlopen maps and reads.
  if (eh.e_phnum == 0 || eh.e_phnum == PN_XNUM) return "damaged: " + std::to_string(eh.e_phnum) + " program headers";
  if (eh.e_phentsize != sizeof(Phdr))
    return "damaged: program header entries of " + std::to_string(eh.e_phentsize) + " bytes, expected " +
           std::to_string(sizeof(Phdr));
  uint64_t end = 0;
  if (!inside(eh.e_phoff, eh.e_phnum, sizeof(Phdr), size, end))
    return past_end("the program header table (" + std::to_string(eh.e_phnum) + " entries at byte " +
                        std::to_string(eh.e_phoff) + ")",
                    end, size);
  std::vector<Phdr> ph(eh.e_phnum);
  if (!read_at(fd, ph.data(), ph.size() * sizeof(Phdr), eh.e_phoff))
    return std::string("cannot read the program headers: ") + std::strerror(errno);
  bool has_load = false;
  bool has_dynamic = false;
  for (size_t i = 0; i < ph.size(); ++i) {
    const Phdr& p = ph[i];
    if (p.p_type == PT_NULL) continue;
    has_load |= p.p_type == PT_LOAD;
    has_dynamic |= p.p_type == PT_DYNAMIC;
    if (p.p_type == PT_LOAD && p.p_filesz > p.p_memsz)
      return "damaged: " + segment_name(i, p.p_type) + " has more bytes in the file (" + std::to_string(p.p_filesz) +
             ") than in memory (" + std::to_string(p.p_memsz) + ")";
    if (p.p_filesz == 0) continue;  // e.g. PT_GNU_STACK: nothing read from the file
    if (!inside(p.p_offset, 1, p.p_filesz, size, end)) return past_end(segment_name(i, p.p_type), end, size);
  }
  if (!has_load) return "damaged: no loadable segment (PT_LOAD)";
  if (!has_dynamic) return "not a shared library: no dynamic segment (PT_DYNAMIC)";

  // Section headers: dlopen does not read them, but they sit at the end of the file, so a table
  // that runs past the end is the surest sign of a file cut short (a copy still in progress).
  if (eh.e_shoff == 0) return {};  // stripped of its section table: allowed
  if (eh.e_shentsize != sizeof(Shdr))
    return "damaged: section header entries of " + std::to_string(eh.e_shentsize) + " bytes, expected " +
           std::to_string(sizeof(Shdr));
  if (!inside(eh.e_shoff, 1, sizeof(Shdr), size, end))
    return past_end("the section header table (at byte " + std::to_string(eh.e_shoff) + ")", end, size);
  uint64_t count = eh.e_shnum;
  if (count == 0) {  // 65280 sections or more: the count is in section 0's sh_size
    Shdr first{};
    if (!read_at(fd, &first, sizeof first, eh.e_shoff))
      return std::string("cannot read the section headers: ") + std::strerror(errno);
    count = first.sh_size;
  }
  if (count == 0 || count > kMaxSections) return "damaged: " + std::to_string(count) + " sections";
  if (!inside(eh.e_shoff, count, sizeof(Shdr), size, end))
    return past_end(
        "the section header table (" + std::to_string(count) + " entries at byte " + std::to_string(eh.e_shoff) + ")",
        end, size);
  std::vector<Shdr> sh(count);
  if (!read_at(fd, sh.data(), sh.size() * sizeof(Shdr), eh.e_shoff))
    return std::string("cannot read the section headers: ") + std::strerror(errno);
  for (size_t i = 1; i < sh.size(); ++i) {
    const Shdr& s = sh[i];
    if (s.sh_type == SHT_NULL || s.sh_type == SHT_NOBITS || s.sh_size == 0) continue;
    if (!inside(s.sh_offset, 1, s.sh_size, size, end)) return past_end("section " + std::to_string(i), end, size);
  }
  return {};
}

}  // namespace

std::string check_shared_library_file(const std::string& path) {
  // stat first, so that a device or FIFO is never opened at all (opening some devices has
  // effects); then the descriptor's own fstat, which is what counts if the path changed between.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot stat: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return std::string("not a regular file (") + files::file_kind(st.st_mode) + ")";
  // O_NONBLOCK: should a FIFO take the file's place after the stat, open returns at once instead
  // of waiting for a writer.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) return std::string("cannot open: ") + std::strerror(errno);
  if (::fstat(f.fd, &st) != 0) return std::string("cannot stat: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return std::string("not a regular file (") + files::file_kind(st.st_mode) + ")";
  return check_open_file(f.fd, static_cast<uint64_t>(st.st_size));
}

}  // namespace xd::detail
