#include "spirv_reader.hpp"

#include <stdexcept>
#include <vector>

namespace xd::test {

namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpEntryPoint = 15;

uint32_t swap(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

}  // namespace

namespace {

// Calls f(opcode, operand words, operand count) for every instruction.
template <class F>
void for_each_instruction(const uint32_t* words, size_t count, F&& f) {
  // Header: magic, version, generator, bound, schema; then instructions whose first word holds
  // (word count << 16) | opcode.
  if (count < 5) throw std::runtime_error("SPIR-V: shorter than its header");
  const bool swapped = words[0] == swap(kMagic);
  if (words[0] != kMagic && !swapped) throw std::runtime_error("SPIR-V: bad magic number");
  auto word = [&](size_t i) { return swapped ? swap(words[i]) : words[i]; };
  size_t i = 5;
  std::vector<uint32_t> ops;
  while (i < count) {
    const uint32_t first = word(i);
    const uint32_t n = first >> 16, op = first & 0xffffu;
    if (n == 0 || i + n > count) throw std::runtime_error("SPIR-V: truncated instruction at word " + std::to_string(i));
    ops.assign(n - 1, 0);
    for (uint32_t k = 1; k < n; ++k) ops[k - 1] = word(i + k);
    f(op, ops);
    i += n;
  }
}

// A literal string starting at operand `from`: UTF-8, nul-terminated, packed little-endian four
// bytes a word. Sets `next` to the operand after it.
std::string literal(const std::vector<uint32_t>& ops, size_t from, size_t& next) {
  std::string s;
  for (size_t w = from; w < ops.size(); ++w) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((ops[w] >> (8 * b)) & 0xffu);
      if (c == '\0') {
        next = w + 1;
        return s;
      }
      s += c;
    }
  }
  throw std::runtime_error("SPIR-V: unterminated literal string");
}

constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kLinkageAttributes = 41;
constexpr uint32_t kImport = 1;

}  // namespace

std::set<std::string> spirv_entry_points(const uint32_t* words, size_t count) {
  std::set<std::string> names;
  // OpEntryPoint <execution model> <function id> <name> <interface ids...>
  for_each_instruction(words, count, [&](uint32_t op, const std::vector<uint32_t>& ops) {
    size_t next = 0;
    if (op == kOpEntryPoint && ops.size() >= 3) names.insert(literal(ops, 2, next));
  });
  return names;
}

std::map<std::string, uint32_t> spirv_subgroup_sizes(const uint32_t* words, size_t count) {
  constexpr uint32_t kOpExecutionMode = 16, kSubgroupSize = 35;
  std::map<uint32_t, std::string> names;  // entry point function id -> name
  std::map<uint32_t, uint32_t> sizes;     // function id -> sub-group size
  // OpEntryPoint <model> <function id> <name> ...; OpExecutionMode <function id> <mode> <literals...>
  for_each_instruction(words, count, [&](uint32_t op, const std::vector<uint32_t>& ops) {
    size_t next = 0;
    if (op == kOpEntryPoint && ops.size() >= 3) names[ops[1]] = literal(ops, 2, next);
    if (op == kOpExecutionMode && ops.size() >= 3 && ops[1] == kSubgroupSize) sizes[ops[0]] = ops[2];
  });
  std::map<std::string, uint32_t> out;
  for (const auto& [id, size] : sizes) {
    const auto it = names.find(id);
    if (it == names.end()) throw std::runtime_error("SPIR-V: a SubgroupSize execution mode on no entry point");
    out[it->second] = size;
  }
  return out;
}

std::set<std::string> spirv_imports(const uint32_t* words, size_t count) {
  std::set<std::string> names;
  // OpDecorate <target> LinkageAttributes <name> <linkage type>
  for_each_instruction(words, count, [&](uint32_t op, const std::vector<uint32_t>& ops) {
    if (op != kOpDecorate || ops.size() < 3 || ops[1] != kLinkageAttributes) return;
    size_t next = 0;
    const std::string name = literal(ops, 2, next);
    if (next < ops.size() && ops[next] == kImport) names.insert(name);
  });
  return names;
}

}  // namespace xd::test
