// throws_exactly: the check of the bad-input tests. f must throw exactly the xd::Error subclass E
// (typeid equality: neither a parent nor a subclass, not a plain std::exception, no crash) with a
// message holding every one of `parts`.
#pragma once

#include <xd/error.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <typeinfo>

namespace xd::test {

inline const char* error_kind(const std::exception& e) {
  if (dynamic_cast<const xd::BackendError*>(&e)) return "xd::BackendError";
  if (dynamic_cast<const xd::DeviceError*>(&e)) return "xd::DeviceError";
  if (dynamic_cast<const xd::ShapeError*>(&e)) return "xd::ShapeError";
  if (dynamic_cast<const xd::DtypeError*>(&e)) return "xd::DtypeError";
  if (dynamic_cast<const xd::IndexError*>(&e)) return "xd::IndexError";
  if (dynamic_cast<const xd::ValueError*>(&e)) return "xd::ValueError";
  if (dynamic_cast<const xd::LayoutError*>(&e)) return "xd::LayoutError";
  if (dynamic_cast<const xd::OutOfMemoryError*>(&e)) return "xd::OutOfMemoryError";
  if (dynamic_cast<const xd::NotImplementedError*>(&e)) return "xd::NotImplementedError";
  if (dynamic_cast<const xd::PluginError*>(&e)) return "xd::PluginError";
  if (dynamic_cast<const xd::CompileError*>(&e)) return "xd::CompileError";
  if (dynamic_cast<const xd::Error*>(&e)) return "xd::Error";
  return typeid(e).name();
}

// Runs f and checks it throws exactly E (typeid equality: a subclass of E fails too) with a message
// that contains every one of `parts`.
template <class E, class F>
::testing::AssertionResult throws_exactly(F&& f, std::initializer_list<std::string_view> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string msg = e.what();
    if (typeid(e) != typeid(E))
      return ::testing::AssertionFailure()
             << "threw " << error_kind(e) << " (a subclass), expected exactly " << error_kind(E("")) << ": " << msg;
    for (std::string_view p : parts)
      if (msg.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "the message lacks \"" << p << "\":\n  " << msg;
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw " << error_kind(e) << ", expected " << error_kind(E("")) << ": "
                                         << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw something that is not a std::exception";
  }
  return ::testing::AssertionFailure() << "nothing was thrown, expected " << error_kind(E(""));
}

#define EXPECT_THROWS_EXACTLY(E, stmt, ...) \
  EXPECT_TRUE(::xd::test::throws_exactly<E>([&] { (void)(stmt); }, {__VA_ARGS__}))

}  // namespace xd::test
