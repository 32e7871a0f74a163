// Files in a plugin folder that are not loadable plugins: truncated copies of real plugins (a copy
// still in progress), damaged ELF headers, a FIFO, a directory and a device named like a plugin.
// Each becomes a load-report row "not a library" with the reason "not a valid shared library:
// ...", checked before dlopen, which would die of SIGBUS on a truncated file or wait for ever on a
// FIFO. The folder is loaded through XD_PLUGIN_PATH when the registry starts: each case runs in a
// process of its own (CTest), and an alarm turns a hang into a failure.
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::string kPrefix = "not a valid shared library: ";

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& bytes, size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(n));
  ASSERT_TRUE(f.good()) << path;
}

std::string stub_good() { return read_file(std::string(XD_STUB_DIR) + "/libxd_plugin_stub_good.so"); }

void expect_cpu_still_works() {
  auto a = xd::full({3}, 2.0f, xd::Dtype::f32, xd::cpu());
  auto b = xd::full({3}, 5.0f, xd::Dtype::f32, xd::cpu());
  EXPECT_EQ(xd::add(a, b).to_vector<float>(), (std::vector<float>{7, 7, 7}));
}

class PluginFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    alarm(120);  // a FIFO opened for reading would block: fail instead of hanging the suite
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("xd_plugin_files_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    alarm(0);
  }
  fs::path file(const std::string& name) const { return dir_ / ("libxd_plugin_" + name + ".so"); }

  // Starts the registry with XD_PLUGIN_PATH = the folder; the report rows of its files by file name.
  std::map<std::string, xd::LoadReportRow> load_folder() const {
    ::setenv("XD_PLUGIN_PATH", dir_.c_str(), 1);
    std::map<std::string, xd::LoadReportRow> rows;
    for (const auto& row : xd::load_report())
      if (fs::path(row.path).parent_path() == dir_) rows[fs::path(row.path).filename().string()] = row;
    return rows;
  }

  // The one row of the folder's single file `name`.
  xd::LoadReportRow only_row(const std::string& name) const {
    const auto rows = load_folder();
    EXPECT_EQ(rows.size(), 1u) << xd::format_load_report();
    const auto it = rows.find("libxd_plugin_" + name + ".so");
    return it == rows.end() ? xd::LoadReportRow{} : it->second;
  }

  fs::path dir_;
};

// ---------------------------------------------------------------- truncated copies

// Every prefix of `bytes` at `sizes` is a row "not a library" whose reason says it is truncated.
void expect_truncations_rejected(const std::map<std::string, xd::LoadReportRow>& rows,
                                 const std::vector<size_t>& sizes) {
  EXPECT_EQ(rows.size(), sizes.size()) << xd::format_load_report();
  for (size_t n : sizes) {
    const auto it = rows.find("libxd_plugin_cut_" + std::to_string(n) + ".so");
    ASSERT_NE(it, rows.end()) << n << " bytes: no row\n" << xd::format_load_report();
    EXPECT_EQ(it->second.status, xd::LoadStatus::not_a_library) << n << " bytes: " << it->second.reason;
    EXPECT_EQ(it->second.reason.rfind(kPrefix + "truncated", 0), 0u) << n << " bytes: " << it->second.reason;
  }
}

TEST_F(PluginFolder, EveryTruncationOfTheStubPluginIsARowNotACrash) {
  const std::string bytes = stub_good();
  ASSERT_GT(bytes.size(), 4096u);
  std::vector<size_t> sizes;
  for (size_t n = 0; n < bytes.size(); n += 64) sizes.push_back(n);
  for (size_t n : {size_t{1}, size_t{4}, size_t{63}, bytes.size() - 64, bytes.size() - 1}) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (size_t n : sizes) write_file(file("cut_" + std::to_string(n)), bytes, n);
  expect_truncations_rejected(load_folder(), sizes);
  expect_cpu_still_works();
}

