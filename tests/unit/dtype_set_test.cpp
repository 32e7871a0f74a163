// include/xd/dtype_set.hpp: one meaning per named set, shared by the core, plugins and tools.
#include <xd/dtype.hpp>
#include <xd/dtype_set.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using xd::Dtype;
namespace dtypes = xd::dtypes;

TEST(DtypeSet, NamedSetsHaveOneMeaningEach) {
  static_assert(dtypes::floating.contains(XD_DTYPE_F8E4M3FN));           // as torch.is_floating_point
  static_assert(!dtypes::compute_floating.contains(XD_DTYPE_F8E4M3FN));  // fp8 is storage only
  static_assert(!dtypes::integral.contains(XD_DTYPE_BOOL));
  static_assert(dtypes::numeric_bool.contains(XD_DTYPE_BOOL) && !dtypes::numeric.contains(XD_DTYPE_BOOL));
  EXPECT_EQ(dtypes::all.bits(), (1u << XD_DTYPE_COUNT_V1) - 1);
  EXPECT_EQ(dtypes::numeric, dtypes::compute_floating | dtypes::integral);
  EXPECT_TRUE(xd::is_floating(Dtype::f8e5m2));
  EXPECT_FALSE(xd::is_integral(Dtype::boolean));
}

TEST(DtypeSet, OutOfRangeValuesAreInNoSet) {
  EXPECT_FALSE(dtypes::all.contains(-1));
  EXPECT_FALSE(dtypes::all.contains(XD_DTYPE_COUNT_V1));
  EXPECT_FALSE(dtypes::all.contains(40));
  EXPECT_EQ(xd::dtype_size(99), 0);
  EXPECT_EQ(xd::dtype_tag(-1), nullptr);
}

TEST(DtypeSet, ForEachVisitsMembersInDtypeOrder) {
  std::vector<int> seen;
  (dtypes::fp8 | xd::DtypeSet{Dtype::f64}).for_each([&](xd_dtype d) { seen.push_back(d); });
  EXPECT_EQ(seen, (std::vector<int>{XD_DTYPE_F64, XD_DTYPE_F8E4M3FN, XD_DTYPE_F8E5M2}));
}

TEST(DtypeSet, SizesAndTagsMatchTheCore) {
  for (int d = 0; d < xd::kNumDtypes; ++d) {
    EXPECT_EQ(static_cast<size_t>(xd::dtype_size(d)), xd::itemsize(static_cast<Dtype>(d))) << d;
    EXPECT_NE(xd::dtype_tag(d), nullptr);
  }
  EXPECT_STREQ(xd::dtype_tag(XD_DTYPE_BOOL), "b8");
}

}  // namespace
