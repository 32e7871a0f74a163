// A null xd::Stream (default-constructed or moved from) and a moved-from xd::Event name nothing:
// every use is an xd::ValueError naming the call, never a null dereference.
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace {

using xd::test::throws_exactly;

constexpr const char* kNullStream =
    ": the xd::Stream is null (default-constructed or moved from) and names no stream; get one from "
    "xd::Stream::create(device), xd::default_stream(device) or xd::current_stream()";
constexpr const char* kNullEvent = ": the xd::Event is null (moved from); construct one with xd::Event(device)";

std::string null_stream(const char* call) { return call + std::string(kNullStream); }
std::string null_event(const char* call) { return call + std::string(kNullEvent); }

TEST(NullStream, DefaultConstructedStreamIsUndefinedAndEqualOnlyToAnotherNullStream) {
  const xd::Stream s;
  EXPECT_FALSE(s.defined());
  EXPECT_EQ(s, xd::Stream());
  EXPECT_NE(s, xd::default_stream(xd::cpu()));
  EXPECT_TRUE(xd::default_stream(xd::cpu()).defined());
}

TEST(NullStream, EveryMemberIsAValueErrorNamingIt) {
  const xd::Stream s;
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { s.synchronize(); }, {null_stream("Stream::synchronize")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)s.query(); }, {null_stream("Stream::query")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)s.device(); }, {null_stream("Stream::device")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)s.handle(); }, {null_stream("Stream::handle")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)s.id(); }, {null_stream("Stream::id")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)s.state(); }, {null_stream("xd::Stream")}));
}

TEST(NullStream, MovedFromStreamIsNullToo) {
  xd::Stream a = xd::Stream::create(xd::cpu());
  const xd::Stream b = std::move(a);
  EXPECT_TRUE(b.defined());
  b.synchronize();
  EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): what this test is about
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { a.synchronize(); }, {null_stream("Stream::synchronize")}));
}

TEST(NullStream, StreamGuardThrowsAndChangesNothing) {
  const xd::Device before_device = xd::current_device();
  const xd::Stream before_stream = xd::current_stream(xd::cpu());
  EXPECT_TRUE(throws_exactly<xd::ValueError>([] { xd::StreamGuard g{xd::Stream()}; }, {null_stream("StreamGuard")}));
  EXPECT_EQ(xd::current_device(), before_device);
  EXPECT_EQ(xd::current_stream(xd::cpu()), before_stream);
}

TEST(NullStream, SetCurrentStreamThrowsAndChangesNothing) {
  const xd::Stream before = xd::current_stream(xd::cpu());
  EXPECT_TRUE(throws_exactly<xd::ValueError>([] { xd::set_current_stream(xd::Stream()); },
                                             {null_stream("set_current_stream")}));
  EXPECT_EQ(xd::current_stream(xd::cpu()), before);
}

TEST(NullStream, EventRecordAndBlockOnANullStreamAreValueErrors) {
  xd::Event e(xd::cpu());
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { e.record(xd::Stream()); }, {null_stream("Event::record")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { e.block(xd::Stream()); }, {null_stream("Event::block")}));
  e.record();  // the event is still usable
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { e.block(xd::Stream()); }, {null_stream("Event::block")}));
}

TEST(NullStream, RecordStreamOfATensorOnANullStreamIsAValueError) {
  const auto t = xd::full({4}, 1.0f, xd::Dtype::f32, xd::cpu());
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { t.record_stream(xd::Stream()); }, {null_stream("xd::Stream")}));
}

TEST(NullEvent, EveryMemberOfAMovedFromEventIsAValueErrorNamingIt) {
  xd::Event a(xd::cpu());
  const xd::Event b = std::move(a);
  EXPECT_EQ(b.device(), xd::cpu());
  const xd::Stream s = xd::current_stream(xd::cpu());
  // NOLINTBEGIN(bugprone-use-after-move): what this test is about
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { a.record(); }, {null_event("Event::record")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { a.record(s); }, {null_event("Event::record")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { a.block(s); }, {null_event("Event::block")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)a.query(); }, {null_event("Event::query")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { a.synchronize(); }, {null_event("Event::synchronize")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)a.device(); }, {null_event("Event::device")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)a.elapsed_ms(b); }, {null_event("Event::elapsed_ms")}));
  EXPECT_TRUE(throws_exactly<xd::ValueError>([&] { (void)b.elapsed_ms(a); },
                                             {null_event("Event::elapsed_ms (the end event)")}));
  // NOLINTEND(bugprone-use-after-move)
}

}  // namespace