TEST_F(PluginFolder, TruncationsOfTheCpuPluginBetweenOneKilobyteAndTwoMegabytesAreRowsNotCrashes) {
  const std::string bytes = read_file(XD_CPU_PLUGIN);
  ASSERT_GT(bytes.size(), size_t{64} << 10);
  std::vector<size_t> sizes = {64, 1024, 4096};
  const size_t limit = std::min(bytes.size(), size_t{2} << 20);
  for (size_t n = size_t{16} << 10; n < limit; n += n < (size_t{1} << 20) ? (size_t{16} << 10) : (size_t{64} << 10))
    sizes.push_back(n);
  sizes.push_back(bytes.size() - 1);  // every segment whole, only the section table cut
  for (size_t n : sizes) write_file(file("cut_" + std::to_string(n)), bytes, n);
  expect_truncations_rejected(load_folder(), sizes);
  // Tried before the build tree's copy, none of them took the name "cpu".
  bool loaded = false;
  for (const auto& row : xd::load_report()) loaded |= row.name == "cpu" && row.status == xd::LoadStatus::loaded;
  EXPECT_TRUE(loaded) << xd::format_load_report();
  expect_cpu_still_works();
}

TEST_F(PluginFolder, TheWholeFileBesideItsTruncationsLoads) {
  const std::string bytes = stub_good();
  write_file(file("whole"), bytes, bytes.size());
  write_file(file("half"), bytes, bytes.size() / 2);
  const auto rows = load_folder();
  ASSERT_EQ(rows.size(), 2u) << xd::format_load_report();
  EXPECT_EQ(rows.at("libxd_plugin_whole.so").status, xd::LoadStatus::loaded) << rows.at("libxd_plugin_whole.so").reason;
  EXPECT_EQ(rows.at("libxd_plugin_half.so").status, xd::LoadStatus::not_a_library);
  EXPECT_EQ(xd::full({2}, 3.0, xd::Dtype::f32, xd::Device::parse("stubdev")).to_vector<float>(),
            (std::vector<float>{3, 3}));
}

TEST_F(PluginFolder, AnEmptyFileIsTooShortForAnElfHeader) {
  write_file(file("empty"), "", 0);
  const auto row = only_row("empty");
  EXPECT_EQ(row.status, xd::LoadStatus::not_a_library);
  EXPECT_EQ(row.reason, kPrefix + "truncated: 0 bytes, shorter than an ELF header (64 bytes)");
}

TEST_F(PluginFolder, ATextFileIsNotAnElfFile) {
  const std::string text = "#!/bin/sh\necho this is not a plugin\n";
  write_file(file("script"), text, text.size());
  const auto row = only_row("script");
  EXPECT_EQ(row.status, xd::LoadStatus::not_a_library);
  EXPECT_EQ(row.reason, kPrefix + "not an ELF file (bad magic bytes)");
}

// ---------------------------------------------------------------- damaged headers

// The stub plugin with `damage` applied to its bytes, as the folder's one file; its row.
class DamagedHeader : public PluginFolder {
 protected:
  xd::LoadReportRow load_damaged(const std::function<void(std::string&)>& damage) {
    std::string bytes = stub_good();
    damage(bytes);
    write_file(file("damaged"), bytes, bytes.size());
    const auto row = only_row("damaged");
    EXPECT_EQ(row.status, xd::LoadStatus::not_a_library) << row.reason;
    expect_cpu_still_works();
    return row;
  }
  static Elf64_Ehdr& header(std::string& b) { return *reinterpret_cast<Elf64_Ehdr*>(b.data()); }
  // The first program header of `type`.
  static Elf64_Phdr& segment(std::string& b, uint32_t type, size_t* index = nullptr) {
    Elf64_Ehdr& eh = header(b);
    for (size_t i = 0; i < eh.e_phnum; ++i) {
      auto& p = *reinterpret_cast<Elf64_Phdr*>(b.data() + eh.e_phoff + i * sizeof(Elf64_Phdr));
      if (p.p_type == type) {
        if (index != nullptr) *index = i;
        return p;
      }
    }
    throw std::runtime_error("the stub plugin has no segment of type " + std::to_string(type));
  }
};

TEST_F(DamagedHeader, ThirtyTwoBitClassIsNamed) {
  const auto row = load_damaged([](std::string& b) { header(b).e_ident[EI_CLASS] = ELFCLASS32; });
  EXPECT_EQ(row.reason, kPrefix + "a 32-bit ELF file; this process is 64-bit");
}

