// JSON files the tools read (golden manifests, xd-bench's child reports), bounded in size and in
// nesting depth. The depth matters beyond memory: nlohmann-json parses iteratively but copies and
// destroys values recursively, so a file of 150,000 nested arrays overflows the stack in whatever
// touches the value after parsing. The parser callback sees each array and object as it starts,
// so a document nested too deeply is rejected before it is built.
#pragma once

#include "common/regular_file.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace xd::cli {

constexpr uint64_t kMaxJsonBytes = uint64_t{64} << 20;  // 64 MiB
constexpr int kMaxJsonDepth = 64;                       // levels of arrays and objects

// `text` (the contents of `name`) as JSON; std::runtime_error naming `name` when it is not JSON
// or nests arrays and objects more than `max_depth` levels deep.
inline nlohmann::json parse_json_bounded(const std::string& name, const std::string& text,
                                         int max_depth = kMaxJsonDepth) {
  using nlohmann::json;
  const json::parser_callback_t bound = [&](int depth, json::parse_event_t event, json&) {
    // `depth` counts the containers around the one starting: 0 for the outermost.
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) && depth >= max_depth)
      throw std::runtime_error(name + ": JSON nested more than " + std::to_string(max_depth) +
                               " levels deep (arrays and objects)");
    return true;
  };
  try {
    return json::parse(text, bound);
  } catch (const json::exception& e) {
    throw std::runtime_error(name + ": " + e.what());
  }
}

// The file at `path`, a regular file of at most `max_bytes`, as bounded JSON.
inline nlohmann::json read_json_file(const std::string& path, uint64_t max_bytes = kMaxJsonBytes,
                                     int max_depth = kMaxJsonDepth) {
  return parse_json_bounded(path, read_regular_file(path, max_bytes), max_depth);
}

}  // namespace xd::cli
