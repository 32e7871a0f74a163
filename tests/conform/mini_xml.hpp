// A minimal XML reader for the JUnit files xd-conform writes: elements, attributes (with the five
// predefined entities decoded), nesting, an optional <?xml ...?> declaration. Enough to check the
// file is well formed and to walk its testsuite / testcase elements; counting substrings would
// pass a file no JUnit consumer can read. No DTDs, CDATA, comments or processing instructions
// inside the document, since xd-conform writes none: meeting one is reported as malformed.
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace xd::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlElement>> children;

  std::string attr(const std::string& key) const {
    const auto it = attrs.find(key);
    if (it == attrs.end()) throw std::runtime_error("<" + name + "> has no attribute '" + key + "'");
    return it->second;
  }
  std::vector<const XmlElement*> all(const std::string& child_name) const {
    std::vector<const XmlElement*> out;
    for (const auto& c : children)
      if (c->name == child_name) out.push_back(c.get());
    return out;
  }
};

class XmlReader {
 public:
  // Throws std::runtime_error, naming the offset, for anything that is not well formed.
  static std::unique_ptr<XmlElement> parse(const std::string& text) {
    XmlReader r(text);
    r.skip_space();
    if (r.text_.compare(r.pos_, 5, "<?xml") == 0) {
      const size_t end = r.text_.find("?>", r.pos_);
      if (end == std::string::npos) r.error("unterminated XML declaration");
      r.pos_ = end + 2;
    }
    r.skip_space();
    auto root = r.element();
    r.skip_space();
    if (r.pos_ != r.text_.size()) r.error("content after the root element");
    return root;
  }

 private:
  explicit XmlReader(const std::string& text) : text_(text) {}

  [[noreturn]] void error(const std::string& why) const {
    throw std::runtime_error("malformed XML at offset " + std::to_string(pos_) + ": " + why);
  }
  bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    if (at_end() || text_[pos_] != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string name() {
    const size_t start = pos_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                         text_[pos_] == '-' || text_[pos_] == '.' || text_[pos_] == ':'))
      ++pos_;
    if (pos_ == start) error("expected a name");
    return text_.substr(start, pos_ - start);
  }
  std::string decode(const std::string& raw) const {
    static const std::pair<const char*, char> entities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    std::string out;
    for (size_t i = 0; i < raw.size();) {
      if (raw[i] == '<') throw std::runtime_error("malformed XML: '<' inside an attribute value");
      if (raw[i] != '&') {
        out += raw[i++];
        continue;
      }
      bool known = false;
      for (const auto& [entity, ch] : entities) {
        const std::string e = entity;
        if (raw.compare(i, e.size(), e) == 0) {
          out += ch;
          i += e.size();
          known = true;
          break;
        }
      }
      if (!known) throw std::runtime_error("malformed XML: unknown entity in '" + raw + "'");
    }
    return out;
  }
  std::unique_ptr<XmlElement> element() {
    auto e = std::make_unique<XmlElement>();
    expect('<');
    e->name = name();
    for (;;) {
      skip_space();
      if (at_end()) error("unterminated start tag <" + e->name + ">");
      if (text_[pos_] == '/') {
        ++pos_;
        expect('>');
        return e;
      }
      if (text_[pos_] == '>') {
        ++pos_;
        break;
      }
      const std::string key = name();
      skip_space();
      expect('=');
      skip_space();
      if (at_end() || (text_[pos_] != '"' && text_[pos_] != '\'')) error("attribute value not quoted");
      const char quote = text_[pos_++];
      const size_t end = text_.find(quote, pos_);
      if (end == std::string::npos) error("unterminated attribute value");
      if (!e->attrs.emplace(key, decode(text_.substr(pos_, end - pos_))).second) error("duplicate attribute " + key);
      pos_ = end + 1;
    }
    // Content: child elements and text, up to the matching end tag.
    for (;;) {
      while (!at_end() && text_[pos_] != '<') ++pos_;
      if (at_end()) error("missing </" + e->name + ">");
      if (text_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        if (name() != e->name) error("end tag does not match <" + e->name + ">");
        skip_space();
        expect('>');
        return e;
      }
      if (pos_ + 1 < text_.size() && (text_[pos_ + 1] == '!' || text_[pos_ + 1] == '?'))
        error("comments, CDATA and processing instructions are not expected");
      e->children.push_back(element());
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace xd::test