TEST_F(DamagedHeader, OtherByteOrderIsNamed) {
  const auto row = load_damaged([](std::string& b) { header(b).e_ident[EI_DATA] = ELFDATA2MSB; });
  EXPECT_EQ(row.reason, kPrefix + "a big-endian ELF file; this host is little-endian");
}

TEST_F(DamagedHeader, UnknownClassIsDamage) {
  const auto row = load_damaged([](std::string& b) { header(b).e_ident[EI_CLASS] = 7; });
  EXPECT_EQ(row.reason, kPrefix + "a damaged (unknown class) ELF file; this process is 64-bit");
}

TEST_F(DamagedHeader, OtherMachineIsNamed) {
#if defined(__x86_64__)
  const auto row = load_damaged([](std::string& b) { header(b).e_machine = EM_AARCH64; });
  EXPECT_EQ(row.reason, kPrefix + "built for AArch64; this host is x86-64");
#else
  GTEST_SKIP() << "written for an x86-64 host";
#endif
}

TEST_F(DamagedHeader, AnExecutableIsNotASharedLibrary) {
  const auto row = load_damaged([](std::string& b) { header(b).e_type = ET_EXEC; });
  EXPECT_EQ(row.reason, kPrefix + "an ELF executable, not a shared library");
}

TEST_F(DamagedHeader, ProgramHeaderTableOffsetThatOverflowsIsCaught) {
  std::string size;
  const auto row = load_damaged([&](std::string& b) {
    header(b).e_phoff = UINT64_MAX - 8;
    size = std::to_string(b.size());
  });
  EXPECT_EQ(row.reason, kPrefix + "truncated or damaged: the program header table (9 entries at byte " +
                            std::to_string(UINT64_MAX - 8) +
                            ") ends at byte 2^64 or beyond, past the end of the file (" + size + " bytes)");
}

TEST_F(DamagedHeader, ProgramHeaderCountPastTheEndIsCaught) {
  std::string size;
  const auto row = load_damaged([&](std::string& b) {
    header(b).e_phnum = 60000;
    size = std::to_string(b.size());
  });
  EXPECT_EQ(row.reason, kPrefix +
                            "truncated or damaged: the program header table (60000 entries at byte 64) ends at byte " +
                            std::to_string(64 + 60000 * 56) + ", past the end of the file (" + size + " bytes)");
}

TEST_F(DamagedHeader, WrongProgramHeaderEntrySizeIsDamage) {
  const auto row = load_damaged([](std::string& b) { header(b).e_phentsize = 32; });
  EXPECT_EQ(row.reason, kPrefix + "damaged: program header entries of 32 bytes, expected 56");
}

TEST_F(DamagedHeader, NoProgramHeadersIsDamage) {
  const auto row = load_damaged([](std::string& b) { header(b).e_phnum = 0; });
  EXPECT_EQ(row.reason, kPrefix + "damaged: 0 program headers");
}

TEST_F(DamagedHeader, LoadSegmentPastTheEndIsCaught) {
  size_t index = 0;
  uint64_t end = 0;
  std::string size;
  const auto row = load_damaged([&](std::string& b) {
    Elf64_Phdr& p = segment(b, PT_LOAD, &index);
    end = b.size() + 1;
    p.p_filesz = p.p_memsz = end - p.p_offset;
    size = std::to_string(b.size());
  });
  EXPECT_EQ(row.reason, kPrefix + "truncated or damaged: segment " + std::to_string(index) +
                            " (PT_LOAD) ends at byte " + std::to_string(end) + ", past the end of the file (" + size +
                            " bytes)");
}

TEST_F(DamagedHeader, LoadSegmentOffsetThatOverflowsIsCaught) {
  size_t index = 0;
  const auto row = load_damaged([&](std::string& b) { segment(b, PT_LOAD, &index).p_offset = UINT64_MAX - 16; });
  EXPECT_NE(row.reason.find("segment " + std::to_string(index) + " (PT_LOAD) ends at byte 2^64 or beyond"),
            std::string::npos)
      << row.reason;
}

