// xd::set_log_sink (include/xd/log.hpp): the library's and plugins' lines reach the sink; nullptr
// restores stderr. White-box for the plugin path: it calls the host API table plugins get.
#include <xd/error.hpp>
#include <xd/external.hpp>
#include <xd/log.hpp>
#include <xd/ops.hpp>

#include "plugin/host_api.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct Captured {
  std::mutex mutex;
  std::vector<std::pair<xd::LogLevel, std::string>> lines;
  void install() {
    xd::set_log_sink([this](xd::LogLevel l, std::string_view s) {
      std::lock_guard lock(mutex);
      lines.emplace_back(l, std::string(s));
    });
  }
};

// Logs one error line from the core: a from_blob deleter that throws is reported at error level
// (XD_LOG=error in the test environment still lets it through).
void log_one_core_error() {
  float x = 0;
  xd::Tensor t = xd::from_blob(&x, {1}, xd::Dtype::f32, xd::cpu(), [](void*) { throw std::runtime_error("boom"); });
}

TEST(LogSink, ReceivesCoreLines) {
  Captured c;
  c.install();
  log_one_core_error();
  xd::set_log_sink(nullptr);
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0].first, xd::LogLevel::error);
  EXPECT_EQ(c.lines[0].second, "from_blob: the deleter threw: boom");
}

TEST(LogSink, ReceivesPluginLinesThroughTheHostApi) {
  Captured c;
  c.install();
  xd::detail::HostContext ctx;
  ctx.plugin_name = "someplugin";
  const xd_host_api api = xd::detail::make_host_api(&ctx);
  api.log(api.ctx, XD_LOG_ERROR, "device lost");
  api.log(api.ctx, XD_LOG_DEBUG, "filtered out by XD_LOG=error");
  xd::set_log_sink(nullptr);
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0].first, xd::LogLevel::error);
  EXPECT_EQ(c.lines[0].second, "someplugin: device lost");
}

TEST(LogSink, NullptrRestoresStderr) {
  Captured c;
  c.install();
  xd::set_log_sink(nullptr);
  testing::internal::CaptureStderr();
  log_one_core_error();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(c.lines.empty());
  EXPECT_EQ(err, "[xdispatch error] from_blob: the deleter threw: boom\n");
}

TEST(LogSink, ThrowingSinkDoesNotFailTheCaller) {
  xd::set_log_sink([](xd::LogLevel, std::string_view) { throw std::runtime_error("sink broke"); });
  EXPECT_NO_THROW(log_one_core_error());
  xd::set_log_sink(nullptr);
}

TEST(LogSink, ConcurrentLoggingAndReplacingTheSink) {
  Captured c;
  c.install();
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([] {
      for (int k = 0; k < 50; ++k) log_one_core_error();
    });
  for (int k = 0; k < 50; ++k) c.install();  // swapping while others log
  for (auto& t : threads) t.join();
  xd::set_log_sink(nullptr);
  EXPECT_EQ(c.lines.size(), 200u);
}

TEST(LogLevelName, NamesEveryLevel) {
  EXPECT_STREQ(xd::log_level_name(xd::LogLevel::error), "error");
  EXPECT_STREQ(xd::log_level_name(xd::LogLevel::warn), "warn");
  EXPECT_STREQ(xd::log_level_name(xd::LogLevel::info), "info");
  EXPECT_STREQ(xd::log_level_name(xd::LogLevel::debug), "debug");
}

}  // namespace
