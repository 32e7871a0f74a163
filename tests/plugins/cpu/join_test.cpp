// cat and stack on the CPU backend against the definition written out here: out[.., o + i, ..] =
// tensors[j][.., i, ..] where o is the sum of the sizes before tensor j. Every dtype, each dim of
// 3-d tensors, strided and expanded inputs, empty pieces and PyTorch's legacy 1-d empty tensors.
// Bad arguments are in tests/unit/bad_inputs_model_test.cpp; the comparison with torch.cat and
// torch.stack is python/tests/test_model_ops.py.
#include "test_util.hpp"

namespace {

using namespace xdt;
using xd::Dtype;

// Row-major values of the concatenation of row-major `parts` (shapes `shapes`) along `dim`.
std::vector<double> cat_ref(const std::vector<std::vector<double>>& parts, const std::vector<Shape>& shapes, int dim) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= shapes[0][static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < shapes[0].size(); ++d) inner *= shapes[0][d];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o)
    for (size_t j = 0; j < parts.size(); ++j) {
      const int64_t block = shapes[j][static_cast<size_t>(dim)] * inner;
      out.insert(out.end(), parts[j].begin() + o * block, parts[j].begin() + (o + 1) * block);
    }
  return out;
}

TEST(Cat, JoinsEveryDtypeAlongEachDim) {
  for (Dtype d : {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::u8, Dtype::i32, Dtype::i64,
                  Dtype::boolean, Dtype::f8e4m3fn}) {
    for (int dim = 0; dim < 3; ++dim) {
      std::vector<Shape> shapes = {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}};
      shapes[1][static_cast<size_t>(dim)] = 1;
      shapes[2][static_cast<size_t>(dim)] = 0;  // an empty piece adds nothing
      std::vector<std::vector<double>> values;
      std::vector<xd::Tensor> tensors;
      for (size_t j = 0; j < shapes.size(); ++j) {
        values.push_back(
            random_values(static_cast<size_t>(numel_of(shapes[j])), 0, 9, d, 7 + static_cast<uint32_t>(j)));
        tensors.push_back(make(values.back(), shapes[j], d));
      }
      const xd::Tensor out = xd::cat(tensors, dim - 3);  // negative dims count from the end
      Shape expected_shape = shapes[0];
      expected_shape[static_cast<size_t>(dim)] += 1;
      EXPECT_EQ(shape_of(out), expected_shape) << trace(d) << " dim " << dim;
      EXPECT_EQ(out.dtype(), d);
      EXPECT_TRUE(all_equal(read(out), cat_ref(values, shapes, dim))) << trace(d) << " dim " << dim;
    }
  }
}

TEST(Cat, ReadsTransposedSlicedAndExpandedInputs) {
  const std::vector<double> a = random_values(12, -5, 5, Dtype::f32, 1);  // [4, 3], used transposed: [3, 4]
  const std::vector<double> b = random_values(24, -5, 5, Dtype::f32, 2);  // [3, 8], every second column
  const std::vector<double> c = random_values(4, -5, 5, Dtype::f32, 3);   // [1, 4] expanded to [3, 4]
  const xd::Tensor ta = make(a, {4, 3}, Dtype::f32).t();
  const xd::Tensor tb = make(b, {3, 8}, Dtype::f32).slice(1, 0, 8, 2);
  const xd::Tensor tc = make(c, {1, 4}, Dtype::f32).expand({3, 4});
  std::vector<double> va, vb, vc;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      va.push_back(a[static_cast<size_t>(j * 3 + i)]);
      vb.push_back(b[static_cast<size_t>(i * 8 + j * 2)]);
      vc.push_back(c[static_cast<size_t>(j)]);
    }
  const xd::Tensor out = xd::cat({ta, tb, tc}, 1);
  EXPECT_EQ(shape_of(out), (Shape{3, 12}));
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_TRUE(all_equal(read(out), cat_ref({va, vb, vc}, {{3, 4}, {3, 4}, {3, 4}}, 1)));
}

TEST(Cat, SkipsLegacyOneDimensionalEmptyTensorsAsPyTorchDoes) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6};
  const xd::Tensor x = make(v, {2, 3}, Dtype::f32);
  const xd::Tensor legacy = xd::empty({0}, Dtype::f32, dev());
  const xd::Tensor out = xd::cat({legacy, x, legacy, x}, 0);
  EXPECT_EQ(shape_of(out), (Shape{4, 3}));
  EXPECT_TRUE(all_equal(read(out), {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(shape_of(xd::cat({legacy, legacy})), (Shape{0}));
}

TEST(Cat, ResultIsANewTensorTheInputsStayUnchanged) {
  const xd::Tensor x = make({1, 2}, {2}, Dtype::f32);
  xd::Tensor out = xd::cat({x});
  out.copy_(make({7, 8}, {2}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(x), {1, 2}));
}

TEST(Stack, JoinsAlongANewDimAtEveryPosition) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
  const xd::Tensor ta = make(a, {2, 3}, Dtype::f32), tb = make(b, {2, 3}, Dtype::f32);
  EXPECT_EQ(shape_of(xd::stack({ta, tb})), (Shape{2, 2, 3}));
  EXPECT_TRUE(all_equal(read(xd::stack({ta, tb}, 0)), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_TRUE(all_equal(read(xd::stack({ta, tb}, 1)), {1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12}));
  EXPECT_TRUE(all_equal(read(xd::stack({ta, tb}, -1)), {1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12}));
  EXPECT_EQ(shape_of(xd::stack({ta, tb}, 2)), (Shape{2, 3, 2}));
  const xd::Tensor s = make({2.5}, {}, Dtype::f32);
  EXPECT_TRUE(all_equal(read(xd::stack({s, s, s})), {2.5, 2.5, 2.5}));
}

}  // namespace