TEST_F(DamagedHeader, LoadSegmentLargerInTheFileThanInMemoryIsDamage) {
  size_t index = 0;
  const auto row = load_damaged([&](std::string& b) {
    Elf64_Phdr& p = segment(b, PT_LOAD, &index);
    p.p_memsz = p.p_filesz - 1;
  });
  EXPECT_NE(row.reason.find(kPrefix + "damaged: segment " + std::to_string(index) +
                            " (PT_LOAD) has more bytes in the file ("),
            std::string::npos)
      << row.reason;
}

TEST_F(DamagedHeader, DynamicSegmentPastTheEndIsCaught) {
  size_t index = 0;
  const auto row = load_damaged([&](std::string& b) { segment(b, PT_DYNAMIC, &index).p_offset = b.size() - 8; });
  EXPECT_EQ(row.reason.rfind(
                kPrefix + "truncated or damaged: segment " + std::to_string(index) + " (PT_DYNAMIC) ends at byte ", 0),
            0u)
      << row.reason;
}

TEST_F(DamagedHeader, NoDynamicSegmentIsNotASharedLibrary) {
  const auto row = load_damaged([](std::string& b) { segment(b, PT_DYNAMIC).p_type = PT_NULL; });
  EXPECT_EQ(row.reason, kPrefix + "not a shared library: no dynamic segment (PT_DYNAMIC)");
}

TEST_F(DamagedHeader, NoLoadableSegmentIsDamage) {
  const auto row = load_damaged([](std::string& b) {
    Elf64_Ehdr& eh = header(b);
    for (size_t i = 0; i < eh.e_phnum; ++i) {
      auto& p = *reinterpret_cast<Elf64_Phdr*>(b.data() + eh.e_phoff + i * sizeof(Elf64_Phdr));
      if (p.p_type == PT_LOAD) p.p_type = PT_NULL;
    }
  });
  EXPECT_EQ(row.reason, kPrefix + "damaged: no loadable segment (PT_LOAD)");
}

TEST_F(DamagedHeader, SectionHeaderTablePastTheEndIsCaught) {
  std::string size;
  const auto row = load_damaged([&](std::string& b) {
    header(b).e_shoff = b.size() - 32;
    size = std::to_string(b.size());
  });
  EXPECT_EQ(row.reason, kPrefix + "truncated or damaged: the section header table (at byte " +
                            std::to_string(std::stoull(size) - 32) + ") ends at byte " +
                            std::to_string(std::stoull(size) + 32) + ", past the end of the file (" + size + " bytes)");
}

TEST_F(DamagedHeader, SectionCountPastTheEndIsCaught) {
  const auto row = load_damaged([](std::string& b) { header(b).e_shnum = 60000; });
  EXPECT_NE(row.reason.find("the section header table (60000 entries at byte "), std::string::npos) << row.reason;
}

TEST_F(DamagedHeader, WrongSectionHeaderEntrySizeIsDamage) {
  const auto row = load_damaged([](std::string& b) { header(b).e_shentsize = 40; });
  EXPECT_EQ(row.reason, kPrefix + "damaged: section header entries of 40 bytes, expected 64");
}

TEST_F(DamagedHeader, SectionPastTheEndIsCaught) {
  const auto row = load_damaged([](std::string& b) {
    Elf64_Ehdr& eh = header(b);
    auto& s = *reinterpret_cast<Elf64_Shdr*>(b.data() + eh.e_shoff + (eh.e_shnum - 1) * sizeof(Elf64_Shdr));
    s.sh_type = SHT_PROGBITS;
    s.sh_offset = b.size() - 4;
    s.sh_size = 100;
  });
  EXPECT_NE(row.reason.find("truncated or damaged: section "), std::string::npos) << row.reason;
}

// ---------------------------------------------------------------- special files

