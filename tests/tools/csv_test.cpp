// tools/common/csv.hpp: the one CSV writer of the tools, quoting as RFC 4180 says.
#include "common/csv.hpp"

#include <gtest/gtest.h>

namespace {

using xd::cli::csv_field;
using xd::cli::csv_row;

TEST(Csv, PlainFieldsAreWrittenAsTheyAre) {
  EXPECT_EQ(csv_field("cpu.add_f32"), "cpu.add_f32");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("0.0123"), "0.0123");
  EXPECT_EQ(csv_field("a;b 'c'"), "a;b 'c'");  // only comma, quote, CR and LF need quotes
}

TEST(Csv, AFieldWithACommaQuoteOrLineBreakIsQuotedWithItsQuotesDoubled) {
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("line1\nline2"), "\"line1\nline2\"");
  EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(csv_field("error: bad shape [2, 3],\n\"x\""), "\"error: bad shape [2, 3],\n\"\"x\"\"\"");
}

TEST(Csv, ARowJoinsItsFieldsWithCommasAndEndsInALineFeed) {
  EXPECT_EQ(csv_row({"cpu", "add", "error: a, b", "", "say \"x\""}), "cpu,add,\"error: a, b\",,\"say \"\"x\"\"\"\n");
  EXPECT_EQ(csv_row({}), "\n");
  EXPECT_EQ(csv_row({"only"}), "only\n");
}

}  // namespace