TEST_F(PluginFolder, FifoDirectoryAndDeviceNamedLikePluginsAreRowsWithoutBlocking) {
  ASSERT_EQ(::mkfifo(file("fifo").c_str(), 0600), 0) << std::strerror(errno);
  fs::create_directory(file("dir"));
  fs::create_symlink("/dev/zero", file("zero"));
  const auto rows = load_folder();
  ASSERT_EQ(rows.size(), 3u) << xd::format_load_report();
  const std::map<std::string, std::string> expected = {
      {"libxd_plugin_fifo.so", "not a regular file (a FIFO)"},
      {"libxd_plugin_dir.so", "not a regular file (a directory)"},
      {"libxd_plugin_zero.so", "not a regular file (a character device)"},
  };
  for (const auto& [name, why] : expected) {
    EXPECT_EQ(rows.at(name).status, xd::LoadStatus::not_a_library) << name;
    EXPECT_EQ(rows.at(name).reason, kPrefix + why) << name;
  }
  expect_cpu_still_works();
}

TEST_F(PluginFolder, FifoNamedDirectlyInThePluginPathIsARowWithoutBlocking) {
  ASSERT_EQ(::mkfifo(file("fifo").c_str(), 0600), 0) << std::strerror(errno);
  ::setenv("XD_PLUGIN_PATH", file("fifo").c_str(), 1);
  bool found = false;
  for (const auto& row : xd::load_report())
    if (row.path == file("fifo").string()) {
      found = true;
      EXPECT_EQ(row.status, xd::LoadStatus::not_a_library);
      EXPECT_EQ(row.reason, kPrefix + "not a regular file (a FIFO)");
    }
  EXPECT_TRUE(found) << xd::format_load_report();
}

TEST_F(PluginFolder, DanglingSymlinkIsNotFound) {
  fs::create_symlink(dir_ / "nowhere.so", file("dangling"));
  const auto row = only_row("dangling");
  EXPECT_EQ(row.status, xd::LoadStatus::not_found);
}

TEST_F(PluginFolder, LoadPluginOfATruncatedFileReturnsTheRow) {
  const std::string bytes = stub_good();
  write_file(file("cut"), bytes, 4096);
  const auto row = xd::load_plugin(file("cut").string());
  EXPECT_EQ(row.status, xd::LoadStatus::not_a_library);
  EXPECT_EQ(row.reason.rfind(kPrefix + "truncated or damaged: ", 0), 0u) << row.reason;
  EXPECT_NE(row.reason.find("past the end of the file (4096 bytes)"), std::string::npos) << row.reason;
}

// A plugin copied into a folder under another name is never opened there (a folder may hold a
// plugin's own dependencies), but the report says why it was passed over; files that are not
// shared libraries by name (a README) get no row.
TEST_F(PluginFolder, MisnamedSharedLibraryInAFolderIsASkippedRowThatSaysTheNamingRule) {
  const std::string bytes = stub_good();
  write_file(dir_ / "mybackend.so", bytes, bytes.size());
  write_file(dir_ / "libxd_plugin_versioned.so.1", bytes, bytes.size());
  write_file(dir_ / "README.txt", "plugins go here", 15);
  const auto rows = load_folder();
  ASSERT_EQ(rows.size(), 2u) << xd::format_load_report();
  for (const char* name : {"mybackend.so", "libxd_plugin_versioned.so.1"}) {
    const auto it = rows.find(name);
    ASSERT_NE(it, rows.end()) << name << "\n" << xd::format_load_report();
    EXPECT_EQ(it->second.status, xd::LoadStatus::skipped) << name;
    EXPECT_EQ(it->second.name, "") << name;
    EXPECT_EQ(it->second.reason,
              "not loaded from a plugin folder: the name must be libxd_plugin_<name>.so (name it so, or list the "
              "file itself in XD_PLUGIN_PATH)");
  }
  EXPECT_STREQ(xd::load_status_name(xd::LoadStatus::skipped), "skipped");
  expect_cpu_still_works();
}

TEST_F(PluginFolder, MisnamedSharedLibraryNamedDirectlyInThePluginPathLoads) {
  const std::string bytes = stub_good();
  write_file(dir_ / "mybackend.so", bytes, bytes.size());
  ::setenv("XD_PLUGIN_PATH", (dir_ / "mybackend.so").c_str(), 1);
  bool loaded = false;
  for (const auto& row : xd::load_report())
    if (row.path == (dir_ / "mybackend.so").string()) loaded = row.status == xd::LoadStatus::loaded;
  EXPECT_TRUE(loaded) << xd::format_load_report();
}

}  // namespace
